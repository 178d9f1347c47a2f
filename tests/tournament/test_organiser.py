"""The organiser's day at the hub (organiser.py): a table whose board broke left out of the next
round's seating, its round ended with the scores so far, a player who withdrew or came late left
out of the seating and back; each decision needs the organiser's credential, is recorded in the
hub's file (a restarted hub keeps it) and is shown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from table_controller.tournament.hub import Hub
from table_controller.tournament.web import create_hub_app

TOKEN = "org-secret-1"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
NAMES = "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥天地"
LISTED = [{"id": f"A{i:02d}", "name": n} for i, n in enumerate(NAMES, start=1)]
TABLES = [f"t0{i}" for i in range(1, 7)]


def _state(table_id: str, seats: dict[str, dict[str, Any]], totals: list[int], round_no: int, seq: int,
           final: bool = True, hands: int = 16) -> bytes:
    tp = [4, 2, 1, 0]
    order = sorted(range(4), key=lambda i: -totals[i])
    return json.dumps({
        "v": 1, "tournament": "cup", "table_id": table_id, "seq": seq, "round": round_no, "at": 1.0,
        "table_name": f"{table_id}号桌", "ruleset": "mcr",
        "players": {c: seats[c]["name"] for c in "1234"}, "player_ids": {c: seats[c]["id"] for c in "1234"},
        "totals": {str(i + 1): v for i, v in enumerate(totals)},
        "table_points": {str(order[k] + 1): tp[k] for k in range(4)},
        "final": final, "hand_no": None if final else hands + 1, "hands_played": hands,
        "phase": "idle", "phase_zh": "空闲"}).encode()


def _play(hub: Hub, proposal: dict[str, Any], final: bool = True, skip: str = "") -> None:
    """Every table of the proposal plays its round (the first chair wins most)."""
    for table in proposal["tables"]:
        if table["table_id"] != skip:
            hub.handle(f"mahjong/cup/{table['table_id']}/state",
                       _state(table["table_id"], table["seats"], [30, 10, -10, -30], proposal["round"],
                              seq=100 * proposal["round"], final=final))


def _seated(proposal: dict[str, Any]) -> list[str]:
    return sorted(s["id"] for t in proposal["tables"] for s in t["seats"].values())


def test_a_broken_table_is_left_out_of_the_next_rounds_seating_and_its_round_ended_with_the_scores_so_far(
        tmp_path: Path) -> None:
    """24 players at six tables. In round 2 t03's board faults and stays down after 9 hands. Before,
    round 3 was seated at t03 again (no way to leave it out), and t03's round stayed 暂定 with the
    next seating flagged as still moving. Now the organiser ends t03's round with the scores so
    far (final in the standings, marked), takes t03 out (credential needed), and round 3 seats 20
    at the five tables left, the 4 beyond them sitting out as byes do."""
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "hub", registered=LISTED, expected=TABLES,
              organizer_token=TOKEN)
    client = TestClient(create_hub_app(hub))
    try:
        first = hub.pairings()
        assert len(first["tables"]) == 6 and first["byes"] == []
        _play(hub, first)
        second = hub.pairings()
        _play(hub, second, skip="t03")
        broken = next(t for t in second["tables"] if t["table_id"] == "t03")
        hub.handle("mahjong/cup/t03/state", _state("t03", broken["seats"], [12, 4, -6, -10], 2, seq=180,
                                                   final=False, hands=9))
        assert hub.pairings()["unfinished"] == ["t03号桌"]

        # without the credential nothing is decided
        body = {"action": "round_end", "table_id": "t03", "reason": "牌桌故障（升降台）"}
        assert client.post("/api/organiser", json=body).status_code == 401
        assert client.post("/api/organiser", json=body, headers={"Authorization": "Bearer nope"}).status_code == 401
        assert hub.decisions() == []
        ended = client.post("/api/organiser", json=body, headers=AUTH)
        assert ended.status_code == 200 and ended.json()["data"]["round"] == 2
        again = client.post("/api/organiser", json=body, headers=AUTH)
        assert again.status_code == 409 and "已由组织者结束" in again.json()["detail"]
        st = hub.standings()
        row = next(t for t in st["tables"] if t["table_id"] == "t03")
        assert row["final"] and row["ended"] == [2]
        first_chair = broken["seats"]["1"]["id"]
        entry = next(p for p in st["players"] if p["id"] == first_chair)["tables"][1]
        assert entry == {"table_id": "t03", "table_name": "t03号桌", "round": 2, "position": 1, "points": 12,
                         "table_points": 4, "final": True}
        assert hub.pairings()["unfinished"] == []

        out = client.post("/api/organiser", json={"action": "table_out", "table_id": "t03", "reason": "升降台坏"},
                          headers=AUTH)
        assert out.status_code == 200
        third = hub.pairings()
        assert [t["table_id"] for t in third["tables"]] == ["t01", "t02", "t04", "t05", "t06"]
        assert len(third["byes"]) == 4 and len(_seated(third)) == 20
        assert set(_seated(third)).isdisjoint(b["id"] for b in third["byes"])
        assert third["tables_out"] == ["t03"]
        row = next(t for t in hub.standings()["tables"] if t["table_id"] == "t03")
        assert row["out"]["reason"] == "升降台坏"
        assert client.post("/api/organiser", json={"action": "table_out", "table_id": "t99"},
                           headers=AUTH).status_code == 404
        # the words name the table as the page does (the table's name), not by its id (they said "t03 已停用")
        twice = client.post("/api/organiser", json={"action": "table_out", "table_id": "t03"}, headers=AUTH)
        assert twice.status_code == 409 and twice.json()["detail"].startswith("t03号桌 已停用"), twice.json()
    finally:
        hub.close()
    # a restarted hub keeps the decisions: the same seating, the same standings
    again_hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "hub", registered=LISTED, expected=TABLES,
                    organizer_token=TOKEN)
    try:
        assert again_hub.pairings() == third
        assert [d["action"] for d in again_hub.decisions()] == ["round_end", "table_out"]
        back = TestClient(create_hub_app(again_hub)).post("/api/organiser", json={"action": "table_back",
                                                                                  "table_id": "t03"}, headers=AUTH)
        assert back.status_code == 200 and len(again_hub.pairings()["tables"]) == 6
    finally:
        again_hub.close()


def test_a_player_who_withdrew_or_is_late_is_left_out_of_the_seating_and_the_results_stand(tmp_path: Path) -> None:
    """A01 is late for round 1: left out of the draw (the 23 others: five tables, 3 byes). A02
    withdraws after round 1: their round stands for the others (the 标准分 as played), shown
    withdrawn, and they are not seated again. A01 arrives and is put back: seated in round 2."""
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "hub", registered=LISTED, expected=TABLES,
              organizer_token=TOKEN)
    client = TestClient(create_hub_app(hub))
    try:
        late = client.post("/api/organiser", json={"action": "player_out", "player": "id:A01", "reason": "迟到"},
                           headers=AUTH)
        assert late.status_code == 200 and late.json()["data"]["name"] == "甲"
        first = hub.pairings()
        assert "A01" not in _seated(first) and len(first["byes"]) == 3 and len(first["tables"]) == 5
        assert first["players_out"] == [{"name": "甲", "id": "A01", "reason": "迟到"}]
        _play(hub, first)
        before = {p["id"]: (p["rank"], p["table_points"], p["points"]) for p in hub.standings()["players"]}
        assert client.post("/api/organiser", json={"action": "player_out", "player": "id:A02", "reason": "退赛"},
                           headers=AUTH).status_code == 200
        assert client.post("/api/organiser", json={"action": "player_back", "player": "id:A01"},
                           headers=AUTH).status_code == 200
        st = hub.standings()
        assert {p["id"]: (p["rank"], p["table_points"], p["points"]) for p in st["players"]} == before
        assert next(p for p in st["players"] if p["id"] == "A02")["out"]["reason"] == "退赛"
        second = hub.pairings()
        assert "A02" not in _seated(second) and "A01" in _seated(second)
        unknown = client.post("/api/organiser", json={"action": "player_out", "player": "id:Z99"}, headers=AUTH)
        assert unknown.status_code == 404 and "没有这位选手" in unknown.json()["detail"]
        wrong = client.post("/api/organiser", json={"action": "player_gone", "player": "id:A03"}, headers=AUTH)
        assert wrong.status_code == 422 and "未知的组织者操作" in wrong.json()["detail"]
        assert [d["action"] for d in client.get("/api/organiser").json()["decisions"]] == [
            "player_out", "player_out", "player_back"]
    finally:
        hub.close()


def test_a_spare_table_takes_the_broken_tables_place(tmp_path: Path) -> None:
    """The venue lists a spare (t07) after the six. It seats no one while the six suffice; the
    organiser keeps it out of service until t03 breaks, then takes t03 out and t07 in: round 2
    seats all 24 again, at t07 instead of t03, and nobody sits out."""
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "hub", registered=LISTED, expected=[*TABLES, "t07"])
    try:
        hub.decide("table_out", {"table_id": "t07", "reason": "备用桌"})
        first = hub.pairings()
        assert [t["table_id"] for t in first["tables"]] == TABLES and first["byes"] == []
        _play(hub, first)
        hub.decide("table_out", {"table_id": "t03", "reason": "故障"})
        assert hub.pairings()["byes"] != []  # five tables for 24
        hub.decide("table_back", {"table_id": "t07"})
        second = hub.pairings()
        assert [t["table_id"] for t in second["tables"]] == ["t01", "t02", "t04", "t05", "t06", "t07"]
        assert second["byes"] == [] and len(_seated(second)) == 24
    finally:
        hub.close()


async def test_a_table_taken_out_after_the_round_was_published_loses_its_offer(tmp_path: Path, broker: Any) -> None:
    """Round 2 is published to t1 and t2 (real tables, a real broker); then t1 is taken out and the
    round published again. Before, t1's referee was still offered its four players (retained at the
    broker, sent again on each connection), now seated elsewhere: keyed there, one player would be at
    two tables. The hub now posts t1 a withdrawal, and t1's offer is gone (logged)."""
    from tournament_helpers import start_tables, until

    from table_controller.tournament.web import HubService

    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0, organizer_token=TOKEN)
    await hub.start()
    tables = await start_tables(broker.url, tmp_path, {"t1": "甲乙丙丁", "t2": "戊己庚辛"})
    t1, t2 = tables
    try:
        await until(lambda: all(hub.hub.tables.get(t) is not None and hub.hub.tables[t].state is not None
                                for t in ("t1", "t2")), 10, "both tables at the hub")
        hub.hub.publish_seating(2)
        await until(lambda: t1.controller.state.seating_offer and t2.controller.state.seating_offer, 10, "the offers")
        hub.hub.decide("table_out", {"table_id": "t1", "reason": "故障"})
        again = hub.hub.publish_seating(2)
        assert [t["table_id"] for t in again["tables"]] == ["t2"] and len(again["byes"]) == 4
        await until(lambda: t1.controller.state.seating_offer is None, 10, "t1's offer to be withdrawn")
        assert "赛事撤回第 2 轮编排" in t1.controller.state.log[-1]["text"]
        mine = {c: s["name"] for c, s in again["tables"][0]["seats"].items()}
        await until(lambda: t2.controller.state.seating_offer["players"] == mine, 10, "t2's new offer")
    finally:
        for svc in tables:
            await svc.stop()
        await hub.stop()


