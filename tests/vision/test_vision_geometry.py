"""Kinds, Chinese names, seats and zones on the table plane."""

from __future__ import annotations

import numpy as np
import pytest

from vision.geometry import SEAT_ROTATION, SEATS, TABLE_MM, PlacedTile, plane_to_seat, seat_to_plane, zone_of
from vision.kinds import FACE_KINDS, KINDS, chinese_name, max_copies


def test_kinds_are_the_glossary_codes() -> None:
    assert len(FACE_KINDS) == 42 and KINDS[-1] == "back"
    assert chinese_name("5m") == "五万" and chinese_name("6z") == "发" and chinese_name("5f") == "梅"
    assert max_copies("3p") == 4 and max_copies("7f") == 1
    with pytest.raises(ValueError):
        chinese_name("10z")


@pytest.mark.parametrize("seat", SEATS)
def test_seat_frame_round_trip(seat: str) -> None:
    x, y = seat_to_plane(seat, 200.0, 100.0)
    s, u, v = plane_to_seat(x, y)
    assert (s, round(u, 6), round(v, 6)) == (seat, 200.0, 100.0)


def test_zones_per_seat() -> None:
    assert zone_of(*seat_to_plane("E", 600, 80)) == "meld:E"
    assert zone_of(*seat_to_plane("S", 150, 80)) == "flower:S"
    assert zone_of(*seat_to_plane("W", 400, 200)) == "discard:W"
    assert zone_of(TABLE_MM / 2, TABLE_MM / 2) == "centre"


def test_placed_tile_corner_zero_is_its_top_left() -> None:
    up = PlacedTile("1m", 100, 100, 0).quad_mm()
    assert up[0][0] < up[1][0] and up[0][1] < up[2][1]  # top-left, then clockwise
    left = PlacedTile("1m", 100, 100, SEAT_ROTATION["S"]).quad_mm()
    # upright for S, the tile's top points left: its top edge is the left side
    assert np.allclose(left[[0, 1]].mean(axis=0)[0], 100 - 20)


def test_what_the_display_shows_of_a_calibration_is_chinese_first(dorothys) -> None:
    """The camera status's `problem` goes to the referee's display and the hub as it is. Before,
    hidden markers were English only ("saw 2 of the 4 corner markers…") and another resolution
    English first."""
    import numpy as np

    from tablesim.scenes.render import SceneOptions, render_scene
    from vision.calibrate import CalibrationError, calibrate_aruco

    frame = render_scene(dorothys, seed=3, opts=SceneOptions(tiles=4)).image
    hidden = frame.copy()
    hidden[:, : frame.shape[1] // 2] = (40, 110, 40)  # a sleeve over the two left markers
    said = []
    for attempt in (lambda: calibrate_aruco(hidden),
                    lambda: calibrate_aruco(frame).for_frame(np.zeros((100, 300, 3), np.uint8))):
        try:
            attempt()
        except CalibrationError as exc:
            said.append(str(exc))
    assert len(said) == 2 and all("\u4e00" <= text[0] <= "\u9fff" and " / " in text for text in said), said
    assert said[0].startswith("只看到") and "corner markers" in said[0]
