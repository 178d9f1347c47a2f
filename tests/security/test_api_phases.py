"""Every HTTP route of a table's display and of the hub, as the apps list them (the pages, `/static`, `/docs` and
`/api/requests/{key}` too, which `/openapi.json` leaves out), under a misbehaving client in each phase of a match
that matters: no hand yet, a hand in play with a win read waiting, the hand ended, the session over. Each route
meets its own method and others (HEAD, OPTIONS, PUT, DELETE, PATCH), bodies of the wrong JSON type, nulls, numbers
past 64 bits, NaN and Infinity, 5,000 deep, 1 MB, control characters, bytes that are not UTF-8, the wrong
Content-Type, path and query values of the wrong type or out of range; with no credential, a wrong one, the
operator's and the referee's. A real service on the built-in simulator, its SQLite log read from the file; a real
hub behind a real Mosquitto.

Never a 5xx; a 4xx is JSON and says what is wrong Chinese first; the service still answers `/api/health`; a refused
request adds nothing to the log and changes nothing in it, and the log is whole after; and no public answer, whatever
its query, holds the concealed tiles of the win the referee read. Seeded: the same few hundred requests each run.
tests/security/test_api_fuzz.py walks the OpenAPI routes deeper (hypothesis) in one phase, over processes."""

from __future__ import annotations

import asyncio
import json
import random
import re
import sqlite3
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiomqtt
import httpx
import pytest_asyncio
from fuzz_http import ODD_PATH, ODD_QUERY, example, message, raw_bodies
from starlette.routing import Mount, Route

from table_controller.config import parse_config
from table_controller.service import TableService
from table_controller.tiles import tile_name
from table_controller.tournament.broker import LocalBroker
from table_controller.tournament.web import HubService
from table_controller.web.replays import ASK_PATH

REFEREE, OPERATOR, ORGANISER = "ref-phase-8642", "op-phase-9753", "org-phase-7531"
SEED = 27
#: random requests per phase, besides each route once with its own method
RANDOM_PER_PHASE = 40
METHODS = ("GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH")
#: the table's own sources: what it sends by itself may come in at any time
TABLE_SOURCES = {"table", "link", "camera"}
#: the referee's read of the win (MCR: a pung of 5s called from W, 1p the pair): its concealed tiles are the secret
WIN_HAND = {"seat_wind": "N", "prevalent_wind": "E", "win_tile": "1p", "win": "discard", "discarder": "E",
            "melds": [{"type": "pung", "tiles": ["5s", "5s", "5s"], "from": "W"}],
            "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p".split()}
#: a hand shown at 荒牌 (查叫)
SHOWN = {"concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p", "options": {"missing_suit": "s"}}
#: values a field does not take, by the type its schema gives: of another JSON type (never one pydantic would coerce),
#: or below every integer field's least (each has one) and past 64 bits
WRONG_TYPE: dict[str | None, list[Any]] = {
    "string": [1, 1.5, [], {}, True, 10**30], "integer": ["abc", [], {}, 1.5, "1e3", -(2**63) - 1],
    "number": ["abc", [], {}, "NaN"], "boolean": ["maybe", 2, [], {}], "array": [{}, "1m", 3, [{}]],
    "object": [[], "x", 1, [1, 2]], None: [[[]], {"": {}}, "\u0000", 1e308],
}
#: values no field of a win's hand or a shown hand takes, whatever its type: each field gets each in turn
NEVER: list[Any] = [[], {}, 1.5, 10**30]
#: bodies a route may act on: none or an empty one where it takes none (empty, null, its own in UTF-16 or after a
#: BOM, which Python's JSON reads), control characters in a free text (an undo's reason, an appeal's lines); sent
#: without a credential only
TAKEN = ("empty", "null", "bom", "utf-16", "control characters")
CHINESE = re.compile(r"[\u3000-\u9fff\uff00-\uffef]")