async def test_a_table_off_when_taken_out_loses_its_offer_though_the_broker_restarted_meanwhile(
        tmp_path: Path, broker: Any) -> None:
    """t1's Pi is off (broken) when it is taken out and round 2 published again: only the broker's retained
    withdrawal can tell it. The broker restarts without persistence (or loses power) before t1 is back. The
    hub posts the round's seatings again on its new connection, but posted no withdrawal: t1 came back still
    offered four players now seated elsewhere (one keyed there is at two tables)."""
    import aiomqtt
    from tournament_helpers import start_tables, until

    from table_controller.tournament.web import HubService

    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0, organizer_token=TOKEN)
    await hub.start()
    tables = await start_tables(broker.url, tmp_path, {"t1": "甲乙丙丁", "t2": "戊己庚辛"})
    try:
        await until(lambda: all(hub.hub.tables.get(t) is not None and hub.hub.tables[t].state is not None
                                for t in ("t1", "t2")), 10, "both tables at the hub")
        hub.hub.publish_seating(2)
        await until(lambda: all(t.controller.state.seating_offer for t in tables), 10, "the offers")
        await tables[0].stop()  # t1's Pi breaks
        hub.hub.decide("table_out", {"table_id": "t1", "reason": "故障"})
        again = hub.hub.publish_seating(2)
        assert [t["table_id"] for t in again["tables"]] == ["t2"]
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="test-look") as look:  # at the broker, retained
            await look.subscribe("mahjong/cup/t1/seating", qos=1)
            async for m in look.messages:
                if json.loads(bytes(m.payload)).get("withdrawn"):  # type: ignore[arg-type]
                    break
        broker.stop()
        broker.start()
        await until(lambda: not hub.hub.connected, 5, "the hub to see the broker go")
        await until(lambda: hub.hub.connected, 10, "the hub back on the broker")
        tables[0] = (await start_tables(broker.url, tmp_path, {"t1": "甲乙丙丁"}))[0]  # t1's Pi back, its log kept
        await until(lambda: tables[0].publisher.connected, 10, "t1 on the broker")
        await until(lambda: tables[0].controller.state.seating_offer is None, 5, "t1's offer to be withdrawn")
        # logged once it was back (it was off when the round was published again)
        assert sum("赛事撤回第 2 轮编排" in line["text"] for line in tables[0].controller.state.log) == 1
        mine = {c: s["name"] for c, s in again["tables"][0]["seats"].items()}
        assert tables[1].controller.state.seating_offer["players"] == mine  # t2's stands
    finally:
        for svc in tables:
            await svc.stop()
        await hub.stop()


