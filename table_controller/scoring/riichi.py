"""日本麻将 (riichi) scoring: yaku, han, fu and points from the `mahjong` library, payments here.

The seeds give riichi's walls and its 宝牌 indicators (seed 003), not its scoring; the scoring is
the standard one as the `mahjong` package computes it (the reference most riichi tools agree
with), as `pymahjonggb` is MCR's. This module translates the table's hand into the library's
arguments and the library's cost into who pays whom.

What only the referee can give (`options`): `riichi` (the winner declared 立直), `double_riichi`,
`ippatsu`, `dora` (the indicators turned up, 宝牌指示牌), `ura_dora` (里宝牌指示牌, after a riichi
win), `honba` (本场: 300 more on a ron, 100 more from each on a tsumo), `first_turn` (天和 / 地和 /
人和). On the live table the record gives 立直, 一发 and 本场 (`referee.record_options`), and the score
sheet books the 立直棒 (kyoutaku: `scoresheet._sticks`); this module scores one hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from table_controller import tiles as T
from table_controller.scoring.config import scoring
from table_controller.scoring.errors import ScoringError
from table_controller.scoring.hand import HandInput
from table_controller.scoring.points import collect
from table_controller.scoring.result import Fan, ScoreResult, refuse

RULESET = "riichi"

#: The library's yaku names → the names Chinese players use (日麻 役种).
YAKU_ZH = {
    "Menzen Tsumo": "门前清自摸和", "Riichi": "立直", "Double Riichi": "两立直", "Open Riichi": "开立直",
    "Double Open Riichi": "两开立直", "Ippatsu": "一发", "Chankan": "抢杠", "Rinshan Kaihou": "岭上开花",
    "Haitei Raoyue": "海底摸月", "Houtei Raoyui": "河底捞鱼", "Pinfu": "平和", "Tanyao": "断幺九",
    "Iipeiko": "一杯口", "Ryanpeikou": "二杯口", "Chiitoitsu": "七对子", "Sanshoku Doujun": "三色同顺",
    "Sanshoku Doukou": "三色同刻", "Ittsu": "一气通贯", "Toitoi": "对对和", "San Ankou": "三暗刻",
    "San Kantsu": "三杠子", "Chantai": "混全带幺九", "Junchan": "纯全带幺九", "Honroutou": "混老头",
    "Shou Sangen": "小三元", "Honitsu": "混一色", "Chinitsu": "清一色", "Yakuhai (haku)": "役牌 白",
    "Yakuhai (hatsu)": "役牌 发", "Yakuhai (chun)": "役牌 中", "Dora": "宝牌", "Aka Dora": "赤宝牌",
    "Ura Dora": "里宝牌", "Nagashi Mangan": "流局满贯", "Renhou": "人和", "Tenhou": "天和", "Chiihou": "地和",
    "Kokushi Musou": "国士无双", "Kokushi Musou Juusanmen Matchi": "国士无双十三面", "Suu Ankou": "四暗刻",
    "Suu Ankou Tanki": "四暗刻单骑", "Daisangen": "大三元", "Shousuushii": "小四喜", "Dai Suushii": "大四喜",
    "Tsuu Iisou": "字一色", "Chinroutou": "清老头", "Ryuuiisou": "绿一色", "Chuuren Poutou": "九莲宝灯",
    "Daburu Chuuren Poutou": "纯正九莲宝灯", "Suu Kantsu": "四杠子", "Renhou (yakuman)": "人和（役满）",
}
#: Why the library refuses a hand → the refusal's stable reason.
_REFUSALS = {"hand_not_winning": ("not_a_win", "不是和牌"), "no_yaku": ("no_yaku", "无役不能和牌")}
_SELF_DRAWN = ("self_draw", "kong_replacement", "flower_replacement")


def yaku_name(name: str) -> str:
    """The Chinese name of a yaku (役牌 winds: 场风 / 自风 and the wind)."""
    if name.startswith("Yakuhai (round wind "):
        return "役牌 场风" + T.SEAT_NAMES[name.removeprefix("Yakuhai (round wind ")[0].upper()]
    if name.startswith("Yakuhai (seat wind "):
        return "役牌 自风" + T.SEAT_NAMES[name.removeprefix("Yakuhai (seat wind ")[0].upper()]
    return YAKU_ZH.get(name, name)


def fan_rows(table: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The fan table: the library's yaku (the values are its own, not the TOML's)."""
    return yaku_table()


