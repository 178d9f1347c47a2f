"""The tables as the organiser names them (`tablectl hub --tables t01=一号桌`): the first seating is
posted in the hall before any table is switched on, and players look for 一号桌, not t01. Every part
real: Mosquitto, a simulated table, the hub's HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from tournament_helpers import Broker, Wire, start_tables, until

from table_controller.tournament.web import HubService

TOKEN = "org-secret-1"
LISTED = [{"id": f"A0{i}", "name": n} for i, n in enumerate("张伟 李娜 王芳 陈杰 赵强 孙丽 周敏 吴刚".split(), 1)]
WIN_HAND = {"seat_wind": "N", "prevalent_wind": "E", "melds": [],
            "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p".split(),
            "win_tile": "2p", "win": "discard", "discarder": "E"}


async def test_the_organisers_names_are_on_the_seating_standings_csv_records_and_after_a_restart(
        tmp_path: Path, broker: Broker, wire: Wire) -> None:
    """t1 is named 一号桌 by the organiser; its own config says "t1号桌". Before, the hub showed the
    table's own name once it was heard (t1 until then) on every page, the CSV, the archive and the
    seating sent to the tables. Now the organiser's name is shown everywhere from the start, the
    table's other name is flagged in its row, and a hub started again without the names keeps them."""
    names = {"t1": "一号桌", "t2": "二号桌"}
    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0, organizer_token=TOKEN, registered=LISTED,
                     expected=["t1", "t2"], names=names)
    await hub.start()
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}") as http:
            first = (await http.get("/api/pairings", params={"format": "text"})).text
        # round 1's seating, drawn from the registration list before any table is on
        assert "一号桌：1号位" in first and "二号桌：1号位" in first and "t1" not in first, first
        table, = await start_tables(broker.url, tmp_path, {"t1": [p["name"] for p in LISTED[:4]]})
        try:
            await table.controller.wait_linked(10)
            await table.controller.start_hand(by="operator")
            table.controller.referee_action("referee.win_read", {"hand": WIN_HAND}, by="referee")
            table.controller.referee_action("referee.win_confirm", {}, by="referee")
            await table.controller.end_hand(by="operator", result="win")
            await until(lambda: hub.hub.tables.get("t1") and hub.hub.tables["t1"].records()
                        and hub.hub.tables["t1"].state["seq"] == table.controller.state.seq, 10, "t1 at the hub")
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}") as http:
                body = (await http.get("/api/standings")).json()
                csv = (await http.get("/api/standings.csv")).text
                records = (await http.get("/api/tables/t1/records", params={"format": "text"})).text
                stats = (await http.get("/api/stats")).json()
                published = await http.post("/api/pairings/publish", headers={"Authorization": f"Bearer {TOKEN}"})
            row = next(t for t in body["tables"] if t["table_id"] == "t1")
            assert [t["table_name"] for t in body["tables"]] == ["一号桌", "二号桌"]
            assert {e["table_name"] for p in body["players"] for e in p["tables"]} == {"一号桌"}
            # the table calls itself otherwise: shown in its row (and the banner), the organiser's name wins
            said = [a for a in row["alerts"] if a["kind"] == "name"]
            assert len(said) == 1 and "t1号桌" in said[0]["text_zh"] and "一号桌" in said[0]["text_zh"]
            assert "一号桌" in csv and "t1号桌" not in csv
            assert records.startswith("一号桌 · ") and "t1号桌" not in records
            assert {p["best"]["table_name"] for p in stats["players"] if p["best"]} == {"一号桌"}
            assert published.status_code == 200, published.text
            await until(lambda: table.controller.state.seating_offer, 10, "t1 to receive round 2's seating")
            assert table.controller.state.seating_offer["table_name"] == "一号桌"
            sent = {json.loads(p)["table_id"]: json.loads(p)["table_name"] for topic, p, _ in wire.messages
                    if topic.endswith("/seating")}
            assert sent == {"t1": "一号桌", "t2": "二号桌"}
        finally:
            await table.stop()
    finally:
        await hub.stop()
    # started again by hand without --tables: the names, and the named tables' rows, are kept
    again = HubService(broker.url, "cup", tmp_path / "hub", port=0)
    await again.start()
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{again.bound_port}") as http:
            body = (await http.get("/api/standings")).json()
            text = (await http.get("/api/tables/t1/hands/1/record", params={"format": "text"})).text
        assert [(t["table_id"], t["table_name"]) for t in body["tables"]] == [("t1", "一号桌"), ("t2", "二号桌")]
        assert text.startswith("一号桌 · ")
    finally:
        await again.stop()


