"""The hub's answers that a hall's screens and phones poll (`web/polled.py`): written once per change, never
stale beyond one, 304 only for a body that has not changed, gzipped when big. A synthetic day (`hubday.py`) is
filed by the hub's own handler into its real SQLite files; the questions go over real HTTP. `bench/hubload.py
--pollers N` measures the same at a national event's size (docs/tournament.md)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

import hubday
from table_controller.tournament.web import HubService

TABLES, ROUNDS, HANDS = 4, 2, 2
#: what a browser's revalidation sends, without decoding gzip by itself (the tests look at the bytes)
PLAIN = {"Accept-Encoding": "identity"}


@pytest.fixture
async def hub(tmp_path: Path) -> Any:
    async with hubday.started_hub(tmp_path / "hub", TABLES) as service:
        yield service


def _http(hub: HubService) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}", timeout=30)


def _timeless(x: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in x.items() if k != "at"}


async def test_standings_are_written_once_per_change_not_per_fetch(hub: HubService, monkeypatch: Any) -> None:
    """Every screen and phone in the hall asks for the standings every few seconds: each fetch made every
    table's row again and wrote the whole answer (233 KB at 64 tables' 7 rounds) on the hub's loop. Now 20
    fetches with nothing changed make the rows once; a message makes them once more."""
    from table_controller.tournament.hub import Hub

    assert hub.hub is not None
    day = list(hubday.day(TABLES, ROUNDS, HANDS, events=1))
    for topic, payload, _ in day[:-1]:
        hub.hub.handle(topic, payload)
    rows: list[str] = []
    real = Hub._table_row

    def counting(self: Hub, table_id: str, table: Any) -> Any:
        rows.append(table_id)
        return real(self, table_id, table)

    monkeypatch.setattr(Hub, "_table_row", counting)
    async with _http(hub) as http:
        version = hub.hub.version  # the hub's tries at its absent broker change its health, and the page with it
        answers = [(await http.get("/api/standings")).json() for _ in range(20)]
        assert len(rows) <= TABLES * (1 + hub.hub.version - version), len(rows)  # was 20 fetches × 4 tables
        assert all((a["players"], a["tables"]) == (answers[0]["players"], answers[0]["tables"]) for a in answers)
        assert answers[-1]["at"] >= answers[0]["at"]  # the time of each answer, all the same
        hub.hub.handle(*day[-1][:2])
        rows.clear()
        after = (await http.get("/api/standings")).json()
        assert len(rows) == TABLES
        assert _timeless(after) == json.loads(json.dumps(_timeless(hub.hub.standings())))
        assert after != answers[-1]


async def test_a_fetch_after_each_message_shows_it_and_304_only_for_the_same_body(hub: HubService) -> None:
    """A poller that sends back the ETag it has gets 304 (no body) only while the standings are what it holds:
    after each message of a day filed, the next fetch is the hub's standings of that moment, and an answer
    with the old ETag never stands for a changed body."""
    assert hub.hub is not None
    async with _http(hub) as http:
        first = await http.get("/api/standings", headers=PLAIN)
        assert first.status_code == 200 and first.headers["etag"].startswith('W/"'), first.headers
        assert first.headers["cache-control"] == "no-cache"
        again = await http.get("/api/standings", headers={**PLAIN, "If-None-Match": first.headers["etag"]})
        assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == first.headers["etag"]
        held, tag, codes = first.json(), first.headers["etag"], {200: 0, 304: 0}
        for k, (topic, payload, kind) in enumerate(hubday.day(TABLES, ROUNDS, HANDS, events=1)):
            hub.hub.handle(topic, payload)
            r = await http.get("/api/standings", headers={**PLAIN, "If-None-Match": tag})
            now = json.loads(json.dumps(_timeless(hub.hub.standings())))
            codes[r.status_code] += 1
            if r.status_code == 304:
                assert _timeless(held) == now, (k, kind)  # never a 304 for a changed body
                continue
            assert r.status_code == 200 and r.headers["etag"] != tag
            held, tag = r.json(), r.headers["etag"]
            assert _timeless(held) == now, (k, kind)
            if kind == "state":  # the message just filed is on it
                msg = json.loads(payload)
                row = next(t for t in held["tables"] if t["table_id"] == msg["table_id"])
                assert (row["round"], row["seq"]) == (msg["round"], msg["seq"])
        assert codes[200] > 0
        # the standings after a round, and the CSV, are what they were
        through = (await http.get("/api/standings?through=1")).json()
        assert _timeless(through) == json.loads(json.dumps(_timeless(hub.hub.standings(1))))
        assert (await http.get("/api/standings?through=0")).status_code == 422


async def test_the_standings_go_gzipped_to_a_client_that_takes_gzip(hub: HubService) -> None:
    """Big answers (the standings: 233 KB at 64 tables' 7 rounds, to every phone every few seconds) went
    uncompressed; now gzipped where the client says it takes gzip, the same JSON, and each answer's own time."""
    assert hub.hub is not None
    for topic, payload, _ in hubday.day(TABLES, ROUNDS, HANDS, events=1):
        hub.hub.handle(topic, payload)
    async with _http(hub) as http:
        plain = await http.get("/api/standings", headers=PLAIN)
        assert "content-encoding" not in plain.headers
        for _ in range(2):  # the second from the compressor kept after the unchanged parts
            packed = await http.get("/api/standings", headers={"Accept-Encoding": "gzip"})
            assert packed.headers["content-encoding"] == "gzip" and packed.headers["vary"] == "Accept-Encoding"
            assert _timeless(packed.json()) == _timeless(plain.json())  # httpx decoded it: the same JSON
            assert packed.json()["at"] >= plain.json()["at"]
        async with http.stream("GET", "/api/standings", headers={"Accept-Encoding": "gzip"}) as stream:
            wire = b"".join([chunk async for chunk in stream.aiter_raw()])
        assert len(wire) < len(plain.content) / 4, (len(wire), len(plain.content))
        assert _timeless(json.loads(gzip.decompress(wire))) == _timeless(plain.json())
        # one that refuses gzip gets it plain
        refused = await http.get("/api/standings", headers={"Accept-Encoding": "gzip;q=0"})
        assert "content-encoding" not in refused.headers


@pytest.mark.parametrize("path", ["/api/stats", "/api/pairings", "/api/pairings/published", "/api/organiser"])
async def test_the_pages_other_answers_say_304_until_they_change(hub: HubService, path: str) -> None:
    """The page fetches the statistics, the seating, the published seating and the organiser's decisions at
    each change of the hub, and most of the time they are what the page holds: now a 304 then, and the new
    body once they change (a hand's record, a result, a seating published, a decision)."""
    assert hub.hub is not None
    day = list(hubday.day(TABLES, ROUNDS, HANDS, events=1))
    half = len(day) // 2
    for topic, payload, _ in day[:half]:
        hub.hub.handle(topic, payload)
    async with _http(hub) as http:
        first = await http.get(path, headers=PLAIN)
        assert first.status_code == 200 and first.headers["etag"], first.headers
        same = await http.get(path, headers={**PLAIN, "If-None-Match": first.headers["etag"]})
        assert same.status_code == 304 and same.content == b""
        for topic, payload, _ in day[half:]:
            hub.hub.handle(topic, payload)
        if path == "/api/pairings/published":
            published = await http.post("/api/pairings/publish", headers={"Authorization": "Bearer org"})
            assert published.status_code == 200, published.text
        if path == "/api/organiser":
            decided = await http.post("/api/organiser", json={"action": "table_out", "table_id": "t04", "reason": "坏了"},
                                      headers={"Authorization": "Bearer org"})
            assert decided.status_code == 200, decided.text
        changed = await http.get(path, headers={**PLAIN, "If-None-Match": first.headers["etag"]})
        assert changed.status_code == 200 and changed.headers["etag"] != first.headers["etag"]
        want = {"/api/stats": lambda: hub.hub.stats(), "/api/pairings": lambda: hub.hub.pairings(),
                "/api/pairings/published": lambda: hub.hub.published(),
                "/api/organiser": lambda: {"decisions": hub.hub.decisions()}}[path]()
        got = changed.json()
        if path == "/api/organiser":
            assert got["decisions"] == want["decisions"] and got["actions"]["table_out"]["zh"]
        elif path == "/api/stats":
            assert _timeless(got) == json.loads(json.dumps(_timeless(want))) and got["players"]
        else:
            assert got == json.loads(json.dumps(want)) and got
        # the text seating is still made as it was
        if path == "/api/pairings":
            text = await http.get("/api/pairings?format=text")
            assert text.status_code == 200 and "编排" in text.text


async def test_a_halls_phones_are_all_answered(hub: HubService) -> None:
    """A national event's hall: 200-300 phones and 10 screens on the hub's page, each with its live socket and
    a connection for its fetches. The hub served 400 connections at once (the table's cap) and answered the
    rest 503 (`bench/hubload.py --pollers 400`: 1,040 of 2,169 fetches). 450 phones, each from its own
    address and holding its connection, are all answered now.

    Each phone asks again once answered, on the connection it holds (the same one, asserted), as a phone polling
    does: asked after all 450 were answered (the first round took 6-12 s on a loaded machine), a connection idle
    past the server's keep-alive (uvicorn's 5 s) was being closed as the phone used it again (ReadError, 274 of
    450 phones) where a browser would have asked again on a new one."""
    import asyncio

    phones = [httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}", timeout=60,
                                transport=httpx.AsyncHTTPTransport(local_address=f"127.0.{1 + k // 250}.{2 + k % 250}",
                                                                  verify=False))  # plain http: no CA to load
              for k in range(450)]

    async def polls(phone: httpx.AsyncClient) -> list[httpx.Response]:
        return [await phone.get("/api/health") for _ in range(2)]

    try:
        answers = await asyncio.gather(*(polls(phone) for phone in phones))
        codes = [r.status_code for pair in answers for r in pair]
        assert set(codes) == {200}, sorted(codes)[-3:]
        held = [first.extensions["network_stream"] is again.extensions["network_stream"] for first, again in answers]
        assert all(held), f"{held.count(False)} phones asked again on a new connection"
    finally:
        await asyncio.gather(*(phone.aclose() for phone in phones))
