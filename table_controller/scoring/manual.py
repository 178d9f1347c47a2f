"""裁判计分: a win under a ruleset this engine has no scoring for (上海, 台湾, 福建, 武汉, 合肥, ...).

The seeds give those rulesets' walls and deals but not enough of their scoring to compute
(上海's 花 and 喇 with no payment rule, 海南's 番 as conditions with no values, ...), so no payment
is invented. A table running one still has wins to record: the hand is checked as far as the
ruleset's tiles allow (its tile set and hand size, no fifth copy, a winning shape: sets and a
pair, or seven pairs / 十三幺 for 13-tile hands, a wildcard standing for any tile), the ruleset's
门槛 are met (`[win_conditions]`, `conditions.py`: 内蒙 有刻, 开门, 幺九或箭刻), and the referee gives the points:

- `options.points`: what the discarder pays (a discard, 抢杠), or each other seat (自摸);
- `options.pays`: `{seat: amount}` paid to the winner, where the table's rule is other;
- `options.special`: the name of a special hand the ruleset allows whatever its shape (上海
  乱风向, 八花 ...): the shape is not checked, the name is recorded;
- `options.wildcard`: the 百搭 / 癞子 kind of the hand (福建, 武汉), turned up on the wall: only where the
  ruleset turns one up (`[indicators.baida]`, `[indicators.laizi]`), and only a kind it can make.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from functools import lru_cache
from typing import Any

from table_controller import tiles as T
from table_controller.scoring.conditions import for_ruleset, refusal
from table_controller.scoring.errors import ScoringError
from table_controller.scoring.hand import HandInput
from table_controller.scoring.points import collect
from table_controller.scoring.result import Fan, ScoreResult, refuse

#: The name a referee-scored win carries on the score sheet.
NAME = "裁判计分"
#: The most one seat may be asked to pay in one win (a typo guard, not a rule).
MOST = 100_000


def _ruleset(ruleset: str) -> Any:
    """The ruleset's file (`scoring.ruleset_file`); `unknown_ruleset` if there is none."""
    from table_controller.scoring import ruleset_file

    rs = ruleset_file(ruleset)
    if rs is None:
        raise ScoringError("unknown_ruleset", f"no ruleset {ruleset!r} in the rulesets folder", "ruleset")
    return rs


#: The indicators whose kind plays as any tile (福建 百搭, 武汉 癞子); 宝牌 (riichi) only scores.
WILD_INDICATORS = ("baida", "laizi")


def wildcard_kinds(rs: Any) -> frozenset[str]:
    """The kinds a turned-up tile can make the ruleset's 百搭 or 癞子 (walls.md: 武汉's never 红中); empty where the
    ruleset turns none up (台湾, 合肥, 内蒙 ...), so a wildcard named there is a slip, not a rule."""
    playing = [k for k in rs.tile_spec.kinds() if not rs.tile_spec.is_bonus(k)]
    return frozenset(made for rule in rs.indicators if rule.name in WILD_INDICATORS for k in playing
                     for made in rule.kinds(k, rs.tile_spec.ranks).values() if made is not None)


def _wildcard(hand: HandInput, rs: Any) -> str | None:
    """The hand's `options.wildcard`, refused (`bad_field`) where the ruleset has no such tile or cannot make it."""
    wildcard = hand.options.get("wildcard")
    if wildcard is None:
        return None
    field = "options.wildcard"
    if not isinstance(wildcard, str) or not T.is_tile(wildcard):
        raise ScoringError("bad_field", f"百搭、癞子须是一张牌的代码，不是 {wildcard!r} / the 百搭 or 癞子 is a tile code, "
                           f"not {wildcard!r}", field)
    kinds = wildcard_kinds(rs)
    if not kinds:
        raise ScoringError("bad_field", f"本规则没有百搭或癞子（{rs.name_zh}不翻牌作百搭），请删去 / {rs.id} turns up no "
                           f"wildcard: leave options.wildcard out", field)
    if wildcard not in kinds:
        name = "或".join(dict.fromkeys(r.name_zh for r in rs.indicators if r.name in WILD_INDICATORS))
        raise ScoringError("bad_field", f"{T.tile_name(wildcard)}不会是{name}（{rs.name_zh}翻出任何牌都不会以它为{name}）/ "
                           f"no turned-up tile makes {wildcard} the {rs.id} wildcard", field)
    return wildcard


def _size(rs: Any) -> int:
    """Tiles held before the win (13; 台湾 16)."""
    return min(rs.hand_sizes.values())


