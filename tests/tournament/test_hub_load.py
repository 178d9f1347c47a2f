"""The hub under a big tournament's load: what its loop does per table message and per page's fetch must
not grow with the tournament (a national event: 32-64 tables, 5-7 rounds). A synthetic day
(`hubday.py`) is filed by the hub's own handler into its real SQLite files, and the pages' questions go
over real HTTP. `bench/hubload.py` measures the same at full size (docs/tournament.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

import hubday
import table_controller.tournament.stats as stats_module
from table_controller.tournament.web import HubService

TABLES, ROUNDS, HANDS = 4, 2, 3


@pytest.fixture
async def hub(tmp_path: Path) -> Any:
    async with hubday.started_hub(tmp_path / "hub", TABLES) as service:
        yield service


async def test_statistics_are_counted_again_only_when_a_hand_or_who_sat_changes(hub: HubService,
                                                                                monkeypatch: Any) -> None:
    """A page fetches `/api/stats` at each change; a table's standing comes every half second in play, and
    each made the hub count every record again on its loop (660 ms at 16 tables' three rounds). Now a
    standing that moves only the scores or the phase keeps the count; a hand's record, who sat and a
    round withdrawn count again; and the figures are those of every record as kept."""
    assert hub.hub is not None
    counted: list[int] = []
    real = stats_module.player_stats

    def counting(rounds: Any) -> Any:
        counted.append(1)
        return real(rounds)

    monkeypatch.setattr(stats_module, "player_stats", counting)
    kinds: dict[str, int] = {}
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}", timeout=30) as http:
        for topic, payload, kind in hubday.day(TABLES, ROUNDS, HANDS, events=1):
            hub.hub.handle(topic, payload)
            kinds[kind] = kinds.get(kind, 0) + 1
            if kind != "event":
                assert (await http.get("/api/stats")).status_code == 200
        # each hand's record, and each table's first standing of a round (who sits): 24 + 8, not 48
        assert len(counted) == kinds["record"] + TABLES * ROUNDS, (len(counted), kinds)
        got = (await http.get("/api/stats")).json()["players"]
        rounds = [(t, st, [r for r in hub.hub.records(t) if r["round"] == n])
                  for t, table in sorted(hub.hub.tables.items()) for n, st in sorted(table.states.items())]
        assert got == json.loads(json.dumps(real(rounds), ensure_ascii=False))
        assert sum(p["hands"] for p in got) == 4 * TABLES * ROUNDS * HANDS
        # a round whose start was undone at t01: its hands leave the statistics at once
        withdrawn = {"v": 1, "tournament": "cup", "table_id": "t01", **{
            k: v for k, v in hub.hub.tables["t01"].states[2].items() if k not in ("v", "tournament", "table_id")},
            "seq": 10 ** 6, "withdrawn": True}
        assert hub.hub.handle("mahjong/cup/t01/state", json.dumps(withdrawn).encode()) == "state"
        got = (await http.get("/api/stats")).json()["players"]
        assert sum(p["hands"] for p in got) == 4 * HANDS * (TABLES * ROUNDS - 1)


async def test_a_hands_record_is_read_alone(hub: HubService, monkeypatch: Any) -> None:
    """`/api/tables/t01/hands/N/record` read and parsed every record of the table on the hub's loop to
    answer one (35 ms a hand late in a big day, asked by every spectator's click); now that hand's row."""
    import types

    import table_controller.tournament.hub as hub_module

    assert hub.hub is not None
    for topic, payload, _ in hubday.day(TABLES, ROUNDS, HANDS, events=0):
        hub.hub.handle(topic, payload)
    parsed: list[int] = []

    def loads(text: Any) -> Any:
        parsed.append(1)
        return json.loads(text)

    monkeypatch.setattr(hub_module, "json", types.SimpleNamespace(loads=loads, dumps=json.dumps))
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}", timeout=30) as http:
        latest = (await http.get("/api/tables/t02/hands/2/record")).json()
        assert (latest["round"], latest["hand_no"]) == (ROUNDS, 2) and len(parsed) == 1, len(parsed)
        first = (await http.get("/api/tables/t02/hands/2/record?round=1")).json()
        assert (first["round"], first["hand_no"]) == (1, 2)
        assert first["seats"] != latest["seats"]  # each round's players
        text = await http.get("/api/tables/t02/hands/3/record?format=text")
        assert text.status_code == 200 and "第 3 盘" in text.text
        missing = await http.get(f"/api/tables/t02/hands/{HANDS + 1}/record?round=1")
        assert missing.status_code == 404
        assert f"第 1 轮第 {HANDS + 1} 盘的牌谱尚未收到" in missing.json()["detail"]
    assert len(parsed) == 3, len(parsed)  # one a hand asked (was every record of the table, 6 each)


async def test_the_ranking_and_seating_are_counted_again_only_when_a_result_changes(hub: HubService,
                                                                                    monkeypatch: Any) -> None:
    """A page fetches the standings and the seating at every change; a table's standing comes every half
    second in play (the phase, the turn), and each fetch ranked every round of every table again and drew the
    Swiss seating again on the hub's loop (35 ms a page's fetch at 64 tables' 7 rounds). Now they are
    counted when a result changes; at every step of the day they are the day's own sums so far."""
    import table_controller.tournament.pairing as pairing

    assert hub.hub is not None
    drawn: list[int] = []
    real = pairing.propose

    def counting(*args: Any, **kwargs: Any) -> Any:
        drawn.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(pairing, "propose", counting)
    latest: dict[tuple[str, int], dict[str, Any]] = {}
    states = 0
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}", timeout=30) as http:
        for topic, payload, kind in hubday.day(TABLES, ROUNDS, HANDS, events=10):
            hub.hub.handle(topic, payload)
            if kind != "state":
                continue
            states += 1
            msg = json.loads(payload)
            latest[(msg["table_id"], msg["round"])] = msg
            got = (await http.get("/api/standings")).json()
            assert (await http.get("/api/pairings")).status_code == 200
            sums: dict[str, list[float]] = {}
            for st in latest.values():
                for chair, pid in st["player_ids"].items():
                    tp, pts = sums.setdefault(pid, [0.0, 0])
                    sums[pid] = [tp + st["table_points"][chair], pts + st["totals"][chair]]
            assert {p["id"]: [float(p["table_points"]), p["points"]] for p in got["players"]} == sums
            assert {t["table_id"]: t["seq"] for t in got["tables"]}[msg["table_id"]] == msg["seq"]
        # a hand's end moves the scores (24 a round and table), a round's first standing seats four (8):
        # 32 draws for 72 standings (was one a fetch)
        assert states == 3 * TABLES * ROUNDS * HANDS and len(drawn) <= TABLES * ROUNDS * (HANDS + 1), len(drawn)
        # the organiser's decision is counted at once
        answer = await http.post("/api/organiser", json={"action": "table_out", "table_id": "t04", "reason": "坏了"},
                                 headers={"Authorization": "Bearer org"})
        assert answer.status_code == 200, answer.text
        seating = (await http.get("/api/pairings")).json()
        assert seating["tables_out"] == ["t04"] and "t04" not in {t["table_id"] for t in seating["tables"]}


async def test_a_restarted_hub_reads_the_hands_summaries_not_their_records(tmp_path: Path, monkeypatch: Any) -> None:
    """A hub started again on a big day's files parsed every record (20 KB a hand: seconds at 7,000 hands,
    before it served anything); it reads the summaries kept beside them, and a file of an older hub (no
    summaries) has them made once. The statistics are the same each time."""
    import sqlite3
    import types

    import table_controller.tournament.hub as hub_module

    def start() -> HubService:
        return HubService("mqtt://127.0.0.1:9", hubday.TOURNAMENT, tmp_path / "hub", port=0,
                          registered=hubday.players(TABLES), expected=hubday.table_ids(TABLES))

    first = start()
    await first.start()
    assert first.hub is not None
    for topic, payload, _ in hubday.day(TABLES, ROUNDS, HANDS, events=0):
        first.hub.handle(topic, payload)
    stats = first.hub.stats()["players"]
    await first.stop()
    parsed: list[int] = []

    def loads(text: Any) -> Any:
        parsed.append(len(text))
        return json.loads(text)

    monkeypatch.setattr(hub_module, "json", types.SimpleNamespace(loads=loads, dumps=json.dumps))
    hands = TABLES * ROUNDS * HANDS
    for older in (False, True, False):  # the third start reads what the second made
        if older:  # as an older hub left it
            for path in (tmp_path / "hub" / hubday.TOURNAMENT / "tables").glob("*.sqlite3"):
                with sqlite3.connect(path) as db:
                    db.execute("ALTER TABLE hand_records DROP COLUMN summary")
        parsed.clear()
        again = start()
        await again.start()
        try:
            assert again.hub is not None
            assert again.hub.stats()["players"] == stats
            read = sum(parsed)
        finally:
            await again.stop()
        # about 400 bytes a hand (was the records, 12-20 KB each); an older file's records once
        assert (read > hands * 10_000) if older else (read < hands * 1_000), (older, read, hands)


async def test_one_player_at_two_tables_is_looked_for_when_the_results_change(hub: HubService,
                                                                             monkeypatch: Any) -> None:
    """Every fetch of the standings looked through every player's rounds for one number keyed at two tables
    of a round (2.4 ms at 64 tables' 7 rounds, at each page's fetch); it is looked for with the ranking,
    when a result changes, and still flags both tables."""
    import table_controller.tournament.hub as hub_module

    assert hub.hub is not None
    looked: list[int] = []
    real = hub_module._twice

    def counting(*args: Any) -> Any:
        looked.append(1)
        return real(*args)

    monkeypatch.setattr(hub_module, "_twice", counting)
    day = list(hubday.day(TABLES, 1, 1, events=0))
    for topic, payload, _ in day:
        hub.hub.handle(topic, payload)
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}", timeout=30) as http:
        for _ in range(5):
            assert not any(a["kind"] == "twice" for t in (await http.get("/api/standings")).json()["tables"]
                           for a in t["alerts"])
        assert len(looked) == 1, len(looked)  # was one a fetch
        # t02 keys t01's first player's number in its chair 1
        topic, payload, _ = next(m for m in day if m[2] == "state" and "/t02/" in m[0])
        msg = json.loads(payload)
        first = json.loads(next(p for t, p, k in day if k == "state" and "/t01/" in t))["player_ids"]["1"]
        msg["player_ids"]["1"], msg["seq"] = first, msg["seq"] + 1
        assert hub.hub.handle(topic, json.dumps(msg).encode()) == "state"
        rows = {t["table_id"]: t for t in (await http.get("/api/standings")).json()["tables"]}
        assert [a["kind"] for a in rows["t01"]["alerts"]] == ["twice"] == [a["kind"] for a in rows["t02"]["alerts"]]
        assert first in rows["t02"]["alerts"][0]["text_zh"] and len(looked) == 2
