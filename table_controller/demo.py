"""The demo table (`tablectl demo`): hands start on their own and simulated players play them.

Everything a visitor sees goes the real way: the simulator's dice arrive over the pty, the
controller computes the break, and the players' discards and flowers are recorded as `play.*`
events (source `demo`) through the same checks as an operator's keying. A player whose hand
wins lays it down and the demo stands in for the referee (read, confirm, 查叫 at 荒牌: source
`demo`), so the win banner and the score sheet move. In 血战 winners leave and the others play
on; in 血流 winners play on with their hands and may win again, until 荒牌. With a camera
(`[demo] camera`, `tablectl demo --camera STYLE`) the players lay their discards, flowers and
melds on a simulated felt that a virtual camera shows in that tile art; the camera keeps the
record, and the demo, as the referee at the table, rules on the tiles it is unsure of and
reads a win from the hand the camera sees laid down.
"""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import replace
from typing import Any

from table_controller.controller import ActionError, Controller, side_of_wind, wind_of_side
from table_controller.state import SEATS
from table_controller.store import StoreError

log = logging.getLogger("table_controller.demo")

#: How long to wait for the table to shuffle, build, raise and the dice to fall (real seconds).
DEAL_TIMEOUT_S = 180.0


def wall_by_wind(physical: dict[str, str], dealer_position: int) -> dict[str, str]:
    """The simulator's wall (keyed by the table's physical sides) keyed by this hand's winds."""
    return {wind_of_side(pos[0], dealer_position) + pos[1:]: kind for pos, kind in physical.items()}


async def _until(check: Any, timeout: float, poll: float = 0.05) -> bool:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not check():
        if loop.time() > end:
            return False
        await asyncio.sleep(poll)
    return True


#: How long the demo (standing in for the referee) waits for the camera to record a play laid on
#: the felt before it keys the play itself, as a referee keys what the camera missed.
CAMERA_WAIT_S = 10.0


#: How long the felt lies empty between the demo's hands (the camera retires a tile after five
#: frames unseen, 2.5 s at its 0.5 s period).
FELT_CLEAR_S = 4.0
#: What the demo, standing in for the referee, gives a win where the referee scores the ruleset
#: (裁判计分): from the discarder, or from each other seat on a self-drawn win.
DEMO_POINTS = 8


def _side(controller: Controller, wind: str | None) -> str | None:
    """The table's physical side where the wind of this hand sits: the felt is the table's, and
    the camera tells winds from sides by the hand's dealer, as at a real table."""
    hand = controller.state.hand
    return side_of_wind(wind, hand["dealer_position"]) if wind is not None and hand is not None else wind


def _recorded(hand: dict[str, Any] | None, kind: str, seat: str) -> int:
    """How much of this kind of play by this seat the record holds (the camera's or anyone's):
    discards, flowers, or the tiles of its melds (a 补杠 adds one to a pung, no meld)."""
    if hand is None:
        return 0
    if kind in ("claim", "kong"):
        return sum(len(m.get("tiles", [])) for m in (hand.get("melds") or {}).get(seat) or [])
    where = {"discard": "discards", "flower": "flowers"}[kind]
    return len((hand.get(where) or {}).get(seat) or [])


def rule_camera(controller: Controller, felt: Any, ruled: set[int]) -> int:
    """The demo stands in for the referee at the table: each tile the camera is unsure of is
    confirmed, or corrected to what lies there (source `demo`); the reader learns each ruling."""
    from table_controller.referee import camera_open

    n = 0
    for p in camera_open(controller.state):
        if p["seq"] in ruled or not p.get("at"):
            continue
        ruled.add(p["seq"])
        kind = felt.kind_at(p["at"])
        if kind is None:
            continue  # nothing lies there any more
        data: dict[str, Any] = {"seq": p["seq"], **({"kind": kind} if kind != p.get("kind") else {})}
        try:
            controller.referee_action("referee.camera_confirm", data, by="demo", source="demo")
            n += 1
        except ActionError as exc:
            log.info("demo camera ruling refused", extra={"reason": str(exc)})
    return n