def score_json(data: Any, ruleset: str) -> dict[str, Any]:
    """JSON in, JSON out, as `scoring.score_json`; raises `ScoringError` for malformed input."""
    rs = _ruleset(ruleset)
    # flowers are the ruleset's bonus tiles, which may be honours (南京: 中发白 are 花)
    if not isinstance(data, dict):
        raise ScoringError("bad_field", "the hand must be a JSON object", "")
    flowers = data.get("flowers", [])
    if not isinstance(flowers, list) or not all(isinstance(f, str) and T.is_tile(f) for f in flowers):
        raise ScoringError("bad_field", "a list of tile codes", "flowers")
    if len(set(flowers)) != len(flowers):
        raise ScoringError("too_many_copies", "each flower is laid out once", "flowers")
    hand = HandInput.from_json({k: v for k, v in data.items() if k != "flowers"}, size=_size(rs))
    hand = replace(hand, flowers=tuple(flowers))
    _wildcard(hand, rs)
    return score(hand, ruleset, rs.tile_spec.kinds(), rs.tile_spec.is_bonus).to_json()


def ready_json(data: Any, ruleset: str) -> HandInput:
    """A ready hand (no `win_tile`) of the ruleset's size, from the scorer's JSON."""
    return HandInput.from_json(data, ready_only=True, size=_size(_ruleset(ruleset)))


def waits(hand: HandInput, ruleset: str) -> list[str]:
    """The kinds that make the ready `hand` a win the ruleset accepts (the points stay the referee's):
    a winning shape under its tiles, a wildcard (`options.wildcard`) standing for any tile, that meets
    its 门槛 (`[win_conditions]`; before, a 内蒙 hand without a pung listed waits its win then refused)."""
    rs = _ruleset(ruleset)
    playing = tuple(k for k in rs.tile_spec.kinds() if not rs.tile_spec.is_bonus(k))
    held = Counter(list(hand.concealed) + [t for m in hand.melds for t in m.tiles])
    wildcard = _wildcard(hand, rs)
    conditions = for_ruleset(ruleset)
    return [k for k in playing if held[k] < 4 and is_winning(hand.with_win(k), playing, wildcard)
            and refusal(hand.with_win(k), conditions, wildcard) is None]


def score(hand: HandInput, ruleset: str, kinds: tuple[str, ...], is_bonus: Any = T.is_flower) -> ScoreResult:
    """Check `hand` against the ruleset's tiles (`kinds`) and shape; pay the referee's points."""
    opts = hand.options
    wildcard = opts.get("wildcard")
    if wildcard is not None and (not isinstance(wildcard, str) or wildcard not in kinds or is_bonus(wildcard)):
        raise ScoringError("bad_field", f"百搭、癞子须是本规则的牌，不是 {wildcard!r} / the 百搭 or 癞子 is one of the "
                           f"ruleset's tiles, not {wildcard!r}", "options.wildcard")
    playing = [k for k in kinds if not is_bonus(k)]
    name = _name_zh(ruleset)
    for t in hand.all_tiles():
        if t not in playing:  # a tile, but not this ruleset's (东 in 合肥's 108): "not a tile code" misled
            raise ScoringError("bad_tile", f"{T.tile_name(t)}（{t}）不是{name}的牌 / {t} is not among this "
                               "ruleset's tiles", "concealed")
    for f in hand.flowers:
        if not is_bonus(f) or (T.is_flower(f) and f not in kinds):
            raise ScoringError("bad_tile", f"{T.tile_name(f)}（{f}）不是{name}的花牌 / {f} is not among this "
                               "ruleset's flowers", "flowers")
    special = opts.get("special")
    if special is not None and (not isinstance(special, str) or not special.strip() or len(special) > 20):
        raise ScoringError("bad_field", "the special hand's name, 1 to 20 characters", "options.special")
    if special is None and not is_winning(hand, tuple(playing), wildcard):
        return refuse(ruleset, "not_a_win", "不是和牌 / the tiles do not make a winning hand")
    missed = None if special is not None else refusal(hand, for_ruleset(ruleset), wildcard)
    if missed is not None:  # 门槛 (内蒙: 有刻, 开门, 幺九或箭刻), checked before the points are asked for
        return refuse(ruleset, *missed)
    payers = _payers(hand)
    if payers is None:
        return refuse(ruleset, "needs_points", f"本规则由裁判计分：请填写分数 / {ruleset} is scored by the referee: "
                      "give the points (options.points, or options.pays per seat)")
    total = sum(payers.values())
    name = f"{NAME}（{special.strip()}）" if special else NAME
    details: dict[str, Any] = {"referee_scored": True}
    if special:
        details["special"] = special.strip()
    return ScoreResult(True, ruleset, (Fan(name, total),), total, max(payers.values(), default=0),
                       collect(hand.winner, payers), details=details)