@pytest.mark.browser
async def test_the_hubs_page_says_the_tournaments_title_and_the_tables_names_before_any_table_is_on(
        tmp_path: Path, broker: Broker) -> None:
    """In Chromium: the heading and the tab say the tournament's title (`--title`), not its id (they said
    "cup · 排名"), a quote and a bracket in it kept as text; the proposed seating and the banner of tables
    not yet heard from say 一号桌, not t01."""
    from test_pages_browser import hub_page_alone

    title = '2026 "春季"杯 <b>'
    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0, registered=LISTED, expected=["t01", "t02"],
                     names={"t01": "一号桌", "t02": "二号桌"}, title=title)
    await hub.start()
    try:
        async with hub_page_alone(hub) as page:
            await page.wait_for_selector('[data-testid=pairings] tr[data-table="t01"]', timeout=5000)
            assert await page.inner_text("#title") == f"{title} · 排名" and await page.title() == f"{title} · 排名"
            assert await page.locator("#title b").count() == 0
            seating = await page.inner_text("[data-testid=pairings]")
            attention = await page.inner_text("[data-testid=attention]")
            assert "一号桌" in seating and "二号桌" in seating and "t0" not in seating
            assert "一号桌" in attention and "二号桌" in attention and "t0" not in attention
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}") as http:
            text = (await http.get("/api/pairings", params={"format": "text"})).text
        assert text.startswith(f"{title} · 第 1 轮编排")
    finally:
        await hub.stop()


async def test_a_group_without_a_table_is_said_so_in_words_and_its_seating_not_sent(
        tmp_path: Path, broker: Broker, wire: Wire) -> None:
    """Eight registered players and one table known: the second group has no table. It was "T2" on the
    posted seating, and publishing sent it to a topic no table reads (its players found no table).
    Now it says 第2组（无桌）, and publishing is refused, saying why; nothing is sent or kept."""
    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0, organizer_token=TOKEN, registered=LISTED,
                     expected=["t01"], names={"t01": "一号桌"})
    await hub.start()
    try:
        await until(lambda: hub.hub.connected, 5, "the hub to connect")
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}") as http:
            text = (await http.get("/api/pairings", params={"format": "text"})).text
            refused = await http.post("/api/pairings/publish", headers={"Authorization": f"Bearer {TOKEN}"})
        assert "一号桌：1号位" in text and "第2组（无桌）：1号位" in text and "T2" not in text, text
        assert refused.status_code == 409 and refused.json()["detail"].startswith("第2组（无桌）没有桌子可坐")
        assert hub.hub.published() is None and not [m for m in wire.messages if m[0].endswith("/seating")]
    finally:
        await hub.stop()


async def test_two_tables_of_one_name_are_flagged_until_the_organiser_names_them(
        tmp_path: Path, broker: Broker) -> None:
    """Two Pis left at the config's default name (1号桌): the page showed two 1号桌 rows and the seating
    sent players to a name two tables answer to, without a word. Both rows are flagged now; named at
    the hub (started again with --tables t1=一号桌,t2=二号桌) they are told apart and the flag goes."""
    from table_controller.config import parse_config
    from table_controller.service import TableService

    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0)
    await hub.start()
    tables = []
    try:
        for tid, names in (("t1", "甲乙丙丁"), ("t2", "戊己庚辛")):
            svc = TableService(parse_config({  # no [table] name: "1号桌", as a Pi set up in a hurry
                "table": {"link": "sim://", "sim_speed": 1000.0},
                "players": [{"position": i + 1, "name": n} for i, n in enumerate(names)],
                "display": {"port": 0, "operator_token": "op", "referee_token": "ref"},
                "tournament": {"broker": broker.url, "name": "cup", "table_id": tid}}, source="test"), tmp_path / tid)
            await svc.start()
            tables.append(svc)
        await until(lambda: all(hub.hub.tables.get(t) and hub.hub.tables[t].state for t in ("t1", "t2")), 10,
                    "both tables at the hub")
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}") as http:
            rows = (await http.get("/api/standings")).json()["tables"]
        assert [t["table_name"] for t in rows] == ["1号桌", "1号桌"]
        flagged = [a["text_zh"] for t in rows for a in t["alerts"] if a["kind"] == "name"]
        assert len(flagged) == 2 and all("2 张桌同名「1号桌」" in f for f in flagged), flagged
        await hub.stop()
        hub = HubService(broker.url, "cup", tmp_path / "hub", port=0, names={"t1": "一号桌", "t2": "二号桌"})
        await hub.start()
        rows = hub.hub.standings()["tables"]
        assert [t["table_name"] for t in rows] == ["一号桌", "二号桌"]
        # each table now says it calls itself 1号桌 (its own display), no longer that two share a name
        assert [[a["text_zh"][:10] for a in t["alerts"]] for t in rows] == [["本桌自称「1号桌」，"]] * 2
    finally:
        for svc in tables:
            await svc.stop()
        await hub.stop()