async def riichi_by_camera(controller: Controller, seat: str, wait_s: float = CAMERA_WAIT_S) -> bool:
    """Wait for the camera to record the 立直 a sideways discard declared; False after `wait_s`
    (the demo then keys it, as an operator would)."""
    return await _until(lambda: seat in ((controller.state.hand or {}).get("riichi") or {}), wait_s, poll=0.1)


async def lay_and_watch(controller: Controller, felt: Any, action: Any, ruled: set[int],
                        wait_s: float = CAMERA_WAIT_S, sideways: bool = False) -> bool:
    """Lay a play on the felt (a discard `sideways` when it declares 立直) and wait until the camera
    has recorded it, ruling on its unsure tiles meanwhile; after `wait_s` the demo keys it (source
    `demo`). True when the camera did."""
    before = _recorded(controller.state.hand, action.type, action.seat)
    if sideways:
        felt.lay(action.type, _side(controller, action.seat), action.tile, sideways=True)
    else:
        felt.lay(action.type, _side(controller, action.seat), action.tile, _side(controller, action.frm),
                 kind=action.kind, run=action.run)
    loop = asyncio.get_running_loop()
    end = loop.time() + wait_s
    while loop.time() < end:
        rule_camera(controller, felt, ruled)
        if _recorded(controller.state.hand, action.type, action.seat) > before:
            return True
        await asyncio.sleep(0.1)
    type_, data = action.event()
    try:
        controller.record_play(type_, data, by="demo", source="demo")
    except ActionError as exc:
        log.info("demo keyed play refused", extra={"reason": str(exc)})
    return False


async def win_by_camera(controller: Controller, felt: Any, action: Any, ruled: set[int],
                        wait_s: float = CAMERA_WAIT_S) -> bool:
    """The winner lays the hand down on the felt; the demo, as the referee, reads the win from
    the camera (`CameraWatcher.win_read`), checks it against the table and confirms it. Where the
    camera's read is not the hand on the table after `wait_s`, the referee reads it by hand
    (`declare_win`), as at a table whose camera misread a tile. False when the win is refused."""
    read = action.hand
    laid = list(read["concealed"]) + ([read["win_tile"]] if read["win"] != "discard" else [])
    felt.lay("hand", _side(controller, action.seat), " ".join(laid))
    loop = asyncio.get_running_loop()
    end = loop.time() + wait_s
    while loop.time() < end and controller.camera is not None:
        rule_camera(controller, felt, ruled)
        try:
            seen = controller.camera.win_read(action.seat, read["win"], read["win_tile"])
        except ActionError:
            seen = None  # not all laid tiles seen, or some still unsure
        if seen is not None and sorted(seen["concealed"]) == sorted(read["concealed"]):
            if read.get("options"):  # what the camera cannot see: the referee's points, a 定缺
                seen = {**seen, "options": {**(seen.get("options") or {}), **read["options"]}}
            try:
                controller.referee_action("referee.win_read", {"hand": seen, "source": "camera"}, by="demo", source="demo")
                controller.referee_action("referee.win_confirm", {}, by="demo", source="demo")
                return True
            except ActionError as exc:
                log.info("demo camera win refused", extra={"reason": str(exc)})
                break
        await asyncio.sleep(0.2)
    return declare_win(controller, read)


