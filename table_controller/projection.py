"""What each audience may see: the public projection (no concealed tile, ever) and the referee's.

The public page, the broadcast and the public WebSocket are computed by `public_view` and
`public_event` only; the referee's view adds the win as read (the concealed hand) and who acted
from where, and travels only on the authenticated channel.
"""

from __future__ import annotations

import copy
from typing import Any

from table_controller import referee as R
from table_controller import scoresheet
from table_controller.appeals import standing
from table_controller.camera_public import CAMERA_TILE_EVENTS, camera_public
from table_controller.penalties import catalogue
from table_controller.refusal_public import public_error, public_rescored
from table_controller.scoring import referee_scored, win_options
from table_controller.state import dice_refusal
from table_controller.timers import timer_rules

#: The keys of a scored result that say nothing about the tiles held.
RESULT_PUBLIC = ("valid", "fans", "total", "points", "payments", "steps", "shares")
#: Referee actions carried in every pushed state (the rest: GET /api/actions); keeps messages small.
ACTIONS_TAIL = 30
#: Fields of an action the pages do not need (the full record: GET /api/actions, the log itself).
ACTION_INTERNAL = ("hand", "hands", "client", "by_wind", "error_kind", "source", "restore")
BACK = "back"
#: A log line's texts as the public reads them (`state._log_line`: a camera's tile not named), in each language
PUBLIC_TEXT = ("public", "public_en")


def public_text(ev: Any, english: bool = False) -> str:
    """The log's line for event `ev` (`state.describe`, or `log_en.describe_en`) as the public may read it."""
    from table_controller.log_en import describe_en
    from table_controller.state import describe
    from table_controller.store import Event

    said = describe_en if english else describe
    if ev.type not in CAMERA_TILE_EVENTS:
        return said(ev)
    return said(Event(ev.seq, ev.at, ev.source, ev.type, camera_public(ev.data)))


def _base(state: Any) -> dict[str, Any]:
    out = state.to_json()
    out["actions_total"] = len(state.actions)
    out["actions"] = out["actions"][-ACTIONS_TAIL:]
    hand_no = state.hand["hand_no"] if state.hand else None
    out["session"] = R.session(state.actions)
    out["appeals"] = standing(state)  # 申诉 and the committee's decisions: part of the public record
    out["timers"] = timer_rules(state.ruleset).to_json()
    out["scoresheet"] = _sheet(state)
    out["stopped"] = R.stopped_seats(state.actions, hand_no)
    last = R.last_undoable(state.actions)
    out["last_action"] = {"seq": last["seq"], "type": last["type"], "name_zh": R.ACTION_ZH.get(last["type"], last["type"])} if last else None
    read = R.current_read(state.actions, hand_no)
    wins = R.confirmed_wins(state.actions, hand_no)
    done = next((w for w in wins if read is not None and w.get("read_seq") == read["seq"]), None)
    result = read["result"] if read is not None else None
    if done is not None and done.get("recorded"):  # confirmed: the figures confirmed, not today's scoring
        result = _as_confirmed(result, done)
    out["win"] = None if read is None else {
        "seq": read["seq"], "seat": read["seat"], "result": result, "hand": read.get("hand"),
        "correction": read.get("correction", False), "confirmed": done is not None,
        "confirmed_seq": done["seq"] if done else None,
    }
    # every confirmed win of the hand (一炮多响, 血战): who, fans, total, payments (no tile held); `riichi_void`: the
    # seat whose 立直 declaration tile was won on (its 立直 never stood: the panels say so)
    out["wins"] = [{"seq": w["seq"], "seat": w["seat"], "total": w.get("total"), "fans": w.get("fans", []),
                    "payments": dict(w.get("by_wind", {})), "win_kind": w.get("win_kind"),
                    "riichi_void": w.get("riichi_void")} for w in wins]
    settled = R.exhaustive(state.actions, hand_no)
    out["exhaustive"] = None if settled is None else {
        "seq": settled["seq"], "flower_pigs": settled["flower_pigs"], "ready": settled["ready"],
        "not_ready": settled["not_ready"], "refunds": settled["refunds"], "payments": dict(settled["by_wind"])}
    out["further_win"] = _further_win_possible(state, wins)
    out["plays_on"] = R.flow_of(state.ruleset).continue_after_win != "end"
    # the hand ended as a win that no confirmed win stands for: confirmed again, or ended otherwise (结束本盘)
    out["win_unconfirmed"] = R.ended_unconfirmed(state)
    out["settles_draw"] = R.settles_draw(state.ruleset)
    # the 查叫 form is due: a 荒牌, or 血战/血流 ended at the wall's end by a win on its last tile
    out["exhaustive_due"] = out["settles_draw"] and R.exhaustive_due(state)
    out["referee_scored"] = referee_scored(state.ruleset)  # 裁判计分: the Win page asks for the points
    out["win_options"] = win_options(state.ruleset)  # what else only the referee can give a win read
    # 录入骰子 refused now, and why (the walls not up, as the table says): the form is shown disabled with these words,
    # by the function the API refuses with (`state.dice_refusal`), so the page never offers what the table refuses
    refused = dice_refusal(state)
    out["dice_refused"] = None if refused is None else {"text": refused[0], "text_en": refused[1]}
    out["riichi_record"] = _riichi_record(state.hand)
    out["next_hand"] = _next_hand(state)
    return out