def test_the_demos_organiser_goes_on_without_a_table_taken_out(tmp_path: Path) -> None:
    """`tablectl demo --tables N`: the demo's organiser publishes the next round once every table's
    is final. A table taken out after round 1 stays at round 1, so it waited for ever."""
    from types import SimpleNamespace

    from table_controller.tournament.demo import TournamentDemo

    seats = {c: {"name": n, "id": ""} for c, n in zip("1234", "甲乙丙丁")}
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "hub", expected=["t01", "t02", "t03"])
    try:
        for k, table_id in enumerate(("t01", "t02", "t03")):
            mine = {c: {"name": f"{p['name']}{k}", "id": ""} for c, p in seats.items()}
            hub.handle(f"mahjong/cup/{table_id}/state", _state(table_id, mine, [30, 10, -10, -30], 1, seq=10))
        hub.decide("table_out", {"table_id": "t03"})
        for table_id in ("t01", "t02"):
            mine = {c: {"name": f"{p['name']}{table_id}", "id": ""} for c, p in seats.items()}
            hub.handle(f"mahjong/cup/{table_id}/state", _state(table_id, mine, [30, 10, -10, -30], 2, seq=20))
        demo = TournamentDemo(tables=3, data_dir=tmp_path / "demo", hub=SimpleNamespace(hub=hub))
        assert demo.round_over() == 2
    finally:
        hub.close()