async def play_one_hand(controller: Controller, sim: Any, rng: random.Random, turn_seconds: float,
                        felt: Any = None) -> None:
    """Start a hand, wait for the break, and let the players play it out: to a win (血战: three;
    血流: wins do not end it), or to 荒牌 (四川: then 查叫). With a `felt` (the demo's camera) the
    face-up plays are laid on it and the camera records them."""
    from table_controller.referee import flow_of
    from table_controller.state import hand_plan
    from tablesim.players import play_hand

    if felt is not None and felt.clear():  # the last hand's tiles go down into the table
        # and the camera sees the felt empty before the next hand's first tile: a real table takes
        # longer than this to shuffle, but the demo's fast one could lay a flower where a tile of
        # the last hand lay before the camera let that tile go, and the flower would be taken for it
        # (a felt with nothing on it, as before the first hand, has nothing to let go: no wait)
        await asyncio.sleep(FELT_CLEAR_S)
    await controller.start_hand(by="demo")
    if not await _until(lambda: (h := controller.state.hand) is not None and (h.get("deal") or h.get("error")),
                        DEAL_TIMEOUT_S):
        log.warning("no deal from the table in time; ending the hand")
        await controller.end_hand(by="demo", result="abandoned")
        return
    hand = controller.state.hand
    assert hand is not None
    if hand.get("error") or sim.wall is None:
        await controller.end_hand(by="demo", result="abandoned")
        return
    plan = hand_plan(hand)  # the deal the fold keeps, from the ruleset as the service read it
    judge = win_judge(hand["ruleset"], hand.get("prevalent_wind", "E"), table=lambda: controller.state)
    flow = flow_of(hand["ruleset"])
    after_win = flow.continue_after_win
    wins, shown, ruled = 0, None, set()
    wall = wall_by_wind(sim.wall, hand["dealer_position"])
    # 定缺 is said aloud (or shown face down), never laid face up: the demo keys it, as an operator would
    stream = iter(play_hand(plan, wall, rng, judge, after_win, missing=flow.missing_suit, seal=flow.seal_pungs,
                            furiten=ready_waits(hand["ruleset"]) if flow.furiten else None, riichi=flow.riichi,
                            chows=flow.chow, kong_after_chow=flow.kong_after_chow))
    ahead = None  # a discard looks one play ahead: a player declaring 立直 lays it sideways
    while (action := ahead or next(stream, None)) is not None:
        ahead = None
        await asyncio.sleep(turn_seconds)
        if action.type == "reveal":
            shown = action.hand
            break
        if action.type == "win":
            read = with_referee_options(hand["ruleset"], action.hand)
            shown_up = turned_up(controller.state.hand, plan, wall,  # 买马, 宝牌: turned up and read with the win
                                 self_drawn=action.hand.get("win") not in ("discard", "rob_kong"))
            if shown_up:
                read = {**read, "options": {**(read.get("options") or {}), **shown_up}}
            action = replace(action, hand=read)
            declared = (await win_by_camera(controller, felt, action, ruled) if felt is not None
                        else declare_win(controller, action.hand))
            if not declared:
                break
            wins += 1
            continue
        if felt is not None and action.type == "discard":
            ahead = next(stream, None)
            turned = ahead is not None and ahead.type == "riichi" and ahead.seat == action.seat
            await lay_and_watch(controller, felt, action, ruled, sideways=turned)
            if turned and await riichi_by_camera(controller, action.seat):
                ahead = None  # the camera saw the sideways discard and recorded the 立直 with it
            continue
        if felt is not None and action.type in ("flower", "claim", "kong"):
            await lay_and_watch(controller, felt, action, ruled)
            continue
        type_, data = action.event()
        try:
            controller.record_play(type_, data, by="demo", source="demo")
        except ActionError:
            if type_ != "play.riichi":
                raise
            # a player short of the stick's 1000 points may not declare: it plays on without 立直
    # wins end the hand: the first (截和, 一炮多响), or the third (血战); never in 血流, which plays to 荒牌
    over = {"end": wins >= 1, "blood_battle": wins >= 3}.get(after_win, False)
    await controller.end_hand(by="demo", result="win" if over else "draw")
    if shown is not None and not over:
        await check_hands(controller, shown, felt, ruled)


