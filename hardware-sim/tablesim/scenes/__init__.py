"""Camera scenes for the simulator: labelled table frames rendered from tile art, and a virtual MJPEG camera."""

from tablesim.scenes.render import Scene, SceneOptions, enrollment_layout, render_scene, render_single_tile

__all__ = ["Scene", "SceneOptions", "enrollment_layout", "render_scene", "render_single_tile"]