def test_a_stand_in_fills_the_chair_a_withdrawal_left_empty(tmp_path: Path) -> None:
    """A02 withdraws after round 1: 23 players. Before, round 2 had five tables and three players
    sitting out (one withdrawal cost a table). The organiser seats a stand-in (陪打, not on the list):
    six tables again, nobody out; the stand-in's results count at the table but are never ranked.
    A02 comes back: 25 for 24 chairs, and the stand-in is the one who sits out."""
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "hub", registered=LISTED, expected=TABLES,
              organizer_token=TOKEN)
    client = TestClient(create_hub_app(hub))
    try:
        _play(hub, hub.pairings())
        hub.decide("player_out", {"player": "id:A02", "reason": "退赛"})
        assert len(hub.pairings()["tables"]) == 5 and len(hub.pairings()["byes"]) == 3
        refused = client.post("/api/organiser", json={"action": "stand_in", "name": "乙"}, headers=AUTH)
        assert refused.status_code == 409 and "报名选手" in refused.json()["detail"]
        assert client.post("/api/organiser", json={"action": "stand_in", "name": "替补甲", "reason": "补乙的空位"},
                           headers=AUTH).status_code == 200
        second = hub.pairings()
        seated = [s["name"] for t in second["tables"] for s in t["seats"].values()]
        assert len(second["tables"]) == 6 and second["byes"] == [] and "替补甲" in seated and "乙" not in seated
        assert second["stand_ins"] == ["替补甲"]
        _play(hub, second)
        st = hub.standings()["players"]
        stand_in = next(p for p in st if p["name"] == "替补甲")
        assert stand_in["stand_in"] and stand_in["rank"] is None and len(stand_in["tables"]) == 1
        assert sorted(p["rank"] for p in st if p["rank"] is not None)[-1] <= 24
        hub.decide("player_back", {"player": "id:A02"})
        third = hub.pairings()
        assert [b["name"] for b in third["byes"]] == ["替补甲"] and len(_seated(third)) == 24
    finally:
        hub.close()
    free = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "free", organizer_token=TOKEN)
    try:  # without a registration list a stand-in cannot be told from a player
        no_list = TestClient(create_hub_app(free)).post("/api/organiser", json={"action": "stand_in", "name": "替"},
                                                        headers=AUTH)
        assert no_list.status_code == 409 and "报名名单" in no_list.json()["detail"]
    finally:
        free.close()