async def check_hands(controller: Controller, shown: dict[str, Any], felt: Any = None, ruled: set[int] | None = None,
                      wait_s: float = CAMERA_WAIT_S) -> None:
    """查叫 at 荒牌 where the ruleset checks the hands (四川): the seats still playing show them and
    the demo, standing in for the referee, rules it (source `demo`). With the demo's camera the
    hands are laid on the felt and read from it (`CameraWatcher.exhaustive_hands`), checked
    against the table, or given by hand where the camera's read is not the hands."""
    from table_controller.referee import settles_draw

    if not settles_draw(controller.state.ruleset):
        return
    hands = {seat: {"concealed": h["concealed"]} for seat, h in shown.items()}
    data: dict[str, Any] = {"hands": hands}
    if felt is not None and controller.camera is not None:
        for seat, h in hands.items():
            felt.lay("hand", _side(controller, seat), " ".join(h["concealed"]))
        truth = {seat: sorted(h["concealed"]) for seat, h in hands.items()}
        loop = asyncio.get_running_loop()
        end = loop.time() + wait_s
        while loop.time() < end:
            rule_camera(controller, felt, ruled if ruled is not None else set())
            try:
                seen = controller.camera.exhaustive_hands()
            except ActionError:
                seen = None  # not all laid down and sure yet
            if seen is not None and {w: sorted(h["concealed"]) for w, h in seen.items()} == truth:
                data = {"hands": seen, "source": "camera"}
                break
            await asyncio.sleep(0.2)
    try:
        controller.referee_action("referee.exhaustive", data, by="demo", source="demo")
    except ActionError as exc:
        log.info("demo 查叫 refused", extra={"reason": str(exc)})


def win_judge(ruleset: str, prevalent: str, table: Any = None) -> Any:
    """Whether a hand laid down wins under `ruleset` (the scorer says so), for the demo's players;
    where the referee scores the ruleset (裁判计分), whether it is a winning shape. None for a
    ruleset unknown to the scorer (the demo cannot show its wins). `table` (the live `TableState`,
    called at each look): also whether the referee would confirm it there and then
    (`referee.confirm_refusal`: 竞技's stacks forbid a win on the discard of a seat with no points
    left, or one that ends the 局 without the winner first): a player who knows it plays on."""
    from table_controller.referee import confirm_refusal
    from table_controller.scoring import ScoringError, referee_scored, score_json, scored

    if not scored(ruleset) and not referee_scored(ruleset):
        return None

    def judge(read: dict[str, Any]) -> bool:
        hand = with_referee_options(ruleset, {**read, "prevalent_wind": prevalent})
        try:
            if not score_json(hand, ruleset)["valid"]:
                return False
        except ScoringError:
            return False
        return table is None or confirm_refusal(table(), hand) is None

    return judge


def turned_up(hand: dict[str, Any] | None, plan: Any, wall: dict[str, str],
              self_drawn: bool = False) -> dict[str, list[str]]:
    """What the referee turns up from the simulated wall and reads with a win, where the ruleset's
    scorer takes it: 买马's horses standing next in the tail as the hand ends (推倒胡), riichi's
    宝牌 indicators (one more after each kong). `self_drawn`: the winner's draw, not yet counted
    by the record (`pending_draw`), has left the wall: it is no horse."""
    from table_controller.rules import WallError
    from table_controller.scoring import win_options

    wanted = win_options(hand.get("ruleset", "")) if hand is not None else []
    if hand is None or not {"horses", "dora"} & set(wanted):
        return {}
    now = hand.get("wall_now") or {}
    try:
        drawing = 1 if self_drawn and hand.get("pending_draw") else 0
        state = plan.state_after(live_drawn=now.get("live_drawn", 0) + drawing, tail_drawn=now.get("tail_drawn", 0))
        out = {}
        if "horses" in wanted:
            out["horses"] = [wall[pos] for pos in state.hand_end_tiles()]
        if "dora" in wanted:
            out["dora"] = [wall[pos] for pos in state.indicator_positions().get("dora", ())]
        return out
    except WallError:  # the record counted more draws than the wall holds: nothing to read
        return {}


def ready_waits(ruleset: str) -> Any:
    """The waits of a hand read (its 13 tiles, whatever `win_tile` it names), for the demo's
    players to keep out of 振听 as the live table's referee checks it (`referee.furiten`)."""
    from table_controller.scoring.hand import HandInput
    from table_controller.scoring.waits import shape_waits

    def waits(read: dict[str, Any]) -> set[str]:
        return set(shape_waits(HandInput.from_json({**read, "win": "self_draw"}), ruleset))

    return waits


