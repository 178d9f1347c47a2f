"""Which of the camera's readings the public may see named: tiles in a discard pool, flowers in the flower area;
not a hand laid down (a win, 查叫), which the projection keeps to the referee. Pure: the fold (`state`) and the
projection both read it."""

from __future__ import annotations

from typing import Any

from table_controller.tiles import is_flower, is_tile

#: The camera's zones whose tiles the public may see named: a discard lies face up in its pool for the hall, and a
#: flower in the flower area (`camera_zone_public`). In the meld and flower areas a seat lays its hand down on a win
#: and at 荒牌 (查叫), and the camera reads those tiles one by one (`camera.tile_appeared`, its questions, the
#: referee's rulings on them, what it learnt from them): named in public, they gave away the hands as read that the
#: projection keeps to the referee. The plays the camera's tiles become (a claim) carry their tiles in public anyway.
CAMERA_PUBLIC_ZONES = ("discard",)
CAMERA_FLOWER_ZONE = "flower"
#: Events whose data name a tile the camera saw (`kind`, and what it read it as; a refused play's `tiles`)
CAMERA_TILE_EVENTS = ("camera.tile_appeared", "camera.tile_turned", "camera.tile_removed", "camera.learned",
                      "camera.unlearned", "referee.camera_confirm", "referee.camera_dismiss", "camera.play_refused")
#: The plays seen by the camera whose tiles lie face up for the hall: a refused one of these is named in public; a
#: refused claim or kong may be tiles of a hand laid down in the meld area before the win was read
PLAYS_PUBLIC = ("play.discard", "play.flower")
#: What the public reads of a refused claim or kong the camera saw: who, not which tiles nor the record's reason
REFUSED_PUBLIC_FIELDS = ("play", "seat", "from")
CAMERA_KIND_FIELDS = ("kind", "read_as", "corrected")


def camera_zone_public(zone: Any, kinds: Any = ()) -> bool:
    """Whether tiles `kinds` the camera saw in `zone` ("meld:E", "discard:S" ...) may be named in public: in a
    discard pool, or flowers in the flower area (a hand's tile laid there is not)."""
    area = str(zone or "").partition(":")[0]
    if area in CAMERA_PUBLIC_ZONES:
        return True
    named = [k for k in kinds if k]
    return area == CAMERA_FLOWER_ZONE and bool(named) and all(
        isinstance(k, str) and is_tile(k) and is_flower(k) for k in named)


def camera_public(d: dict[str, Any]) -> dict[str, Any]:
    """A camera tile's reading (an event's data, a question, a ruling) as the public may see it: its tile named
    only where `camera_zone_public` allows (a ruling's event names no zone: never). A play the record refused
    (`camera.play_refused`, its `play`) is named whole only where it lies face up (`PLAYS_PUBLIC`)."""
    if "play" in d:
        return d if d.get("play") in PLAYS_PUBLIC else {k: v for k, v in d.items() if k in REFUSED_PUBLIC_FIELDS}
    if camera_zone_public(d.get("zone"), (d.get("kind"), d.get("read_as"))):
        return d
    return {k: v for k, v in d.items() if k not in CAMERA_KIND_FIELDS}
