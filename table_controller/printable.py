"""Which characters no player's name, registration number, referee's or organiser's reason holds, wherever it is typed.

A name pasted with a zero-width space looks like another's ("甲\u200b" beside "甲": two players to the
standings), a line break splits a text record's line, U+202E turns the rest of its line round. The table's
requests (`web.app`) and the hub's (the registration list, a stand-in, a decision's reason) refuse the same."""

from __future__ import annotations

import unicodedata

#: Unicode categories refused: controls (a line break, a NUL), format characters (zero-width spaces and
#: joiners, a BOM, right-to-left overrides), line and paragraph separators
UNPRINTABLE = ("Cc", "Cf", "Zl", "Zp")


def first_unprintable(value: str, allowed: str = "") -> tuple[int, str] | None:
    """(its position from 1, `U+XXXX`) of the first character of `value` in `UNPRINTABLE` and not in `allowed`
    (a player's written appeal keeps its line breaks), or None."""
    for i, c in enumerate(value, start=1):
        if unicodedata.category(c) in UNPRINTABLE and c not in allowed:
            return i, f"U+{ord(c):04X}"
    return None
