"""Every route of the table's display and of the hub, as someone on the venue's Wi-Fi tries it: no
credential, a wrong one, a lower role, the right one in a query string or a cookie instead of the
header. Routes are read from the apps themselves, so a route added later without its role check fails
here. Nothing a refused request sends may reach the log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from table_controller.config import parse_config
from table_controller.controller import Controller
from table_controller.store import EventStore
from table_controller.web.app import create_app
from table_controller.web.auth import Credentials

REFEREE, OPERATOR = "ref-secret-91", "op-secret-92"
#: the operator runs the machine and keys play; everything else that changes the record is the referee's
OPERATOR_ROUTES = {"/api/hand/start", "/api/hand/end", "/api/play", "/api/dice"}


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(f"nothing at {url}")


@pytest.fixture
def display(tmp_path: Path) -> Any:
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test")
    store = EventStore(tmp_path / "events.sqlite3")
    controller = Controller(cfg, store, _no_table)
    controller.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "mcr", "dealer_position": 1})
    app = create_app(controller, Credentials(referee=REFEREE, operator=OPERATOR, max_failures=1000))
    with TestClient(app) as client:
        client.controller = controller  # type: ignore[attr-defined]
        yield client
    store.close()


def _routes(app: Any) -> list[tuple[str, str]]:
    return sorted((m, r.path) for r in app.routes if isinstance(r, APIRoute) for m in r.methods if m != "HEAD")


def _url(path: str) -> str:
    return path.replace("{hand_no}", "1").replace("{seq}", "1")


def test_every_action_route_needs_its_role_in_the_header(display: TestClient) -> None:
    ctl: Controller = display.controller  # type: ignore[attr-defined]
    actions = [(m, p) for m, p in _routes(display.app) if m != "GET"]
    assert set(p for _, p in actions) >= OPERATOR_ROUTES | {"/api/referee/penalty", "/api/referee/undo"}
    assert all(m == "POST" for m, _ in actions), actions
    before = ctl.store.last_seq()
    for _, path in actions:
        need = "operator" if path in OPERATOR_ROUTES else "referee"
        assert path.startswith("/api/referee/") == (need == "referee"), path  # the path says whose it is
        tries = {
            "none": ({}, {}), "wrong": ({"Authorization": "Bearer guess"}, {}),
            "basic": ({"Authorization": f"Basic {REFEREE}"}, {}),
            "query": ({}, {"token": REFEREE}), "cookie": ({"Cookie": f"token={REFEREE}"}, {}),
        }
        if need == "referee":
            tries["operator"] = ({"Authorization": f"Bearer {OPERATOR}"}, {})
        for what, (headers, params) in tries.items():
            r = display.post(_url(path), headers=headers, params=params, json={})
            assert r.status_code in (401, 403), (path, what, r.status_code, r.text)
            assert ("needs the" in r.json()["detail"]) == (r.status_code == 403), (path, what, r.text)
    assert ctl.store.last_seq() == before  # nothing refused reached the log


def test_referee_reads_need_the_referee_and_the_rest_are_public_reads(display: TestClient) -> None:
    for method, path in _routes(display.app):
        if method != "GET":
            continue
        if path.startswith("/api/referee/"):
            for headers in ({}, {"Authorization": f"Bearer {OPERATOR}"}, {"Cookie": f"token={REFEREE}"}):
                r = display.get(_url(path), headers=headers, params={"token": REFEREE})
                assert r.status_code in (401, 403), (path, headers, r.status_code)
            assert display.get(_url(path), headers={"Authorization": f"Bearer {REFEREE}"}).status_code != 403
        else:  # a public read answers a viewer and changes nothing
            seq = display.controller.state.seq  # type: ignore[attr-defined]
            r = display.get(_url(path))
            assert r.status_code in (200, 404), (path, r.status_code, r.text)
            assert display.controller.state.seq == seq  # type: ignore[attr-defined]


def test_the_referees_socket_takes_the_credential_in_its_first_message_only(display: TestClient) -> None:
    from starlette.websockets import WebSocketDisconnect

    for url, first in ((f"/ws/referee?token={REFEREE}", {}), ("/ws/referee", {"token": OPERATOR}),
                       ("/ws/referee", {"token": "guess"}), ("/ws/referee", {"token": ["x"]})):
        with display.websocket_connect(url, headers={"Cookie": f"token={REFEREE}"}) as ws:
            ws.send_json(first)
            msg = ws.receive_json()
            assert msg["type"] == "error" and msg["code"] in (4401, 4403), (url, first, msg)
            with pytest.raises(WebSocketDisconnect):
                ws.receive_json()
    with display.websocket_connect("/ws/referee") as ws:
        ws.send_json({"token": REFEREE})
        assert ws.receive_json()["state"]["view"] == "referee"


def test_the_hubs_only_action_needs_the_organisers_credential(tmp_path: Path) -> None:
    from table_controller.tournament.hub import Hub
    from table_controller.tournament.web import create_hub_app

    hub = Hub("mqtt://127.0.0.1:9", "cup", tmp_path / "hub", organizer_token="org-secret-77")
    app = create_hub_app(hub)
    with TestClient(app) as client:
        actions = [(m, p) for m, p in _routes(app) if m != "GET"]
        assert sorted(actions) == [("POST", "/api/organiser"), ("POST", "/api/pairings/publish")]
        decision = {"action": "table_out", "table_id": "t9", "reason": "坏了"}
        assert client.post("/api/pairings/publish",
                           headers={"Authorization": "Bearer org-secret-77"}).status_code == 409  # nothing to seat yet
        assert client.post("/api/organiser", json=decision,
                           headers={"Authorization": "Bearer org-secret-77"}).status_code == 404  # no such table
        for headers, params in (({}, {}), ({"Authorization": "Bearer guess"}, {}), ({}, {"token": "org-secret-77"}),
                                ({"Cookie": "token=org-secret-77"}, {}),
                                ({"Authorization": "Basic org-secret-77"}, {})):
            for _, path in actions:
                r = client.post(path, headers=headers, params=params, json=decision)
                assert r.status_code in (401, 429), (path, headers, params, r.text)  # 429: locked out after 5
        assert client.get("/api/organiser").json()["decisions"] == []  # nothing refused was recorded
        for method, path in _routes(app):
            if method == "GET":
                r = client.get(path.replace("{table_id}", "t1").replace("{hand_no}", "1"))
                assert r.status_code in (200, 404), (path, r.status_code)


def test_a_lockout_is_logged_by_address_never_with_what_was_guessed(tmp_path: Path, caplog: Any) -> None:
    """Someone guessing the referee's PIN: the fifth wrong one locks the address out (429) and the
    log says so once, with the address; the guesses are in no log line. A minute later the address
    is forgotten (the map of failures does not keep every address ever seen)."""
    import logging

    now = [1000.0]
    creds = Credentials(referee=REFEREE, operator=OPERATOR, clock=lambda: now[0])
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test")
    store = EventStore(tmp_path / "events.sqlite3")
    caplog.set_level(logging.INFO)
    with TestClient(create_app(Controller(cfg, store, _no_table), creds)) as client:
        guesses = [f"guess-{i:04d}" for i in range(7)]
        codes = [client.get("/api/whoami", headers={"Authorization": f"Bearer {g}"}).status_code for g in guesses]
        assert codes == [401] * 5 + [429] * 2
        with client.websocket_connect("/ws/referee") as ws:  # the socket is shut too, even to the right one
            ws.send_json({"token": REFEREE})
            assert ws.receive_json()["code"] == 4429
        locked = [r for r in caplog.records if "locked out" in r.getMessage()]
        assert len(locked) == 1 and locked[0].client == "testclient" and locked[0].levelno == logging.WARNING
        said = "\n".join(f"{r.getMessage()} {r.__dict__}" for r in caplog.records)
        assert not any(g in said for g in guesses) and REFEREE not in said
        now[0] += 61
        assert client.get("/api/whoami", headers={"Authorization": f"Bearer {REFEREE}"}).json()["role"] == "referee"
        assert creds._failures == {}
    store.close()


def test_no_other_origin_may_read_or_act_unless_the_config_names_it(display: TestClient, tmp_path: Path) -> None:
    evil = {"Origin": "http://evil.example"}
    pre = display.options("/api/referee/penalty", headers={**evil, "Access-Control-Request-Method": "POST",
                                                           "Access-Control-Request-Headers": "authorization"})
    assert "access-control-allow-origin" not in pre.headers
    assert "access-control-allow-origin" not in display.get("/api/state", headers=evil).headers
    assert not any(k.lower() == "set-cookie" for k in display.get("/", headers=evil).headers)  # no cookie to ride on
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"},
                        "display": {"cors_origins": ["https://broadcast.example"]}}, "test")
    store = EventStore(tmp_path / "cors.sqlite3")
    creds = Credentials(referee=REFEREE, operator=OPERATOR)
    with TestClient(create_app(Controller(cfg, store, _no_table), creds)) as c:
        ok = c.get("/api/state", headers={"Origin": "https://broadcast.example"})
        assert ok.headers["access-control-allow-origin"] == "https://broadcast.example"
        assert "access-control-allow-credentials" not in ok.headers
        assert "access-control-allow-origin" not in c.get("/api/state", headers=evil).headers
    store.close()


async def test_no_path_leaves_the_pages_folder_over_real_http(tmp_path: Path) -> None:
    """Raw request lines (no client normalises them): `..`, encoded, doubled slashes, a NUL."""
    import asyncio

    from table_controller.web.serve import serve, stop_tasks

    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test")
    store = EventStore(tmp_path / "events.sqlite3")
    served = await serve(create_app(Controller(cfg, store, _no_table), Credentials(referee=REFEREE, operator=OPERATOR)),
                         "127.0.0.1", 0, name="display", what="the display")
    try:
        async def get(path: str) -> tuple[str, bytes]:
            reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
            writer.write(f"GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".encode())
            await writer.drain()
            answer = await reader.read()
            writer.close()
            return answer.split(b"\r\n")[0].decode(), answer

        assert (await get("/static/app.js"))[0].endswith("200 OK")
        for path in ("/static/../app.py", "/static/%2e%2e/app.py", "/static/..%2fapp.py",
                     "/static/%2e%2e%2f%2e%2e%2fconfig.py", "/static//etc/passwd", "/static/%2fetc%2fpasswd", "/static/....//app.py", "/static/app.js%00.png",
                     "/../../table_controller/web/auth.py", "/api/hands/..%2f..%2fstate/record"):
            status, answer = await get(path)
            assert status.split()[1] in ("400", "404", "422"), (path, status)
            assert b"hmac" not in answer and b"root:" not in answer and b"create_app" not in answer, path
    finally:
        await stop_tasks([served.task], served)
        store.close()


async def test_guesses_from_many_addresses_are_held_to_the_tables_budget_and_the_referee_goes_on(
        tmp_path: Path, caplog: Any) -> None:
    """A laptop on the venue's Wi-Fi takes as many addresses as it likes. Over real HTTP from 40 local
    addresses, 5 wrong credentials each: before, every one was checked (5 per address a minute: 200
    aliases guessed 1,000 times a minute, a 6-digit PIN in hours). Now all addresses together get 4x one
    address's 5 a minute; past that only addresses that logged in lately are checked: the referee's
    tablet (logged in before) acts and keeps its socket, the Pi's own screen logs in, a viewer still reads,
    and a new device, even with the right credential, waits a minute and is told why."""
    import asyncio
    import logging

    import httpx
    import websockets

    from table_controller.web.serve import serve, stop_tasks

    now = [5000.0]
    creds = Credentials(referee=REFEREE, operator=OPERATOR, clock=lambda: now[0])
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test")
    store = EventStore(tmp_path / "events.sqlite3")
    served = await serve(create_app(Controller(cfg, store, _no_table), creds), "127.0.0.1", 0, name="display",
                         what="the display")
    base = f"http://127.0.0.1:{served.port}"
    referee = {"Authorization": f"Bearer {REFEREE}"}

    def from_(address: str) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=base, transport=httpx.AsyncHTTPTransport(local_address=address))

    caplog.set_level(logging.WARNING)
    try:
        async with from_("127.0.3.3") as tablet:
            assert (await tablet.get("/api/whoami", headers=referee)).json()["role"] == "referee"

            async def guess(i: int) -> list[int]:
                async with from_(f"127.0.1.{i + 2}") as laptop:
                    return [(await laptop.get("/api/whoami", headers={"Authorization": f"Bearer {i:03d}{g:03d}"}))
                            .status_code for g in range(5)]

            codes = [c for got in await asyncio.gather(*(guess(i) for i in range(40))) for c in got]
            assert codes.count(401) == 4 * 5 and codes.count(429) == 200 - 20, codes  # were 200 checked, none held
            async with from_("127.0.2.9") as new_device:
                held = await new_device.get("/api/whoami", headers=referee)
                assert held.status_code == 429 and "已登录过的设备不受影响" in held.json()["detail"], held.text
                assert (await new_device.get("/api/whoami")).json()["role"] == "viewer"  # no credential: a viewer
                assert (await new_device.get("/api/state")).status_code == 200
            ruled = await tablet.post("/api/referee/session/start", json={"minutes": 90}, headers=referee)
            assert ruled.status_code == 200, ruled.text
        async with from_("127.0.0.1") as own_screen:  # the Pi's kiosk: held only by its own address's five
            assert (await own_screen.get("/api/whoami", headers=referee)).json()["role"] == "referee"
        async with websockets.connect(f"ws://127.0.0.1:{served.port}/ws/referee", host="127.0.0.1",
                                      local_addr=("127.0.3.3", 0)) as sock:  # the tablet's socket
            await sock.send('{"token": "%s"}' % REFEREE)
            assert json.loads(await sock.recv())["state"]["view"] == "referee"
        async with websockets.connect(f"ws://127.0.0.1:{served.port}/ws/referee", host="127.0.0.1",
                                      local_addr=("127.0.2.9", 0)) as sock:
            await sock.send('{"token": "%s"}' % REFEREE)
            said = json.loads(await sock.recv())
            assert said["code"] == 4429 and "多个地址" in said["detail"], said
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await sock.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
        said = [r for r in caplog.records if "many addresses" in r.getMessage()]
        assert len(said) == 1 and said[0].failures == 20 and said[0].addresses >= 4  # once, as the budget ran out
        now[0] += 61
        async with from_("127.0.2.9") as new_device:
            assert (await new_device.get("/api/whoami", headers=referee)).json()["role"] == "referee"
    finally:
        await stop_tasks([served.task], served)
        store.close()


async def test_guesses_sent_together_against_a_hashed_credential_are_held_to_five(tmp_path: Path) -> None:
    """A hashed credential (`tablectl pin`) takes scrypt's 50-100 ms a check, off the loop. Guesses sent at
    once from one address (requests and the referee's socket) all passed the lockout check before the first
    was counted: 16 sent together were 16 checked, each time the minute came round. Now the check and the count
    are one step: 5 are checked, the rest held (429 / 4429), and the referee elsewhere logs in."""
    import asyncio

    import httpx
    import websockets

    from table_controller.web.hashed import hash_credential
    from table_controller.web.serve import serve, stop_tasks

    creds = Credentials(referee=hash_credential(REFEREE), operator=hash_credential(OPERATOR))
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test")
    store = EventStore(tmp_path / "events.sqlite3")
    served = await serve(create_app(Controller(cfg, store, _no_table), creds), "127.0.0.1", 0, name="display",
                         what="the display")
    base = f"http://127.0.0.1:{served.port}"

    def from_(address: str) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=base, timeout=30, limits=httpx.Limits(max_connections=32),
                                 transport=httpx.AsyncHTTPTransport(local_address=address))

    async def socket_guess(address: str, token: str) -> int:
        async with websockets.connect(f"ws://127.0.0.1:{served.port}/ws/referee", host="127.0.0.1",
                                      local_addr=(address, 0)) as sock:
            await sock.send(json.dumps({"token": token}))
            return int(json.loads(await sock.recv())["code"])

    try:
        async with from_("127.0.4.1") as laptop:
            got = await asyncio.gather(*(laptop.get("/api/whoami", headers={"Authorization": f"Bearer guess-{i:03d}"})
                                         for i in range(16)))
        codes = sorted(r.status_code for r in got)
        assert codes == [401] * 5 + [429] * 11, codes  # were 16 x 401
        said = await asyncio.gather(*(socket_guess("127.0.4.2", f"guess-{i:03d}") for i in range(12)))
        assert sorted(said) == [4401] * 5 + [4429] * 7, said  # were 12 x 4401
        async with from_("127.0.4.3") as tablet:
            r = await tablet.get("/api/whoami", headers={"Authorization": f"Bearer {REFEREE}"})
            assert r.json()["role"] == "referee", r.text
    finally:
        await stop_tasks([served.task], served)
        store.close()


async def test_guesses_at_the_organisers_credential_sent_together_are_held_and_told_when_to_ask_again(
        tmp_path: Path) -> None:
    """20 guesses at once from one address at a real hub (uvicorn), its credential hashed as a table's may be
    (scrypt, the check 50-100 ms): 5 are checked (401) and 15 held (429), as at the tables
    (`Credentials.attempt`). The hub's 429 said nothing of when to ask again where a table's carries
    `Retry-After`; now it does, and the right credential from that address is held too until then."""
    import asyncio

    import httpx

    from table_controller.tournament.web import HubService
    from table_controller.web.hashed import hash_credential

    hub = HubService("mqtt://127.0.0.1:9", "cup", tmp_path / "hub", port=0,
                     organizer_token=hash_credential("org-secret-77"))
    await hub.start()
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}", timeout=30) as http:
            guesses = await asyncio.gather(*[http.post("/api/pairings/publish",
                                                       headers={"Authorization": f"Bearer guess-{i:04d}"})
                                             for i in range(20)])
            assert sorted(r.status_code for r in guesses) == [401] * 5 + [429] * 15
            held = [r for r in guesses if r.status_code == 429]
            assert all(1 <= int(r.headers["Retry-After"]) <= 60 for r in held), [r.headers for r in held]
            assert held[0].json()["detail"].startswith("尝试次数过多，请稍后再试")
            right = await http.post("/api/organiser", headers={"Authorization": "Bearer org-secret-77"},
                                    json={"action": "table_out", "table_id": "t9"})
            assert right.status_code == 429 and "Retry-After" in right.headers
        assert hub.hub.decisions() == []
    finally:
        await hub.stop()
