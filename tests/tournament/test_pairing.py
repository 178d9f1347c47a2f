"""The next round's seating (编排) from the standings: Swiss order, repeat meetings moved apart,
no one back in a chair they had where it can be helped, byes for the lowest beyond a multiple of
four; the hub serves it as JSON and as a page to post."""

from __future__ import annotations

import csv
import io
import itertools
import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from table_controller.tournament.hub import Hub
from table_controller.tournament.pairing import Entrant, entrants, propose, with_registered
from table_controller.tournament.web import create_hub_app

TABLES = [("t1", "1号桌"), ("t2", "2号桌"), ("t3", "3号桌")]


def _e(rank: int, chairs: str = "", met: str = "") -> Entrant:
    return Entrant(key=f"p{rank}", name=f"选手{rank}", id="", rank=rank, chairs=frozenset(chairs),
                   met=frozenset(f"p{m}" for m in met.split(",") if m))


def _names(table: dict) -> set[str]:
    return {s["name"] for s in table["seats"].values()}


def test_without_history_the_ranked_players_sit_four_to_a_table_from_the_top() -> None:
    got = propose([_e(r) for r in (3, 1, 8, 2, 5, 4, 7, 6)], TABLES, 2, seed="cup").to_json()
    assert [_names(t) for t in got["tables"]] == [{"选手1", "选手2", "选手3", "选手4"}, {"选手5", "选手6", "选手7", "选手8"}]
    assert [t["table_id"] for t in got["tables"]] == ["t1", "t2"] and got["byes"] == []
    again = propose([_e(r) for r in range(1, 9)], TABLES, 2, seed="cup").to_json()
    assert again == got  # the same standings, the same seating (a seeded draw for the chairs)


def test_a_pair_that_met_twice_is_kept_apart_before_a_pair_that_met_once() -> None:
    """1 and 2 met in rounds 1 and 2; 3 met each of 5–8 once. Keeping 1 and 2 together costs one
    repeat pair, as does parting them (whoever comes over has met 3): by count alone they stayed
    together a third time (seen in the demo: 周霞 and 张超 in rounds 1, 2 and 3). Weighed by how
    often they met, the one repeat is the pair that met once."""
    twice, once = {"p2": 2}, {"p3": 1}
    players = [Entrant(key="p1", name="选手1", id="", rank=1, met=frozenset(twice), times=twice),
               Entrant(key="p2", name="选手2", id="", rank=2, met=frozenset({"p1"}), times={"p1": 2}),
               Entrant(key="p3", name="选手3", id="", rank=3, met=frozenset({"p5", "p6", "p7", "p8"})),
               Entrant(key="p4", name="选手4", id="", rank=4),
               *[Entrant(key=f"p{r}", name=f"选手{r}", id="", rank=r, met=frozenset(once), times=once)
                 for r in range(5, 9)]]
    got = propose(players, TABLES, 3, seed="cup").to_json()
    assert got["repeat_meetings"] == 1
    assert not any({"选手1", "选手2"} <= _names(t) for t in got["tables"])


def test_players_who_met_are_moved_apart() -> None:
    """Round 1: 1–4 at one table, 5–8 at the other; the standings rank them 1..8 again. Sitting
    them by rank alone would repeat all twelve meetings; swapping between the tables leaves the
    fewest possible (two players of each old table at each new one: 2 + 2 pairs)."""
    first, second = "1,2,3,4", "5,6,7,8"
    players = [_e(r, met=",".join(m for m in (first if r <= 4 else second).split(",") if m != str(r)))
               for r in range(1, 9)]
    got = propose(players, TABLES, 2).to_json()
    assert got["repeat_meetings"] == 4
    for t in got["tables"]:
        ranks = {s["rank"] for s in t["seats"].values()}
        assert len(ranks & {1, 2, 3, 4}) == 2


def test_no_one_goes_back_to_a_chair_they_had_when_it_can_be_helped() -> None:
    players = [_e(1, chairs="1"), _e(2, chairs="2"), _e(3, chairs="3"), _e(4, chairs="4")]
    got = propose(players, TABLES, 2).to_json()
    (table,) = got["tables"]
    assert got["repeat_chairs"] == 0
    assert all(chair != str(s["rank"]) for chair, s in table["seats"].items())
    crowded = [_e(r, chairs="123") for r in range(1, 5)]  # three chairs each: someone must repeat
    assert propose(crowded, TABLES, 2).repeat_chairs == 3