def _people(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The events a person's request made (not the table's own: its link, its dice, its tile count)."""
    return [r for r in rows if r[2] not in TABLE_SOURCES]


def _leaks(body: str, concealed: list[str]) -> list[str]:
    """Where an answer gives the concealed hand away: the tiles as a list, or written out (codes or names)."""
    names = [tile_name(t) for t in concealed]
    found = [form for form in (" ".join(concealed), "".join(concealed), "".join(names), " ".join(names), "、".join(names))
             if form in body]
    try:
        value = json.loads(body)
    except ValueError:
        return found
    stack, secret = [value], sorted(concealed)
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("concealed"), (list, str)):  # (a meld's is true or false, the schema's an object)
                found.append(f"concealed = {node['concealed']!r}")
            stack.extend(node.values())
        elif isinstance(node, list):
            if len(node) >= 4 and all(isinstance(t, str) for t in node) and sorted(node) == secret:
                found.append(f"the hand as a list {node}")
            stack.extend(node)
    return found


def _spoilt(value: Any, at: str = "") -> list[tuple[str, Any]]:
    """`value` with each of its fields, at any depth (a list's first), in turn a value no field of it takes (`NEVER`)."""
    out: list[tuple[str, Any]] = []
    items = value.items() if isinstance(value, dict) else enumerate(value[:1]) if isinstance(value, list) else ()
    for key, inner in items:
        for what, spoilt in [*((f"{at}.{key} = {odd!r:.20}", odd) for odd in NEVER), *_spoilt(inner, f"{at}.{key}")]:
            copy = dict(value) if isinstance(value, dict) else list(value)
            copy[key] = spoilt  # type: ignore[index]
            out.append((what, copy))
    return out


@dataclass(frozen=True)
class Way:
    """One route as the app serves it: its path (with `{name}` parameters), methods, query names and body schema."""

    path: str
    methods: frozenset[str]
    query: tuple[str, ...] = ()
    body: dict[str, Any] | None = None


def ways(app: Any, more: tuple[str, ...] = ()) -> list[Way]:
    """Every route of `app`, from the app itself: a mounted folder as a file in it and a path climbing out;
    `more`: GET paths a middleware answers."""
    spec = app.openapi()
    found = []
    for route in app.routes:
        if isinstance(route, Mount):
            found += [Way(route.path + "/app.js", frozenset({"GET"})), Way(route.path + "/..%2f..%2fapp.py",
                                                                             frozenset({"GET"}))]
        elif isinstance(route, Route):
            for method in sorted(route.methods or {"GET"}):
                op = spec["paths"].get(route.path, {}).get(method.lower(), {})
                body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
                query = tuple(p["name"] for p in op.get("parameters", []) if p["in"] == "query")
                found.append(Way(route.path, frozenset({method}), query, body))
    found += [Way(path, frozenset({"GET"})) for path in (*more, "/api/no/such/address")]
    return found


@dataclass
class Prober:
    """Sends bad requests to a running service and checks every promise after each."""

    base: str
    spec: dict[str, Any]
    tokens: dict[str, str]  # "valid", "lower", "wrong" -> bearer token
    #: the accepted record, read from the service's files: named lists of rows
    read: Callable[[], dict[str, list[tuple[Any, ...]]]]
    #: the rows of each list a person's request adds (the rest the service adds by itself)
    people: Callable[[list[tuple[Any, ...]]], list[tuple[Any, ...]]]
    #: paths whose answers the public sees (`secret`: what none of them may hold)
    public: Callable[[str], bool] = lambda path: False
    secret: list[str] = field(default_factory=list)
    #: by (method, path), a body that reaches the route's own checks where its schema says only "an object"
    #: (a win's hand): each of its fields is spoilt in turn
    bodies: dict[tuple[str, str], Any] = field(default_factory=dict)
    rng: random.Random = field(default_factory=lambda: random.Random(SEED))
    statuses: Counter[int] = field(default_factory=Counter)
    sent: int = 0

    def body(self, way: Way, auth: str) -> tuple[str, bytes | None, str]:
        """A body no route takes: a raw one (broken, NaN, deep, 900 KB, not UTF-8 ...), the route's own with a
        field of the wrong type, or a 1 MB string; never one a route would act on (with a credential)."""
        base = example(self.spec, way.body) if way.body else {}
        raws = [*raw_bodies(base), ("1 MB string", json.dumps({"reason": "中" * 350_000}).encode()),
                ("control characters", json.dumps({**base, "reason": "\x00\x1b\u202e", "note": "\x07"} if isinstance(
                    base, dict) else {"x": "\x00"}).encode())]
        raws = [r for r in raws if auth not in ("valid", "lower") or r[0] not in TAKEN]
        pick = self.rng.random()
        if pick < 0.15:
            return "wrong content type", json.dumps(base).encode(), self.rng.choice(
                ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=zz"])
        if pick < 0.55 and isinstance(base, dict) and base and way.body:
            props = self._props(way.body)
            name = self.rng.choice(sorted(base))
            kind = props.get(name, {}).get("type")
            value = self.rng.choice(WRONG_TYPE.get(kind, WRONG_TYPE[None]))
            return f"{name} = {value!r:.40}", json.dumps({**base, name: value}).encode(), "application/json"
        what, content = self.rng.choice(raws)
        return what, content, "application/json"

    def _props(self, schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            schema = self.spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
        return {k: self._resolve(v) for k, v in schema.get("properties", {}).items()}

    def _resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            schema = self.spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
        options = [s for s in schema.get("anyOf", []) if s.get("type") != "null"]
        return self._resolve(options[0]) if options and "type" not in schema else schema

    async def probe(self, http: httpx.AsyncClient, stranger: httpx.AsyncClient, way: Way, method: str,
                    value: str | None = None, given: tuple[str, bytes] | None = None) -> None:
        """One bad request to `way` with `method`, and every check after it; `value`: every path parameter's,
        `given`: the body (what is odd about it, its bytes), sent with the credential."""
        rng = self.rng
        auth = "valid" if given else rng.choice(["valid", "valid", "lower", "none", "wrong"])
        if value is None:
            value = rng.choice(ODD_PATH) if rng.random() < 0.6 else "1"
        path = re.sub(r"\{([^}]+)\}", lambda m: value, way.path)
        params = {q: rng.choice(ODD_QUERY) for q in way.query if rng.random() < 0.5}
        if rng.random() < 0.3:
            params[rng.choice(["referee", "role", "token", "private", "all", "round", "since"])] = rng.choice(
                ["1", "true", "referee", "-1", "99999999999999999999"])
        if given:
            what, content, ctype = *given, "application/json"
        elif method in ("GET", "HEAD", "OPTIONS") and rng.random() < 0.7:
            what, content, ctype = "no body", None, ""
        else:
            what, content, ctype = self.body(way, auth)
        headers = {"Content-Type": ctype} if ctype else {}
        if self.tokens.get(auth):
            headers["Authorization"] = f"Bearer {self.tokens[auth]}"
        said = f"{method} {path[:80]} {params} auth={auth} {what} {ctype!r}"
        before = self.read()
        r = await (stranger if auth == "wrong" else http).request(method, self.base + path, params=params,
                                                                  content=content, headers=headers)
        self.sent += 1
        self.statuses[r.status_code] += 1
        assert r.status_code < 500, f"{r.status_code} for {said}: {r.text[:400]}"
        if method not in ("GET", "HEAD", "OPTIONS") and way.body is not None:
            assert r.status_code >= 300, f"a bad body acted on: {said}: {r.text[:300]}"
        if 400 <= r.status_code < 500 and method != "HEAD":
            assert r.headers.get("content-type", "").startswith("application/json"), (said, r.headers, r.text[:200])
            words = message(r.json())
            assert words and CHINESE.search(words.split(" / ")[0]), f"{r.status_code} not Chinese first: {said}: {words}"
        if r.status_code < 300 and method == "GET" and self.secret and self.public(path):
            leaks = _leaks(r.text, self.secret)
            assert not leaks, f"{said} shows the concealed hand: {leaks}"
        health = await http.get(self.base + "/api/health")
        assert health.status_code == 200, f"/api/health {health.status_code} after {said}"
        after = self.read()
        for name, rows in before.items():
            assert after[name][:len(rows)] == rows, f"{name} as accepted changed after {said}"
            if r.status_code >= 300 or auth in ("none", "wrong"):
                assert not self.people(after[name][len(rows):]), f"{r.status_code} for {said}, yet {name} grew"

    async def phase(self, http: httpx.AsyncClient, stranger: httpx.AsyncClient, every: list[Way], k: int,
                    n: int) -> None:
        """Phase `k` of `n`: each route once with its own method; its share (every n-th from the k-th) of each path
        parameter's odd values and of the spoilt fields of each body that reaches the scorer (`bodies`), so the
        phases together send each once; then random routes, with their own method or another."""
        for way in every:
            own = next(iter(way.methods))
            await self.probe(http, stranger, way, own)
            if "{" in way.path:
                for value in ODD_PATH[k::n]:
                    await self.probe(http, stranger, way, own, value)
            for what, body in _spoilt(self.bodies.get((own, way.path), {}))[k::n]:
                await self.probe(http, stranger, way, own, "1", (what, json.dumps(body).encode()))
        for _ in range(RANDOM_PER_PHASE):
            way = self.rng.choice(every)
            own = next(iter(way.methods))
            await self.probe(http, stranger, way, own if self.rng.random() < 0.5 else self.rng.choice(METHODS))


def _rows(path: Path, query: str) -> list[tuple[Any, ...]]:
    if not path.exists():
        return []
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10) as db:
        return db.execute(query).fetchall()


@pytest_asyncio.fixture
async def table(tmp_path: Path) -> AsyncIterator[TableService]:
    config = parse_config({"table": {"link": "sim://", "sim_seed": 2, "sim_speed": 1000.0},
                           "display": {"port": 0, "operator_token": OPERATOR, "referee_token": REFEREE}}, source="test")
    svc = TableService(config, tmp_path)
    await svc.start()
    try:
        yield svc
    finally:
        await svc.stop()


async def _ok(http: httpx.AsyncClient, path: str, token: str, body: Any = None) -> None:
    r = await http.post(path, json=body, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 200, (path, r.text)


async def test_every_table_route_in_every_phase_under_bad_requests(table: TableService, tmp_path: Path) -> None:
    svc = table
    assert svc.controller is not None
    await svc.controller.wait_linked(10)
    base = f"http://127.0.0.1:{svc.port}"
    app = svc._served.server.config.app
    every = ways(app, (ASK_PATH + "{key}",))  # whether an action sent under a key was done (`web/replays.py`)
    assert {"/", "/static/app.js", "/docs", "/api/requests/{key}", "/api/hands/{hand_no}/record"} <= {w.path
                                                                                                      for w in every}
    log = tmp_path / "events.sqlite3"
    prober = Prober(base, app.openapi(), {"valid": REFEREE, "lower": OPERATOR, "wrong": "guess-1234"},
                    lambda: {"events": _rows(log, "SELECT * FROM events ORDER BY seq")}, _people,
                    public=lambda path: not path.startswith(("/api/referee/", "/api/requests/")),
                    bodies={("POST", "/api/referee/win"): {"hand": WIN_HAND},
                            ("POST", "/api/referee/exhaustive"): {"hands": {"E": SHOWN}}})
    async with httpx.AsyncClient(timeout=30) as http, httpx.AsyncClient(
            timeout=30, transport=httpx.AsyncHTTPTransport(local_address="127.0.0.2")) as stranger:
        await prober.phase(http, stranger, every, 0, 4)  # no hand yet
        await _ok(http, base + "/api/hand/start", OPERATOR)
        for _ in range(750):  # the simulator builds the walls
            if svc.controller.state.phase == "walls_raised":
                break
            await asyncio.sleep(0.02)
        assert svc.controller.state.phase == "walls_raised"
        while (hand := svc.controller.state.hand)["deal"] is None:
            await _ok(http, base + "/api/dice", OPERATOR, {"seat": hand["next_thrower"], "dice": [3, 4]})
        await _ok(http, base + "/api/play", OPERATOR, {"type": "deal_done"})
        await _ok(http, base + "/api/referee/win", REFEREE, {"hand": WIN_HAND})
        prober.secret = list(WIN_HAND["concealed"])
        await prober.phase(http, stranger, every, 1, 4)  # a hand in play, the win as read waiting for its confirmation
        assert svc.controller.state.hand["hand_no"] == 1 and not svc.controller.state.hand.get("ended")
        await _ok(http, base + "/api/referee/win/confirm", REFEREE)
        if not svc.controller.state.hand.get("ended"):
            await _ok(http, base + "/api/hand/end", OPERATOR, {"result": "win"})
        await prober.phase(http, stranger, every, 2, 4)  # the hand ended
        assert svc.controller.state.hand.get("ended") and svc.controller.state.hands_played == 1
        await _ok(http, base + "/api/referee/session/end", REFEREE)
        await prober.phase(http, stranger, every, 3, 4)  # the session over
        referee = {"Authorization": f"Bearer {REFEREE}"}
        for view in ("/api/state", "/api/referee/state", "/api/records?format=text", "/api/scoresheet.csv",
                     "/api/referee/hands/1/record", "/api/hands/1/record?format=text"):
            assert (await http.get(base + view, headers=referee)).status_code == 200, view
    rows = _rows(log, "SELECT * FROM events ORDER BY seq")
    assert [r[0] for r in rows] == list(range(1, len(rows) + 1))  # whole: numbered on without a gap
    with sqlite3.connect(f"file:{log}?mode=ro", uri=True) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    # the phases were what they were said to be, and the requests reached every kind of answer
    assert [t for _, _, _, t, _ in _people(rows)].count("referee.win_confirm") == 1
    assert prober.sent >= 4 * len(every) and {200, 401, 403, 404, 405, 413, 422} <= set(prober.statuses), \
        prober.statuses



async def test_every_hub_route_before_and_after_a_table_is_heard_under_bad_requests(tmp_path: Path,
                                                                                     broker: LocalBroker) -> None:
    """The hub before any table is heard, then with a table's event filed (sent over the broker as a table
    sends it) and an organiser's decision taken."""

    service = HubService(broker.url, "cup", tmp_path / "hub", port=0, organizer_token=ORGANISER,
                         expected=["t01", "t02"])
    await service.start()
    try:
        assert service.hub is not None
        hub = service.hub
        base = f"http://127.0.0.1:{service.bound_port}"
        app = service._served.server.config.app
        every = ways(app)
        files = tmp_path / "hub" / "cup"
        prober = Prober(base, app.openapi(), {"valid": ORGANISER, "lower": "", "wrong": "guess-1234"},
                        lambda: {"decisions": _rows(files / "hub.sqlite3", "SELECT * FROM decisions ORDER BY id"),
                                 "t01": _rows(files / "tables" / "t01.sqlite3", "SELECT * FROM events ORDER BY seq")},
                        lambda rows: rows)
        async with httpx.AsyncClient(timeout=30) as http, httpx.AsyncClient(
                timeout=30, transport=httpx.AsyncHTTPTransport(local_address="127.0.0.2")) as stranger:
            await prober.phase(http, stranger, every, 0, 2)
            event = {"v": 1, "tournament": "cup", "table_id": "t01", "seq": 1, "prev": 0, "at": 1.0,
                     "source": "controller", "type": "controller.configured",
                     "data": {"players": {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}}}
            async with aiomqtt.Client("127.0.0.1", broker.port, identifier="test-table") as client:
                await client.publish("mahjong/cup/t01/events", json.dumps(event), qos=1)
            for _ in range(250):
                if "t01" in hub.tables:
                    break
                await asyncio.sleep(0.02)
            assert "t01" in hub.tables, "the hub never filed the table's event"
            r = await http.post(base + "/api/organiser", json={"action": "table_out", "table_id": "t02",
                                                               "reason": "卡牌"},
                                headers={"Authorization": f"Bearer {ORGANISER}"})
            assert r.status_code == 200, r.text
            await prober.phase(http, stranger, every, 1, 2)
        assert len(_rows(files / "hub.sqlite3", "SELECT * FROM decisions")) == 1
        assert prober.sent >= 2 * len(every) and {200, 404, 405, 422} <= set(prober.statuses), prober.statuses
    finally:
        await service.stop()
