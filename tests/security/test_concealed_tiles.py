"""No public payload holds a seat's concealed tiles: a whole demo session played by the simulator's
players on a real pty (血流成河: wins read and confirmed, a concealed kong, 查叫 at 荒牌), watched as
someone at the venue would watch it: the public sockets (live, caught up, the broadcast's delay), every
public read of the display polled during the hands and after, every MQTT message on a real Mosquitto
(subscribed to '#'), and every public read of the tournament's hub.

The secrets are read back from the table's own log afterwards: each win's hand as read, each hand
shown at 查叫, each concealed kong's faces. A later change that lets one of them into a public view,
event, record, export or topic fails here."""

from __future__ import annotations

import asyncio
import functools
import io
import json
import sqlite3
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiomqtt
import httpx
import websockets

from table_controller.config import parse_config
from table_controller.service import TableService
from table_controller.tiles import tile_name
from table_controller.tournament.broker import LocalBroker
from table_controller.tournament.web import HubService

#: 血流成河, seed 13: within three hands the players win (several times), make a concealed kong, and
#: reach 荒牌, whose 查叫 shows every hand still playing (the test checks each secret is there)
RULESET, SEED, HANDS = "xueliu", 13, 3
OPERATOR, REFEREE = "op-sec-401", "ref-sec-402"
#: what a concealed kong's faces show as in public
BACK = "back"


def _tiles(value: Any) -> list[str]:
    return value.split() if isinstance(value, str) else [str(t) for t in value]


def _secrets(log: Path) -> tuple[list[list[str]], list[list[str]]]:
    """(concealed hands as read at a win or shown at 查叫, concealed kongs' tiles) from the table's log."""
    hands: list[list[str]] = []
    kongs: list[list[str]] = []
    db = sqlite3.connect(log)
    try:
        for type_, data in db.execute("SELECT type, data FROM events ORDER BY seq"):
            d = json.loads(data)
            if type_ == "referee.win_read":
                hands.append(_tiles(d["hand"]["concealed"]))
            elif type_ == "referee.exhaustive":
                hands += [_tiles(h["concealed"]) for h in d["hands"].values()]
            elif type_ == "play.kong" and d.get("concealed"):
                kongs.append(list(d["tiles"]))
    finally:
        db.close()
    return hands, kongs


