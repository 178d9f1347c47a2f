"""The event log's lines in English (`describe_en`), beside the Chinese ones (`state.describe`): the English pages'
log, the broadcast overlay's last play, 更正牌谱's choices. Tiles keep their faces (九筒, 东), as on the tiles the
English pages draw; what a person typed (a reason, an appeal) stays as typed. Never a concealed tile: the same
facts as the Chinese line, no more."""

from __future__ import annotations

from typing import Any

from drivers.names import reason_en
from table_controller import chatter, corrections
from table_controller.store import Event
from table_controller.tiles import SEATS

ZONE_EN = {"discard": "discards", "meld": "melds", "flower": "flowers", "centre": "centre"}
BUTTON_EN = {"dice": "dice", "start": "start", "raise": "raise", "lower": "lower"}
CLAIM_EN = {"chow": "chows", "pung": "pungs", "kong": "kongs"}
SUIT_EN = {"m": "characters", "p": "dots", "s": "bamboo"}


def describe_en(ev: Event) -> str:
    """A one-line English description of an event for the English page's log (`state.describe`'s facts)."""
    d = ev.data
    t = ev.type
    if t == "link.up":
        return f"table linked: {d.get('serial', '')} firmware {d.get('firmware', '')}"
    if t == "link.down":
        return f"table link down: {reason_en(str(d.get('reason', '')))}"
    if t == "link.restored":
        return f"table linked again (reconnect {d.get('reconnects', '')})"
    if t == "tournament.seating" and d.get("withdrawn"):
        return f"the tournament withdrew round {d.get('round', '?')}'s seating: no players at this table this round"
    if t == "tournament.seating":
        return f"the tournament published round {d.get('round', '?')}'s seating: {_chairs(d.get('players'))}"
    if t == "controller.configured":
        names = _chairs(d.get("players"))
        return f"table set up: {d.get('table_name', '')} · {_ruleset_name(str(d.get('ruleset', '')))}" + (
            f" · {names}" if names else "")
    if t == "controller.session_alert":
        return "time: the session is over" if not d.get("minutes") else \
            f"time: {d.get('left_min', d['minutes']):g} min of the session left"
    if t == "table.unreadable":
        return f"an event this controller cannot read ({d.get('error', '')}): recorded and skipped"
    if t == "controller.log_salvaged":
        lost = d.get("lost_count", 0)
        return (f"the event log was damaged ({d.get('problem', '')}): kept aside as {d.get('damaged_file', '')}, "
                f"{d.get('recovered', 0)} events carried over"
                + (f", {d['from_mirror']} from the mirror" if d.get("from_mirror") else "")
                + (f", {lost} lost (" + ", ".join(f"{a}–{b}" if a != b else str(a) for a, b in d.get("lost", [])) + ")"
                   if lost else ", none lost"))
    if t == "controller.log_restored":
        return (f"the event log writes again (not for {d.get('unwritable_s', '?')} s: {d.get('error', '')}); "
                "the table's events held meanwhile are in, in order")
    if t == "controller.clock_step":
        if d.get("behind_record_s") and d.get("from_record"):
            return (f"the clock was {d['behind_record_s']} s behind the record: timers go on from its last event, "
                    "the time down not counted")
        if d.get("behind_record_s"):
            return f"the clock is {d['behind_record_s']} s behind the record: check the time"
        return f"the system clock moved {d.get('drift_s')} s; this run's timers are unaffected"
    if t == "table.phase":
        return f"table: {str(d.get('phase', '')).replace('_', ' ')}"
    if t in ("table.dice", "operator.dice"):
        dice = ", ".join(str(x) for x in d.get("dice", []))
        how = "keyed dice" if t == "operator.dice" else "threw"
        total = sum(d.get("dice", []))
        if "wind" not in d and d.get("seat") in SEATS:  # no hand yet: 定庄, by chair
            return f"chair {SEATS.index(d['seat']) + 1} {how} for the first dealer: {dice} ({total})"
        return f"{_presser(d)} {how}: {dice} ({total})"
    if t == "table.fault_raised":
        where = str(d.get("where") or "") if d.get("where") not in (None, "", "table") else ""
        return f"fault: {d.get('name_en') or d.get('code', '')}" + (f" ({where})" if where else "")
    if t == "table.fault_cleared":
        return f"fault cleared: {d.get('name_en') or _fault_name_en(d.get('code'))}"
    if t == "table.tile_count":
        count, expected = d.get("count"), d.get("expected")
        return f"tiles counted: {count}" + (f", should be {expected}" if expected not in (None, count) else "")
    if t in ("controller.button_chatter", "controller.button_chatter_ended"):
        where = chatter.where(known)[1] if (known := chatter.key_of(d)) else str(d.get("key", ""))
        if t.endswith("_ended"):
            return f"button chatter stopped: {where}, reported {d.get('presses', 0)} times (each one recorded)"
        return (f"button chattering or stuck: {where} reported {d.get('presses', 0)} times in {d.get('window_s', '')} s; "
                "further reports are counted under Faults, not listed one by one (each one recorded)")
    if t == "table.button":
        button = BUTTON_EN.get(d.get("button", ""), d.get("button", ""))
        if "wind" not in d and d.get("seat") in SEATS:
            return f"chair {SEATS.index(d['seat']) + 1} pressed {button}"
        return f"{_presser(d)} pressed {button}"
    if t == "operator.hand_start":
        return f"hand {d.get('hand_no')} starts (E: chair {d.get('dealer_position')})"
    if t == "operator.hand_end":
        return f"hand {d.get('hand_no')} over"
    if t.startswith(("referee.", "play.")):
        return _referee_en(ev)
    if t == "display.credential_changed":
        who = f" (referee {d['by_name']})" if d.get("by_name") else " (config file)" if d.get("by") == "config file" else ""
        return f"credential changed: {d.get('credential', '')}{who}"
    if t == "controller.rejected":
        return f"refused: {d.get('reason', '')}"
    if t == "camera.status":
        said = str(d.get("message", d.get("code", "")))
        return "camera: " + said + (f" ({d['problem']})" if d.get("problem") else "")
    if t.startswith("camera.tile_"):
        zone, _, side = str(d.get("zone", "")).partition(":")
        where = f"{_camera_seat(d.get('wind'), side)} {ZONE_EN.get(zone, zone)}".strip()
        verb = "appeared" if t.endswith("appeared") else "turned" if t.endswith("turned") else "removed"
        kind = _tile(d["kind"]) if d.get("kind") else "a tile"
        sure = " (for the referee)" if d.get("needs_referee") else " (as the referee ruled)" if d.get("ruled") else ""
        return f"camera: {kind} {verb} in {where}, confidence {float(d.get('confidence', 0)):.2f}{sure}"
    if t == "camera.learned":
        how = "corrected" if d.get("corrected") else "confirmed"
        return f"the camera learned this set's {_tile(d['kind']) if d.get('kind') else 'tile'} " \
               f"(as the referee {how} #{d.get('camera_seq', '')})"
    if t == "camera.recalibrated":
        return f"the camera was knocked about {float(d.get('moved_mm', 0)):.0f} mm: calibrated again from the felt's edges"
    if t == "camera.play_refused":
        return (f"what the camera saw is not in the record: {d['reason']}" if d.get("reason")
                else f"what the camera saw of {_seat(str(d.get('seat')))} is not in the record: for the referee")
    if t == "camera.unlearned":
        return (f"the camera forgot the {_tile(d['kind']) if d.get('kind') else 'tile'} learned at "
                f"#{d.get('camera_seq', '')} (the referee undid it)")
    return t


