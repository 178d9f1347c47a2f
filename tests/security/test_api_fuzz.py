"""Every route of a running table service and of a running hub under bad input, walked from their own
`/openapi.json`, over real HTTP: a broker (Mosquitto), `tablectl run` on the simulator's pseudo-terminal
publishing to it, and `tablectl hub` filing what it publishes, each a process of its own with its SQLite
files. Never a 5xx, every 4xx says what is wrong in JSON (Chinese first), the service keeps answering, and
nothing refused (nor anything sent without a credential) changes what it had accepted
(tests/security/fuzz_http.py). Bounded and derandomized; `--fuzz-long` runs many more examples."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fuzz_http import Fuzz, Ledger, bad_requests, every_route_every_way, routes, wait_for
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.tournament.broker import LocalBroker, free_port

ROOT = Path(__file__).resolve().parents[2]
REFEREE, OPERATOR, ORGANISER = "ref-fuzz-8642", "op-fuzz-9753", "org-fuzz-7531"
#: the table's own sources: what it sends by itself may come in at any time
TABLE_SOURCES = {"table", "link", "camera"}
#: a win as read (docs/scoring.md) and a hand shown at 荒牌: bodies that reach the scorer, spoilt field by field
WIN_HAND = {"seat_wind": "N", "prevalent_wind": "E", "melds": [], "win_tile": "2p", "win": "discard",
            "discarder": "E", "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p".split(), "options": {"note": "x"}}
SHOWN = {"concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p", "options": {"missing_suit": "s"}}
TABLE_BODIES = {("POST", "/api/referee/win"): {"hand": WIN_HAND},
                ("POST", "/api/referee/exhaustive"): {"hands": {"E": SHOWN, "S": SHOWN}},
                ("POST", "/api/referee/win/camera"): {"seat": "E", "win_tile": "1m", "options": {"points": 8}}}
TABLE_VIEWS = ["/api/state", "/api/referee/state", "/api/records?format=text", "/api/scoresheet.csv", "/api/actions"]
HUB_VIEWS = ["/api/standings", "/api/organiser", "/api/pairings", "/api/stats"]


def _table_views(base: str) -> Callable[[], list[str]]:
    """The table's views, and the referee's record of the hand in play (or the last), with the win as read."""
    def views() -> list[str]:
        hand = (httpx.get(base + "/api/state").json().get("hand") or {}).get("hand_no", 1)
        return [*TABLE_VIEWS, f"/api/referee/hands/{hand}/record"]
    return views
HUB_BODIES = {("POST", "/api/organiser"): {"action": "table_out", "table_id": "t01", "reason": "卡牌"}}


def _env(**more: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'hardware-sim'}", **more}


def _rows(path: Path, query: str) -> list[tuple[Any, ...]]:
    if not path.exists():
        return []
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10) as db:
        return db.execute(query).fetchall()


def _start(args: list[str], work: Path, name: str, **env: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "table_controller.cli", *args], env=_env(**env), cwd=ROOT,
                            stdout=(work / f"{name}.log").open("wb"), stderr=subprocess.STDOUT)


@dataclass
class Venue:
    table: Fuzz
    hub: Fuzz


@pytest.fixture(scope="module")
def venue(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Venue]:
    """A broker, a table on the simulator with hand 1 started (actions reach the controller) publishing to
    it, and the hub with two players' registration list and the table heard from."""
    work = tmp_path_factory.mktemp("apifuzz")
    broker = LocalBroker(work / "broker")
    broker.start()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        table_port, hub_port = free_port(), free_port()
        (work / "table.toml").write_text(
            f'[table]\nlink = "sim://"\nsim_speed = 1000.0\n[display]\nhost = "127.0.0.1"\nport = {table_port}\n'
            f'referee_token = "{REFEREE}"\noperator_token = "{OPERATOR}"\n[storage]\ndata_dir = "data"\n'
            f'[tournament]\nbroker = "{broker.url}"\nname = "fz"\ntable_id = "t01"\n')
        (work / "players.csv").write_text("id,name\n" + "".join(f"A{i:02},选手{i}\n" for i in range(1, 9)))
        procs.append(table := _start(["run", "--config", str(work / "table.toml")], work, "table"))
        procs.append(hub := _start(["hub", "--broker", broker.url, "--tournament", "fz", "--port", str(hub_port),
                                    "--data-dir", str(work / "hub"), "--players", str(work / "players.csv"),
                                    "--tables", "t01,t02"], work, "hub", TABLECTL_HUB_ORGANIZER_TOKEN=ORGANISER))
        table_url, hub_url = f"http://127.0.0.1:{table_port}", f"http://127.0.0.1:{hub_port}"
        wait_for(table_url + "/api/health", table, lambda h: h["link"]["up"] and h["recovering"] is None)
        r = httpx.post(table_url + "/api/hand/start", headers={"Authorization": f"Bearer {OPERATOR}"}, timeout=10)
        assert r.status_code == 200, r.text
        wait_for(hub_url + "/api/standings", hub, lambda s: any(t["table_id"] == "t01" and t.get("events")
                                                              for t in s["tables"]))
        events = work / "data" / "events.sqlite3"
        table_ledger = Ledger(lambda: {"events": _rows(events, "SELECT * FROM events ORDER BY seq")},
                              lambda name, rows: [r for r in rows if r[2] not in TABLE_SOURCES], frozenset({"events"}))
        files = work / "hub" / "fz"
        hub_ledger = Ledger(lambda: {
            "decisions": _rows(files / "hub.sqlite3", "SELECT * FROM decisions ORDER BY id"),
            "seatings": _rows(files / "hub.sqlite3", "SELECT * FROM seatings ORDER BY round, table_id"),
            "t01": _rows(files / "tables" / "t01.sqlite3", "SELECT * FROM events ORDER BY seq")},
            lambda name, rows: rows if name != "t01" else [], frozenset({"decisions", "t01"}))
        yield Venue(
            Fuzz(table_url, httpx.get(table_url + "/openapi.json").json(),
                 {"valid": REFEREE, "wrong": "guess-1234", "lower": OPERATOR}, table_ledger,
                 lambda: table.poll() is None, bodies=TABLE_BODIES, views=_table_views(table_url)),
            Fuzz(hub_url, httpx.get(hub_url + "/openapi.json").json(),  # the hub has one credential: no lower one
                 {"valid": ORGANISER, "wrong": "guess-1234", "lower": ""}, hub_ledger,
                 lambda: hub.poll() is None, known={"table_id": "t01"}, bodies=HUB_BODIES, views=lambda: HUB_VIEWS))
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)
        broker.stop()