def win_options(table: Mapping[str, Any]) -> list[str]:
    """The Win page's hook (`scoring.win_options`): 立直, 一发 and the indicators are said and turned up, not laid
    down, so only the referee gives them (the live record gives 立直, 一发 and 本场: `referee.record_options`);
    天和 / 地和 likewise."""
    return ["riichi", "ippatsu", "dora", "ura_dora", "honba", "first_turn"]


def yaku_table() -> list[dict[str, Any]]:
    """Every yaku the library knows: Chinese name, han closed, and han open (0: closed only)."""
    from mahjong.hand_calculating.yaku_config import YakuConfig

    yaku = sorted((y for y in vars(YakuConfig()).values() if hasattr(y, "han_closed")), key=lambda y: y.yaku_id)
    return [{"name": yaku_name(y.name), "value": int(y.han_closed),
             "rule": f"{y.name}; 副露 {y.han_open} 番" if y.han_open else f"{y.name}; 门清限定"} for y in yaku]


def _index(code: str) -> int:
    """Glossary code → the library's 34-tile index (万 0–8, 筒 9–17, 条 18–26, 东南西北白发中 27–33)."""
    s, r = T.suit(code), T.rank(code)
    if s == T.HONOUR:
        return 26 + r
    if s not in ("m", "p", "s") or r > 9:
        raise ScoringError("bad_tile", f"{code} is not a riichi tile", "concealed")
    return {"m": 0, "p": 9, "s": 18}[s] + r - 1


class _Ids:
    """Hands out the library's 136-tile ids, one copy of a kind at a time (four of each)."""

    def __init__(self) -> None:
        self.used: Counter[int] = Counter()

    def take(self, code: str, field: str) -> int:
        i = _index(code)
        if self.used[i] >= 4:
            raise ScoringError("too_many_copies", f"a fifth {code}", field)
        self.used[i] += 1
        return i * 4 + self.used[i] - 1


def score(hand: HandInput, table: Mapping[str, Any] | None = None) -> ScoreResult:
    """Yaku, han and fu by the library; payments by who won how (ron, tsumo, dealer or not)."""
    from mahjong.constants import EAST
    from mahjong.hand_calculating.hand import HandCalculator
    from mahjong.hand_calculating.hand_config import HandConfig, OptionalRules
    from mahjong.meld import Meld

    table = table or scoring(RULESET)
    ruleset = str(table.get("id", RULESET))  # a house ruleset's verdict names it
    if hand.flowers:
        raise ScoringError("bad_tile", "日本麻将 has no flowers", "flowers")
    opts = hand.options
    ids = _Ids()
    melds, tiles = [], []
    for k, m in enumerate(hand.melds):
        own = [ids.take(t, f"melds[{k}]") for t in m.tiles]
        kind = {"chi": Meld.CHI, "pung": Meld.PON, "kong": Meld.KAN}.get(m.type)
        if kind is None:
            raise ScoringError("bad_meld", f"a riichi meld is a chi, pung or kong, not {m.type}", f"melds[{k}]")
        melds.append(Meld(meld_type=kind, tiles=own, opened=not m.concealed))
        tiles += own
    tiles += [ids.take(t, "concealed") for t in hand.concealed]
    win = ids.take(hand.win_tile, "win_tile")
    tiles.append(win)
    dora = [ids.take(t, "options.dora") for t in _tiles(opts.get("dora", []), "options.dora")]
    ura = [ids.take(t, "options.ura_dora") for t in _tiles(opts.get("ura_dora", []), "options.ura_dora")]
    honba = opts.get("honba", 0)
    if not isinstance(honba, int) or isinstance(honba, bool) or not 0 <= honba <= 99:
        raise ScoringError("bad_field", "本场 is a count 0..99", "options.honba")
    tsumo = hand.win in _SELF_DRAWN
    dealer = hand.winner == "E"
    _check_riichi_options(opts, any(not m.concealed for m in hand.melds))
    haitei, houtei = wall_end(hand.win, hand.last_tile)
    tenhou, chiihou, renhou = first_turn_yaku(bool(opts.get("first_turn")), tsumo, dealer, bool(hand.melds))
    config = HandConfig(
        is_tsumo=tsumo, is_riichi=bool(opts.get("riichi") or opts.get("double_riichi")),
        is_daburu_riichi=bool(opts.get("double_riichi")), is_ippatsu=bool(opts.get("ippatsu")),
        is_rinshan=hand.win == "kong_replacement", is_chankan=hand.win == "rob_kong",
        is_haitei=haitei, is_houtei=houtei, is_tenhou=tenhou, is_chiihou=chiihou, is_renhou=renhou,
        player_wind=EAST + T.SEATS.index(hand.winner), round_wind=EAST + T.SEATS.index(hand.prevalent_wind),
        tsumi_number=honba,
        options=OptionalRules(has_open_tanyao=bool(table.get("open_tanyao", True)), has_aka_dora=False,
                              kiriage=bool(table.get("kiriage", False))),
    )
    res = HandCalculator().estimate_hand_value(tiles, win, melds=melds, dora_indicators=dora, config=config,
                                               ura_dora_indicators=ura)
    if res.error:
        reason, message = _REFUSALS.get(res.error, ("not_a_win", res.error))
        return refuse(ruleset, reason, message)
    open_hand = bool(res.is_open_hand)
    fans = tuple(Fan(yaku_name(y.name), int(y.han_open if open_hand else y.han_closed), name_en=y.name)
                 for y in res.yaku or ())
    cost = res.cost or {}
    if not tsumo:
        payers = {hand.paying_seat(): int(cost["main"]) + int(cost.get("main_bonus", 0))}
    else:
        payers = {}
        for seat in hand.active:
            if seat == hand.winner:
                continue
            main = dealer or seat == "E"  # the dealer pays the larger share of a non-dealer's tsumo
            payers[seat] = (int(cost["main"]) + int(cost.get("main_bonus", 0)) if main
                            else int(cost["additional"]) + int(cost.get("additional_bonus", 0)))
    details = {"han": int(res.han or 0), "fu": int(res.fu or 0), "level": cost.get("yaku_level", ""),
               "honba": honba}
    liable = _pao_seat(opts, hand, table)
    share = sum(int(y.han_closed) for y in res.yaku or () if _PAO_YAKU_NAMES.get(y.name) in table.get("pao", ()))
    if liable and share:  # 包: the liable yakuman's han over the hand's is the liable seat's part
        payers = pao_payments(payers, liable, share / max(int(res.han or 0), 1), honba, tsumo,
                              None if tsumo else hand.paying_seat())
        details["pao"] = liable
    return ScoreResult(True, ruleset, fans, int(res.han or 0), int(cost.get("main", 0)),
                       collect(hand.winner, payers), details=details)