def _nodes(x: Any) -> Iterator[tuple[tuple[str | int, ...], Any]]:
    """Every node of `x` in document order, with where it lies (keys and indices: `_path` writes it for a leak
    found; written for each of the scan's seven million nodes, through nested generators, it took most of the
    scan's time)."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), x)]
    while stack:
        at, node = stack.pop()
        yield at, node
        if isinstance(node, dict):
            stack.extend(((*at, str(k)), v) for k, v in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend(((*at, i), node[i]) for i in range(len(node) - 1, -1, -1))


def _path(at: tuple[str | int, ...]) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in at)


def _forms(hands: list[list[str]]) -> tuple[str, ...]:
    """`_written` of these hands, made once for the scan (made for each payload, 3,500 of them, the tiles'
    names took a third of the scan's time)."""
    return _written(tuple(tuple(h) for h in hands))


@functools.lru_cache(maxsize=4)
def _written(hands: tuple[tuple[str, ...], ...]) -> tuple[str, ...]:
    """Each way a text may write a hand: codes spaced or run together, names run together, spaced or with 、.
    A hand of fewer than four tiles (four melds down: one tile left at 查叫) is left out, as it is for lists:
    its form is a tile's name, which every public line about that tile holds (a false leak, seen once)."""
    forms: list[str] = []
    for hand in hands:
        if len(hand) < 4:
            continue
        names = [tile_name(t) for t in hand]
        forms += [" ".join(hand), "".join(hand), "".join(names), " ".join(names), "、".join(names)]
    return tuple(forms)


def _leaks(where: str, payload: Any, hands: list[list[str]], kongs: list[list[str]]) -> list[str]:
    """What in one public payload (JSON, or text) gives a concealed tile away. The hands' written forms
    are made once (made per string they took 25 s of the test's 30)."""
    forms = _forms(hands)
    if isinstance(payload, str):
        return [f"{where}: the text holds the hand {form}" for form in forms if form in payload]
    found = []
    secret = {tuple(sorted(h)) for h in hands}
    for at, node in _nodes(payload):
        if isinstance(node, dict):
            if "concealed" in node and not isinstance(node["concealed"], bool):
                found.append(f"{where} {_path(at)}.concealed = {node['concealed']!r}")
            if node.get("concealed") is True and "tiles" in node and any(t != BACK for t in node["tiles"]):
                found.append(f"{where} {_path(at)}: a concealed kong face up {node['tiles']}")
        elif isinstance(node, list) and len(node) >= 4 and all(isinstance(t, str) for t in node):
            if tuple(sorted(node)) in secret:
                found.append(f"{where} {_path(at)}: a hand as read {node}")
        elif isinstance(node, str) and len(node) >= 8:  # a log line, a record's text
            found += [f"{where} {_path(at)}: the text holds the hand {form}" for form in forms if form in node]
    return found



async def test_no_public_payload_of_a_played_session_holds_a_concealed_tile(tmp_path: Path,
                                                                           broker: LocalBroker) -> None:
    seen: list[tuple[str, Any]] = []  # (where, JSON or text) of everything a stranger could read
    subscribed = asyncio.Event()

    async def tap() -> None:
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="security-tap") as client:
            await client.subscribe("#", qos=1)
            subscribed.set()
            async for m in client.messages:
                raw = m.payload if isinstance(m.payload, bytes) else str(m.payload).encode()
                seen.append((f"mqtt {m.topic}", json.loads(raw)))
                seen.append((f"mqtt {m.topic} (raw)", raw.decode()))

    tapping = asyncio.create_task(tap())
    await asyncio.wait_for(subscribed.wait(), 5)
    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0)
    await hub.start()
    cfg = parse_config({
        "table": {"link": "sim://", "sim_seed": SEED, "sim_speed": 200.0, "name": "1号桌"},
        "rules": {"ruleset": RULESET},
        "display": {"port": 0, "operator_token": OPERATOR, "referee_token": REFEREE},
        "demo": {"autoplay": True, "hand_seconds": 0, "turn_seconds": 0},
        "tournament": {"broker": broker.url, "name": "cup", "table_id": "t1"},
    }, "test")
    table = TableService(cfg, tmp_path / "t1")
    sockets: list[asyncio.Task[None]] = []
    try:
        await table.start()
        base = f"http://127.0.0.1:{table.port}"
        ws = f"ws://127.0.0.1:{table.port}"

        async def listen(url: str) -> None:
            async with websockets.connect(url, max_size=None) as sock:
                async for frame in sock:
                    seen.append((url, json.loads(frame)))

        sockets = [asyncio.create_task(listen(f"{ws}{q}")) for q in ("/ws", "/ws?since=0", "/ws?delay=0.2")]
        async with httpx.AsyncClient(base_url=base, timeout=10) as http:
            loop = asyncio.get_running_loop()
            end = loop.time() + 60
            polled = -1  # the log position last kept: a state read again unchanged adds nothing to scan (kept, a
            # slow run's extra polls of the same states made the scan 3 times as long: 7.9 s in one run, 25.4 in another)
            while table.controller.state.hands_played < HANDS:  # during the hands: the state and the replay
                assert loop.time() < end, "the demo did not play its hands in time"
                state = (await http.get("/api/state")).json()
                if state["seq"] == polled:
                    await asyncio.sleep(0.02)
                    continue
                polled = state["seq"]
                seen.append(("GET /api/state", state))
                if state.get("hand"):
                    r = await http.get(f"/api/hands/{state['hand']['hand_no']}/record")
                    if r.status_code == 200:
                        seen.append(("GET record in play", r.json()))
                await asyncio.sleep(0.02)
            ruled = await http.post("/api/referee/session/start", json={"minutes": 90},  # a ruling over HTTP
                                    headers={"Authorization": f"Bearer {REFEREE}", "Idempotency-Key": "k-1"})
            assert ruled.status_code == 200, ruled.text
            for path in ("/api/state", "/api/events?since=0&limit=5000", "/api/actions", "/api/rounds",
                         "/api/records?all=true", "/api/scoresheet", "/api/health"):
                seen.append((f"GET {path}", (await http.get(path)).json()))
            # the broadcast's viewers joining late, as the overlay after a reload: a snapshot seconds back, then events
            for delay in (0.5, 5):
                async with websockets.connect(f"{ws}/ws?delay={delay}", max_size=None) as late:
                    for _ in range(3):
                        try:
                            seen.append((f"ws late delay={delay}", json.loads(await asyncio.wait_for(late.recv(), 3))))
                        except asyncio.TimeoutError:
                            break
            for path in ("/api/records?all=true&format=text", "/api/scoresheet.csv", "/api/hands/1/record?format=text",
                         "/api/hands/2/record?format=text", "/api/hands/3/record?format=text", "/overlay", "/public"):
                seen.append((f"GET {path}", (await http.get(path)).text))
            # the referee's own read carries the hands: the check above would have seen them there
            referee = (await http.get("/api/referee/hands/1/record", headers={"Authorization": f"Bearer {REFEREE}"}))
            assert referee.status_code == 200
            seen.append(("(control) referee record", referee.json()))
        last = table.controller.state.seq
        loop = asyncio.get_running_loop()
        end = loop.time() + 15
        while not (hub.hub.tables.get("t1") and hub.hub.tables["t1"].events(0, 100000)
                   and hub.hub.tables["t1"].events(0, 100000)[-1]["seq"] >= last):
            assert loop.time() < end, "the hub did not receive the table's log"
            await asyncio.sleep(0.05)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}", timeout=10) as http:
            for path in ("/api/tables/t1/events?limit=5000", "/api/tables/t1/records", "/api/standings", "/api/stats",
                         "/api/tables/t1/hands/1/record"):
                seen.append((f"hub GET {path}", (await http.get(path)).json()))
            seen.append(("hub records text", (await http.get("/api/tables/t1/records?format=text")).text))
            with zipfile.ZipFile(io.BytesIO((await http.get("/api/archive.zip")).content)) as z:
                for name in z.namelist():
                    text = z.read(name).decode("utf-8-sig")
                    seen.append((f"hub archive {name}", json.loads(text) if name.endswith(".json") else text))
    finally:
        for task in [*sockets, tapping]:
            task.cancel()
        await asyncio.gather(*sockets, tapping, return_exceptions=True)
        await table.stop()
        await hub.stop()

    hands, kongs = _secrets(tmp_path / "t1" / "events.sqlite3")
    assert len(hands) >= 5 and kongs, (len(hands), kongs)  # wins, 查叫 and a concealed kong were played
    # the detector finds the hands where they belong: the referee's record
    assert _leaks("control", next(p for w, p in seen if w.startswith("(control)")), hands, kongs)
    leaks = [leak for where, payload in seen if not where.startswith("(control)")
             for leak in _leaks(where, payload, hands, kongs)]
    assert not leaks, "\n".join(leaks[:20])
    # nor a credential: not in what went out, not in the log or the hub's files
    for where, payload in seen:
        text = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
        assert REFEREE not in text and OPERATOR not in text, where
    for f in [*(tmp_path / "t1").rglob("*"), *(tmp_path / "hub").rglob("*")]:
        if f.is_file():
            assert REFEREE.encode() not in f.read_bytes() and OPERATOR.encode() not in f.read_bytes(), f
    sources = {where.split(" ")[0] if where.startswith(("mqtt", "hub")) else where for where, _ in seen}
    assert {"mqtt", "hub", "GET /api/state", "GET record in play"} <= sources
    assert any(s.startswith("ws") for s in sources) and any(s.startswith("ws late") for s in sources)
