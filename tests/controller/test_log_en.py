"""The log's lines in English (`log_en.describe_en`) beside the Chinese (`state.describe`): every event type the
service logs that has a Chinese line has an English one, with no Chinese in it but what it was given."""

from __future__ import annotations

import re

from table_controller.log_en import describe_en
from table_controller.state import describe
from table_controller.store import Event
from tests.docs.test_event_types import _logged  # the types read from the code, as the docs' test reads them

CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def test_every_logged_type_with_a_chinese_line_has_an_english_one() -> None:
    """Before, the English pages' log and the overlay's last play were the Chinese line (东家打出 九筒)."""
    missing, chinese = [], []
    for kind in sorted(_logged()):
        ev = Event(7, 0.0, kind.split(".")[0], kind, {"seat": "E", "wind": "S", "dice": [3, 4], "button": "dice",
                                                       "phase": "walls_raised", "code": 1, "reason": "unplugged"})
        if describe(ev) == kind:
            continue  # no line of its own in Chinese either
        said = describe_en(ev)
        if said == kind:
            missing.append(kind)
        elif CJK.search(said):
            chinese.append((kind, said))
    assert not missing and not chinese, (missing, chinese)


def test_a_concealed_kong_is_named_by_no_tile_in_either_language() -> None:
    ev = Event(9, 0.0, "operator", "play.kong", {"seat": "W", "tiles": ["7s"] * 4, "concealed": True})
    assert (describe(ev), describe_en(ev)) == ("西家暗杠", "W concealed kong")
