"""The score sheet (比赛成绩记录表): each hand's points per player, running totals, 标准分, CSV.

Computed from the folded state, never stored: a confirmed win or a penalty that is undone simply
drops out. Points are per player, by the chair each drew (抽签号位 1..4), because winds move from hand to hand and
players change chairs at a 换位 (`seating`).
"""

from __future__ import annotations

from typing import Any

from table_controller import spreadsheet, substitutes
from table_controller.referee import active, exhaustive, ranked_wins
from table_controller.tiles import SEAT_NAMES

POSITIONS = ("1", "2", "3", "4")
RESULT_ZH = {"win": "和牌", "win_pending": "和牌（待确认）", "draw": "荒牌", "abandoned": "中止", "playing": "进行中",
             "abortive": "流局"}


def compute(state: Any, final: bool = False) -> dict[str, Any]:
    """Rows, totals and 标准分 of the session so far (`final` once the session clock has ended or its
    hands are played and no hand is in play nor a win waits for its confirmation again, or when told: a
    round closed by the next one's start)."""
    actions = state.actions
    rows, totals, pot, penalties, hands, out_of_stacks = _rows(state)
    ruled = [a for a in penalties if a.get("disqualify")]
    stick = _riichi_stick(state.ruleset)
    # time called with a hand in play: the session ends with that hand (以尚在进行的一盘比赛结束为结束时间,
    # seed 000); a win whose confirmation was undone is the referee's to confirm again
    open_ = (state.hand is not None and not state.hand.get("ended")) or any(r["result"] == "win_pending" for r in rows)
    final = final or out_of_stacks or (not open_ and (_session_over(state) or _hands_played(state)))
    order = _seat_order(state, hands)
    if final and pot and rows:
        pot = _leftover_sticks(state.ruleset, rows[-1], totals, pot * stick, order) // stick if stick else 0
    from table_controller.scoring.points import session_points

    points = session_points(state.ruleset, totals, order)
    standing = _standing(penalties)
    if standing:  # off the standing, not the table (WRC 7.1: 1 of the standing = 1000 points), after the places
        points = {p: _tidy(points[p] + standing.get(p, 0) / 1000) for p in POSITIONS}
    players = {p: state.players.get(int(p), f"{p}号位") for p in POSITIONS}
    sheet = {"round": getattr(state, "round", 1), "players": players, "rows": rows, "totals": dict(totals),
             "table_points": points, "final": final, "riichi_pot": pot,
             **({"standing_penalties": standing} if standing else {})}
    start = _start_points(state.ruleset)
    if start is not None:  # riichi: the points each player holds are these plus the totals (持点)
        sheet["start_points"] = start
    spans = substitutes.sitters(state.players, getattr(state, "player_ids", {}), actions)
    out = disqualified(ruled, hands, spans)
    if out:  # 取消比赛资格: who, where and why (the hub leaves them out of the seating: docs/tournament.md)
        sheet["disqualified"] = out
    if substitutes.replaced(spans):  # 替补: who sat each hand, and each sitter's hands and points
        sheet["sitters"] = substitutes.credit(spans, rows, totals)
        for row in rows:
            row["sat"] = {p: spans[p][substitutes.sitter_of(spans[p], int(row["hand_no"]))]["name"] for p in POSITIONS}
    return sheet


def _tidy(v: float) -> float:
    """A standing as the sheet shows it: 2 decimals, a whole number as one."""
    v = round(v, 2)
    return int(v) if float(v).is_integer() else v


def _standing(penalties: list[dict[str, Any]]) -> dict[str, int]:
    """The points each player (抽签号位) has had taken off the session's standing by `penalties` (those not undone:
    `_rows`) where they say so (`pays = "standing"`: WRC 7.1's point penalty and 错和), the table's points unmoved;
    only those with any."""
    out: dict[str, int] = {}
    for a in penalties:
        for p, v in (a.get("standing_deltas") or {}).items():
            out[str(p)] = out.get(str(p), 0) + int(v)
    return {p: v for p, v in out.items() if v}