def _tournament(players: int, rounds: int, seed: int) -> tuple[Counter, dict[str, Counter], Counter]:
    """A whole tournament seated by `propose` from the standings as the hub ranks them (round 1 by the
    draw from the registration list), each table's four placed at random (4/2/1/0 标准分, some points).
    Returns how often each pair met, each player's rounds in each chair, and each player's byes."""
    rng = random.Random(seed)
    listed = [{"id": f"A{i:02d}", "name": f"选手{i}"} for i in range(1, players + 1)]
    results = {p["id"]: {**p, "table_points": 0, "points": 0, "tables": []} for p in listed}
    met: Counter = Counter()
    sat = {p["id"]: Counter() for p in listed}
    byes: Counter = Counter()
    tables = [(f"t{k}", f"{k}号桌") for k in range(1, players // 4 + 1)]
    for number in range(1, rounds + 1):
        order = sorted(results.values(), key=lambda p: (-p["table_points"], -p["points"], p["name"]))
        ranked = [{**p, "rank": i + 1} for i, p in enumerate(order)] if number > 1 else []
        seating = propose(with_registered(entrants({"players": ranked}), listed, "cup"), tables, number,
                          seed="cup").to_json()
        byes.update(b["id"] for b in seating["byes"])
        for t in seating["tables"]:
            ids = {c: s["id"] for c, s in t["seats"].items()}
            met.update(frozenset(pair) for pair in itertools.combinations(ids.values(), 2))
            places = list(ids.items())
            rng.shuffle(places)
            for place, (chair, pid) in enumerate(places):
                sat[pid][chair] += 1
                results[pid]["table_points"] += (4, 2, 1, 0)[place]
                results[pid]["points"] += (30, 10, -10, -30)[place] + rng.randint(-8, 8)
                results[pid]["tables"].append({"table_id": t["table_id"], "round": number, "position": int(chair)})
    return met, sat, byes


@pytest.mark.parametrize("players,rounds", [(16, 9), (17, 9), (23, 9), (36, 8), (36, 9)])
def test_no_one_piles_up_rounds_in_one_chair(players: int, rounds: int) -> None:
    """Over many rounds each player sits in each chair about as often: at most one round more than the
    rounds shared out evenly (8 or 9 rounds: 3 in a chair). By the chairs had alone, once a player had sat
    in all four (round 5 on) any chair was as good: 16 players' 9 rounds put someone in one chair 6
    times and never in another."""
    most = rounds // 4 + 1
    for seed in range(5):
        _, sat, _ = _tournament(players, rounds, seed)
        worst = max(sat.items(), key=lambda kv: max(kv[1].values()))
        assert max(worst[1].values()) <= most, f"seed {seed}: {worst[0]} sat {dict(worst[1])}"


@pytest.mark.parametrize("players,rounds", [(16, 5), (20, 5), (20, 7), (23, 7), (36, 7)])
def test_no_pair_meets_a_third_time_where_the_swiss_order_can_part_them(players: int, rounds: int) -> None:
    """Swaps between neighbouring tables alone left a pair that met twice at one table again whenever
    the tables either side had met them too (23 players' 7 rounds: a third meeting in 9 tournaments of
    30, 36 players' in 10). A swap with the table after next now parts them."""
    for seed in range(8):
        met, _, byes = _tournament(players, rounds, seed)
        assert max(met.values()) <= 2, f"seed {seed}: {[sorted(p) for p, n in met.items() if n > 2]}"
        assert max(byes.values(), default=0) <= 1  # nobody sits out twice while another never did


def test_players_beyond_a_multiple_of_four_sit_out_the_lowest_ranked() -> None:
    got = propose([_e(r) for r in range(1, 10)], TABLES[:1], 3).to_json()
    assert len(got["tables"]) == 2 and got["tables"][1]["table_id"] == "T2"  # more groups than tables known
    assert [b["name"] for b in got["byes"]] == ["选手9"]


def _state(table_id: str, names: list[str], totals: list[int], round_no: int = 1, seq: int = 5) -> bytes:
    tp = {"1": 4, "2": 2, "3": 1, "4": 0}
    order = sorted(range(4), key=lambda i: -totals[i])
    return json.dumps({
        "v": 1, "tournament": "cup", "table_id": table_id, "seq": seq, "round": round_no, "at": 1.0,
        "table_name": f"{table_id}号桌", "ruleset": "mcr",
        "players": {str(i + 1): n for i, n in enumerate(names)}, "player_ids": {},
        "totals": {str(i + 1): v for i, v in enumerate(totals)},
        "table_points": {str(order[k] + 1): tp[str(k + 1)] for k in range(4)},
        "final": True, "hand_no": None, "hands_played": 16, "phase": "idle", "phase_zh": "空闲"}).encode()


def test_the_hub_proposes_round_2_from_round_1s_standings_and_posts_it_as_text(tmp_path: Path) -> None:
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path)
    try:
        assert hub.handle("mahjong/cup/t1/state", _state("t1", ["甲", "乙", "丙", "丁"], [30, 10, -10, -30])) == "state"
        assert hub.handle("mahjong/cup/t2/state", _state("t2", ["戊", "己", "庚", "辛"], [40, 5, -5, -40])) == "state"
        players = {e.name: e for e in entrants(hub.standings())}
        assert players["甲"].met == {"name:乙", "name:丙", "name:丁"} and players["甲"].chairs == {"1"}
        proposal = hub.pairings()
        assert proposal["round"] == 2 and proposal["repeat_meetings"] == 4  # two of each table at each
        client = TestClient(create_hub_app(hub))
        body = client.get("/api/pairings").json()
        assert body == proposal
        # the winners of round 1 (戊 40, 甲 30) sit together at the first table
        assert {"戊", "甲"} <= _names(body["tables"][0])
        text = client.get("/api/pairings", params={"format": "text"}).text
        assert text.startswith("cup · 第 2 轮编排") and "t1号桌：1号位" in text
        assert body["unfinished"] == []  # both tables' round 1 is final
        hub.handle("mahjong/cup/t2/state", _state("t2", ["戊", "己", "庚", "辛"], [40, 5, -5, -40], seq=9)
                   .replace(b'"final": true', b'"final": false'))
        assert client.get("/api/pairings").json()["unfinished"] == ["t2号桌"]
        assert "t2号桌 尚未打完本轮" in client.get("/api/pairings", params={"format": "text"}).text
        assert client.get("/api/pairings", params={"round": 0}).status_code == 422
    finally:
        hub.close()


def test_no_results_no_seating(tmp_path: Path) -> None:
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path)
    try:
        client = TestClient(create_hub_app(hub))
        assert client.get("/api/pairings").json()["tables"] == []
        assert "尚无成绩" in client.get("/api/pairings", params={"format": "text"}).text
    finally:
        hub.close()