def _riichi_record(hand: dict[str, Any] | None) -> dict[str, dict[str, bool]]:
    """立直, 两立直 and 一发 as the record gives them to a win read by each seat that declared (`referee.
    record_options`), for the Win page to show them ticked: before, its 立直 and 一发 stayed unticked for the
    seat that had declared, and the referee could not tell they would count. Public: a declaration lies
    sideways, and the calls and discards that end 一发 are face up."""
    if not hand or not hand.get("riichi"):
        return {}
    out: dict[str, dict[str, bool]] = {}
    for seat in hand["riichi"]:
        given = R.record_options(hand, {"seat_wind": seat})
        out[str(seat)] = {k: True for k in ("riichi", "double_riichi", "ippatsu") if given.get(k)}
    return out


def _as_confirmed(result: dict[str, Any], done: dict[str, Any]) -> dict[str, Any]:
    """The read's result with the figures confirmed. Today's steps (`steps`, `shares`: how the total becomes each
    payment) stay only where they lead to the payments confirmed: a line from today's total to today's payments
    under a hand confirmed otherwise would not reconcile."""
    paid = {w: v for w, v in done.get("by_wind", {}).items() if v}
    same = result.get("total") == done.get("total") and {w: v for w, v in (result.get("payments") or {}).items()
                                                         if v} == paid
    kept = {k: v for k, v in result.items() if same or k not in ("steps", "shares")}
    return {**kept, "valid": True, "total": done.get("total"), "fans": done.get("fans", []),
            "payments": dict(done.get("by_wind", {}))}


#: What the last score sheets were computed from (`_sheet_inputs`), and those sheets, newest first: the
#: live views and a broadcast feed's (`/ws?delay=S`: the same states, seconds later) each find theirs.
_sheets: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
SHEETS_KEPT = 4


def _sheet_inputs(state: Any) -> tuple[Any, ...]:
    """All that `scoresheet.compute` reads of a state. The fold replaces a list it changes and never
    changes one in place (`state.apply`), so the actions and the ended hands are the same objects
    for as long as they are the same; the rest is small and compared by value."""
    h = state.hand or {}
    hand = tuple(h.get(k) for k in ("hand_no", "dealer_position", "prevalent_wind", "seats", "kong_payments",
                                     "chase_payments", "riichi", "ended"))
    return (state.actions, state.hands, state.ruleset, state.players, state.round, state.first_dealer,
            state.hand is None, hand)


def _sheet(state: Any) -> dict[str, Any]:
    """The score sheet of `state`, computed again only when what it is computed from changed: a
    discard, a draw, a link or camera event leaves it as it was, and the public and the referee view
    of each event share it. At 400 hands the sheet is most of a view's cost (43 of 48 ms profiled
    here, a Pi 5-8x that), and it was computed twice on every event."""
    inputs = _sheet_inputs(state)
    for i, (known, sheet) in enumerate(_sheets):
        if known[0] is inputs[0] and known[1] is inputs[1] and known[2:] == inputs[2:]:
            if i:
                _sheets.insert(0, _sheets.pop(i))
            return sheet
    sheet = scoresheet.compute(state)
    _sheets.insert(0, (inputs, sheet))
    del _sheets[SHEETS_KEPT:]
    return sheet


def _next_hand(state: Any) -> dict[str, Any] | None:
    """Between hands: who deals the next, its round wind, the players' chairs and whether they
    change (换位, the page tells the players to move), or that the session's hands are all played."""
    from table_controller.seating import first_dealer_of, for_state, method_of, to_throw

    if state.hand is not None and not state.hand.get("ended"):
        return None
    c = for_state(state)
    seating = {str(chair): player for chair, player in enumerate(c.seating, start=1)}
    before = (state.hands[-1].get("seating") if state.hands else None) or {str(p): p for p in (1, 2, 3, 4)}
    moves = [[int(ch), before[ch], seating[ch]] for ch in sorted(seating) if before.get(ch) != seating[ch]]
    fd = state.first_dealer if not state.hands else None
    return {"dealer_position": c.dealer_position, "prevalent": c.prevalent, "seating": seating,
            "swap": moves, "over": c.over, "hands_per_session": c.hands_per_session,
            "ended_by_referee": c.ended_by_referee,
            # 飛び (riichi's [match] bust): the players below 0 that ended the session, with what they hold
            "busted": {str(p): held for p, held in c.busted},
            # 定庄 before the round's first hand: the method, and what it still waits for
            "first_dealer": None if state.hands else {
                "method": method_of(state.ruleset), "position": first_dealer_of(fd), "chosen": bool(fd and fd.get("position")),
                "waiting": to_throw(fd, method_of(state.ruleset)),
                "throws": (fd or {}).get("throws", []), "note": (fd or {}).get("note")}}