def wall_end(win: str, last_tile: bool) -> tuple[bool, bool]:
    """(海底摸月, 河底捞鱼) for a win on the wall's last tile. 海底 is the last live draw and 河底 the discard
    after it: a 岭上 tile is drawn from the dead wall and a robbed kong is no discard, so 岭上开花 and 抢杠
    take neither (WRC, JPML, 天凤). The live record marks a 岭上 draw that emptied the live wall `last_tile`;
    passed on, the library refused the whole win (haitei_with_rinshan) as not a win."""
    return last_tile and win == "self_draw", last_tile and win == "discard"


def first_turn_yaku(first: bool, tsumo: bool, dealer: bool, melds: bool) -> tuple[bool, bool, bool]:
    """(天和, 地和, 人和) for a win the referee marks `first_turn`: 天和 the dealer's tsumo, 地和 another seat's
    tsumo, 人和 another seat's ron, each with no meld (a 暗杠 too ends the first go-round). A dealer's ron in the
    first go-round has none of them and scores as any hand; passed on, the library refused the win."""
    if not first or melds:
        return False, False, False
    return tsumo and dealer, tsumo and not dealer, not tsumo and not dealer


def _check_riichi_options(opts: Mapping[str, Any], open_hand: bool) -> None:
    """Refuse, naming the option, what the referee keyed against the hand: 立直 / 两立直 on a hand with a
    called set, 一发 without 立直 (the library's refusal read as 不是和牌 with its own English code). That each is
    true or false is `hand._OPTION_CHECKS`'s."""
    riichi = opts.get("riichi") or opts.get("double_riichi")
    if riichi and open_hand:
        raise ScoringError("bad_field", "副露的手牌不能立直 / riichi needs a closed hand (a 暗杠 keeps it closed)",
                           "options.double_riichi" if opts.get("double_riichi") else "options.riichi")
    if opts.get("ippatsu") and not riichi:
        raise ScoringError("bad_field", "一发须先立直 / ippatsu needs riichi", "options.ippatsu")


#: 包: the library's yakuman names → their `[scoring] pao` names
_PAO_YAKU_NAMES = {"Daisangen": "daisangen", "Dai Suushii": "daisuushii"}


def _pao_seat(opts: Mapping[str, Any], hand: HandInput, table: Mapping[str, Any]) -> str | None:
    """The seat liable (包) for the winner's 大三元 / 大四喜 (`options.pao`, given by the live record), where
    the ruleset's `[scoring] pao` lists any; None otherwise."""
    seat = opts.get("pao")
    if seat is None or not table.get("pao"):
        return None
    if seat not in T.SEATS or seat == hand.winner:
        raise ScoringError("bad_field", "包 names another seat, E S W or N", "options.pao")
    return str(seat)