def test_publishing_needs_the_organisers_credential_and_results(tmp_path: Path) -> None:
    closed = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "a")
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "b", organizer_token="org-secret-1")
    try:
        assert TestClient(create_hub_app(closed)).post("/api/pairings/publish").status_code == 403
        client = TestClient(create_hub_app(hub))
        auth = {"Authorization": "Bearer org-secret-1"}
        assert client.post("/api/pairings/publish", headers={"Authorization": "Bearer x"}).status_code == 401
        assert client.post("/api/pairings/publish").status_code == 401  # no credential at all
        none = client.post("/api/pairings/publish", headers=auth)
        assert none.status_code == 409 and "尚无成绩" in none.json()["detail"]
        hub.handle("mahjong/cup/t1/state", _state("t1", ["甲", "乙", "丙", "丁"], [30, 10, -10, -30]))
        body = client.post("/api/pairings/publish", headers=auth).json()
        assert body["round"] == 2 and client.get("/api/pairings/published").json()["round"] == 2
        (msg,) = hub.published()["tables"]
        assert msg["table_id"] == "t1" and sorted(msg["players"]) == ["1", "2", "3", "4"]
        assert hub._outbox.qsize() == 1  # posted, retained, by the broker loop
    finally:
        closed.close()
        hub.close()