def _seat_order(state: Any, hands: dict[int, dict[str, Any]]) -> list[str]:
    """The players (抽签号位) from the session's first dealer (起家) on, in play order (E S W N of its first hand):
    who takes the higher place of two level on points where the ruleset says 上家取り (`[scoring] ties`)."""
    if hands:
        seats = hands[min(hands)].get("seats") or {}
        if all(w in seats for w in SEAT_NAMES):
            return [str(seats[w]) for w in SEAT_NAMES]
    from table_controller.seating import first_dealer_of

    first = first_dealer_of(getattr(state, "first_dealer", None))
    return [POSITIONS[(first - 1 + i) % 4] for i in range(4)]


def hand_points(state: Any) -> dict[int, dict[str, int]]:
    """Each row's points by player (抽签号位 "1".."4"), by hand number (0: penalties before the first hand): what
    the session's end counts where it depends on the points held (riichi's 飛び, `seating.for_state`). The
    sticks a session's end would give out are not in them: they move nobody below 0."""
    return {int(r["hand_no"]): dict(r["points"]) for r in _rows(state)[0]}


def _rows(state: Any) -> tuple[list[dict[str, Any]], dict[str, int], int, list[dict[str, Any]],
                                dict[int, dict[str, Any]], bool]:
    """The sheet's rows and running totals so far, the sticks on the table, the penalties standing (none undone or
    refused), the hands by number, and whether the stacks ended the 局 (竞技): what `compute` completes."""
    actions = state.actions
    hands = {h["hand_no"]: dict(h) for h in state.hands}
    if state.hand is not None and state.hand["hand_no"] not in hands:
        hands[state.hand["hand_no"]] = {"hand_no": state.hand["hand_no"], "dealer_position": state.hand["dealer_position"],
                                        "prevalent_wind": state.hand["prevalent_wind"], "seats": state.hand.get("seats", {}),
                                        "result": "playing", "kong_payments": state.hand.get("kong_payments", []),
                                        "chase_payments": state.hand.get("chase_payments", []),
                                        "riichi": sorted(state.hand.get("riichi", {}))}
    before = [a for a in active(actions, "referee.penalty", None) if a.get("hand_no") is None and not a.get("error")]
    rows: list[dict[str, Any]] = []
    totals = {p: 0 for p in POSITIONS}
    ruled = list(before)  # 取消比赛资格 and the standing's deductions, read with the penalties: no scan of their own
    if any(a.get("deltas") for a in before):
        rows.append(_row({"hand_no": 0, "result": "penalty"}, [], before, None, totals))
    stick, pot = _riichi_stick(state.ruleset), 0
    returned = _kongs_returned(state.ruleset)
    replayed = _replays_abandoned(state.ruleset)
    of_hand = _by_hand(actions)
    for no in sorted(hands):
        h = hands[no]
        mine = of_hand.get(no, [])
        pens = [a for a in active(mine, "referee.penalty", no) if not a.get("error")]
        ruled += pens
        wins = ranked_wins(mine, no)
        again = h.get("result") == "abandoned" and replayed
        if again:
            # a hand played again (中止, a 错和's re-deal): its 立直棒 go back to their declarers (WRC 7.1, EMA 3.4.6)
            sticks, taken = {p: 0 for p in POSITIONS}, {}
        else:
            sticks, taken, pot = _sticks(h, wins, pot, stick)
        # nor is a 查叫 ruled before it was ended again 中止 paid (a 错和 found at 流局: WRC 7.1 "no noten payment")
        rows.append(_row(h, wins, pens, None if again else exhaustive(mine, no), totals, sticks, returned))
        if taken:  # the 供托 the hand's first winner took, this hand's sticks and those carried to it (the wins list)
            rows[-1]["riichi_taken"] = taken
    out_of_stacks = _play_from_stacks(state.ruleset, rows, hands, totals)
    return rows, totals, pot, ruled, hands, out_of_stacks


