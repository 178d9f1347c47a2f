"""门槛: conditions a win must meet whatever it is worth (内蒙: 有刻, 开门, 幺九或箭刻; 合肥: 八枝; 武汉: 开口,
红中不在手, 癞子不作吃碰杠), named by a ruleset in
`[win_conditions] require`. Each is a small check whose docstring is the rule, registered under its Chinese
name, so a ruleset with such conditions is data; a win that misses one is refused with its reason."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from table_controller import tiles as T
from table_controller.scoring.errors import ScoringError
from table_controller.scoring.hand import HandInput
from table_controller.scoring.registry import View
from table_controller.scoring.shapes import ORPHANS, readings

DRAGONS = frozenset({"5z", "6z", "7z"})
SUITED_TERMINALS = frozenset({"1m", "9m", "1p", "9p", "1s", "9s"})
RED_DRAGON = "7z"  # 红中 (5z 白, 6z 发)


@dataclass(frozen=True)
class Condition:
    """A 门槛: its Chinese name, the stable `reason` of a refusal, what a referee reads, and the check."""

    name: str
    reason: str
    message: str
    check: Callable[[View], bool]

    @property
    def rule(self) -> str:
        return " ".join((self.check.__doc__ or "").split())


#: Every condition a ruleset may require, by name.
CONDITIONS: dict[str, Condition] = {}


def condition(name: str, reason: str, message: str) -> Callable[[Callable[[View], bool]], Callable[[View], bool]]:
    """Register a check under `name` (a decorator)."""

    def register(check: Callable[[View], bool]) -> Callable[[View], bool]:
        CONDITIONS[name] = Condition(name, reason, message, check)
        return check

    return register


@condition("有刻", "no_pung", "须有碰或杠（手里的暗刻、暗杠也算）/ needs a pung or kong (concealed counts)")
def has_pung(v: View) -> bool:
    """必须有碰或杠才可以，也可以自己手里有 (seed 004 内蒙): a pung or kong, claimed or concealed."""
    return any(g.type in ("pung", "kong") for g in v.groups)


@condition("开门", "not_opened", "须开门（吃上家的牌或碰别人的牌）/ the hand must be opened: a chow or pung claimed")
def opened(v: View) -> bool:
    """必须要开门，就是要吃上家的牌或者碰别人的牌 (seed 004 内蒙): a chow, pung or kong claimed from another
    seat before the win (a concealed kong does not open the hand; the winning discard does not either)."""
    return any(not m.concealed for m in v.hand.melds)


@condition("幺九或箭刻", "no_terminal", "须有幺九（一、九或字牌）或箭刻 / needs a terminal or honour, or a dragon pung")
def terminal_or_dragon_pung(v: View) -> bool:
    """必须有幺九或箭刻 (seed 004 内蒙): a 幺九牌 anywhere in the hand ("序数牌中的一、九及字牌", seed 001
    基本术语 十六), or a pung or kong of 中发白."""
    return any(t in ORPHANS for t in v.faces) or any(g.is_set and g.kind in DRAGONS for g in v.groups)


@condition("一九或箭刻", "no_terminal", "须有一九（序数牌一、九）或箭刻 / needs a suited 1 or 9, or a dragon pung")
def suited_terminal_or_dragon_pung(v: View) -> bool:
    """必须有幺九或箭刻, 幺九 read as the suits' 一 and 九 only (winds do not count): a 1 or 9 of a suit
    anywhere in the hand, or a pung or kong of 中发白."""
    return any(t in SUITED_TERMINALS for t in v.faces) or any(g.is_set and g.kind in DRAGONS for g in v.groups)


@condition("八枝", "no_eight_of_a_suit", "须有八枝（一门八张以上）/ needs eight or more tiles of one suit")
def eight_of_a_suit(v: View) -> bool:
    """八枝：和牌时需要一门有八张以上 (seed 004 合肥; seed 003 "胡牌时需要一门有八张以上"): eight or more
    tiles of one suit among the winning hand's, melds included (a kong's four)."""
    return any(sum(1 for t in v.faces if T.is_suited(t) and T.suit(t) == s) >= 8 for s in v.suits)


@condition("开口", "not_opened", "须开口（碰、吃或杠）/ the hand must be opened: a pung, chow or kong laid down")
def opened_any(v: View) -> bool:
    """武汉的讲究开口（即碰，吃，杠），不开口不能胡 (seed 004 武汉): a pung, chow or kong laid down before the win;
    the seed names 杠 without 明 or 暗, so a concealed kong opens the hand too (`开门` is the narrower 内蒙 reading)."""
    return bool(v.hand.melds)


@condition("红中不在手", "red_dragon_held", "红中留在手上不能胡 / no win while holding 红中")
def no_red_dragon_held(v: View) -> bool:
    """红中留在手上不能胡 (seed 004 武汉): no 红中 among the concealed tiles or the winning tile."""
    return RED_DRAGON not in v.hand.concealed and v.hand.win_tile != RED_DRAGON


@condition("癞子不作吃碰杠", "laizi_as_plain",
           "癞子不能用来吃、碰、杠，打出的癞子不能和 / the 癞子 is never in a chow, pung or kong, nor won on when discarded")
def laizi_not_plain(v: View) -> bool:
    """持有或打出的癞子不能当普通牌来叫牌，即自己不能用来吃碰杠，打出去别人也不能用来吃碰杠胡 (seed 004 武汉, 癞子 3): no
    meld laid down holds the 癞子 kind (`options.wildcard`), and the win is not on a 癞子 another seat gave (a
    discard, a robbed kong); a 癞子 drawn or held stands for any tile. Without a 癞子 named it holds."""
    if v.wildcard is None:
        return True
    claimed = not v.hand.self_drawn and v.hand.win_tile == v.wildcard
    return not claimed and all(v.wildcard not in m.tiles for m in v.hand.melds)


def required(table: Mapping[str, Any] | None, ruleset: str = "") -> tuple[Condition, ...]:
    """The conditions a ruleset's `[win_conditions]` table requires; a name not registered here is refused
    (a typo must not let every win through)."""
    if not table:
        return ()
    names = table.get("require", [])
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise ScoringError("bad_ruleset_table", f"[win_conditions] require of {ruleset} is a list of names", "ruleset")
    out = []
    for name in names:
        if name not in CONDITIONS:
            near = difflib.get_close_matches(name, list(CONDITIONS), n=1, cutoff=0.5)  # names of 2 to 5 characters
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise ScoringError("bad_ruleset_table", f"[win_conditions] require of {ruleset} names no condition "
                               f"{name!r}{hint}; known: {', '.join(CONDITIONS)}", "ruleset")
        out.append(CONDITIONS[name])
    return tuple(out)


def refusal(hand: HandInput, conditions: tuple[Condition, ...],
            wildcard: str | None = None) -> tuple[str, str] | None:
    """None when one reading of the winning hand meets every condition (a 111222333 held may be read as
    pungs); else `(reason, message)` of the first condition missed by the reading that misses fewest."""
    if not conditions:
        return None
    closest: list[Condition] | None = None
    for shape in readings(hand, wildcard):
        view = View(hand, shape, wildcard)
        missed = [c for c in conditions if not c.check(view)]
        if not missed:
            return None
        if closest is None or len(missed) < len(closest):
            closest = missed
    if closest is None:  # no winning shape: the scorer's own verdict (not_a_win) says so
        return None
    first = closest[0]
    return first.reason, f"不够和牌条件（{first.name}）：{first.message}"


def rows(conditions: tuple[Condition, ...]) -> list[dict[str, Any]]:
    """The fan table's rows for the conditions (value 0: they are worth nothing, a win needs them)."""
    return [{"name": f"门槛：{c.name}", "value": 0, "rule": c.rule} for c in conditions]


def for_ruleset(ruleset: str) -> tuple[Condition, ...]:
    """The conditions of a ruleset's file (`[win_conditions]`, a house ruleset's merged over its base's)."""
    from table_controller.scoring import ruleset_file

    rs = ruleset_file(ruleset)
    return required(rs.sections.get("win_conditions") if rs is not None else None, ruleset)