async def test_a_table_logs_its_seating_once_and_drops_a_malformed_one(tmp_path: Path) -> None:
    from table_controller.config import parse_config
    from table_controller.controller import Controller
    from table_controller.store import EventStore
    from table_controller.tournament.publisher import TournamentPublisher

    async def no_table(url: str):  # noqa: ANN202
        raise ConnectionRefusedError(url)

    store = EventStore(tmp_path / "events.sqlite3")
    controller = Controller(parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test"), store, no_table)
    pub = TournamentPublisher(controller, "mqtt://127.0.0.1:1", "cup", "t1")
    try:
        good = json.dumps({"v": 1, "tournament": "cup", "table_id": "t1", "round": 2, "at": 5.0, "table_name": "1号桌",
                           "players": {"1": "戊", "2": "己", "3": "庚", "4": "辛"}, "player_ids": {"1": "B1"}}).encode()
        pub._seating(good)
        pub._seating(good)  # the retained copy again, on a new connection: logged once
        pub._seating(b'{"v": 1, "tournament": "cup", "table_id": "t1", "round": 2, "players": {"1": "x"}}')
        pub._seating(good.replace(b'"t1"', b'"t9"'))  # another table's
        logged = [e for e in store.since(0) if e.type == "tournament.seating"]
        assert len(logged) == 1 and logged[0].source == "tournament"
        assert controller.state.seating_offer["players"]["1"] == "戊" and controller.state.seating_offer["round"] == 2
    finally:
        pub.mark.close()
        store.close()


def test_standings_after_a_round_and_as_csv(tmp_path: Path) -> None:
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path)
    try:
        hub.handle("mahjong/cup/t1/state", _state("t1", ["甲", "乙", "丙", "丁"], [30, 10, -10, -30], round_no=1, seq=5))
        hub.handle("mahjong/cup/t1/state", _state("t1", ["丁", "丙", "乙", "甲"], [40, 0, -10, -30], round_no=2, seq=9))
        client = TestClient(create_hub_app(hub))
        after1 = {p["name"]: p for p in client.get("/api/standings", params={"through": 1}).json()["players"]}
        now = {p["name"]: p for p in client.get("/api/standings").json()["players"]}
        assert after1["甲"]["rank"] == 1 and after1["甲"]["points"] == 30 and len(after1["甲"]["tables"]) == 1
        assert now["甲"]["points"] == 0 and now["丁"]["points"] == 10 and now["丁"]["table_points"] == 4
        csv = client.get("/api/standings.csv")
        assert csv.status_code == 200 and "standings-cup.csv" in csv.headers["content-disposition"]
        lines = csv.text.lstrip("\ufeff").splitlines()
        assert lines[0].startswith("名次,选手,编号,标准分,比赛分,第1轮 桌,第1轮 标准分,第1轮 比赛分,第2轮 桌")
        row = next(line for line in lines[1:] if ",甲," in line)
        assert row.split(",")[3:5] == ["4", "0"] and "t1号桌,4,30" in row and "t1号桌,0,-30" in row
        assert client.get("/api/standings", params={"through": 0}).status_code == 422
    finally:
        hub.close()


def test_round_1_is_drawn_from_the_registration_list_and_the_unseated_join_later(tmp_path: Path) -> None:
    from table_controller.tournament.pairing import registered

    listed = tmp_path / "players.csv"
    listed.write_text("id,name\nA01,甲\nA02,乙\nA03,丙\nA04,丁\nA05,戊\nA06,己\nA07,庚\nA08,辛\n", encoding="utf-8")
    players = registered(listed)
    assert players[0] == {"id": "A01", "name": "甲"} and len(players) == 8
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "hub", registered=players)
    try:
        first = hub.pairings()
        assert first["round"] == 1 and len(first["tables"]) == 2 and first["byes"] == []
        seated = sorted(s["id"] for t in first["tables"] for s in t["seats"].values())
        assert seated == [f"A0{i}" for i in range(1, 9)]
        assert hub.pairings() == first  # the draw is seeded by the tournament: the same every time
        # round 1 played at t1 only (甲乙丙丁): the four not seated join round 2, and the four who
        # met are split two and two
        hub.handle("mahjong/cup/t1/state", _state("t1", ["甲", "乙", "丙", "丁"], [30, 10, -10, -30]))
        second = hub.pairings()
        assert second["round"] == 2 and len(second["tables"]) == 2 and second["repeat_meetings"] == 2
        assert sorted(s["name"] for t in second["tables"] for s in t["seats"].values()) == sorted("甲乙丙丁戊己庚辛")
    finally:
        hub.close()
    bad = tmp_path / "bad.csv"
    bad.write_text("A01,甲\nA01,乙\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 2: A01 is listed twice"):
        registered(bad)
    bad.write_text("A01,甲,extra\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 1: expected id,name"):
        registered(bad)


def test_a_registration_list_that_would_mislead_the_seating_is_refused_in_the_organisers_words(tmp_path: Path) -> None:
    """A name twice where one has no number (a table keying 甲 alone was taken for both: the numbered
    甲 counted as having played and was left out of round 2), an empty name, a list of no players and
    a table id typed in Chinese: each refused before the hub starts, Chinese first (they were English
    alone, or taken). Two 甲 with numbers are two players."""
    from table_controller.commands.hub import check, parse
    from table_controller.tournament.pairing import registered
    from table_controller.tournament.wire import WireError

    listed = tmp_path / "players.csv"
    listed.write_text("id,name\nA01,甲\nA02,甲\n", encoding="utf-8")
    assert registered(listed) == [{"id": "A01", "name": "甲"}, {"id": "A02", "name": "甲"}]
    for text, says in (("A01,甲\n,甲\n", "第 2 行：甲 与第 1 行同名，同名选手须各有编号"),
                       (",甲\nA01,甲\n", "第 2 行：甲 与第 1 行同名，同名选手须各有编号"),
                       (",甲\n,甲\n", "第 2 行：姓名 甲 与第 1 行重复"),
                       ("A01,甲\nA01,乙\n", "第 2 行：编号 A01 与第 1 行重复"),
                       ("A01, \n", "第 1 行：应为「编号,姓名」两栏（编号可空），姓名不能为空"),
                       ("id,name\n\n", "报名名单中没有选手")):
        listed.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError, match=says):
            registered(listed)
        with pytest.raises(WireError, match=f"^{listed} {says}" if "行" in says else says):  # the command's own check
            check(parse(["--broker", "mqtt://127.0.0.1:1883", "--tournament", "cup", "--players", str(listed)]))
    for spec, says in (("一号桌,二号桌", "桌号须为 1 至 64 个英文字母、数字"), ("0", "桌数须为 1 至 999"),
                       ("t01,t02,t01", "桌号重复：t01"), ("t01,hub", "是赛事服务器的用户名")):
        with pytest.raises(WireError, match=says):
            check(parse(["--broker", "mqtt://127.0.0.1:1883", "--tournament", "cup", "--tables", spec]))


