"""The hand record (牌谱): one hand as it happened, from the event log, for the public or the referee.

Competitions keep the record of every hand: who sat where, the dice and the break, each discard,
claim, kong and flower in order, the wins with their fans and payments, the penalties, 查叫, and
what the hand did to the score. Nothing extra is stored: the record is read from the log, so it
is the history the referee saw. The public record never holds a concealed tile (the log lines
are `state.describe`, public by design; a concealed kong's faces and the hands read at a win or
at 查叫 are the referee's only).

Served as `GET /api/hands/{n}/record` (public), `GET /api/referee/hands/{n}/record` (with the
hands as read), `?format=text` for a printable page, `GET /api/records` for the whole session,
and `tablectl record --data-dir D [--hand N | --all]`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from table_controller.log_en import describe_en
from table_controller.refusal_public import public_error
from table_controller.scoresheet import RESULT_ZH
from table_controller.state import SEATS, TableState, describe, fold
from table_controller.store import Event
from table_controller.tiles import SEAT_NAMES

#: Event types that belong in a hand's record (the table's own chatter, the camera's sightings
#: and link health do not: the plays they became do).
RECORDED = ("operator.hand_start", "operator.hand_end", "table.dice", "operator.dice", "play.", "referee.")


#: The fields of a play a replay needs (`hand_record` lines' `play`).
PLAY_FIELDS = ("seat", "tile", "tiles", "kind", "from", "concealed", "added", "suit")


class RecordError(LookupError):
    """No such hand in the log."""


def hand_numbers(events: Sequence[Event]) -> list[int]:
    """The hands the log holds, in the order they started."""
    return [int(e.data["hand_no"]) for e in events if e.type == "operator.hand_start" and "hand_no" in e.data]


def hand_record(events: Sequence[Event], hand_no: int, *, referee: bool = False,
                state: TableState | None = None, round_no: int | None = None) -> dict[str, Any]:
    """The record of hand `hand_no` of round `round_no` (default: the round being played; the
    last hand of that number, should a round hold two).

    `state` is the log folded (the running controller's own): without it the log is folded here,
    which a long session makes slow, so the service passes its state. `rounds.RoundError` for a
    round the table has not played."""
    state = state if state is not None else fold(events)
    return _Round(events, state, round_no).record(hand_no, referee)


class _Round:
    """A round's part of the log, read once for the records of its hands: each record looked through
    the whole log and computed the whole score sheet again, so a round's records (`GET /api/records`)
    cost hands x events; 12.5 s here at 400 hands (a Pi: a minute), with the display's loop held."""

    def __init__(self, events: Sequence[Event], state: TableState, round_no: int | None) -> None:
        from table_controller import rounds
        from table_controller.corrections import insertions, patches

        self.events = rounds.events_of(events, state, round_no)
        self.state = rounds.view(state, round_no)
        starts = [i for i, e in enumerate(self.events) if e.type == "operator.hand_start"]
        #: each hand number's last start, and where the hand after each start begins
        self.start_of = {self.events[i].data.get("hand_no"): i for i in starts}
        self.end_of = dict(zip(starts, starts[1:] + [len(self.events)]))
        self.actions = {a["seq"]: a for a in self.state.actions}
        self.fixes = patches(self.state.actions, None)  # plays corrected (by seq, unique in the log)
        self.inserts = insertions(self.state.actions, None)  # plays inserted (by the correction's seq)
        self._rows: dict[Any, dict[str, Any]] | None = None
        self._sitters: dict[str, list[dict[str, Any]]] | None = None

    def row(self, hand_no: int) -> dict[str, Any] | None:
        """The hand's row of the score sheet (computed once for the round)."""
        from table_controller.scoresheet import compute

        if self._rows is None:
            self._rows = {}
            for r in compute(self.state)["rows"]:
                self._rows.setdefault(r["hand_no"], r)
        return self._rows.get(hand_no)

    def sitter(self, player_no: int, hand_no: int) -> str:
        """Who sat player `player_no`'s chair in hand `hand_no`: the round's player, or the
        substitute (替补) seated there from an earlier hand."""
        from table_controller import substitutes

        if self._sitters is None:
            self._sitters = substitutes.sitters(self.state.players, self.state.player_ids, self.state.actions)
        spans = self._sitters[str(player_no)] if str(player_no) in self._sitters else None
        if spans is None:
            return self.state.players.get(player_no, f"{player_no}号位")
        return str(spans[substitutes.sitter_of(spans, hand_no)]["name"])

    def record(self, hand_no: int, referee: bool) -> dict[str, Any]:
        """Hand `hand_no`'s record (the last of that number); `RecordError` where the round has none."""
        events, state = self.events, self.state
        first = self.start_of.get(hand_no)
        if first is None:
            known = ", ".join(str(n) for n in hand_numbers(events)) or "none"
            raise RecordError(f"第 {state.round} 轮没有第 {hand_no} 盘 / no hand {hand_no} in round {state.round} "
                              f"(hands: {known})")
        after = self.end_of[first]
        playing = state.hand if state.hand is not None and state.hand.get("hand_no") == hand_no \
            and not state.hand.get("ended") else None
        hand = playing or next((h for h in reversed(state.hands) if h["hand_no"] == hand_no), None) or {}
        start_at = events[first].at
        row = self.row(hand_no)
        brk = (hand.get("deal") or {}).get("break") if playing else hand.get("break")
        return {
            "hand_no": hand_no,
            "round": state.round,
            "ruleset": state.ruleset,
            "table_name": state.table_name,
            "prevalent_wind": hand.get("prevalent_wind", "E"),
            "dealer_position": hand.get("dealer_position"),
            # the physical chair of each wind, and the player there (抽签号位; they differ after a 换位)
            "seats": {w: {"chair": _chair(w, hand.get("dealer_position") or 1), "player_no": int(p),
                          "player": self.sitter(int(p), hand_no)}
                      for w, p in (hand.get("seats") or {}).items()},
            "throws": [{"seat": t["seat"], "dice": list(t["dice"]), **({"keyed": True} if t.get("keyed") else {})}
                       for t in hand.get("throws", [])],
            "break": brk,
            "started_at": start_at,
            "ended_at": next((e.at for e in events[first:after] if e.type == "operator.hand_end"), None),
            "result": "playing" if playing else row["result"] if row else hand.get("result", "draw"),
            "wins": [_win(w, referee) for w in _wins(state, hand_no)],
            "points": row["points"] if row else {},
            "lines": self.lines(first, after, referee),
            "view": "referee" if referee else "public",
        }

    def lines(self, first: int, after: int, referee: bool) -> list[dict[str, Any]]:
        """The record's lines: events `first` to `after` (excluded) that belong in a hand's record, and
        the plays corrections inserted among them (`inserted`, named by the correction's seq); the
        public's with the plays as corrected (a voided play and the corrections left out)."""
        from table_controller.corrections import TYPE as CORRECTION
        from table_controller.corrections import Placed, fixed, layout
        from table_controller.projection import public_event, public_text

        start = self.events[first]
        lines = []
        for p in [Placed(start, start), *layout(self.events[first + 1:after], self.inserts, start.seq)]:
            ev = p.play
            if not ev.type.startswith(RECORDED):
                continue
            action = self.actions.get(ev.seq) if p.by is None else None
            fixing = ev.type == CORRECTION or (ev.type == "referee.undo" and action is not None
                                               and action.get("target_type") == CORRECTION)
            if fixing and not referee:
                continue  # the public record is the corrected one only
            play = fixed(p, self.fixes) if ev.type.startswith("play.") else ev
            if play is None and not referee:
                continue  # a play voided: never happened, for the public
            line: dict[str, Any] = {"seq": p.ident, "t": round(ev.at - start.at, 1), "source": ev.source,
                                    "type": ev.type, "text": describe(play or ev) if referee else public_text(play or ev),
                                    "text_en": describe_en(play or ev) if referee else public_text(play or ev, True)}
            if p.by is not None:
                line["inserted"] = True  # never keyed: put in by the referee's correction #seq
            if ev.type.startswith("play."):  # what was laid, for a replay (a concealed kong face down)
                data = public_event((play or ev).to_json())["data"]
                line["play"] = {k: data[k] for k in PLAY_FIELDS if k in data}
            if referee and play is None:
                line["void"] = True
            elif referee and play is not ev:
                line["was"] = describe(ev)  # as first recorded (or inserted)
            if referee and ev.type == CORRECTION and action is not None and "target" in action:
                line["text"] = f"更正 #{action['target']}：{action['was']}" + (
                    f" → {action['now']}" if action.get("now") else "（作废）") + f"（{action['reason']}）"
                line["text_en"] = f"corrected #{action['target']}: {action['was']}" + (
                    f" → {action['now']}" if action.get("now") else " (voided)") + f" ({action['reason']})"
            elif referee and ev.type == CORRECTION and action is not None and action.get("insert"):
                ins = action["insert"]
                line["text"] = (f"补录 #{ev.seq}（#{ins['anchor']} {'后' if ins['after'] else '前'}）："
                                f"{action['now']}（{action['reason']}）")
                line["text_en"] = (f"put in #{ev.seq} ({'after' if ins['after'] else 'before'} #{ins['anchor']}): "
                                   f"{action['now']} ({action['reason']})")
            if action is not None and action.get("undone"):
                line["undone"] = True
            if action is not None and action.get("error"):
                line["refused"] = action["error"] if referee else public_error(action)
            if referee and ev.type == "referee.win_read":
                line["hand"] = ev.data.get("hand")
            if referee and ev.type == "referee.exhaustive":
                line["hands"] = ev.data.get("hands")
            lines.append(line)
        return lines


def _chair(wind: str, dealer_position: int) -> int:
    return (int(dealer_position) - 1 + SEATS.index(wind)) % 4 + 1


def hand_records(events: Sequence[Event], hand_nos: Sequence[int], *, state: TableState) -> list[dict[str, Any]]:
    """The public records of hands `hand_nos` of the round being played, the log read once for all."""
    book = _Round(events, state, None)
    return [book.record(n, False) for n in hand_nos]


def session_records(events: Sequence[Event], *, referee: bool = False,
                    state: TableState | None = None, round_no: int | None = None) -> list[dict[str, Any]]:
    """Every hand's record of a round (default: the one being played), in the order they were
    played (the round's 牌谱, for the archive)."""
    state = state if state is not None else fold(events)
    book = _Round(events, state, round_no)
    return [book.record(n, referee) for n in dict.fromkeys(hand_numbers(book.events))]


def all_records(events: Sequence[Event], *, referee: bool = False,
                state: TableState | None = None) -> list[dict[str, Any]]:
    """Every hand's record of every round at this table, round by round."""
    from table_controller import rounds

    state = state if state is not None else fold(events)
    return [r for n in rounds.numbers(state) for r in session_records(events, referee=referee, state=state, round_no=n)]


def _wins(state: Any, hand_no: int) -> list[dict[str, Any]]:
    from table_controller.referee import confirmed_wins

    return confirmed_wins(state.actions, hand_no)


def _win(w: dict[str, Any], referee: bool) -> dict[str, Any]:
    out = {"seat": w.get("seat"), "win_kind": w.get("win_kind"), "total": w.get("total"),
           "fans": list(w.get("fans", [])), "payments": {k: v for k, v in (w.get("by_wind") or {}).items() if v}}
    if w.get("discarder"):
        out.update(discarder=w["discarder"], win_tile=w.get("win_tile"))  # face up when won on
    if referee:
        out["read_seq"] = w.get("read_seq")
    return out


def as_text(record: dict[str, Any]) -> str:
    """The record as a printable page (Chinese, one play a line)."""
    from table_controller.scoring import ruleset_file
    from table_controller.tiles import tile_name

    seats = record["seats"]
    who = "  ".join(f"{SEAT_NAMES[w]} {s['player']}（{s['chair']}号位）" for w, s in sorted(
        seats.items(), key=lambda kv: SEATS.index(kv[0])))
    rs = ruleset_file(record["ruleset"])
    round_no = f"第 {record['round']} 轮 " if record.get("round", 1) != 1 else ""
    out = [f"{record['table_name'] or '牌桌'} · {round_no}第 {record['hand_no']} 盘 · {rs.name_zh if rs else record['ruleset']} · "
           f"{SEAT_NAMES.get(record['prevalent_wind'], '')}风圈", who]
    brk = record.get("break")
    if brk:
        out.append(f"开门：{SEAT_NAMES.get(brk.get('wall'), brk.get('wall'))}墙 第 {brk.get('count')} 墩")
    out.append("")
    for line in record["lines"]:
        mark = "（已撤销）" if line.get("undone") else "（已作废）" if line.get("void") else \
            f"（已更正，原记 {line['was']}）" if line.get("was") else "（补录）" if line.get("inserted") else ""
        out.append(f"[{_clock(line['t'])}] {line['text']}{mark}")
    out.append("")
    for w in record["wins"]:
        fans = "、".join(f"{f['name']} {f['value'] * f.get('count', 1)}" for f in w["fans"])
        how = ("点和：" + SEAT_NAMES.get(w["discarder"], "") + "家打出 " + tile_name(w["win_tile"])) if w.get("discarder") \
            and w.get("win_tile") else "自摸" if w.get("win_kind") in ("self_draw", "kong_replacement",
                                                                      "flower_replacement") else ""
        out.append(f"和牌：{SEAT_NAMES.get(w['seat'], w['seat'])}家 {how}  {fans}  合计 {w['total']}")
    points = record.get("points") or {}
    if points:  # keyed by 抽签号位, which after a 换位 is not the chair the header shows: named by the player
        by_player = {str(s["player_no"]): f"{SEAT_NAMES[w]} {s['player']}" for w, s in sorted(
            seats.items(), key=lambda kv: SEATS.index(kv[0]))}
        named = [(by_player[p], points[p]) for p in by_player if p in points] + \
            [(f"{p}号位", v) for p, v in sorted(points.items()) if p not in by_player]
        out.append("本盘得分：" + "  ".join(f"{who} {v:+d}" for who, v in named))
    out.append(f"结果：{RESULT_ZH.get(record['result'], record['result'])}")
    return "\n".join(out) + "\n"


def _clock(seconds: float) -> str:
    s = max(0, int(seconds))
    return f"{s // 60:02d}:{s % 60:02d}"
