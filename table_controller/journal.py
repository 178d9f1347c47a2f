"""What the journal (the service's stdout) says of each logged event: which it is, never its data.

The journal is read by more people than the event log (whoever runs `journalctl` on the Pi, a log
shipper, a support ticket); an event's data holds a win's hand as read and a concealed kong's faces.
The log line names the event (type, seq, source), its hand and seat, and who did it; the event
itself, tiles and all, is in the SQLite log where it always was."""

from __future__ import annotations

from typing import Any

from table_controller.store import Event

#: Event data keys copied to the journal as they are: who did it, from where (never tiles, never figures).
WHO = ("by", "by_name", "client")


def journal_fields(ev: Event, state: Any) -> dict[str, Any]:
    """The structured fields of an event's journal line: seq, source, type, hand (its number, when a
    hand is on or the event names one), seat (the side or seat wind the event is about) and who."""
    data = ev.data if isinstance(ev.data, dict) else {}
    out: dict[str, Any] = {"seq": ev.seq, "source": ev.source, "type": ev.type}
    hand = getattr(state, "hand", None)
    number = data.get("hand_no", hand.get("hand_no") if isinstance(hand, dict) else None)
    if isinstance(number, int):
        out["hand"] = number
    seat = data.get("seat")
    if not isinstance(seat, str):
        read = data.get("hand")
        seat = read.get("seat_wind") if isinstance(read, dict) else None
    if isinstance(seat, str) and len(seat) <= 2:
        out["seat"] = seat
    out.update({k: data[k] for k in WHO if isinstance(data.get(k), str) and data[k]})
    return out
