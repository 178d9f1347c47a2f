"""How a ruleset's hand flows: claims allowed, winners per discard, 漏和, 血战/血流, 后4张必胡, 定缺, 跟庄."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping

from table_controller import tiles as T

Continue = Literal["end", "blood_battle", "blood_river"]
#: What `[flow] continue_after_win` may say: the hand ends at the first win, 血战 plays on without the winners, 血流 with
CONTINUES: tuple[str, ...] = ("end", "blood_battle", "blood_river")


@dataclass(frozen=True)
class FlowRules:
    """Typed options of the hand's flow, read from a ruleset's `[flow]` table."""

    ruleset: str
    chow: bool = True
    kong_after_chow: bool = True    # off (国标): "吃牌时，手中有杠牌，不能开杠。只能在下一次自己抓进牌后才能开杠"
    multiple_winners: bool = False  # 一炮多响; otherwise 截和: the first seat after the discarder
    missed_win: bool = False        # 漏和: a passed win locks that seat until it moves again
    missed_win_any: bool = False    # 过胡不胡: the lock bars a win on any discard, not only the tile passed
    continue_after_win: Continue = "end"
    must_win_last: int = 0          # 后N张必胡
    missing_suit: bool = False      # 定缺
    flowers: bool = True            # bonus tiles are laid out and replaced (补花): the ruleset's `[tiles]` has some
    extra_flowers: tuple[str, ...] = ()  # kinds laid out and replaced like flowers (南京: 中发白, `[tiles] extra_flowers`)
    baofu_claims: int = 0           # 竞技 包付: this many claims in a row from one feeder bind them
    chase: bool = False             # 竞技 追牌: four seats in a row discard the same tile
    follow_dealer: int = 0          # 广东 跟庄: go-arounds in which S, W, N following the dealer's discard make it pay
    baofu_hanging: bool = False     # 竞技 包付 2(2): record the tile a 全求独钓 seat hangs
    seal_pungs: int = 0             # 南宁 封胡: a seat that fed one seat this many pungs may not win
    furiten: bool = False           # 振听 (riichi): no ron on a wait among one's discards or let pass
    riichi: bool = False            # 立直 declarations keyed on the live table (riichi)

    @classmethod
    def from_table(cls, ruleset: str, table: Mapping[str, Any]) -> FlowRules:
        return cls(ruleset=ruleset, chow=not table.get("no_chow", False),
                   kong_after_chow=not table.get("no_kong_after_chow", False),
                   multiple_winners=bool(table.get("multiple_winners", False)),
                   missed_win=bool(table.get("missed_win", False)),
                   missed_win_any=bool(table.get("missed_win_any", False)),
                   continue_after_win=table.get("continue_after_win", "end"),
                   must_win_last=int(table.get("must_win_last", 0)),
                   missing_suit=bool(table.get("missing_suit", False)),
                   flowers=int(table.get("tiles", 144)) == 144,
                   baofu_claims=int(table.get("baofu_claims", 0)), chase=bool(table.get("chase", False)),
                   follow_dealer=int(table.get("follow_dealer", 0)),
                   baofu_hanging=bool(table.get("baofu_hanging", False)),
                   seal_pungs=int(table.get("seal_pungs", 0)), furiten=bool(table.get("furiten", False)),
                   riichi=bool(table.get("riichi_declarations", False)))

    @classmethod
    def for_ruleset(cls, ruleset: str) -> FlowRules:
        """The flow of a ruleset, from its `[flow]` table; its bonus tiles from its `[tiles]`, as the live record
        takes them (`TileSpec.is_bonus`): a file without `[flow] tiles` (福建, 武汉: 136, no flowers) was played
        with flowers, and 南京's 中发白 were discarded, not laid out."""
        from dataclasses import replace

        from table_controller.scoring import ruleset_file
        from table_controller.scoring.config import flow

        rules = cls.from_table(ruleset, flow(ruleset))
        rs = ruleset_file(ruleset)
        if rs is None:
            return rules
        spec = rs.tile_spec
        return replace(rules, flowers=bool(spec.flowers or spec.extra_flowers), extra_flowers=spec.extra_flowers)

    def is_bonus(self, tile: str) -> bool:
        """A tile laid out and replaced (补花), not discarded: a flower, or one of the ruleset's extra kinds."""
        return self.flowers and (T.is_flower(tile) or tile in self.extra_flowers)


def flow_problem(table: Mapping[str, Any]) -> str | None:
    """What a `[flow]` table says in words the flow does not know, or None. Read where a table's config is
    (`scoring.check_tables`): a misspelt `continue_after_win` ("blood_rivers") was played as 血战 by some
    parts and 血流 by others, a misspelt `abortive_draws` kind was dropped, and either only at the table."""
    from table_controller.hand.abortive import KINDS

    mode = table.get("continue_after_win", "end")
    if mode not in CONTINUES:
        return f"[flow] continue_after_win must be one of {', '.join(CONTINUES)}, not {mode!r}"
    raw = table.get("abortive_draws", ())
    listed = raw if isinstance(raw, (list, tuple)) else ()
    unknown = [k for k in listed if k not in KINDS]
    if not isinstance(raw, (list, tuple)) or unknown:
        return f"[flow] abortive_draws lists {unknown or raw!r}: the kinds are {', '.join(KINDS)}"
    return None