def pao_payments(payers: Mapping[str, int], liable: str, part: float, honba: int, tsumo: bool,
                 discarder: str | None) -> dict[str, int]:
    """包 (WRC, JPML, 天凤): `part` of the win (the liable yakuman's han over the hand's) is the liable seat's.
    On a tsumo it pays that part of everyone's share, and the 本场 too when the part is the whole; on a ron by
    another seat it and the discarder pay half of that part each, the discarder the rest and the 本场."""
    out = {s: 0 for s in payers}
    out.setdefault(liable, 0)
    if tsumo:
        each_bonus = 100 * honba
        for s, v in payers.items():
            base = v - each_bonus
            moved = _hundreds(base * part)
            keep = base - moved + (0 if part >= 1 else each_bonus)
            out[s] += keep
            out[liable] += moved + (each_bonus if part >= 1 else 0)
        return out
    if discarder is None or discarder == liable:
        return dict(payers)
    base = payers[discarder] - 300 * honba
    moved = _hundreds(base * part / 2)
    out[discarder] = payers[discarder] - moved
    out[liable] += moved
    return out


def _hundreds(x: float) -> int:
    """Points to the 100 (a yakuman's part is a whole number of hundreds; halves of 32000 etc.)."""
    return int(round(x / 100)) * 100


def _tiles(value: Any, field: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(t, str) and T.is_tile(t) and not T.is_flower(t) for t in value):
        raise ScoringError("bad_field", "a list of tile codes, like [\"3m\"]", field)
    if len(value) > 5:
        raise ScoringError("bad_field", "at most 5 indicators (one and four kans)", field)
    return value


def check_table(table: Mapping[str, Any]) -> None:
    """Refuse, when a table's config is read (`scoring.check_tables`), the options in a shape the table cannot
    use: `uma` four numbers summing to 0 (thousands by place), `return_points` (返し) a number of points not
    below `start_points`, `nagashi_mangan` and `held_wait_ready` true or false, `noten_riichi` none or mangan, `riichi_leftover` first or
    table, `ties` share or seat_order."""
    uma = table.get("uma")
    if uma is not None and (not isinstance(uma, (list, tuple)) or len(uma) != 4 or sum(uma) != 0
                            or not all(isinstance(u, (int, float)) and not isinstance(u, bool) for u in uma)):
        shown = list(uma) if isinstance(uma, tuple) else uma  # as the TOML wrote it (the config freezes arrays)
        raise ScoringError("bad_ruleset_table", f"顺位马须为四个数、合计为 0（千点），不是 {shown!r} / [scoring] uma of "
                           f"{table.get('id')} must be four numbers summing to 0, e.g. [15, 5, -5, -15]", "ruleset")
    for key in ("nagashi_mangan", "held_wait_ready"):
        if not isinstance(table.get(key, False), bool):
            raise ScoringError("bad_ruleset_table", f"{key} 须为 true 或 false，不是 {table[key]!r} / [scoring] {key} "
                               f"of {table.get('id')} must be true or false", "ruleset")
    if table.get("riichi_leftover", "table") not in ("first", "table"):  # a misspelt "first" kept the sticks on the table
        raise ScoringError("bad_ruleset_table", f"终局剩余立直棒须为 first（归第一名）或 table（留在桌上），不是 "
                           f"{table['riichi_leftover']!r} / [scoring] riichi_leftover of {table.get('id')} must be "
                           "\"first\" or \"table\"", "ruleset")
    if table.get("ties", "share") not in ("share", "seat_order"):  # a misspelt word shared the places silently
        raise ScoringError("bad_ruleset_table", f"同分名次须为 share（平分顺位马）或 seat_order（上家取り：近起家者在前），不是 "
                           f"{table['ties']!r} / [scoring] ties of {table.get('id')} must be \"share\" or "
                           "\"seat_order\"", "ruleset")
    if table.get("noten_riichi", "none") not in ("none", "mangan"):
        raise ScoringError("bad_ruleset_table", f"不听立直须为 none（不罚）或 mangan（满贯罚符），不是 {table['noten_riichi']!r} / "
                           f"[scoring] noten_riichi of {table.get('id')} must be \"none\" or \"mangan\"", "ruleset")
    start = table.get("start_points", 0)
    back = table.get("return_points", start)
    if not isinstance(back, int) or isinstance(back, bool) or not isinstance(start, int) or back < start:
        raise ScoringError("bad_ruleset_table", f"返点须为不低于起始点数 {start!r} 的整数，不是 {back!r} / [scoring] "
                           f"return_points of {table.get('id')} must be whole points, not below start_points",
                           "ruleset")


