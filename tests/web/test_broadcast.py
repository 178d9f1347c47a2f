"""The broadcast feed (`/ws?delay=S`) over a real uvicorn and a real SQLite log, as the streaming crew's overlay
holds it: a referee's undo inside the delay is on air as it happened, then undone, and the feed ends where the
live public view is; a viewer that reconnects gets the state S seconds ago again, never the live one."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import websockets

from table_controller.service import TableService

REFEREE = "ref-broadcast-7"
DELAY = 1.5


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _until_event(ws: Any, seq: int, timeout: float = 10.0) -> list[dict[str, Any]]:
    """The feed's messages until the one of event `seq` (held back `DELAY`, then released)."""
    got: list[dict[str, Any]] = []
    end = time.monotonic() + timeout
    while True:
        msg = json.loads(await asyncio.wait_for(ws.recv(), max(0.1, end - time.monotonic())))
        got.append(msg)
        if msg.get("type") == "event" and msg["seq"] >= seq:
            return got


async def test_an_undo_inside_the_delay_is_on_air_as_it_happened_and_the_feed_ends_as_the_live_view(
        service: TableService) -> None:
    await service.controller.wait_linked(10)
    base = f"http://127.0.0.1:{service.port}"
    async with httpx.AsyncClient(base_url=base) as http, \
            websockets.connect(f"ws://127.0.0.1:{service.port}/ws?delay={DELAY}", max_size=None) as feed:
        snap = json.loads(await feed.recv())
        assert snap["type"] == "snapshot" and snap["delay"] == DELAY
        assert (await http.post("/api/hand/start", headers=_auth("op"))).status_code == 200
        r = await http.post("/api/referee/penalty", json={"seat": "S", "code": "late_5"}, headers=_auth(REFEREE))
        penalty = r.json()["seq"]
        keyed = time.monotonic()  # (before the POST: the undo is stamped after this)
        r = await http.post("/api/referee/undo", json={"reason": "看错了"}, headers=_auth(REFEREE))
        assert r.status_code == 200, r.text
        undo = r.json()["seq"]
        live = (await http.get("/api/state")).json()
        got = await _until_event(feed, undo)
        assert time.monotonic() - keyed >= DELAY
        states = {m["seq"]: m["state"] for m in got if m.get("type") == "event" and m.get("state")}
        on_air = states[penalty]["actions"][-1]
        assert on_air["seq"] == penalty and not on_air.get("undone")  # shown as the hall saw it, then undone
        last = states[undo]
        assert last["actions"] == live["actions"] and last["actions"][-2]["undone"]
        assert last["scoresheet"] == live["scoresheet"] and last["log"] == live["log"]


async def test_a_viewer_that_reconnects_gets_the_state_seconds_ago_again(service: TableService) -> None:
    await service.controller.wait_linked(10)
    base = f"http://127.0.0.1:{service.port}"
    url = f"ws://127.0.0.1:{service.port}/ws?delay=3"
    async with httpx.AsyncClient(base_url=base) as http:
        async with websockets.connect(url) as feed:
            first = json.loads(await feed.recv())
        r = await http.post("/api/hand/start", headers=_auth("op"))
        assert r.status_code == 200, r.text
        head = service.controller.state.seq
        await asyncio.sleep(0.3)
        async with websockets.connect(url) as feed:  # back within the delay: the hand is not on air yet
            again = json.loads(await feed.recv())
        assert again["type"] == "snapshot" and first["seq"] <= again["seq"] < r.json()["seq"] <= head
        assert again["state"]["hand"] is None and again["now"] < time.time() - 2.5


async def test_the_feeds_viewers_share_each_events_view(service: TableService, monkeypatch: Any) -> None:
    """A hall's viewers of the feed (the overlay, the screens, phones): each event's state, view and score sheet
    are computed once for all of them. Before, each viewer folded, viewed and serialized every event with a
    score sheet of its own: 100 viewers cost the loop 233 ms per event at 10,000 events (73 live), it stalled
    up to 8.8 s and the feed fell behind (`bench/broadcast.py`)."""
    from table_controller import projection

    await service.controller.wait_linked(10)
    computed: list[int] = []
    real = projection.scoresheet.compute
    monkeypatch.setattr(projection.scoresheet, "compute", lambda state: computed.append(state.seq) or real(state))
    url = f"ws://127.0.0.1:{service.port}/ws?delay=0.5"
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        viewers = [await websockets.connect(url, max_size=None) for _ in range(12)]
        for v in viewers:
            assert json.loads(await v.recv())["type"] == "snapshot"
        assert (await http.post("/api/hand/start", headers=_auth("op"))).status_code == 200
        seqs = []
        for seat in ("S", "W", "N"):
            r = await http.post("/api/referee/penalty", json={"seat": seat, "code": "late_5"}, headers=_auth(REFEREE))
            seqs.append(r.json()["seq"])
        computed.clear()  # the live views' sheets were computed as each penalty came (once for both views)
        texts = [[m for m in await _until_event(v, seqs[-1]) if m.get("type") == "event"] for v in viewers]
        for v in viewers:
            await v.close()
    assert all(t[-1]["state"]["actions"][-1]["seq"] == seqs[-1] for t in texts)
    assert all(json.dumps(t[-1]["state"]) == json.dumps(texts[0][-1]["state"]) for t in texts)
    assert len([s for s in computed if s in seqs]) <= len(seqs), computed  # before: once per viewer and event


async def test_a_play_corrected_inside_the_delay_ends_on_air_as_corrected(service: TableService) -> None:
    """更正牌谱 folds the hand again from its start: the feed, sharing each event's state among its viewers,
    shows the discard as keyed, then as corrected, and ends with the live public view's hand."""
    from keyed_hand import start_hand
    from test_browser import _throw_all

    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        await start_hand(service, http)  # the walls up: a throw while they are built is not counted (walls_down)
        await _throw_all(service)
        async with websockets.connect(f"ws://127.0.0.1:{service.port}/ws?delay={DELAY}", max_size=None) as feed, \
                websockets.connect(f"ws://127.0.0.1:{service.port}/ws?delay={DELAY + 0.5}", max_size=None) as later:
            for body in ({"type": "deal_done"}, {"type": "discard", "seat": "E", "tile": "9p"}):
                r = await http.post("/api/play", json=body, headers=_auth("op"))
                assert r.status_code == 200, r.text
            keyed = r.json()["seq"]
            fix = {"target": keyed, "tile": "8p", "reason": "录错了"}
            r = await http.post("/api/referee/play/correct", json=fix, headers=_auth(REFEREE))
            assert r.status_code == 200, r.text
            live = (await http.get("/api/state")).json()
            for ws in (feed, later):
                got = await _until_event(ws, r.json()["seq"])
                states = {m["seq"]: m["state"] for m in got if m.get("type") == "event" and m.get("state")}
                assert [d["tile"] for d in states[keyed]["hand"]["discards"]["E"]] == ["9p"]  # as keyed, then
                assert states[r.json()["seq"]]["hand"] == live["hand"]  # as corrected
                assert [d["tile"] for d in live["hand"]["discards"]["E"]] == ["8p"]