async def test_a_table_sending_the_organisers_name_is_not_flagged_and_an_unnamed_one_keeps_its_own(
        tmp_path: Path, broker: Broker) -> None:
    """Only a name that differs is flagged; a table the organiser did not name is shown as it calls itself."""
    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0, names={"t1": "t1号桌"})
    await hub.start()
    tables = await start_tables(broker.url, tmp_path, {"t1": ["甲", "乙", "丙", "丁"], "t2": ["戊", "己", "庚", "辛"]})
    try:
        for svc in tables:
            await svc.controller.wait_linked(10)
            svc.controller.referee_action("referee.penalty", {"seat": "S", "code": "exposed_other", "amount": 5,
                                                              "victim": "W"}, by="referee")
        await until(lambda: all(hub.hub.tables.get(t) and hub.hub.tables[t].state for t in ("t1", "t2")), 10,
                    "both tables at the hub")
        rows = {t["table_id"]: t for t in hub.hub.standings()["tables"]}
        assert rows["t1"]["table_name"] == "t1号桌" and rows["t2"]["table_name"] == "t2号桌"
        assert not [a for t in rows.values() for a in t["alerts"] if a["kind"] == "name"]
    finally:
        for svc in tables:
            await svc.stop()
        await hub.stop()


async def test_a_hub_started_again_without_the_registration_list_keeps_its_players_names(
        tmp_path: Path, broker: Broker) -> None:
    """A table keyed A02 as 李那 (for 李娜) and seated a stand-in 临时. With the list, A02 is 李娜 and 临时
    a stand-in, never ranked. Started again by hand without --players, the hub showed 李那, ranked 临时,
    and drew the next round without the four registered players yet to play; it keeps the list now."""
    state = {"v": 1, "tournament": "cup", "table_id": "t1", "seq": 9, "round": 1, "at": 1.0, "table_name": "一号桌",
             "ruleset": "mcr", "players": {"1": "张伟", "2": "李那", "3": "王芳", "4": "临时"},
             "player_ids": {"1": "A01", "2": "A02", "3": "A03"}, "totals": {"1": 30, "2": 10, "3": -10, "4": -30},
             "table_points": {"1": 4, "2": 2, "3": 1, "4": 0}, "final": True, "hand_no": None, "hands_played": 16,
             "phase": "idle", "phase_zh": "空闲"}

    def seen(hub: HubService) -> tuple[list[tuple[str, int | None]], list[str]]:
        players = hub.hub.standings()["players"]
        seated = sorted(s["name"] for t in hub.hub.pairings()["tables"] for s in t["seats"].values())
        return [(p["name"], p["rank"]) for p in players], seated

    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0, registered=LISTED)
    await hub.start()
    try:
        assert hub.hub.handle("mahjong/cup/t1/state", json.dumps(state).encode()) == "state"
        before = seen(hub)
    finally:
        await hub.stop()
    assert before[0] == [("张伟", 1), ("李娜", 2), ("王芳", 3), ("临时", None)]
    assert before[1] == sorted(p["name"] for p in LISTED)  # the eight registered, the stand-in not
    again = HubService(broker.url, "cup", tmp_path / "hub", port=0)
    await again.start()
    try:
        assert seen(again) == before
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{again.bound_port}") as http:
            csv = (await http.get("/api/standings.csv")).text
        assert "李娜" in csv and "李那" not in csv and "陪打" in csv
    finally:
        await again.stop()
