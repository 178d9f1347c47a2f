"""The display's sockets under bad input, over real sockets against a running service on the simulator:
malformed first messages on `/ws/referee` (binary, not JSON, the wrong shape, a token of the wrong type,
10,000 nested arrays, a huge frame), odd query values (`since`, `delay`, `log`), a public socket that talks
and pings, a page opened and closed 1,000 times. Each closes with a 4xxx code and a reason that says what is
wrong (Chinese first), nothing is logged as an unhandled exception, `/api/health` answers, another page keeps
getting events, and the public feed never carries the win read's concealed tiles."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import httpx
import pytest
import websockets

from table_controller.service import TableService

REFEREE = "ref-wsfuzz-5173"
OPERATOR = "op"
#: a win as read (the referee's only): its concealed tiles must never reach a public socket
WIN_HAND = {"seat_wind": "N", "prevalent_wind": "E", "melds": [], "win_tile": "2p", "win": "discard",
            "discarder": "E", "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p".split()}


def _unhandled(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


async def _refusal(url: str, *first: str | bytes) -> tuple[int | None, str, dict[str, Any] | None]:
    """(close code, close reason, the error message before it) of a socket sent `first`."""
    said = None
    async with websockets.connect(url, max_size=None, open_timeout=5) as ws:
        for message in first:
            await ws.send(message)
        try:
            while True:
                got = json.loads(await asyncio.wait_for(ws.recv(), 5))
                if got.get("type") == "error":
                    said = got
        except websockets.ConnectionClosed as closed:
            return (closed.rcvd.code if closed.rcvd else None), (closed.rcvd.reason if closed.rcvd else ""), said
    raise AssertionError("the socket was not closed")


async def _event_seen(page: Any, kind: str) -> dict[str, Any]:
    while True:
        got = json.loads(await asyncio.wait_for(page.recv(), 5))
        if got["type"] == "event" and got["event"]["type"] == kind:
            return got  # type: ignore[no-any-return]


async def test_bad_first_messages_on_the_referees_socket_each_close_saying_why(
        service: TableService, caplog: pytest.LogCaptureFixture) -> None:
    """A binary first frame raised KeyError('text') in the log and the socket closed with no code; a wrong
    credential was told 需要裁判权限. Each now closes 4401 (no credential, or a wrong one) or 4403."""
    caplog.set_level(logging.INFO)
    url = f"ws://127.0.0.1:{service.port}"
    page = await websockets.connect(url + "/ws")
    assert json.loads(await page.recv())["type"] == "snapshot"
    missing = ["not json", "[1, 2]", '"token"', '{"token": 5}', '{"token": null}', '{"token": ["x"]}', '{"tok": 1}',
               '{"token": ""}', "NaN", "[" * 10_000 + "]" * 10_000, b'{"token": "' + REFEREE.encode() + b'"}', b"\xff"]
    for first in missing:
        code, reason, said = await _refusal(url + "/ws/referee", first)
        assert code == 4401 and reason.startswith("凭证缺失：首条消息须为文本"), (first[:20], code, reason)
        assert said is not None and said["code"] == 4401 and "send {\"token\"" in said["detail"]
    code, reason, said = await _refusal(url + "/ws/referee", json.dumps({"token": "guess-1"}))
    assert (code, reason) == (4401, "凭证错误 / wrong credential")
    code, reason, said = await _refusal(url + "/ws/referee", json.dumps({"token": OPERATOR}))
    assert (code, reason) == (4403, "需要裁判权限 / needs the referee role")
    code, reason, said = await _refusal(url + "/ws/referee", "x" * 70_000)
    assert code == 1009  # over `WS_MAX_MESSAGE`: the frame is refused unread
    assert not _unhandled(caplog)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}", timeout=10) as http:
        assert (await http.get("/api/health")).json()["ok"]
        r = await http.post("/api/referee/penalty", json={"seat": "S", "code": "warning"},
                            headers={"Authorization": f"Bearer {REFEREE}"})
        assert r.status_code == 200, r.text
    assert (await _event_seen(page, "referee.penalty"))["seq"] == r.json()["seq"]  # the page kept its feed
    await page.close()


@pytest.mark.parametrize("query, says", [
    ("?since=abc", "since 须为不小于 0 的整数"), ("?since=1.5", "since 须为不小于 0 的整数"),
    ("?since=-5", "since 须为不小于 0 的整数"), ("?since=" + "9" * 5000, "since 须为不小于 0 的整数"),
    ("?delay=abc", "delay 须为 0 至 3600 秒"), ("?delay=30s", "delay 须为 0 至 3600 秒"),
    ("?delay=nan", "delay 须为 0 至 3600 秒"), ("?delay=inf", "delay 须为 0 至 3600 秒"),
    ("?delay=1e309", "delay 须为 0 至 3600 秒"), ("?delay=-1", "delay 须为 0 至 3600 秒"),
    ("?delay=3601", "delay 须为 0 至 3600 秒")])
async def test_an_odd_query_closes_4422_saying_which_value(service: TableService, query: str, says: str,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    """`?since=abc` or `?delay=30s` was FastAPI's refusal at the handshake: a bare 403, no reason, which the
    page (an OBS source typed by hand) retried forever saying nothing; `?since=-5` sent the whole log."""
    for path in ("/ws", "/ws/referee") if query.startswith("?since") else ("/ws",):
        code, reason, said = await _refusal(f"ws://127.0.0.1:{service.port}{path}{query}")
        assert code == 4422 and reason.startswith(says), (path, query, code, reason)
        assert said is not None and said["detail"].startswith(says) and "/ " in said["detail"]
    assert not _unhandled(caplog)


@pytest.mark.parametrize("query", ["?since=99999999999999999999999", "?log=%00junk", "?since=0&log=" + "x" * 3000,
                                   "?delay=0", "?since=1&since=2", "?log="])
async def test_queries_a_page_can_send_still_get_the_feed(service: TableService, query: str) -> None:
    """A `since` past the head (another log's) gets a snapshot; a `log` that is not this one's, too."""
    async with websockets.connect(f"ws://127.0.0.1:{service.port}/ws{query}") as ws:
        assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] in ("snapshot", "event")


async def test_a_public_socket_that_talks_is_ignored_and_never_sees_a_concealed_tile(
        service: TableService, caplog: pytest.LogCaptureFixture) -> None:
    """Text, binary, 10,000 nested arrays and a flood of pings on `/ws` after the handshake: the socket keeps
    its feed, and the win read's hand (the referee's) never comes on it, live, caught up or delayed."""
    caplog.set_level(logging.INFO)
    await service.controller.wait_linked(10)
    url = f"ws://127.0.0.1:{service.port}"
    head = service.controller.state.seq
    talker = await websockets.connect(url + "/ws")
    assert json.loads(await talker.recv())["type"] == "snapshot"
    for message in ("hello", b"\x00\xff", "[" * 10_000, json.dumps({"token": REFEREE}), "x" * 60_000):
        await talker.send(message)
    await asyncio.gather(*[talker.ping(str(i)) for i in range(300)])  # each answered with its pong
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}", timeout=10) as http:
        auth = {"Authorization": f"Bearer {OPERATOR}"}
        assert (await http.post("/api/hand/start", headers=auth)).status_code == 200
        r = await http.post("/api/referee/win", json={"hand": WIN_HAND},
                            headers={"Authorization": f"Bearer {REFEREE}"})
        assert r.status_code == 200, r.text
    live = await _event_seen(talker, "referee.win_read")
    assert live["seq"] == r.json()["seq"]
    seen = [json.dumps(live)]
    for query in (f"?since={head}", f"?since={head}&log=other", "?delay=0.01"):
        async with websockets.connect(url + "/ws" + query) as ws:
            got = [json.loads(await asyncio.wait_for(ws.recv(), 5)) for _ in range(3)]
            seen += [json.dumps(m) for m in got]
    concealed = " ".join(WIN_HAND["concealed"])  # type: ignore[arg-type]
    assert all('"hand"' not in s.split('"state"')[0] and concealed not in s and '"1m", "2m", "3m"' not in s
               for s in seen)
    async with websockets.connect(url + "/ws/referee") as ws:  # the referee's does carry it: the check can fail
        await ws.send(json.dumps({"token": REFEREE}))
        assert '"1m", "2m", "3m"' in await asyncio.wait_for(ws.recv(), 5)
    await talker.close()
    assert not _unhandled(caplog)


async def test_a_page_opened_and_closed_a_thousand_times_leaves_nothing_behind(
        service: TableService, caplog: pytest.LogCaptureFixture) -> None:
    """1,000 sockets from one address, each closed at once, some before their first message: none is left
    subscribed to the controller or counted against the address (its 64 still open after), health answers."""
    caplog.set_level(logging.INFO)
    url = f"ws://127.0.0.1:{service.port}"
    before = len(service.controller._subscribers)
    for i in range(1000):
        ws = await websockets.connect(url + ("/ws" if i % 3 else "/ws?delay=1"), open_timeout=5)
        if i % 2:
            await ws.recv()
        await ws.close()
    for _ in range(100):
        if len(service.controller._subscribers) == before:
            break
        await asyncio.sleep(0.05)
    assert len(service.controller._subscribers) == before
    held = [await websockets.connect(url + "/ws", open_timeout=5) for _ in range(60)]
    for ws in held:
        assert json.loads(await asyncio.wait_for(ws.recv(), 5))["type"] == "snapshot"
        await ws.close()
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}", timeout=10) as http:
        assert (await http.get("/api/health")).json()["ok"]
    assert not _unhandled(caplog)


async def test_a_socket_that_never_reads_is_dropped_at_its_pong_deadline(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A client that opens `/ws` and never reads: the messages pile up behind it and its pong never comes.
    uvicorn closed the transport at the deadline, which waits to send what is buffered first: for good (the
    sender blocked and subscribed, the connection counted). Now it is dropped; another page keeps its feed."""
    import base64
    import socket

    from table_controller.config import parse_config
    from table_controller.web import serve

    caplog.set_level(logging.INFO)
    monkeypatch.setattr(serve, "WS_PING_S", 2.5)  # the first ping once the buffer is full (1.6 s here)
    monkeypatch.setattr(serve, "WS_PONG_S", 1.0)
    config = parse_config({"table": {"link": "sim://", "sim_seed": 2, "sim_speed": 1000.0},
                           "display": {"port": 0, "operator_token": OPERATOR, "referee_token": REFEREE}},
                          source="test")
    svc = TableService(config, tmp_path)
    await svc.start()
    stalled = socket.socket()
    try:
        await svc.controller.wait_linked(10)
        page = await websockets.connect(f"ws://127.0.0.1:{svc.port}/ws", max_size=None)
        assert json.loads(await page.recv())["type"] == "snapshot"
        before = len(svc.controller._subscribers)
        stalled.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        stalled.connect(("127.0.0.1", svc.port))
        key = base64.b64encode(b"0123456789abcdef").decode()
        stalled.sendall(f"GET /ws HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
        for _ in range(100):
            if len(svc.controller._subscribers) == before + 1:
                break
            await asyncio.sleep(0.02)
        assert len(svc.controller._subscribers) == before + 1
        for _ in range(400):  # each with its state: megabytes the stalled client never takes
            svc.controller.referee_action("referee.penalty", {"seat": "S", "code": "warning"}, by="referee")
            for _ in range(3):
                await asyncio.sleep(0)
            while True:  # the page reads what it is sent
                try:
                    await asyncio.wait_for(page.recv(), 0.001)
                except asyncio.TimeoutError:
                    break
        for _ in range(150):
            if len(svc.controller._subscribers) == before:
                break
            await asyncio.sleep(0.05)
        assert len(svc.controller._subscribers) == before  # the stalled socket's sender ended
        r = svc.controller.referee_action("referee.penalty", {"seat": "E", "code": "warning"}, by="referee")
        while (await _event_seen(page, "referee.penalty"))["seq"] != r.seq:
            pass
        await page.close()
    finally:
        stalled.close()
        await svc.stop()
    assert not _unhandled(caplog)


async def _dropped_then_caught_up(service: TableService, query: str) -> None:
    """A feed opened with `query`, its queue overflowed by 1,100 penalties logged while the loop does not
    turn (no feed takes any meanwhile), then one more: the feed must still bring the last."""
    controller = service.controller
    await controller.wait_linked(10)
    before = len(controller._subscribers)
    async with websockets.connect(f"ws://127.0.0.1:{service.port}/ws{query}", max_size=None) as feed:
        assert json.loads(await feed.recv())["type"] == "snapshot"
        assert len(controller._subscribers) == before + 1
        for _ in range(1100):
            controller.referee_action("referee.penalty", {"seat": "S", "code": "warning"}, by="referee")
        assert len(controller._subscribers) == before  # the feed's queue dropped
        last = controller.referee_action("referee.penalty", {"seat": "E", "code": "warning"}, by="referee").seq
        seen = 0
        async with asyncio.timeout(60):
            while seen < last:
                seen = max(seen, json.loads(await feed.recv()).get("seq") or 0)
        assert seen == last
        assert len(controller._subscribers) == before + 1  # and it follows the table again


async def test_a_page_that_fell_a_thousand_events_behind_is_caught_up_not_left_silent(
        service: TableService, caplog: pytest.LogCaptureFixture) -> None:
    """A page falls behind by more than its queue holds (1,000 events: a slow link, or a burst logged
    without the loop turning): the controller drops its queue so one page cannot hold the table's memory.
    Before, its socket then sent what the queue held and nothing after, only health lines: a page that
    looked connected and never moved again. Now the feed subscribes again and catches up from the log,
    as a page that reconnects does."""
    caplog.set_level(logging.INFO)
    await _dropped_then_caught_up(service, "")
    assert not _unhandled(caplog)


async def test_a_delayed_feed_that_fell_a_thousand_events_behind_still_shows_them_all(
        service: TableService, caplog: pytest.LogCaptureFixture) -> None:
    """The broadcast feed (`?delay=`) holds its own queue; dropped for falling behind, it showed nothing
    after what that queue held. Now it reads the rest from the log and shows every event, delayed."""
    caplog.set_level(logging.INFO)
    await _dropped_then_caught_up(service, "?delay=0.5")
    assert not _unhandled(caplog)
