"""An enrollment of another tile set than the table's (a venue that swapped sets, the wrong file):
every tile went to the referee and nothing said why. `tablectl check` and the camera's status now
say so (登记的牌样与桌上的牌不符，请重新登记), through the simulator's camera over real HTTP."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tablesim.scenes.camera import VirtualCamera, scene_source
from tablesim.scenes.render import SceneOptions, enrollment_layout, render_scene
from vision.kinds import FACE_KINDS
from vision.tileart import load_style


@pytest.fixture(scope="module")
def enrollments(tmp_path_factory, dorothys) -> dict[str, Path]:  # type: ignore[no-untyped-def]
    """The table's own set (dorothys) and another (kmahjongg jade), each enrolled from its layout."""
    from vision.reader import TileReader

    out = {}
    for name, faces in (("own", dorothys), ("other", load_style("kmahjongg-jade"))):
        reader = TileReader()
        frame = render_scene(faces, seed=21, opts=SceneOptions(), tiles=enrollment_layout(list(FACE_KINDS))).image
        path = tmp_path_factory.mktemp("enrolled") / f"{name}.npz"
        reader.enroll(frame, list(FACE_KINDS)).save(path)
        out[name] = path
    return out


def test_the_camera_says_the_enrollment_is_another_sets(enrollments, dorothys) -> None:
    from vision.camera import CameraStream
    from vision.enroll import Enrollment
    from vision.reader import TileReader
    from vision.service import VisionLoop

    with VirtualCamera(scene_source(dorothys, seed=2), fps=10) as cam:
        for name, expected in (("own", "ok"), ("other", "wrong_tiles")):
            loop = VisionLoop(CameraStream(cam.url), TileReader(enrollment=Enrollment.load(enrollments[name])))
            try:
                codes = []
                end = time.monotonic() + 60
                while len(codes) < 8 and time.monotonic() < end:
                    result = loop.step()
                    if result.readings:
                        codes.append(result.status.code)
            finally:
                loop.camera.close()
            assert codes[-1] == expected, (name, codes)
            if expected == "wrong_tiles":
                assert codes[:VisionLoop.UNLIKE_FRAMES - 1] == ["ok"] * (VisionLoop.UNLIKE_FRAMES - 1)
                message = result.status.to_json()
                assert message["message"].startswith("登记的牌样与桌上的牌不符，请重新登记") and not message["ok"]
                assert result.readings  # it still reads: the referee rules on what it asks meanwhile


def test_the_check_before_the_match_fails_an_enrollment_of_another_set(enrollments, dorothys, tmp_path) -> None:
    from table_controller.config import parse_config
    from table_controller.preflight import check_camera

    with VirtualCamera(scene_source(dorothys, seed=2), fps=10) as cam:
        def finding(name: str):  # type: ignore[no-untyped-def]
            config = parse_config({"camera": {"source": cam.url, "enrollment": str(enrollments[name])}},
                                  source=str(tmp_path / "table.toml"))
            return check_camera(config)

        other = finding("other")
        assert other.level == "fail" and "登记的牌样与桌上的牌不符" in other.detail, other
        assert "other.npz" in other.detail and "tablectl vision enroll" in other.detail
        own = finding("own")
        assert own.level == "ok", own