def test_a_round_published_again_moves_only_the_tables_a_change_touches(tmp_path: Path) -> None:
    """Round 1 was published with 24 players; A01 is then marked late and the round published again.
    Before, the whole hall was drawn anew (the draw runs over the whole list): every player moved for
    one late arrival. Now the five tables without A01 keep their players in their chairs; A01's three
    table-mates sit out (23 players: 3 byes). A01 back: the four of that table are seated again at it.
    `?fresh=true` draws the round anew."""
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "hub", registered=LISTED, expected=TABLES,
              organizer_token=TOKEN)
    client = TestClient(create_hub_app(hub))
    try:
        first = client.post("/api/pairings/publish", headers=AUTH).json()
        assert first["round"] == 1 and len(first["tables"]) == 6 and first["kept"] == []
        where = {s["id"]: (t["table_id"], c) for t in first["tables"] for c, s in t["seats"].items()}
        a01_table = where["A01"][0]
        assert client.post("/api/organiser", json={"action": "player_out", "player": "id:A01", "reason": "迟到"},
                           headers=AUTH).status_code == 200
        again = client.post("/api/pairings/publish", headers=AUTH).json()
        moved = {s["id"]: (t["table_id"], c) for t in again["tables"] for c, s in t["seats"].items()}
        assert again["kept"] == sorted(set(TABLES) - {a01_table})
        assert all(moved[p] == where[p] for p in moved)  # nobody seated moved
        assert sorted(b["id"] for b in again["byes"]) == sorted(p for p, (t, _) in where.items()
                                                                if t == a01_table and p != "A01")
        fresh = client.get("/api/pairings", params={"fresh": "true"}).json()  # the old way: a new draw of the 23
        redrawn = {s["id"]: (t["table_id"], c) for t in fresh["tables"] for c, s in t["seats"].items()}
        assert fresh["kept"] == [] and sum(redrawn[p] != where[p] for p in redrawn) > 12
        assert client.post("/api/pairings/publish", params={"fresh": "true"}).status_code == 401  # still the organiser's
        assert client.post("/api/organiser", json={"action": "player_back", "player": "id:A01"},
                           headers=AUTH).status_code == 200
        back = client.post("/api/pairings/publish", headers=AUTH).json()
        assert not back["byes"] and {s["id"]: (t["table_id"]) for t in back["tables"]
                                     for s in t["seats"].values()} == {p: t for p, (t, _) in where.items()}
    finally:
        hub.close()


