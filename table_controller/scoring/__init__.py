"""Scoring engine: fans, totals and payments per ruleset (mcr, jingji, sichuan/xueliu, tuidaohu/jipinghu, nanning)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from table_controller import tiles as T

from table_controller.scoring.config import scored, scored_rulesets, scoring
from table_controller.scoring.rulesets import engine_hook
from table_controller.scoring.errors import ScoringError
from table_controller.scoring.hand import HandInput, Meld
from table_controller.scoring.result import Fan, ScoreResult

__all__ = ["Fan", "HandInput", "Meld", "ScoreResult", "ScoringError",
           "chase_payment", "check_tables", "exhaustive_settlement", "false_win",
           "follow_payment", "kong_payment", "referee_scored",
           "score", "score_json",
           "scored", "scored_rulesets", "win_options"]


def score(hand: HandInput, ruleset: str) -> ScoreResult:
    """Score a winning hand under a ruleset; raises `ScoringError` for an unknown ruleset."""
    from table_controller.scoring.rulesets import module_for

    tables = scoring(ruleset)  # an unknown ruleset is named first
    _check_tiles(hand, ruleset)
    result: ScoreResult = module_for(ruleset).score(hand, tables)
    if result.valid:  # 门槛 a ruleset's file names (`[win_conditions]`), whatever the win is worth
        from table_controller.scoring.conditions import for_ruleset, refusal

        missed = refusal(hand, for_ruleset(ruleset), hand.options.get("wildcard"))
        if missed is not None:
            from table_controller.scoring.result import refuse

            return refuse(result.ruleset, *missed, fans=result.fans, total=result.total)
    return result


def _check_tiles(hand: HandInput, ruleset: str) -> None:
    """Every tile is one the ruleset plays with: a 十万 ten or an honour under 四川 is named here,
    not met as a crash deep in a scorer (before: "无法处理此操作: KeyError '10m'")."""
    from table_controller import tiles as T

    rs, kinds = ruleset_tiles(ruleset)  # parsing the TOML at each score was most of a played hand's CPU
    if rs is None:
        return
    groups = [("concealed", hand.concealed), ("win_tile", (hand.win_tile,)), ("flowers", hand.flowers),
              *((f"melds[{i}]", m.tiles) for i, m in enumerate(hand.melds))]
    for where, tiles in groups:
        for tile in tiles:
            if tile != T.BACK and tile not in kinds:
                raise ScoringError("bad_tile", f"{T.tile_name(tile)} ({tile}) 不是{rs.name_zh}的牌 / "
                                               f"not a tile of {ruleset}", where)
    if hand.win == "flower_replacement" and not any(T.is_flower(k) for k in kinds):
        raise ScoringError("bad_field", f"{rs.name_zh}没有花牌, 不能补花和 / {ruleset} plays without flowers: "
                                        "no 补花和 (flower_replacement)", "win")
    if hand.win == "flower_replacement" and not hand.flowers:  # the flower laid out is what was replaced
        raise ScoringError("bad_field", "补花和须有亮出的花牌（flowers）/ a 补花和 (flower_replacement) needs the "
                                        "flower laid out (flowers)", "win")


def _kinds(ruleset: str, directory: str) -> tuple[Any | None, frozenset[str]]:
    try:
        return _kinds_read(ruleset, directory)
    except Exception:  # RulesetError: unknown id or a broken file; not kept (`_ruleset_file`)
        return None, frozenset()


@lru_cache(maxsize=64)
def _kinds_read(ruleset: str, directory: str) -> tuple[Any, frozenset[str]]:
    from table_controller.rules.ruleset import in_use

    rs = in_use(ruleset, directory)
    return rs, frozenset(rs.tile_spec.kinds())


def ruleset_tiles(ruleset: str) -> tuple[Any | None, frozenset[str]]:
    """(the ruleset as loaded from its file, the kinds of tile it plays with), read once per
    rulesets folder; (None, empty) for an unknown id or a broken file."""
    from table_controller.rules.ruleset import folder

    return _kinds(ruleset, folder())


def score_json(data: Any, ruleset: str) -> dict[str, Any]:
    """JSON in, JSON out (docs/scoring.md); raises `ScoringError` for malformed input. A ruleset
    with walls but no scoring here is scored by the referee (`manual`: 裁判计分)."""
    if referee_scored(ruleset):
        from table_controller.scoring import manual

        return manual.score_json(data, ruleset)
    scoring(ruleset)  # an unknown ruleset is named before the hand is read
    return score(HandInput.from_json(data), ruleset).to_json()


def ruleset_file(ruleset: str) -> Any | None:
    """The ruleset as loaded from its file, read once per rulesets folder (`rules.ruleset.in_use`, the read every
    part of the table takes); None for an unknown id or a broken file (named where the table is configured)."""
    from table_controller.rules.ruleset import folder

    return _ruleset_file(ruleset, folder())


def _ruleset_file(ruleset: str, directory: str) -> Any | None:
    """`in_use`'s read (which keeps a file that reads), None for one that does not: that None is not kept, or a
    house file saved with a typo stayed unknown to the process (UnknownRuleset, no tile check) after it was put right."""
    from table_controller.rules.ruleset import in_use

    try:
        return in_use(ruleset, directory)
    except Exception:  # RulesetError: unknown id or a broken file
        return None


def check_tables(ruleset: str) -> None:
    """Refuse, when a table's ruleset is chosen, what its scoring tables name that the scorer does not
    know (a house file's `[scoring.fans] 清一sè = 2`), rather than at the match's first win. MCR's fans
    come from pymahjonggb and riichi's yaku from code: their tables name none."""
    from table_controller.scoring.common import NAME_TABLES, check_names
    from table_controller.scoring.rulesets import module_for

    from table_controller.scoring.conditions import for_ruleset

    for_ruleset(ruleset)  # a 门槛 name the engine does not know
    from table_controller.hand.match import match_problem
    from table_controller.hand.rules import flow_problem
    from table_controller.scoring.config import flow, match

    problem = flow_problem(flow(ruleset)) or match_problem(match(ruleset))  # a word the hand or session does not know
    if problem:
        raise ScoringError("bad_ruleset_table", f"{problem} ({ruleset})", "ruleset")
    if not scored(ruleset):
        return
    module = module_for(ruleset)
    if getattr(module, "CHOWS", True) is False and not flow(ruleset).get("no_chow", False):
        # the live record would take chows whose every win the scorer then refuses (bad_meld)
        raise ScoringError("bad_ruleset_table", f"{ruleset}: 不能吃牌，[flow] no_chow 须为 true / its scorer takes no "
                           "hand holding a chow: [flow] no_chow must stay true", "ruleset")
    min_fan = scoring(ruleset).get("min_fan")
    if min_fan is not None and (isinstance(min_fan, bool) or not isinstance(min_fan, int) or min_fan < 0):
        raise ScoringError("bad_ruleset_table", f"{ruleset}: [scoring] min_fan 须为不小于 0 的整数，不是 {min_fan!r} / "
                           "must be a whole number of fans, 0 or more", "ruleset")
    registry = getattr(module, "REGISTRY", None)
    # a name table the scorer never reads changes nothing: MCR's 81 fans are pymahjonggb's, riichi's yaku code,
    # 南宁 counts by patterns and ways; a house file's `[scoring.fans] "清一色" = 30` loaded there without a word
    reads = getattr(module, "TABLES_READ", ("fans", "excludes") if registry is not None else ())
    unread = [k for k in NAME_TABLES if scoring(ruleset).get(k) and k not in reads]
    if unread:
        listed = "、".join(f"[scoring.{k}]" for k in unread)
        raise ScoringError("bad_ruleset_table", f"{ruleset}: {listed} 不起作用，此规则的计分不读它 / its scorer does not "
                           f"read {listed}" + (f" (it reads {', '.join(reads)})" if reads else "") + ": take it out",
                           "ruleset")
    if registry is not None:
        check_names(scoring(ruleset), registry)
    own = getattr(module, "check_table", None)  # a module's own values (河北's 基点 among 1, 2, 3)
    if own is not None:
        own(scoring(ruleset))


def referee_scored(ruleset: str) -> bool:
    """Whether the table may run `ruleset` but the points of its wins come from the referee
    (a ruleset file with no scoring here: `manual`)."""
    return not scored(ruleset) and ruleset_file(ruleset) is not None


def win_options(ruleset: str) -> list[str]:
    """The options of a win read that only the referee can give (neither the play record nor the
    camera knows them), for the Win page: `points` and `special` where the referee scores the
    ruleset (裁判计分), `wildcard` where a 鬼牌 / 百搭 / 癞子 may be played, `horses` where the 买马
    tiles turned up at the end change the payments (推倒胡) and `horse_origin` where a discard may have several
    winners (一炮多响: they count from the discarder), `first_turn` where 天胡 / 地胡 score. An
    engine module whose scorer reads other options gives its own list instead (`win_options(table)`: riichi's
    立直, 一发, 宝牌 / 里宝牌 indicators and 本场), so a venue's copy under its own id asks for them too."""
    if referee_scored(ruleset):  # the wildcard only where a 百搭 or 癞子 is turned up (福建, 武汉)
        from table_controller.scoring.manual import wildcard_kinds

        return ["points", "special"] + (["wildcard"] if wildcard_kinds(ruleset_file(ruleset)) else [])
    rs = ruleset_file(ruleset)
    if not scored(ruleset) or rs is None:
        return []
    table = scoring(ruleset)
    own = engine_hook(ruleset, "win_options")
    if own is not None:
        given: list[str] = own(table)
        return given
    out = ["wildcard"] if table.get("wildcard") else []
    end = rs.hand_end
    if end is not None and end.kind == "horses":
        out.append("horses")
        from table_controller.scoring.config import flow

        if flow(ruleset).get("multiple_winners"):
            out.append("horse_origin")  # 一炮多响: the horses count from the discarder (seed 001 买马)
    if any(isinstance(t, Mapping) and "天胡" in t for t in table.values()):
        out.append("first_turn")  # 天胡 / 地胡: a record kept in part cannot tell the first go-round
    return out


def kong_payment(ruleset: str, note: Mapping[str, Any], active: tuple[str, ...] | None = None) -> dict[str, int] | None:
    """The on-the-spot payment of a kong (the hand machine's `kong` note), or None where the
    ruleset pays kongs only as fans (MCR).

    `note` carries `seat`, `kind` (`exposed` from a discard, `added` 补杠, `concealed` 暗杠,
    `flower` 竞技 花杠) and, for an exposed kong, `discarder`; `double` (竞技 倍打) doubles it;
    `active` (四川) the seats still playing. The engine module pays it (`pay_kong(note, active, table)`);
    one without that hook pays kongs on the spot never (None).
    """
    table = scoring(ruleset)
    kind = note["kind"]
    if kind not in ("exposed", "added", "concealed", "flower"):
        raise ScoringError("bad_field", f"a kong is exposed, added, concealed or flower, not {kind!r}", "kind")
    if kind == "exposed" and note.get("discarder") is None:
        raise ScoringError("bad_field", "an exposed kong names its discarder", "discarder")
    pay = engine_hook(ruleset, "pay_kong")
    if pay is None:
        return None
    given: dict[str, int] | None = pay(note, tuple(active or T.SEATS), table)
    return given


def chase_payment(ruleset: str, first: str, double: bool = False) -> dict[str, int] | None:
    """追牌现场汇 (竞技, seed 004 三十七: four seats in a row discard one tile, `[flow] chase`): what `first`, the
    first of them, pays on the spot, `double` under 倍打. The engine module pays it with the ruleset's own table
    (`pay_chase(first, double, table)`); one without that hook pays none (None)."""
    return _paid_on_the_spot(ruleset, "pay_chase", first, "first", double)


def follow_payment(ruleset: str, dealer: str = "E") -> dict[str, int] | None:
    """跟庄 (广东, `[flow] follow_dealer`): the three others followed the dealer's discard with the same tile; what
    the dealer pays on the spot, from the engine module's `pay_follow(dealer, table)`; None where it has none."""
    return _paid_on_the_spot(ruleset, "pay_follow", dealer, "dealer")


def _paid_on_the_spot(ruleset: str, hook: str, seat: str, field: str, *more: Any) -> dict[str, int] | None:
    """What the engine module's `hook(seat, *more, table)` pays on the spot; None where it has no such hook."""
    table = scoring(ruleset)
    if seat not in T.SEATS:
        raise ScoringError("bad_field", f"must be a seat E S W N, not {seat!r}", field)
    pay = engine_hook(ruleset, hook)
    if pay is None:
        return None
    given: dict[str, int] = pay(seat, *more, table)
    return given


def exhaustive_settlement(ruleset: str, hands: Mapping[str, Any],
                          kongs: Sequence[Mapping[str, int]] = ()) -> dict[str, Any] | None:
    """荒牌 payments among the seats still playing (四川 查花猪, 查大叫, 退税; riichi 不听罚符), or
    None where 荒庄 pays nothing. `hands`: seat → the 13-tile JSON of each (`hand.ready_json`); `kongs`: the
    hand's 刮风下雨 payments (`kong_payment` of each `kong` note), for 退税. The engine module settles it
    (`settle_draw(hands, kongs, table)`); one without that hook settles nothing (None)."""
    table = scoring(ruleset)
    settle = engine_hook(ruleset, "settle_draw")
    if settle is None:
        return None
    settled: dict[str, Any] | None = settle(hands, kongs, table)
    return settled


def false_win(ruleset: str, seat: str, *, amount: int | None = None, victim: str | None = None,
              fan: int | None = None, active: Sequence[str] | None = None, double: bool = False) -> dict[str, int]:
    """The payments of a 诈和/错和 by `seat`, where the ruleset's rule text states them: the engine
    module's `pay_false_win(seat, table, amount=, victim=, fan=, active=, double=)`, which takes what its
    rule needs and raises `bad_field` naming a missing one.

    - `mcr`: 10 to each other seat (`mcr.false_win`);
    - `jingji`: the referee's 罚分 `amount` (10..50 in tens), dead or to `victim`; `double` 倍打
      (`jingji.false_win`, seed 004 二十七, 三十八 6);
    - `sichuan`/`xueliu`: what the declared hand (`fan` 番) would have won, to each seat still
      playing (`active`) (`sichuan.false_win`, seed 003).
    A module without the hook raises `ScoringError("no_false_win_rule")`: `tuidaohu`/`jipinghu`'s seed 001
    defines 诈和 ("三十一、诈和 不符合《规则》规定条件而宣布和牌") but states no payment, so none is invented;
    the referee's penalty catalogue applies.
    """
    table = scoring(ruleset)
    if seat not in T.SEATS:
        raise ScoringError("bad_field", f"must be a seat E S W N, not {seat!r}", "seat")
    pay = engine_hook(ruleset, "pay_false_win")
    if pay is None:
        raise ScoringError("no_false_win_rule", f"{ruleset} 的规则未定诈和罚分，按裁判罚则处理 / the {ruleset} rule "
                           "text states no 诈和 payment; use the referee's penalty", "ruleset")
    paid: dict[str, int] = pay(seat, table, amount=amount, victim=victim, fan=fan, active=active, double=double)
    return paid
