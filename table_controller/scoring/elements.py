"""Scoring elements shared by the non-MCR rulesets, one small function each; the docstring is the rule.

Each takes a `View` (one reading of the hand plus the table's situation) and returns how many
times the hand holds the element (0: not held). Rulesets register them under their own names.
"""

from __future__ import annotations

from table_controller import tiles as T
from table_controller.scoring.registry import View

DRAGONS = ("5z", "6z", "7z")
WINDS = ("1z", "2z", "3z", "4z")


def _set_kinds(v: View) -> list[str]:
    return [g.kind for g in v.shape.sets]


def standard(v: View) -> int:
    """Four sets and a pair (基本和型)."""
    return int(v.shape.form == "standard")


def full_flush(v: View) -> int:
    """清一色: every tile of one suit, no honours."""
    return int(len(v.suits) == 1 and not v.has_honours)


def half_flush(v: View) -> int:
    """混一色: tiles of one suit and honours."""
    return int(len(v.suits) == 1 and v.has_honours)


def all_pungs(v: View) -> int:
    """对对和/碰碰和: four pungs or kongs and a pair."""
    return int(v.shape.form == "standard" and len(v.shape.sets) == 4)


def seven_pairs(v: View) -> int:
    """七对: seven pairs, concealed."""
    return int(v.shape.form == "seven_pairs")


def luxury_seven_pairs(v: View) -> int:
    """豪华七对/龙七对: seven pairs two of which are the four tiles of one kind."""
    return int(v.shape.form == "seven_pairs" and any(n == 4 for n in v.counts.values()))


def double_luxury_seven_pairs(v: View) -> int:
    """超豪华七对 (南宁): seven pairs holding two kinds four times each."""
    return int(v.shape.form == "seven_pairs" and sum(1 for n in v.counts.values() if n == 4) >= 2)


def triple_luxury_seven_pairs(v: View) -> int:
    """超超豪华七对 (南宁): seven pairs holding three kinds four times each."""
    return int(v.shape.form == "seven_pairs" and sum(1 for n in v.counts.values() if n == 4) >= 3)


def thirteen_orphans(v: View) -> int:
    """十三幺: one of each terminal and honour and a second of one of them."""
    return int(v.shape.form == "thirteen_orphans")


def knitted(v: View) -> int:
    """十四不靠 (大乱): fourteen single tiles, no two of a suit closer than three apart."""
    return int(v.shape.form == "knitted")


def all_honours(v: View) -> int:
    """字一色: honours only."""
    return int(v.shape.form != "thirteen_orphans" and not v.suits)


def all_terminals(v: View) -> int:
    """清幺九: pungs and the pair of 1s and 9s only."""
    return int(all_pungs(v) == 1 and all(T.is_terminal(t) for t in v.faces))


def terminals_and_honours(v: View) -> int:
    """混幺九: pungs and the pair of 1s, 9s and honours, with both kinds present."""
    return int(v.shape.form in ("standard", "seven_pairs") and v.has_honours and bool(v.suits)
               and all(T.is_terminal(t) or T.is_honour(t) for t in v.faces))


def big_three_dragons(v: View) -> int:
    """大三元 (三箭刻): pungs of all three dragons."""
    return int(all(d in _set_kinds(v) for d in DRAGONS))


def small_three_dragons(v: View) -> int:
    """小三元: pungs of two dragons and the pair of the third."""
    kinds = _set_kinds(v)
    pairs = [g.kind for g in v.shape.pairs]
    return int(v.shape.form == "standard" and sum(d in kinds for d in DRAGONS) == 2
               and any(d in pairs for d in DRAGONS))


def big_four_winds(v: View) -> int:
    """大四喜: pungs of all four winds."""
    return int(all(w in _set_kinds(v) for w in WINDS))


def small_four_winds(v: View) -> int:
    """小四喜: pungs of three winds and the pair of the fourth."""
    kinds = _set_kinds(v)
    pairs = [g.kind for g in v.shape.pairs]
    return int(v.shape.form == "standard" and sum(w in kinds for w in WINDS) == 3
               and any(w in pairs for w in WINDS))


def pure_straight(v: View) -> int:
    """清龙: chows 123, 456 and 789 of one suit."""
    chows = {g.kind for g in v.shape.chows}
    return int(any({f"1{s}", f"4{s}", f"7{s}"} <= chows for s in T.SUITS))


def mixed_straight(v: View) -> int:
    """花龙: chows 123, 456 and 789, each of a different suit."""
    chows = {g.kind for g in v.shape.chows}
    for a in T.SUITS:
        for b in T.SUITS:
            for c in T.SUITS:
                if len({a, b, c}) == 3 and {f"1{a}", f"4{b}", f"7{c}"} <= chows:
                    return 1
    return 0


def knitted_straight(v: View) -> int:
    """组合龙: 147, 258 and 369 each of a different suit, with a set and a pair."""
    return int(v.shape.form == "knitted_straight")


def roots(v: View) -> int:
    """根 (杠 or 四归一): each kind of which the hand holds all four tiles, counted once each."""
    return sum(1 for n in v.counts.values() if n == 4)