def _referee_en(ev: Event) -> str:
    d = ev.data
    seat = _seat(d.get("seat", ""))
    t = ev.type
    if t == "referee.penalty":
        return f"referee: {seat} penalty {d.get('code', '')}"
    if t == "referee.win_read":
        h = d.get("hand") or {}
        return f"read: {_seat(h.get('seat_wind', '')) or '?'} wins" + (" (corrected)" if d.get("correction") else "")
    if t == "referee.win_confirm":
        return "the referee confirmed the win"
    if t == "referee.exhaustive":
        return "the referee settled the exhaustive draw"
    if t == "referee.session_start":
        return "the referee started the session clock" + (f" ({d['minutes']} min)" if d.get("minutes") else "")
    if t == "referee.session_end":
        return "the referee ended the session"
    if t == "referee.appeal":
        about = f" (about #{d['target']})" if d.get("target") else ""
        return f"chair {d.get('position', '?')} appeals{about}: {str(d.get('text', ''))[:40]}"
    if t == "referee.appeal_ruling":
        return (f"the arbitration committee {'upheld' if d.get('upheld') else 'dismissed'} appeal "
                f"#{d.get('appeal', '')} ({str(d.get('note', ''))[:40]})")
    if t == "referee.clock_pause":
        return "the referee paused the session clock" + (f": {d['reason']}" if d.get("reason") else "")
    if t == "referee.clock_resume":
        return "the referee resumed the session clock"
    if t == "referee.round_start":
        players = d.get("players") if isinstance(d.get("players"), dict) else {}
        names = ", ".join(str(v) for _, v in sorted(players.items(), key=lambda kv: str(kv[0])))
        return f"the referee started round {d.get('round', '?')}" + (f": {names}" if names else "")
    if t == "referee.substitute":
        return (f"substitute: {d.get('name', '')} sits chair {d.get('position', '?')} from the next hand: "
                f"{str(d.get('reason', ''))[:40]}")
    if t == "referee.undo":
        return f"the referee undid #{d.get('target', '')}: {d.get('reason', '')}"
    if t == corrections.TYPE and d.get("play") is not None and d.get("target") is None:
        before = d.get("insert_before")
        where = f"before #{before}" if before is not None else f"after #{d.get('insert_after', '')}"
        return f"the referee put in a play ({where}): {d.get('reason', '')}"
    if t == corrections.TYPE:
        what = "replaced" if d.get("play") is not None else "voided" if d.get("void") else "corrected"
        return f"the referee {what} #{d.get('target', '')}: {d.get('reason', '')}"
    if t == "referee.camera_confirm":
        kind = d.get("kind")
        return f"the referee confirmed the camera's tile #{d.get('seq', '')}" + (f": {_tile(kind)}" if kind else "")
    if t == "referee.camera_dismiss":
        return f"the referee ruled the camera's #{d.get('seq', '')} no tile"
    if t == "play.deal_done":
        return "deal done, the dealer discards"
    if t == "play.discard":
        return f"{seat} discards {_tile(d.get('tile'))}"
    if t == "play.claim":
        kind = CLAIM_EN.get(d.get("kind", ""), d.get("kind", ""))
        return f"{seat} {kind} {' '.join(_tile(x) for x in d.get('tiles', []))}"
    if t == "play.kong":
        if d.get("concealed"):
            return f"{seat} concealed kong"
        if d.get("added"):
            return f"{seat} added kong {_tile((d.get('tiles') or [''])[0])}"
        return f"{seat} kongs {' '.join(_tile(x) for x in d.get('tiles', []))}"
    if t == "play.flower":
        return f"{seat} flower {_tile(d.get('tile'))}"
    if t == "play.missing":
        return f"{seat} voids {SUIT_EN.get(str(d.get('suit')), str(d.get('suit')))}"
    if t == "play.riichi":
        return f"{seat} riichi"
    return t