def disqualified(penalties: list[dict[str, Any]], hands: dict[Any, dict[str, Any]],
                 spans: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The players a penalty not undone disqualified this round (取消比赛资格, an entry with `disqualify`:
    偷牌 停赛, 有意诈和; seed 000 范文四 八 4 "取消本次比赛资格"), of the round's `penalties`: the chair, who sat it when ruled (a
    substitute's own offence is theirs), the ruling's name, its note, its # and hand (None: before the
    first hand)."""
    out = []
    for a in sorted(penalties, key=lambda a: a["seq"]):
        if a.get("error") or a.get("undone") or not a.get("disqualify") or a.get("seat") not in SEAT_NAMES:
            continue
        no = a.get("hand_no")
        # between hands before the first (迟到 and the like): chairs and winds are those of the first hand
        seats = (hands.get(no) or {}).get("seats") or {w: i + 1 for i, w in enumerate(("E", "S", "W", "N"))}
        chair = str(seats.get(a["seat"], "1"))
        who = spans[chair][substitutes.sitter_of(spans[chair], int(no or 0))]
        out.append({"position": chair, "name": who["name"], "id": who["id"], "ruling": a.get("name_zh", ""),
                    "code": a.get("code", ""), "note": a.get("note", ""), "seq": a["seq"], "hand_no": no})
    return out


def _by_hand(actions: list[dict[str, Any]]) -> dict[Any, list[dict[str, Any]]]:
    """The actions of each hand, in order, read in one pass: the sheet looked through the whole
    session's actions once per hand per question (wins, penalties, 查叫), so each pushed state of
    a long day cost hands x actions (183 ms at 400 hands here, for every event; a Pi is 5-8x slower)."""
    out: dict[Any, list[dict[str, Any]]] = {}
    for a in actions:
        out.setdefault(a.get("hand_no"), []).append(a)
    return out


def stack_of(ruleset: str) -> int | None:
    """The points each seat starts the 局 with where the ruleset plays from stacks (竞技 100)."""
    try:
        from table_controller.scoring.config import scoring

        stack = scoring(ruleset).get("stack")
    except Exception:  # a ruleset without [scoring]
        return None
    return int(stack) if isinstance(stack, int) and not isinstance(stack, bool) else None


def _play_from_stacks(ruleset: str, rows: list[dict[str, Any]], hands: dict[int, dict[str, Any]],
                      totals: dict[str, int]) -> bool:
    """竞技 (seed 004): every seat plays from a stack of `stack` points and pays at most what it
    holds (盘面付完为止); a kong or a penalty that would end the 局 without leaving its receiver
    first is held outside the table until the 局 ends (三十二) or voided (十五, `[scoring.
    non_winning_end]`); the 局 ends when two seats are empty. Rewrites the rows' points, running
    totals and `totals` (points won or lost, as for other rulesets) and adds each row's `stacks`; the
    points held are added to the points of the hand that ended the 局 (`held_points`), so each running
    total is the one before plus the hand's points. True once the 局 is over. Nothing changes for
    rulesets without a stack."""
    stack = stack_of(ruleset)
    if stack is None:
        return False
    from table_controller.scoring import jingji
    from table_controller.scoring.config import scoring

    table = scoring(ruleset)
    balances = {p: stack for p in POSITIONS}
    held = {p: 0 for p in POSITIONS}
    over = counted = False
    for row in rows:
        before = dict(balances)
        on_the_spot = list(_on_the_spot(hands.get(row["hand_no"]) or {}))  # kongs, 追牌, then the penalties
        if any(row["penalty_points"].values()):
            gainer = max(POSITIONS, key=lambda p: row["penalty_points"][p])
            on_the_spot.append((gainer if row["penalty_points"][gainer] > 0 else None, row["penalty_points"]))
        for receiver, pay in on_the_spot:
            if over:
                break
            g = jingji.guard_end(balances, pay, receiver, table)
            balances, over = g.balances, g.over
            for p, v in g.held.items():
                held[p] += v
        for win in row["wins"]:  # 一炮多响: each winner in turn, 点炮方按逆时针顺序付分 (seed 004)
            if not over and any(win["points"].values()):
                balances, over = jingji.settle(balances, win["points"])
        row["points"] = {p: balances[p] - before[p] for p in POSITIONS}
        if over and not counted:  # the 局 ends in this hand: what was held outside the table counts here
            counted = True
            if any(held.values()):
                row["held_points"] = dict(held)
                row["points"] = {p: row["points"][p] + held[p] for p in POSITIONS}
        row["stacks"] = dict(balances)
        row["running"] = {p: balances[p] - stack + (held[p] if over else 0) for p in POSITIONS}
    for p in POSITIONS:
        totals[p] = balances[p] - stack + (held[p] if over else 0)  # 局结后累积: held points count once it is over
    return over


def _on_the_spot(h: dict[str, Any], which: tuple[str, ...] = ("kong_payments", "chase_payments"),
                 kind: str | None = None) -> list[tuple[str | None, dict[str, int]]]:
    """The hand's payments made when they happened, per chair: kongs (杠牌现场汇 / 刮风下雨, the
    konger receives), 追牌现场汇 (the first of four same discards pays; no single receiver) and 跟庄 (the
    dealer pays each; kept with 追牌, `kind` "follow"), as (the receiving chair or None, chair -> points), in
    the order they were made; `kind` "chase" or "follow" keeps only those of `chase_payments`."""
    seats = h.get("seats") or {}
    made = sorted(((k, key) for key in which for k in h.get(key, [])
                   if kind is None or key != "chase_payments" or k.get("kind", "chase") == kind),
                  key=lambda x: x[0].get("seq", 0))
    out = []
    for k, key in made:
        pay = {str(seats[w]): int(v) for w, v in k["by_wind"].items() if w in seats}
        receiver = str(seats[k["seat"]]) if key == "kong_payments" and k.get("seat") in seats else None
        out.append((receiver, {p: pay.get(p, 0) for p in POSITIONS}))
    return out


def _kongs_returned(ruleset: str) -> bool:
    """荒庄荒杠 (`[scoring] kongs_on_draw = "return"`, 广东 a parlour option): a hand ended 荒牌 books no kong
    payment; "keep" (the default, seed 001 杠牌直接输赢) books them as paid."""
    try:
        from table_controller.scoring.config import scoring

        return scoring(ruleset).get("kongs_on_draw", "keep") == "return"
    except Exception:  # a ruleset without [scoring]
        return False


def _replays_abandoned(ruleset: str) -> bool:
    """Whether a hand ended 中止 is played again (`[match] replay_abandoned`, the default) rather than a 荒庄."""
    try:
        from table_controller.scoring.config import match

        return bool(match(ruleset).get("replay_abandoned", True))
    except Exception:  # a ruleset without [match]
        return True


def _start_points(ruleset: str) -> int | None:
    """The points each player holds at the session's start where the ruleset counts held points (riichi's
    `[scoring] start_points`, 25000), else None: the sheet's totals count from 0 either way."""
    try:
        from table_controller.scoring.config import scoring

        start = scoring(ruleset).get("start_points")
    except Exception:  # a ruleset without [scoring]
        return None
    return start if isinstance(start, int) and not isinstance(start, bool) else None