def test_a_registration_list_with_an_invisible_character_in_a_name_or_number_is_refused(tmp_path: Path) -> None:
    """A list pasted from a spreadsheet with a zero-width space after 甲, a BOM before a later line (two files put
    together) or a tab inside a number: the tables refuse such characters in a name, so the player keyed 甲 at a
    table was another than the listed "甲\u200b": round 2 seated the listed one as never played, beside 甲. Each
    is refused before the hub starts, naming the line and the character."""
    from table_controller.commands.hub import check, parse
    from table_controller.tournament.pairing import registered
    from table_controller.tournament.wire import WireError

    listed = tmp_path / "players.csv"
    for text, says in ((",甲\u200b\n,乙\n", r"第 1 行：姓名 '甲\u200b' 含有不可见字符或控制字符（第 2 个字符，U+200B）"),
                       ("id,name\nA01,甲\n\ufeffA02,乙\n", r"第 3 行：编号 '\ufeffA02' 含有不可见字符或控制字符（第 1 个字符，U+FEFF）"),
                       ("A\t01,甲\n", r"第 1 行：编号 'A\t01' 含有不可见字符或控制字符（第 2 个字符，U+0009）"),
                       ("A01,甲\u202e乙\n", r"第 1 行：姓名 '甲\u202e乙' 含有不可见字符或控制字符（第 2 个字符，U+202E）")):
        listed.write_text(text, encoding="utf-8")
        with pytest.raises(ValueError, match=re.escape(says)):
            registered(listed)
        with pytest.raises(WireError, match=re.escape(says)):  # the command's own check, before anything starts
            check(parse(["--broker", "mqtt://127.0.0.1:1883", "--tournament", "cup", "--players", str(listed)]))
    listed.write_text("\ufeffid,name\nA01, 甲 \n,乙\n", encoding="utf-8")  # a file's own BOM, spaces around: as before
    assert registered(listed) == [{"id": "A01", "name": "甲"}, {"id": "", "name": "乙"}]


def test_a_stand_in_counts_at_the_table_but_is_not_ranked_nor_seated_again(tmp_path: Path) -> None:
    """陪打 (seed 000): 丁 did not come and 替 sat in. With a registration list, a player not on it
    is a stand-in: shown with their points, never ranked, never in the next round's seating."""
    from table_controller.tournament.web import standings_to_csv

    listed = [{"id": "", "name": n} for n in "甲乙丙丁戊己庚辛"]
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "hub", registered=listed)
    try:
        hub.handle("mahjong/cup/t1/state", _state("t1", ["甲", "乙", "丙", "替"], [-30, 10, -10, 30]))
        st = hub.standings()
        ranked = [(p["rank"], p["name"]) for p in st["players"]]
        assert ranked == [(1, "乙"), (2, "丙"), (3, "甲"), (None, "替")]  # 替 won the table, yet is not first
        assert [p["stand_in"] for p in st["players"]] == [False, False, False, True]
        assert st["players"][3]["table_points"] == 4  # the table's 标准分 stand as played
        assert "陪打,替" in standings_to_csv(st)
        nxt = hub.pairings()
        seated = sorted(s["name"] for t in nxt["tables"] for s in t["seats"].values())
        assert "替" not in seated and sorted(seated) == sorted("甲乙丙丁戊己庚辛")
    finally:
        hub.close()
    # without a registration list nobody is a stand-in: everyone who played is ranked
    free = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "free")
    try:
        free.handle("mahjong/cup/t1/state", _state("t1", ["甲", "乙", "丙", "替"], [-30, 10, -10, 30]))
        assert [p["rank"] for p in free.standings()["players"]] == [1, 2, 3, 4]
    finally:
        free.close()