def action_en(action: dict[str, Any], text: str) -> str:
    """The English line of a referee action whose own record says more than its event (`state._log_line`):
    a penalty by its name, an undo, a correction as corrected (its play in the Chinese record's words)."""
    if action["type"] == "referee.penalty" and "name_en" in action:
        text = f"referee: {action['seat']} {action['name_en']}" + (
            f" ({action['amount']} pts)" if action["amount"] else " (no win this hand)" if action["stops_win"]
            else " (warning)")
    if action["type"] == "referee.undo" and action.get("target"):
        text = f"the referee undid #{action['target']}: {action['reason']}"
    if action["type"] == corrections.TYPE and action.get("now") and "target" not in action:
        where = f"{'after' if action['insert']['after'] else 'before'} #{action['insert']['anchor']}"
        text = f"the referee put in ({where}): {action['now']} ({action['reason']})"
    elif action["type"] == corrections.TYPE and action.get("now"):
        text = f"the referee corrected #{action['target']}: {action['now']} ({action['reason']})"
    if action.get("error"):
        text += f" (void: {action['error']})"
    return text


def _presser(d: dict[str, Any]) -> str:
    """Who pressed or threw in a hand (its wind); a side the board did not name (0xFF) said as such."""
    who = d.get("wind", d.get("seat"))
    return str(who) if who in SEATS else "the table (no seat given)"


def _seat(wind: Any) -> str:
    return str(wind) if wind in SEATS else str(wind or "")


def _camera_seat(wind: Any, side: str) -> str:
    if wind in SEATS:
        return f"{wind}'s"
    return f"chair {SEATS.index(side) + 1}'s" if side in SEATS else ""


def _chairs(players: Any) -> str:
    players = players if isinstance(players, dict) else {}
    return ", ".join(f"chair {c} {n}" for c, n in sorted(players.items()))


def _tile(code: Any) -> str:
    from table_controller.tiles import tile_name

    try:
        return tile_name(str(code))
    except Exception:  # a misread code is shown as read, not hidden
        return str(code)


def _fault_name_en(code: Any) -> str:
    from drivers.faults import fault_fields

    return str(fault_fields(code, "")["name_en"]) if isinstance(code, int) else str(code or "")


def _ruleset_name(ruleset_id: str) -> str:
    from table_controller.state import _ruleset_name as name

    return name(ruleset_id, "name_en")