def _riichi_stick(ruleset: str) -> int:
    """The 立直棒 a declaration deposits (riichi), 0 where the ruleset has none."""
    try:
        from table_controller.scoring.config import scoring

        return int(scoring(ruleset).get("riichi_stick", 0))
    except Exception:  # a ruleset without [scoring]
        return 0


def _sticks(h: dict[str, Any], wins: list[dict[str, Any]], pot: int,
            stick: int) -> tuple[dict[str, int], dict[str, int], int]:
    """立直棒: each chair that declared 立直 this hand puts `stick` on the table then (供托), unless its
    declaration tile was won on (`riichi_void`: the 立直 never stood), and the hand's first winner takes
    every stick on the table, this hand's and those carried over a 流局.
    Returns the hand's stick points by chair, what the first winner took off the table ({chair: points}, empty
    when none), and the sticks left on the table."""
    seats = h.get("seats") or {}
    points = {p: 0 for p in POSITIONS}
    if not stick:
        return points, {}, 0
    void = {w.get("riichi_void") for w in wins}  # its declaration tile was won on: the 立直 never stood
    for w in h.get("riichi", []):
        if w in seats and w not in void:
            points[str(seats[w])] -= stick
            pot += 1
    taken: dict[str, int] = {}
    if wins and wins[0].get("seat") in seats:
        chair = str(seats[wins[0]["seat"]])
        points[chair] += pot * stick
        if pot:
            taken[chair] = pot * stick
        pot = 0
    return points, taken, pot