def _record(table_id: str, hand_no: int, names: str, wins: list[dict[str, Any]], round_no: int = 1) -> bytes:
    seats = {w: {"chair": i + 1, "player_no": i + 1, "player": n} for i, (w, n) in enumerate(zip("ESWN", names))}
    record = {"view": "public", "hand_no": hand_no, "round": round_no, "seats": seats, "wins": wins,
              "result": "win" if wins else "draw", "lines": [], "ruleset": "mcr", "table_name": f"{table_id}号桌",
              "prevalent_wind": "E", "dealer_position": 1, "throws": [], "break": None, "points": {},
              "started_at": 0.0, "ended_at": 60.0}
    return json.dumps({"v": 1, "tournament": "cup", "table_id": table_id, "seq": 10 + hand_no, "round": round_no,
                       "hand_no": hand_no, "record": record}).encode()


def test_player_statistics_come_from_the_hands_records(tmp_path: Path) -> None:
    """技术统计: hands, wins (自摸 / on a discard), discards won on, rates, the average and the biggest win."""
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path)
    try:
        hub.handle("mahjong/cup/t1/state", _state("t1", list("甲乙丙丁"), [30, 10, -10, -30]))
        hub.handle("mahjong/cup/t1/records", _record("t1", 1, "甲乙丙丁", [
            {"seat": "S", "win_kind": "discard", "total": 12, "fans": [{"name": "碰碰和", "value": 6}], "discarder": "E"}]))
        assert {p["name"]: p["wins"] for p in hub.stats()["players"]}["乙"] == 1  # counted, then kept
        hub.handle("mahjong/cup/t1/records", _record("t1", 2, "甲乙丙丁", [
            {"seat": "S", "win_kind": "self_draw", "total": 30, "fans": [{"name": "清一色", "value": 24}, {"name": "自摸", "value": 1}]}]))
        hub.handle("mahjong/cup/t1/records", _record("t1", 3, "甲乙丙丁", []))  # 荒牌
        hub.handle("mahjong/cup/t1/records", _record("t1", 4, "甲乙丙丁", [
            {"seat": "W", "win_kind": "discard", "total": 8, "fans": [{"name": "平和", "value": 2}], "discarder": "E"}]))
        players = {p["name"]: p for p in hub.stats()["players"]}
        yi, jia, bing = players["乙"], players["甲"], players["丙"]
        assert (yi["hands"], yi["wins"], yi["self_drawn"], yi["on_discard"], yi["fed"]) == (4, 2, 1, 1, 0)
        assert (yi["win_rate"], yi["average_win"], yi["best"]["total"], yi["best"]["fans"]) == (0.5, 21.0, 30, ["清一色", "自摸"])
        assert (jia["wins"], jia["fed"], jia["feed_rate"], jia["average_win"]) == (0, 2, 0.5, None)
        assert bing["wins"] == 1 and [p["name"] for p in hub.stats()["players"]][:2] == ["乙", "丙"]
        assert TestClient(create_hub_app(hub)).get("/api/stats").json()["players"][0]["name"] == "乙"
        # the tournament's record in one file: standings, statistics, seatings, every table's hands
        import io
        import zipfile

        got = TestClient(create_hub_app(hub)).get("/api/archive.zip")
        assert got.status_code == 200 and "cup-archive.zip" in got.headers["content-disposition"]
        z = zipfile.ZipFile(io.BytesIO(got.content))
        assert set(z.namelist()) == {"standings.json", "standings.csv", "stats.json", "seatings.json", "decisions.json",
                                     "tables/t1/rounds.json", "tables/t1/records.json", "tables/t1/records.txt"}
        assert [r["hand_no"] for r in json.loads(z.read("tables/t1/records.json"))] == [1, 2, 3, 4]
        assert "乙" in z.read("standings.csv").decode("utf-8-sig")
    finally:
        hub.close()


def test_five_wrong_organiser_credentials_lock_the_client_out(tmp_path: Path) -> None:
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path, organizer_token="org-secret-1")
    try:
        hub.handle("mahjong/cup/t1/state", _state("t1", ["甲", "乙", "丙", "丁"], [30, 10, -10, -30]))
        client = TestClient(create_hub_app(hub))
        for _ in range(5):
            assert client.post("/api/pairings/publish", headers={"Authorization": "Bearer guess"}).status_code == 401
        right = client.post("/api/pairings/publish", headers={"Authorization": "Bearer org-secret-1"})
        assert right.status_code == 429 and hub.published() is None
    finally:
        hub.close()