async def test_a_round_that_is_no_number_is_refused_with_words_over_http(tmp_path: Path) -> None:
    """`{"action": "round_end", "round": "二"}` from a script or a mistyped request: the hub answered
    500 Internal Server Error (`int("二")` in its handler) and said nothing; so did `1e400` (Python's JSON reads
    it as infinity), and `true` and `1.7` ended round 1. Now each is 422 with what is wrong, and nothing is
    recorded; the same decision with its round as a number is taken."""
    import httpx

    from table_controller.tournament.web import HubService

    hub = HubService("mqtt://127.0.0.1:1", "cup", tmp_path / "hub", port=0, organizer_token=TOKEN,
                     registered=LISTED[:4], expected=["t01"])
    await hub.start()
    try:
        seats = {str(i + 1): {"name": p["name"], "id": p["id"]} for i, p in enumerate(LISTED[:4])}
        hub.hub.handle("mahjong/cup/t01/state", _state("t01", seats, [12, 4, -6, -10], 1, seq=90, final=False,
                                                       hands=9))
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}", timeout=10) as http:
            for given in ("二", "[1]", '{"n": 1}', "1e400", "true", "1.7", '"1.5"'):
                r = await http.post("/api/organiser", headers={**AUTH, "Content-Type": "application/json"},
                                    content=f'{{"action": "round_end", "table_id": "t01", "round": {given}}}'.encode()
                                    if given != "二" else json.dumps({"action": "round_end", "table_id": "t01",
                                                                     "round": given}).encode())
                assert r.status_code == 422 and "轮次须为整数" in r.json()["detail"], (given, r.status_code, r.text)
            for given in (0, 1000, -1, "99999999999999999999999", "0"):
                r = await http.post("/api/organiser", headers=AUTH,
                                    json={"action": "round_end", "table_id": "t01", "round": given})
                assert r.status_code == 422 and r.json()["detail"] == "轮次须为 1 至 999 / round must be 1..999", r.text
            assert hub.hub.decisions() == []
            ended = await http.post("/api/organiser", headers=AUTH,
                                    json={"action": "round_end", "table_id": "t01", "round": "1", "reason": "停电"})
            assert ended.status_code == 200 and ended.json()["data"]["round"] == 1, ended.text
    finally:
        await hub.stop()


def test_the_archive_holds_a_round_ended_by_the_organiser_as_counted_and_the_decisions(tmp_path: Path) -> None:
    """t03's round 2 is ended with the scores so far, and its Pi, back, sends a later standing of the round
    (kept, not counted). Before, the archive's tables/t03/rounds.json held that later standing and the archive
    had no decisions: the standings in it could not be counted again from it."""
    import io
    import zipfile

    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "hub", registered=LISTED, expected=TABLES,
              organizer_token=TOKEN)
    client = TestClient(create_hub_app(hub))
    try:
        _play(hub, hub.pairings())
        second = hub.pairings()
        _play(hub, second, skip="t03")
        seats = next(t for t in second["tables"] if t["table_id"] == "t03")["seats"]
        hub.handle("mahjong/cup/t03/state", _state("t03", seats, [12, 4, -6, -10], 2, seq=180, final=False, hands=9))
        body = {"action": "round_end", "table_id": "t03", "reason": "牌桌故障"}
        assert client.post("/api/organiser", json=body, headers=AUTH).status_code == 200
        hub.handle("mahjong/cup/t03/state", _state("t03", seats, [-40, 4, 26, 10], 2, seq=260, hands=16))
        counted = {p["id"]: t["points"] for p in hub.standings()["players"] for t in p["tables"]
                   if t["table_id"] == "t03" and t["round"] == 2}
        assert counted == {seats[c]["id"]: v for c, v in zip("1234", [12, 4, -6, -10])}
        archive = zipfile.ZipFile(io.BytesIO(client.get("/api/archive.zip").content))
        rounds = json.loads(archive.read("tables/t03/rounds.json"))
        assert rounds["2"]["totals"] == {"1": 12, "2": 4, "3": -6, "4": -10} and rounds["2"]["ended_by_organiser"]
        assert json.loads(archive.read("tables/t03/rounds_as_sent.json"))["2"]["totals"]["1"] == -40
        assert [d["action"] for d in json.loads(archive.read("decisions.json"))] == ["round_end"]
        assert "tables/t01/rounds_as_sent.json" not in archive.namelist()  # nothing ended there
    finally:
        hub.close()