def _name_zh(ruleset: str) -> str:
    """The ruleset's Chinese name for a message (本规则 where its file is gone)."""
    from table_controller.scoring import ruleset_file

    rs = ruleset_file(ruleset)
    return str(rs.name_zh) if rs is not None else "本规则"


def _payers(hand: HandInput) -> dict[str, int] | None:
    """Who pays the winner how much, from `options.points` or `options.pays`; None if neither."""
    points, pays = hand.options.get("points"), hand.options.get("pays")
    if points is not None and pays is not None:
        raise ScoringError("bad_field", "give points or pays, not both", "options.pays")
    if points is not None:
        _amount(points, "options.points", low=1)
        if hand.self_drawn:
            return {s: points for s in hand.active if s != hand.winner}
        return {hand.paying_seat(): points}
    if pays is None:
        return None
    if not isinstance(pays, dict) or not pays:
        raise ScoringError("bad_field", 'seat -> amount paid to the winner, like {"E": 8}', "options.pays")
    out = {}
    for seat, amount in pays.items():
        if seat not in T.SEATS or seat == hand.winner:
            raise ScoringError("bad_field", f"a payer is another seat (E S W N), not {seat!r}", f"options.pays.{seat}")
        out[seat] = _amount(amount, f"options.pays.{seat}", low=0)
    if not any(out.values()):
        raise ScoringError("bad_field", "somebody pays the winner", "options.pays")
    return out


def _amount(value: Any, field: str, low: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= MOST:
        raise ScoringError("bad_field", f"a whole number {low}..{MOST}", field)
    return value


def is_winning(hand: HandInput, kinds: tuple[str, ...], wildcard: str | None = None) -> bool:
    """Sets and a pair (chows within a suit of the ruleset's ranks), or for a 13-tile hand seven
    pairs or 十三幺; a `wildcard` tile stands for any tile."""
    tiles = list(hand.concealed) + [hand.win_tile]
    wild = tiles.count(wildcard) if wildcard else 0
    plain = [t for t in tiles if t != wildcard]
    held = Counter(plain)
    counts = tuple(held.get(k, 0) for k in kinds)
    if _standard(counts, kinds, wild, (hand.size + 1) // 3 - len(hand.melds), True):
        return True
    if hand.size != 13 or hand.melds:
        return False
    singles = sum(n % 2 for n in held.values())
    if singles <= wild:  # seven pairs
        return True
    orphans = [k for k in kinds if T.is_honour(k) or (T.is_suited(k) and T.rank(k) in (1, max_rank(kinds)))]
    if len(orphans) == 13 and all(t in orphans for t in plain):
        missing = sum(1 for k in orphans if k not in held)
        return missing <= wild and sum(n - 1 for n in held.values()) <= 1
    return False


def max_rank(kinds: tuple[str, ...]) -> int:
    return max((T.rank(k) for k in kinds if T.is_suited(k)), default=9)


@lru_cache(maxsize=65536)
def _standard(counts: tuple[int, ...], kinds: tuple[str, ...], wild: int, sets: int, pair: bool) -> bool:
    """Whether `counts` over `kinds` (+ `wild` jokers) make `sets` sets and, if `pair`, a pair."""
    if sets < 0:
        return False
    i = next((k for k, c in enumerate(counts) if c), -1)
    if i < 0:  # only jokers left: whole sets and the pair of jokers
        return wild == 3 * sets + (2 if pair else 0)
    c = list(counts)

    def rest(new: list[int], used: int, s: int, p: bool) -> bool:
        return used <= wild and _standard(tuple(new), kinds, wild - used, s, p)

    if sets:
        have = min(c[i], 3)
        new = c.copy()
        new[i] -= have
        if rest(new, 3 - have, sets - 1, pair):
            return True
        if T.is_suited(kinds[i]):  # chows holding tile i as their lowest real tile (jokers below it)
            s, r, top = T.suit(kinds[i]), T.rank(kinds[i]), max_rank(kinds)
            for low in range(max(1, r - 2), r + 1):
                if low + 2 > top:
                    continue
                new, used = c.copy(), 0
                for rank in (low, low + 1, low + 2):
                    j = kinds.index(f"{rank}{s}")
                    if rank >= r and new[j]:
                        new[j] -= 1
                    else:
                        used += 1
                if rest(new, used, sets - 1, pair):
                    return True
    if pair:
        have = min(c[i], 2)
        new = c.copy()
        new[i] -= have
        if rest(new, 2 - have, sets, False):
            return True
    return False