def test_a_second_hub_on_the_same_files_is_refused_until_the_first_closes(tmp_path: Path) -> None:
    """Two hubs on one tournament's files would both write them and, under one MQTT client id, throw
    each other off the broker at every reconnect; the second one is told who holds them."""
    import os

    from table_controller.tournament.hub import HubError

    first = Hub("mqtt://127.0.0.1:1", "cup", tmp_path)
    with pytest.raises(HubError, match=f"hub \\(pid {os.getpid()}\\)"):
        Hub("mqtt://127.0.0.1:1", "cup", tmp_path)
    other = Hub("mqtt://127.0.0.1:1", "other-cup", tmp_path)  # another tournament's files are its own
    other.close()
    first.close()
    Hub("mqtt://127.0.0.1:1", "cup", tmp_path).close()


def test_the_venues_tables_are_on_the_page_until_heard_from_and_round_1_is_seated_at_them(tmp_path: Path) -> None:
    """`--tables`: a table on the venue's list that never sent a word (switched off, or set up with
    another table id whose every message the broker drops) was simply absent from the hub's page.
    It is there from the start, flagged until heard from; round 1 is seated at the real table ids
    (not T1, T2, which no table's seating topic matches), and a table not heard from is not
    "still playing" an earlier round."""
    players = [{"id": f"A0{i}", "name": n} for i, n in enumerate("甲乙丙丁戊己庚辛", 1)]
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "hub", registered=players, expected=["t01", "t02"])
    try:
        rows = hub.standings()["tables"]
        assert [(r["table_id"], r["heard"]) for r in rows] == [("t01", False), ("t02", False)]
        assert [a["kind"] for a in rows[0]["alerts"]] == ["unheard"] and "尚未收到" in rows[0]["alerts"][0]["text_zh"]
        first = hub.pairings()
        assert [t["table_id"] for t in first["tables"]] == ["t01", "t02"] and first["unfinished"] == []
        hub.handle("mahjong/cup/t01/state", _state("t01", ["甲", "乙", "丙", "丁"], [30, 10, -10, -30]))
        rows = {r["table_id"]: r for r in hub.standings()["tables"]}
        assert rows["t01"]["heard"] and rows["t01"]["alerts"] == [] and rows["t01"]["table_name"] == "t01号桌"
        assert [a["kind"] for a in rows["t02"]["alerts"]] == ["unheard"]
        second = hub.pairings()
        assert second["round"] == 2 and sorted(t["table_id"] for t in second["tables"]) == ["t01", "t02"]
        assert second["unfinished"] == []  # t01 closed round 1; t02 has played nothing to finish
    finally:
        hub.close()
    again = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "hub")  # no list: only the tables heard from
    try:
        assert [r["table_id"] for r in again.standings()["tables"]] == ["t01"]
    finally:
        again.close()


def test_a_rounds_seating_proposed_again_once_it_is_under_way_comes_from_the_rounds_before(tmp_path: Path) -> None:
    """The organiser publishes round 2, the tables start it, then a correction: round 2 is proposed
    again. It was drawn from the standings with round 2's own results and meetings in them, so
    everyone moved (and every table was said to meet again); it must be round 1's standings'."""
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path)
    try:
        hub.handle("mahjong/cup/t1/state", _state("t1", list("甲乙丙丁"), [30, 10, -10, -30]))
        hub.handle("mahjong/cup/t2/state", _state("t2", list("戊己庚辛"), [30, 10, -10, -30]))
        first = hub.pairings(2)
        for table in first["tables"]:  # round 2 played as proposed, with results that turn the ranks over
            names = [table["seats"][c]["name"] for c in "1234"]
            hub.handle(f"mahjong/cup/{table['table_id']}/state", _state(table["table_id"], names, [-30, -10, 10, 30],
                                                                          round_no=2, seq=50))
        again = hub.pairings(2)
        assert [t["seats"] for t in again["tables"]] == [t["seats"] for t in first["tables"]]
        assert again["repeat_meetings"] == first["repeat_meetings"] == 4
        assert hub.pairings()["round"] == 3  # the next round still comes from every round played
    finally:
        hub.close()


def test_a_registered_number_goes_by_its_registered_name(tmp_path: Path) -> None:
    """A referee keyed A01 as 王玮 (the list says 王伟): the standings showed 王玮 for A01 in every
    round and the next round's seating posted 王玮 to the tables. The list's name is the player's."""
    listed = [{"id": f"A0{i}", "name": n} for i, n in enumerate("王伟 乙 丙 丁 戊 己 庚 辛".split(), start=1)]
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "hub", registered=listed)
    try:
        state = json.loads(_state("t1", ["王玮", "乙", "丙", "丁"], [30, 10, -10, -30]))
        state["player_ids"] = {"1": "A01", "2": "A02", "3": "A03", "4": "A04"}
        hub.handle("mahjong/cup/t1/state", json.dumps(state).encode())
        st = hub.standings()
        assert [(p["id"], p["name"], p["stand_in"]) for p in st["players"]][0] == ("A01", "王伟", False)
        seated = {s["id"]: s["name"] for t in hub.pairings()["tables"] for s in t["seats"].values()}
        assert seated["A01"] == "王伟" and "王玮" not in seated.values()
        hub.handle("mahjong/cup/t1/records", _record("t1", 1, ["王玮", "乙", "丙", "丁"], []))
        assert {p["id"]: p["name"] for p in hub.stats()["players"]}["A01"] == "王伟"  # the statistics too
    finally:
        hub.close()