def test_a_player_withdrawn_by_number_is_not_seated_though_a_table_keyed_their_name_alone(tmp_path: Path) -> None:
    """t01 keyed round 1's players by name, without their numbers. The organiser withdraws A01 by the
    registration list's number (甲 A01): the standings know 甲 only by name (name:甲), and 甲 was seated
    in round 2 all the same (the hub took the decision and the seating ignored it)."""
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "hub", registered=LISTED, expected=TABLES,
              organizer_token=TOKEN)
    client = TestClient(create_hub_app(hub))
    try:
        first = hub.pairings()
        for table in first["tables"]:
            seats = table["seats"] if table["table_id"] != "t01" else \
                {c: {**s, "id": ""} for c, s in table["seats"].items()}  # names alone at t01
            hub.handle(f"mahjong/cup/{table['table_id']}/state",
                       _state(table["table_id"], seats, [30, 10, -10, -30], 1, seq=100))
        gone = first["tables"][0]["seats"]["1"]
        out = client.post("/api/organiser", json={"action": "player_out", "player": f"id:{gone['id']}",
                                                  "reason": "退赛"}, headers=AUTH)
        assert out.status_code == 200 and out.json()["data"]["name"] == gone["name"], out.text
        second = hub.pairings()
        seated = {s["name"] for t in second["tables"] for s in t["seats"].values()}
        assert gone["name"] not in seated and gone["name"] not in {b["name"] for b in second["byes"]}, seated
        assert len(seated) == 20 and len(second["byes"]) == 3  # the other 23: five tables, three sit out
        # the standings' row of 甲 (keyed by name) says 不参加编排 too, and its 恢复 brings 甲 back
        row = next(p for p in hub.standings()["players"] if p["name"] == gone["name"])
        assert row["id"] == gone["id"] and row["out"] and row["out"]["reason"] == "退赛", row
        again = client.post("/api/organiser", json={"action": "player_out", "player": f"name:{gone['name']}",
                                                    "reason": "退赛"}, headers=AUTH)
        assert again.status_code == 409 and "已退出编排" in again.json()["detail"], again.text
        back = client.post("/api/organiser", json={"action": "player_back", "player": f"name:{gone['name']}",
                                                   "reason": "到场"}, headers=AUTH)
        assert back.status_code == 200 and back.json()["data"]["id"] == gone["id"], back.text
        assert not next(p for p in hub.standings()["players"] if p["name"] == gone["name"])["out"]
        assert gone["name"] in {s["name"] for t in hub.pairings(fresh=True)["tables"] for s in t["seats"].values()}
    finally:
        hub.close()


def test_publishing_with_every_table_out_or_too_few_players_says_why(tmp_path: Path) -> None:
    """Every table taken out of service, or fewer than four players left to seat: publishing is refused
    with what is wrong. It said 尚无成绩 (no results yet) to an organiser whose tables had all played."""
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "hub", registered=LISTED[:8], expected=TABLES[:2],
              organizer_token=TOKEN)
    client = TestClient(create_hub_app(hub))
    try:
        _play(hub, hub.pairings())
        for table_id in TABLES[:2]:
            hub.decide("table_out", {"table_id": table_id, "reason": "故障"})
        refused = client.post("/api/pairings/publish", headers=AUTH)
        assert refused.status_code == 409 and refused.json()["detail"].startswith("所有桌子均已停用"), refused.text
        hub.decide("table_back", {"table_id": "t01"})
        for p in LISTED[:5]:
            hub.decide("player_out", {"player": f"id:{p['id']}", "reason": "退赛"})
        refused = client.post("/api/pairings/publish", headers=AUTH)
        assert refused.status_code == 409 and refused.json()["detail"].startswith("只有 3 名选手可编排"), refused.text
        assert hub.published() is None  # nothing published
    finally:
        hub.close()