def _leftover_sticks(ruleset: str, last: dict[str, Any], totals: dict[str, int], amount: int,
                     seat_order: list[str] | None = None) -> int:
    """Sticks still on the table when the session ends: to the player placed first where the
    ruleset says so (`[scoring] riichi_leftover = "first"`, the WRC rule; equal first places share,
    the odd 100s to the lowest chair, or, under 上家取り (`[scoring] ties = "seat_order"`), all go to the one of
    them nearest the first dealer in `seat_order`), else they stay on the table (returned)."""
    from table_controller.scoring.points import ties_by_seat

    try:
        from table_controller.scoring.config import scoring

        rule = scoring(ruleset).get("riichi_leftover", "table")
    except Exception:  # a ruleset without [scoring]
        rule = "table"
    if rule != "first":
        return amount
    best = max(totals.values())
    top = [p for p in POSITIONS if totals[p] == best]
    if seat_order and ties_by_seat(ruleset):
        top = [min(top, key=seat_order.index)]
    share = amount // len(top) // 100 * 100
    for i, p in enumerate(top):
        got = share + (amount - share * len(top) if i == 0 else 0)
        last["riichi_points"][p] += got
        last["points"][p] += got
        totals[p] += got
        last["running"][p] = totals[p]
    last["riichi_leftover"] = amount
    return 0


def _row(h: dict[str, Any], wins: list[dict[str, Any]], pens: list[dict[str, Any]],
         settled: dict[str, Any] | None, totals: dict[str, int], sticks: dict[str, int] | None = None,
         kongs_returned: bool = False) -> dict[str, Any]:
    """One hand's line: every confirmed win (一炮多响, 血战 play on), the penalties, the kongs
    paid on the spot (none after 荒牌 where `kongs_returned`: 荒庄荒杠) and the 查叫 at 荒牌, per chair."""
    seats = h.get("seats") or {}
    won = [{"position": str(seats[w["seat"]]) if w.get("seat") in seats else None, "seat": w.get("seat"),
            "fan_total": w.get("total"), "points": {p: int(w.get("deltas", {}).get(p, 0)) for p in POSITIONS},
            # today's rules would score it otherwise (a ruleset edited since): the confirmed figures stand
            **({"rescored": _rescored(w["rescored"], seats)} if w.get("rescored") else {})}
           for w in wins]
    win_pts = {p: sum(w["points"][p] for w in won) for p in POSITIONS}
    pen_pts = {p: sum(int(a.get("deltas", {}).get(p, 0)) for a in pens) for p in POSITIONS}
    kong_pts = {p: sum(pay[p] for _, pay in _on_the_spot(h, ("kong_payments",))) for p in POSITIONS}
    returned = kongs_returned and not wins and h.get("result") == "draw" and any(kong_pts.values())
    if returned:
        kong_pts = {p: 0 for p in POSITIONS}
    chase_pts = {p: sum(pay[p] for _, pay in _on_the_spot(h, ("chase_payments",), "chase")) for p in POSITIONS}
    follow_pts = {p: sum(pay[p] for _, pay in _on_the_spot(h, ("chase_payments",), "follow")) for p in POSITIONS}
    draw_pts = {p: int((settled or {}).get("deltas", {}).get(p, 0)) for p in POSITIONS}
    stick_pts = sticks or {p: 0 for p in POSITIONS}
    points = {p: win_pts[p] + pen_pts[p] + kong_pts[p] + chase_pts[p] + follow_pts[p] + draw_pts[p] + stick_pts[p]
              for p in POSITIONS}
    for p in POSITIONS:
        totals[p] += points[p]
    result = "win" if wins else h.get("result", "draw")
    if result == "win" and not wins:  # ended as a win whose confirmation was undone: the referee confirms again
        result = "win_pending"
    return {"hand_no": h["hand_no"], "prevalent_wind": h.get("prevalent_wind"), "dealer_position": h.get("dealer_position"),
            # the dealer's player (抽签号位): after a 换位 not the chair's first player
            "dealer": str(seats["E"]) if "E" in seats else None,
            "result": result, "result_zh": _result_zh(result, h),
            **({"abortive": h["abortive"]} if h.get("abortive") else {}),  # 途中流局: which
            **({"kongs_returned": True} if returned else {}),  # 荒庄荒杠: the hand's kongs paid back
            "winner_position": won[0]["position"] if won else None,
            "fan_total": won[0]["fan_total"] if won else None, "wins": won, "win_points": win_pts,
            "penalty_points": pen_pts, "kong_points": kong_pts, "chase_points": chase_pts,
            "follow_points": follow_pts, "exhaustive_points": draw_pts,
            "riichi_points": stick_pts,
            "points": points, "running": dict(totals), "penalty_count": len(pens)}