def _further_win_possible(state: Any, wins: list[dict[str, Any]]) -> bool:
    """Whether the referee may read another winner of this hand (the Win page offers a new read)."""
    if not wins or state.hand is None:
        return False
    flow = R.flow_of(state.ruleset)
    if flow.continue_after_win == "blood_battle":
        return len(wins) < 3
    return flow.continue_after_win == "blood_river" or flow.multiple_winners


def referee_view(state: Any) -> dict[str, Any]:
    """Everything, including the hand as read: for the referee's authenticated channel only."""
    out = _base(state)
    out["view"] = "referee"
    out["log"] = [{k: v for k, v in line.items() if k not in PUBLIC_TEXT} if "public" in line else line
                  for line in out["log"]]
    out["penalty_catalogue"] = catalogue(state.ruleset).to_json()
    return out


def public_view(state: Any) -> dict[str, Any]:
    """Everything public: discards, exposed melds, flowers, scores, penalties, fans — no concealed tile."""
    out = _base(state)
    out["view"] = "public"
    if out["win"] is not None:
        out["win"]["hand"] = None
        out["win"]["result"] = _public_result(out["win"]["result"])
    out["actions"] = [{k: v for k, v in _public_action(a).items() if k not in ACTION_INTERNAL} for a in out["actions"]]
    out["log"] = [_public_line(line) for line in out["log"]]
    out["camera_pending"] = [camera_public(p) for p in out.get("camera_pending") or []]
    if out.get("hand"):
        out["hand"] = _public_hand(out["hand"])
    return out


def _public_line(line: dict[str, Any]) -> dict[str, Any]:
    """A log line as the public reads it: its public text where it has one (`state._log_line`; a saved state
    folded by another version is not restored: `snapshot.code_version`)."""
    if "public" in line:
        return {**{k: v for k, v in line.items() if k not in PUBLIC_TEXT}, "text": line["public"],
                "text_en": line.get("public_en", line["public"])}
    return line


def _public_result(result: dict[str, Any] | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {k: copy.deepcopy(result[k]) for k in RESULT_PUBLIC if k in result}


def _public_action(a: dict[str, Any]) -> dict[str, Any]:
    a = {k: v for k, v in a.items() if k not in ("hand", "hands", "client")}
    if a.get("type") == "referee.play_correct":  # the play as corrected only (`now`, in words, never a concealed tile)
        ins = a.get("insert")
        a = {k: v for k, v in a.items() if k not in ("fields", "was", "insert")}
        if ins:  # where a play was inserted, not its tiles (a concealed kong's faces)
            a["insert"] = {"anchor": ins.get("anchor"), "after": ins.get("after"), "type": ins.get("type")}
    if "result" in a:
        a["result"] = _public_result(a["result"])
    if a.get("error"):  # a confirmation's refusal quoted the read's message (振听's waits): said, not quoted
        a["error"] = public_error(a)
    if a.get("rescored"):
        a["rescored"] = public_rescored(a)
    if a.get("type") in ("referee.camera_confirm", "referee.camera_dismiss"):  # a tile laid down (查叫): not named
        a = camera_public(a)
    return a


def _public_hand(hand: dict[str, Any]) -> dict[str, Any]:
    """The hand with concealed kongs face down (a new dict: the state itself is shared, never changed)."""
    melds = {w: [{**m, "tiles": [BACK] * len(m.get("tiles", []))} if m.get("concealed") else m for m in ms]
             for w, ms in (hand.get("melds") or {}).items()}
    return {**hand, "melds": melds}


def public_event(ev: dict[str, Any]) -> dict[str, Any]:
    """An event as the public may see it: a win's tiles and a concealed kong's faces removed."""
    ev = copy.deepcopy(ev)
    data = ev.get("data", {})
    data.pop("client", None)
    if ev.get("type") == "referee.win_read":
        hand = data.pop("hand", None) or {}
        data["seat"] = hand.get("seat_wind", hand.get("winner")) if isinstance(hand, dict) else None
    if ev.get("type") == "referee.exhaustive":
        data.pop("hands", None)  # the hands shown at 查叫: the referee's channel only
    if ev.get("type") == "referee.play_correct":
        data.pop("tiles", None)  # a concealed kong's faces put right: the public record shows the kong face down
        if isinstance(data.get("play"), dict) and data["play"].get("concealed"):  # one inserted: face down too
            data["play"] = {**{k: v for k, v in data["play"].items() if k != "tile"},
                            "tiles": [BACK] * len(data["play"].get("tiles") or [])}
    if ev.get("type") == "play.kong" and data.get("concealed"):
        data["tiles"] = [BACK] * len(data.get("tiles", []))
        data.pop("tile", None)  # a kong names no single tile: one keyed beside it (the API refuses it now) is its face
    if ev.get("type") in CAMERA_TILE_EVENTS:  # a tile of a hand laid down, as the camera read it: not named
        ev["data"] = camera_public(data)
    return ev


def public_actions(state: Any) -> list[dict[str, Any]]:
    """Every referee action of the session, as the public may see it (the audit trail)."""
    return [_public_action(a) for a in state.actions]