def test_the_bye_goes_round_not_to_the_same_player_every_round(tmp_path: Path) -> None:
    """Nine registered players at two tables: one sits out (轮空). By rank alone the one who sat out
    had no result for that round, stayed lowest and sat out every round after. Now the bye goes to
    the lowest ranked of those who have sat out least."""
    listed = [{"id": f"A0{i}", "name": n} for i, n in enumerate("甲乙丙丁戊己庚辛壬", start=1)]
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "hub", registered=listed)

    def play(number: int, proposal: dict[str, Any]) -> None:
        for table in proposal["tables"]:
            state = json.loads(_state(table["table_id"], [table["seats"][c]["name"] for c in "1234"],
                                      [30, 10, -10, -30], round_no=number, seq=10 * number))
            state["player_ids"] = {c: table["seats"][c]["id"] for c in "1234"}
            hub.handle(f"mahjong/cup/{table['table_id']}/state", json.dumps(state).encode())

    try:
        hub.handle("mahjong/cup/t1/state", _state("t1", list("甲乙丙丁"), [0, 0, 0, 0], seq=1))
        hub.handle("mahjong/cup/t2/state", _state("t2", list("戊己庚辛"), [0, 0, 0, 0], seq=1))
        out = []
        for number in (1, 2, 3):
            proposal = hub.pairings(number)
            (bye,) = proposal["byes"]
            out.append(bye["name"])
            play(number, proposal)
        assert len(set(out)) == 3, f"sat out: {out}"
    finally:
        hub.close()


def test_tables_go_in_the_venues_order_and_by_number_not_as_text() -> None:
    """t1 … t10 sorted as text put t10 second, and round 1's second group of players went to t10;
    a venue's list (`--tables final,t01,t02`) is its own order."""
    from table_controller.tournament.wire import table_order

    assert table_order({"t2", "t10", "t1", "t9"}, []) == ["t1", "t2", "t9", "t10"]
    assert table_order({"t02", "final", "t01", "extra3"}, ["final", "t01", "t02"]) == ["final", "t01", "t02", "extra3"]
    assert table_order({"A-2", "A-10", "B-1", "a"}, []) == ["A-2", "A-10", "B-1", "a"]


def test_broker_config_prints_the_venues_tables_by_number(tmp_path: Path, capsys: Any) -> None:
    """The hub's --tables that broker-config prints is the order round 1's groups are seated in."""
    from table_controller.cli import main as tablectl

    assert tablectl(["broker-config", "--broker", "mqtt://10.0.0.2:1883", "--tournament", "cup",
                     "--tables", "t9,t10,t1,t2", "--out", str(tmp_path / "venue")]) == 0
    assert "--tables t1,t2,t9,t10" in capsys.readouterr().out


def test_the_standings_csv_marks_a_round_still_in_play_as_provisional(tmp_path: Path) -> None:
    """The page says 暂定 beside a round whose table has not finished it; the CSV the organiser downloads
    mid-round gave the same 标准分 and points with nothing to tell them from a finished round's."""
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path)
    try:
        hub.handle("mahjong/cup/t1/state", _state("t1", ["甲", "乙", "丙", "丁"], [30, 10, -10, -30]))
        playing = json.loads(_state("t2", ["戊", "己", "庚", "辛"], [40, 5, -5, -40]))
        hub.handle("mahjong/cup/t2/state", json.dumps({**playing, "final": False, "hand_no": 9, "hands_played": 8,
                                                       "phase": "playing", "phase_zh": "行牌中"}).encode())
        client = TestClient(create_hub_app(hub))
        rows = {r[1]: r for r in csv.reader(io.StringIO(client.get("/api/standings.csv").text.lstrip("\ufeff")))}
        assert rows["选手"] == ["名次", "选手", "编号", "标准分", "比赛分", "第1轮 桌", "第1轮 标准分", "第1轮 比赛分"]
        assert rows["甲"] == ["2", "甲", "", "4", "30", "t1号桌", "4", "30"]
        assert rows["戊"] == ["1", "戊", "", "4", "40", "t2号桌（暂定）", "4", "40"]
        assert rows["辛"] == ["8", "辛", "", "0", "-40", "t2号桌（暂定）", "0", "-40"]
    finally:
        hub.close()