def settle_exhaustive(hands: Mapping[str, Any], table: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """荒牌 (流局): 不听罚符. The seats that show a ready hand (听牌, by shape: 形式听牌 counts) share
    `noten_penalty` (3000) from those that do not (a seat that shows nothing is 不听): 1000 from
    each of three, 1500 between two and two, 3000 to three from one; all or none ready, nothing.

    Local rules, each off by default (`[scoring]`): `held_wait_ready = false` (天凤) makes a hand whose every
    wait has its four tiles in the seat's own hand 不听; `nagashi_mangan` (流し满贯) pays a seat whose river
    (`options.river`, from the record) is all 幺九 with none called (`options.river_called`) a mangan tsumo,
    and then no 不听罚符; `noten_riichi = "mangan"` has a seat that declared 立直 (`options.riichi`) and is not
    ready pay a mangan as a tsumo lost to each (错和 / chombo). A seat ruled a dead hand (`options.dead_hand`, 和了放弃:
    the record's, `referee._exhaustive`) is 不听 whatever it shows (WRC 7.1). The 本场 is paid on none of them."""
    table = table or scoring(RULESET)
    ruleset = str(table.get("id", RULESET))  # a venue's copy is read with its own file, the shipped one may be absent
    ready = [seat for seat, doc in hands.items()  # a seat that shows nothing is 不听, and a dead hand (和了放弃)
             if (doc or {}).get("concealed") and not ((doc or {}).get("options") or {}).get("dead_hand")
             and _ready(HandInput.from_json(doc, ready_only=True), ruleset, table)]
    not_ready = [seat for seat in hands if seat not in ready]
    pool = int(table.get("noten_penalty", 3000))
    payments = {w: 0 for w in T.SEATS}
    nagashi = [seat for seat, doc in hands.items() if table.get("nagashi_mangan") and _nagashi(doc or {})]
    for seat in nagashi:
        for s, v in _mangan(seat).items():
            payments[s] += v
    if ready and not_ready and not nagashi:
        each = pool // (len(ready) * len(not_ready))
        for r in ready:
            for n in not_ready:
                payments[r] += each
                payments[n] -= each
    chombo = [seat for seat in not_ready if table.get("noten_riichi", "none") == "mangan"
              and ((hands[seat] or {}).get("options") or {}).get("riichi")]
    for seat in chombo:
        for s, v in _mangan(seat).items():
            payments[s] -= v
    shares = {r: pool // len(ready) for r in ready} if not_ready and not nagashi else {r: 0 for r in ready}
    out = {"flower_pigs": [], "ready": shares, "not_ready": not_ready, "refunds": {}, "payments": payments}
    return {**out, **({"nagashi": nagashi} if nagashi else {}), **({"noten_riichi": chombo} if chombo else {})}


def _ready(hand: HandInput, ruleset: str, table: Mapping[str, Any]) -> bool:
    """听牌 by shape; with `held_wait_ready = false` (天凤) a wait whose four tiles the seat holds (its melds
    too) is none: only a tile some other seat could discard makes the hand ready."""
    from table_controller.scoring.waits import shape_waits

    found = shape_waits(hand, ruleset)
    if table.get("held_wait_ready", True):
        return bool(found)
    held = Counter(list(hand.concealed) + [t for m in hand.melds for t in m.tiles])
    return any(held[k] < 4 for k in found)


def _nagashi(doc: Mapping[str, Any]) -> bool:
    """流し满贯: the seat discarded, every discard a terminal or an honour (幺九), and none was called."""
    opts = doc.get("options") or {}
    river = opts.get("river") or []
    return bool(river) and not opts.get("river_called") and all(T.is_terminal(t) or T.is_honour(t) for t in river)


def _mangan(seat: str) -> dict[str, int]:
    """A mangan tsumo by `seat`: the dealer (东) 4000 from each; another seat 4000 from the dealer, 2000 from
    the other two (8000)."""
    out = {s: -(4000 if seat == "E" or s == "E" else 2000) for s in T.SEATS if s != seat}
    out[seat] = -sum(out.values())
    return out


def settle_draw(hands: Mapping[str, Any], kongs: Any, table: Mapping[str, Any]) -> dict[str, Any]:
    """The engine's 荒牌 hook (`scoring.exhaustive_settlement`): 不听罚符; kongs pay nothing on the spot here."""
    return settle_exhaustive(hands, table)