def test_a_player_keyed_by_name_in_one_round_and_by_number_in_another_is_one_row(tmp_path: Path) -> None:
    """t01 keyed round 1's players by name alone (a referee typing them), round 2 came from the published
    seating with their numbers: each registered once, each is one player with both rounds' points. The
    standings showed two rows, name:甲 with round 1 and id:A01 with round 2, each ranked on half."""
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "hub", registered=LISTED, expected=TABLES,
              organizer_token=TOKEN)
    try:
        first = hub.pairings()
        for table in first["tables"]:
            seats = table["seats"] if table["table_id"] != "t01" else \
                {c: {**s, "id": ""} for c, s in table["seats"].items()}  # names alone at t01
            hub.handle(f"mahjong/cup/{table['table_id']}/state",
                       _state(table["table_id"], seats, [30, 10, -10, -30], 1, seq=100))
        _play(hub, hub.pairings(2))
        rows = hub.standings()["players"]
        assert len(rows) == len(LISTED) and all(r["id"] for r in rows), [r for r in rows if not r["id"]]
        keyed_by_name = {s["name"] for s in first["tables"][0]["seats"].values()}
        for row in rows:
            assert [t["round"] for t in row["tables"]] in ([1, 2], [1]), row  # three sit out round 2
            if row["name"] in keyed_by_name:
                assert row["tables"][0]["table_id"] == "t01" and row["tables"][0]["round"] == 1
    finally:
        hub.close()


async def test_a_stand_in_or_reason_with_an_invisible_character_is_refused_over_http(tmp_path: Path) -> None:
    """A stand-in named "甲\\u200b" (a zero-width space pasted with it) was taken beside the registered 甲: both
    seated, the page showing two 甲, one of them never ranked; a reason with U+202E turned its line of the page's
    decisions round, a line break split it. The tables refuse such characters in a name (Cc, Cf, Zl, Zp); the
    hub now refuses them in a stand-in's name and a reason (422, the character named) and records nothing. A
    reason past 200 characters (the page's field stops there) was cut to 200 without a word: refused too."""
    import httpx

    from table_controller.tournament.web import HubService

    hub = HubService("mqtt://127.0.0.1:1", "cup", tmp_path / "hub", port=0, organizer_token=TOKEN,
                     registered=LISTED[:4], expected=["t01"])
    await hub.start()
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}", timeout=10) as http:
            for body, says in (({"action": "stand_in", "name": "甲\u200b"}, "陪打的名字含有不可见字符或控制字符（第 2 个字符，U+200B）"),
                               ({"action": "stand_in", "name": "\ufeff替补"}, "陪打的名字含有不可见字符或控制字符（第 1 个字符，U+FEFF）"),
                               ({"action": "stand_in", "name": "替\u2028补"}, "陪打的名字含有不可见字符或控制字符（第 2 个字符，U+2028）"),
                               ({"action": "stand_in", "name": "替补", "reason": "补\u202e位 8-"},
                                "理由含有不可见字符或控制字符（第 2 个字符，U+202E）"),
                               ({"action": "table_out", "table_id": "t01", "reason": "停电\n恢复"},
                                "理由含有不可见字符或控制字符（第 3 个字符，U+000A）"),
                               ({"action": "table_out", "table_id": "t01", "reason": "停电" * 101},
                                "理由最多 200 个字，收到 202 个")):
                r = await http.post("/api/organiser", headers=AUTH, json=body)
                assert r.status_code == 422 and r.json()["detail"].split(" / ")[0] == says, (body, r.text)
            assert hub.hub.decisions() == [] and hub.hub.pairings()["stand_ins"] == []
            taken = await http.post("/api/organiser", headers=AUTH,
                                    json={"action": "stand_in", "name": " 替补 ", "reason": " 补位 \n"})
            assert taken.status_code == 200 and taken.json()["data"] == {"name": "替补", "reason": "补位"}, taken.text
    finally:
        await hub.stop()