def with_referee_options(ruleset: str, read: dict[str, Any]) -> dict[str, Any]:
    """The read with what the demo, as the referee, gives it: `DEMO_POINTS` where the referee
    scores the ruleset (裁判计分: from the discarder, or from each other seat on a self-drawn win).
    (Riichi's 立直 and 一发 come from the record: the demo's players declare it, the demo keys it.)"""
    from table_controller.scoring import referee_scored

    if not referee_scored(ruleset):
        return read
    return {**read, "options": {**(read.get("options") or {}), "points": read.get("options", {}).get("points", DEMO_POINTS)}}


def declare_win(controller: Controller, read: dict[str, Any]) -> bool:
    """The demo's player lays the hand down and the demo stands in for the referee: the win is
    read and confirmed through the same checks (source `demo`). False when they refuse it."""
    data = {**read, "prevalent_wind": (controller.state.hand or {}).get("prevalent_wind", "E")}
    try:
        controller.referee_action("referee.win_read", {"hand": data}, by="demo", source="demo")
        controller.referee_action("referee.win_confirm", {}, by="demo", source="demo")
    except ActionError as exc:
        log.info("demo win refused", extra={"reason": str(exc)})
        return False
    return True


def start_next_round(controller: Controller) -> bool:
    """Once the session's hands are played (MCR's 16), the demo's referee starts the next round
    (轮次): at a tournament with the players the hub's seating sent this table (it waits for
    them), alone with the same four players, each moved one chair on. True when it did."""
    from table_controller.seating import for_state

    s = controller.state
    if s.hand is not None and not s.hand.get("ended") or not for_state(s).over:
        return False
    offer = s.seating_offer
    if offer and offer["round"] > s.round:  # the organiser's seating, as the referee fills it in
        controller.referee_action("referee.round_start", {
            "round": offer["round"], "players": dict(offer["players"]), "player_ids": dict(offer.get("player_ids") or {})},
            by="demo", source="demo")
        return True
    if controller.config.tournament.broker:
        return False  # the next round's players come from the hub
    names = {p: s.players.get(p) or f"{p}号位" for p in (1, 2, 3, 4)}
    controller.referee_action("referee.round_start", {
        "round": s.round + 1, "players": {str(p % 4 + 1): names[p] for p in names},
        "player_ids": {str(p % 4 + 1): s.player_ids[p] for p in names if s.player_ids.get(p)}},
        by="demo", source="demo")
    return True


async def throw_for_first_dealer(controller: Controller, sim: Any) -> None:
    """定庄 before a round's first hand: the chairs the ruleset asks press their dice buttons on the
    simulated table (1号位; under 四川 every chair, the tied ones again), as the players would."""
    from table_controller.seating import method_of, to_throw

    for _ in range(8):  # ties throw again; a run of ties this long is left to chair 1
        s = controller.state
        if s.hand is not None or s.hands or (s.first_dealer or {}).get("position"):
            return
        for chair in to_throw(s.first_dealer, method_of(s.ruleset)):
            seen = len((controller.state.first_dealer or {}).get("throws", []))
            sim.press_button(seat=SEATS[chair - 1], button="dice")  # the table's side of chair N
            if not await _until(lambda: len((controller.state.first_dealer or {}).get("throws", [])) > seen, 5.0):
                return  # no dice from the table: chair 1 deals


async def demo_loop(controller: Controller, sim: Any, seed: int, turn_seconds: float, pause_seconds: float,
                    felt: Any = None) -> None:
    """Play hands until cancelled, round after round; a refused action (e.g. the link is down)
    waits and tries again."""
    rng = random.Random(f"{seed}:players")
    while True:
        await controller._linked.wait()
        try:
            start_next_round(controller)
            await throw_for_first_dealer(controller, sim)
            await play_one_hand(controller, sim, rng, turn_seconds, felt)
        except (ActionError, StoreError) as exc:  # StoreError: the log cannot be written (a full card)
            log.info("demo hand interrupted", extra={"reason": str(exc)})
            await asyncio.sleep(1.0)
            continue
        await asyncio.sleep(pause_seconds)