def _result_zh(result: str, h: dict[str, Any]) -> str:
    """The row's result in words: 途中流局 says which (流局（九种九牌）)."""
    from table_controller.hand.abortive import name_zh

    if result == "abortive" and h.get("abortive"):
        return f"流局（{name_zh(str(h['abortive']))}）"
    return RESULT_ZH.get(result, "罚分")


def _rescored(now: dict[str, Any], seats: dict[str, Any]) -> dict[str, Any]:
    """What today's rules make of a confirmed win, per chair as the sheet counts: its fan total and points, or
    that it would not stand. Not why: the sheet is public (the public view, /api/scoresheet, its CSV, the rounds)
    and why may be the read's message quoting the hand (振听: 自己打过所听的二筒); the confirmation's own
    `rescored` keeps it for the referee and `tablectl check`."""
    if not now.get("valid"):
        return {"valid": False}
    pays = {str(seats[w]): int(v) for w, v in (now.get("payments") or {}).items() if w in seats}
    return {"valid": True, "fan_total": now.get("total"), "points": {p: pays.get(p, 0) for p in POSITIONS}}


def _hands_played(state: Any) -> bool:
    """The session's hands are all played (MCR's 16): its 标准分 are final."""
    from table_controller.seating import for_state

    if state.hand is not None and not state.hand.get("ended"):
        return False
    return for_state(state).over


def _session_over(state: Any) -> bool:
    from table_controller.referee import session

    s = session(state.actions)
    return bool(s and s.get("ended_at"))


def _winners_zh(sheet: dict[str, Any], row: dict[str, Any]) -> str:
    sat = row.get("sat") or sheet["players"]  # after a substitution (替补), the one who sat the hand
    names = [sat[w["position"]] for w in row.get("wins", []) if w["position"] in sat]
    return f"（{'、'.join(names)}）" if names else ""


def to_csv(sheet: dict[str, Any]) -> str:
    """The sheet as CSV for a spreadsheet program (`spreadsheet.to_csv`: a name is never a formula).
    After a substitution (替补) each hand says who sat a replaced chair, and each sitter's hands and
    points follow the 标准分 line."""
    names = [sheet["players"][p] for p in POSITIONS]
    sitters = sheet.get("sitters") or {}
    replaced = [p for p in POSITIONS if len(sitters.get(p, [])) > 1]
    rows: list[list[Any]] = [["盘", "圈风", "庄家", "结果", "番", *[f"{n} 本盘" for n in names],
                              *[f"{n} 累计" for n in names], *(["上场（替补）"] if replaced else [])]]
    for r in sheet["rows"]:
        sat = r.get("sat") or sheet["players"]
        rows.append([r["hand_no"], SEAT_NAMES.get(r["prevalent_wind"] or "", ""),
                     sat.get(str(r.get("dealer") or r["dealer_position"]), "") if r["dealer_position"] else "",
                     r["result_zh"] + _winners_zh(sheet, r), " / ".join(str(w["fan_total"]) for w in r.get("wins", [])),
                     *[r["points"][p] for p in POSITIONS], *[r["running"][p] for p in POSITIONS],
                     *(["、".join(f"{p}号位 {sat[p]}" for p in replaced)] if replaced else [])])
    rows.append(["合计", "", "", "", "", *[sheet["totals"][p] for p in POSITIONS], "", "", "", ""])
    if sheet.get("standing_penalties"):  # off the standing, not the table (WRC 7.1): the 标准分 below count them
        rows.append(["罚点（从终局分扣除）", "", "", "", "",
                     *[sheet["standing_penalties"].get(p, "") for p in POSITIONS], "", "", "", ""])
    rows.append(["标准分", "", "", "最终" if sheet["final"] else "暂定", "",  # a tie's share: 2.33, not 2.3333333333333335
                 *[round(sheet["table_points"][p], 2) for p in POSITIONS], "", "", "", ""])
    for p in replaced:
        for k, s in enumerate(sitters[p]):
            hands = f"第{s['from_hand']}盘起" if s["to_hand"] is None else f"第{s['from_hand']}-{s['to_hand']}盘"
            rows.append([f"{p}号位", "替补" if k else "原选手", s["name"], hands,
                         f"{s['hands']}盘", s["points"], s["reason"]])
    return spreadsheet.to_csv(rows)
