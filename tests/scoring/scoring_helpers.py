"""What the scoring tests share: a hand in `tablectl score`'s input schema from a few words."""

from __future__ import annotations

from typing import Any


def hand(concealed: str, win_tile: str, win: str = "self_draw", seat: str = "E", **over: Any) -> dict[str, Any]:
    """A hand with no melds in an east round; a discard (or robbed kong) comes from N, or W for N."""
    data: dict[str, Any] = {"seat_wind": seat, "prevalent_wind": "E", "concealed": concealed, "melds": [],
                            "win_tile": win_tile, "win": win}
    if win in ("discard", "rob_kong"):
        data["discarder"] = "N" if seat != "N" else "W"
    data.update(over)
    return data