def kongs(v: View) -> int:
    """杠: each declared kong."""
    return sum(1 for g in v.groups if g.type == "kong")


def concealed_hand(v: View) -> int:
    """门清: no meld claimed from another seat (concealed kongs allowed)."""
    return int(all(g.concealed for g in v.groups if g.declared))


def dragon_pungs(v: View) -> int:
    """箭刻: each pung or kong of a dragon."""
    return sum(1 for k in _set_kinds(v) if k in DRAGONS)


def _three_chows(lo: int, hi: int, v: View) -> int:
    return int(sum(1 for g in v.shape.chows if T.rank(g.kind) == lo and T.rank(g.kind) + 2 == hi) >= 3)


def all_upper(v: View) -> int:
    """全大: three chows of 789."""
    return _three_chows(7, 9, v)


def all_middle(v: View) -> int:
    """全中: three chows of 456."""
    return _three_chows(4, 6, v)


def all_lower(v: View) -> int:
    """全小: three chows of 123."""
    return _three_chows(1, 3, v)


def melded_single_wait(v: View) -> int:
    """全求独钓: all four sets claimed from others, the pair completed on a discard."""
    return int(v.shape.form == "standard" and len(v.hand.melds) == 4
               and all(not m.concealed for m in v.hand.melds) and v.shape.wait == "pair"
               and not v.self_drawn)


def last_of_kind_closed(v: View) -> int:
    """夹绝张: a 嵌张 or 边张 win on the last tile of its kind, three seen on the table, the winner's exposed melds too (seed 004 "牌池内已经出现碰牌的刻子，剩余的唯一牌张被夹牌而和牌")."""  # noqa: E501
    own = sum(m.tiles.count(v.hand.win_tile) for m in v.hand.melds if not m.concealed)
    seen = v.hand.visible.get(v.hand.win_tile, 0) + own
    return int(v.shape.wait in ("closed", "edge") and seen >= 3)


def kong_replacement_win(v: View) -> int:
    """杠上开花: winning on the replacement tile drawn after a kong."""
    return int(v.win == "kong_replacement")


def rob_kong(v: View) -> int:
    """抢杠和: winning on the tile another seat adds to a pung to make a kong."""
    return int(v.win == "rob_kong")


def last_tile(v: View) -> int:
    """海底: winning on the last tile of the wall (drawn or its discard)."""
    return int(v.hand.last_tile)


def last_tile_draw(v: View) -> int:
    """妙手回春 / 海底捞月 (自摸): self-drawing the last tile of the wall."""
    return int(v.hand.last_tile and v.self_drawn)


def last_tile_claim(v: View) -> int:
    """海底捞月 (点和, 竞技): winning on the discard of the last tile."""
    return int(v.hand.last_tile and not v.self_drawn)


def kong_discard_win(v: View) -> int:
    """杠上炮: winning on the discard a seat made just after its kong (`options.after_kong`)."""
    return int(not v.self_drawn and bool(v.hand.options.get("after_kong")))


def no_wildcard(v: View) -> int:
    """硬胡: no 鬼牌 in the winning hand."""
    return int(v.wildcard is None or v.wildcard not in v.tiles)


def chicken(v: View) -> int:
    """鸡胡: a standard hand of mixed sets holding none of the pattern elements."""
    return int(v.shape.form == "standard")


def plain(v: View) -> int:
    """平和/平胡: four chows and a pair of a suit."""
    return int(v.shape.form == "standard" and len(v.shape.chows) == 4
               and all(T.is_suited(g.kind) for g in v.shape.pairs))


def self_drawn(v: View) -> int:
    """自摸: the winner drew the winning tile."""
    return int(v.self_drawn)


def seat_wind_pung(v: View) -> int:
    """门风刻: a pung of the winner's seat wind."""
    return int(T.WIND_TILE[v.hand.seat_wind] in _set_kinds(v))


def prevalent_wind_pung(v: View) -> int:
    """圈风刻: a pung of the prevalent wind."""
    return int(T.WIND_TILE[v.hand.prevalent_wind] in _set_kinds(v))


def nine_gates(v: View) -> int:
    """九莲宝灯: concealed 1112345678999 of one suit plus any tile of it."""
    if v.hand.melds or len(v.suits) != 1 or v.has_honours:
        return 0
    s = next(iter(v.suits))
    held = v.counts.copy()
    held[v.hand.win_tile] -= 1
    need = {1: 3, 9: 3} | {r: 1 for r in range(2, 9)}
    return int(all(held[f"{r}{s}"] == n for r, n in need.items()))


def heavenly(v: View) -> int:
    """天胡: the dealer wins on the dealt hand (`options.first_turn` for E)."""
    return int(bool(v.hand.options.get("first_turn")) and v.hand.seat_wind == "E" and v.self_drawn)


def earthly(v: View) -> int:
    """地胡: a non-dealer wins in the first go-round (`options.first_turn`)."""
    return int(bool(v.hand.options.get("first_turn")) and v.hand.seat_wind != "E")


def earthly_draw(v: View) -> int:
    """地胡 (广东, seed 001): a non-dealer self-draws in the first go-round ("非庄家在第一轮摸牌就胡牌")."""
    return int(earthly(v) and v.self_drawn)