#: random bad requests per service: the bounded run, and `--fuzz-long`'s
EXAMPLES, LONG_EXAMPLES = 100, 3000


def _sweep(fz: Fuzz) -> None:
    sent = every_route_every_way(fz)
    for bad in sent:
        fz.send(bad)
    assert set(fz.by_route) == {(r.method, r.path) for r in routes(fz.spec)}
    assert fz.statuses[413] >= sum(r.method == "POST" for r in routes(fz.spec))  # each 10 MB body refused


def _random(fz: Fuzz, request: pytest.FixtureRequest) -> None:
    examples = LONG_EXAMPLES if request.config.getoption("--fuzz-long") else EXAMPLES
    bad = bad_requests(fz)  # once: it holds every route's bodies

    @settings(max_examples=examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def run(data: st.DataObject) -> None:
        fz.send(data.draw(bad))

    run()


def test_every_table_route_under_each_bad_body(venue: Venue) -> None:
    """37 routes, each with 21 bodies that are not what it takes (empty, broken, NaN, duplicate keys, nested
    5,000 deep, UTF-16, 900 KB of one string, 10 MB ...), odd path and query values, and without a credential."""
    _sweep(venue.table)
    assert len(venue.table.by_route) >= 37


def test_the_table_under_random_bad_requests(venue: Venue, request: pytest.FixtureRequest) -> None:
    _random(venue.table, request)


def test_every_hub_route_under_each_bad_body(venue: Venue) -> None:
    _sweep(venue.hub)
    assert len(venue.hub.by_route) >= 13


def test_the_hub_under_random_bad_requests(venue: Venue, request: pytest.FixtureRequest) -> None:
    _random(venue.hub, request)
