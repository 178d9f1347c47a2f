"""What a buggy or rogue client can put on a table's topics, through a real Mosquitto to a real hub: each is
refused as malformed with the words of what is wrong, kept for the audit, and every other table's standing
stays on the page (and the next round can still be published)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import aiomqtt
import httpx
import pytest
from tournament_helpers import Broker, until

from table_controller.tournament.hub import REJECT_KEEP
from table_controller.tournament.web import HubService
from table_controller.tournament.wire import WireError, check_id

TOKEN = "org-secret-77"


def _state(table_id: str, **changes: Any) -> dict[str, Any]:
    return {"v": 1, "tournament": "cup", "table_id": table_id, "seq": 1, "round": 1, "at": 1_796_000_000.0,
            "table_name": f"{table_id}号桌", "ruleset": "mcr", "players": {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}
            if table_id == "t01" else {"1": "戊", "2": "己", "3": "庚", "4": "辛"},
            "totals": {"1": 10, "2": -10, "3": 0, "4": 0}, "table_points": {"1": 4, "2": 1, "3": 2.5, "4": 2.5},
            "final": True, "hand_no": None, "hands_played": 1, "phase": "ended", "phase_zh": "结束", **changes}


def _event(table_id: str, **changes: Any) -> dict[str, Any]:
    return {"v": 1, "tournament": "cup", "table_id": table_id, "seq": 1, "prev": 0, "at": 1_796_000_000.0,
            "source": "operator", "type": "operator.note", "data": {"text": "好"}, **changes}


async def test_numbers_json_cannot_carry_or_the_hub_cannot_keep_are_refused_and_the_page_stays(
        tmp_path: Path, broker: Broker) -> None:
    """A NaN or an infinity in one table's standing (json.loads reads NaN, Infinity and 1e400) was filed: every
    `/api/standings` after it was a 500 (the answer cannot be written as JSON) for the whole hall, and stayed so
    after a restart. A round past 999 was filed and the next seating could not be published (a 500); a seq past
    SQLite's integers and a payload nested too deep were "internal errors" with a traceback."""
    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0, organizer_token=TOKEN)
    await hub.start()
    await until(lambda: hub.hub.connected, 5, "the hub to connect")
    bad = [
        ("mahjong/cup/t02/state", json.dumps(_state("t02", at=float("nan"))).encode(), "NaN"),
        ("mahjong/cup/t02/state", json.dumps(_state("t02", totals={"1": float("inf"), "2": 0, "3": 0, "4": 0}))
         .encode(), "Infinity"),
        ("mahjong/cup/t02/state", json.dumps(_state("t02")).replace('"seq": 1', '"seq": 1e400').encode(), "1e400"),
        ("mahjong/cup/t02/state", json.dumps(_state("t02", round=1000)).encode(), "round"),
        ("mahjong/cup/t02/events", json.dumps(_event("t02", seq=2**70)).encode(), "seq"),
        ("mahjong/cup/t02/online", json.dumps({"v": 1, "tournament": "cup", "table_id": "t02", "online": True,
                                                "reason": "connected", "at": float("-inf")}).encode(), "-Infinity"),
        ("mahjong/cup/t02/events", b"[" * 100_000, "nested"),
    ]
    try:
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="test-rogue") as client:
            await client.publish("mahjong/cup/t01/state", json.dumps(_state("t01")).encode(), qos=1)
            for topic, payload, _ in bad:
                await client.publish(topic, payload, qos=1)
            await client.publish("mahjong/cup/t02/state", json.dumps(_state("t02")).encode(), qos=1)
        await until(lambda: hub.hub.received == len(bad) + 2, 5, "every message at the hub")
        assert (hub.hub.malformed, hub.hub.errors) == (len(bad), 0)
        assert sorted(hub.hub.tables) == ["t01", "t02"]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}") as http:
            r = await http.get("/api/standings")
            assert r.status_code == 200, r.text
            points = {p["name"]: p["points"] for p in r.json()["players"]}
            assert points == {"甲": 10, "乙": -10, "丙": 0, "丁": 0, "戊": 10, "己": -10, "庚": 0, "辛": 0}
            assert [t["rounds"] for t in r.json()["tables"]] == [[1], [1]]
            published = await http.post("/api/pairings/publish", headers={"Authorization": f"Bearer {TOKEN}"})
            assert published.status_code == 200 and published.json()["round"] == 2, published.text
        db = sqlite3.connect(hub.hub.dir / "hub.sqlite3")
        kept = db.execute("SELECT topic, payload, error FROM rejected ORDER BY id").fetchall()
        db.close()
        assert [(t, bytes(p)) for t, p, _ in kept] == [(t, p[:REJECT_KEEP]) for t, p, _ in bad]  # byte for byte
        for (_, _, error), (_, _, word) in zip(kept, bad):
            assert word in error, (word, error)
    finally:
        await hub.stop()


@pytest.mark.parametrize("value", ["t01\n", "cup\n"])
def test_an_id_with_a_newline_after_it_is_refused(value: str) -> None:
    """`^…$` matched before a final newline: "t01\\n" passed as a table id, and Mosquitto throws off a client
    whose topic holds a control character: the table was cut off at every message, whatever the retries."""
    with pytest.raises(WireError):
        check_id(value, "table id")


def _record(table_id: str, **changes: Any) -> dict[str, Any]:
    """Hand 1's public record as `record.hand_record` gives it: 甲 (东) won 8 on 乙's discard."""
    names = ("甲", "乙", "丙", "丁") if table_id == "t01" else ("戊", "己", "庚", "辛")
    record = {"hand_no": 1, "round": 1, "ruleset": "mcr", "table_name": f"{table_id}号桌", "prevalent_wind": "E",
              "view": "public", "seats": {w: {"chair": i + 1, "player_no": i + 1, "player": names[i]}
                                          for i, w in enumerate("ESWN")},
              "lines": [{"seq": 2, "t": 0.0, "text": "开始第 1 盘"}], "result": "won",
              "wins": [{"seat": "E", "win_kind": "discard", "discarder": "S", "win_tile": "5m", "total": 8,
                        "fans": [{"name": "平和", "name_en": "All Chows", "value": 2, "count": 1},
                                 {"name": "断幺", "name_en": "All Simples", "value": 2, "count": 1},
                                 {"name": "门前清", "name_en": "Concealed Hand", "value": 2, "count": 1},
                                 {"name": "喜相逢", "name_en": "Mixed Double Chow", "value": 1, "count": 2}]}],
              "points": {"1": 32, "2": -16, "3": -8, "4": -8}}
    record.update(changes)
    return {"v": 1, "tournament": "cup", "table_id": table_id, "seq": 5, "round": 1, "hand_no": 1, "record": record}


async def test_a_hands_record_the_hub_cannot_count_is_refused_and_one_it_cannot_print_is_kept_and_said(
        tmp_path: Path, broker: Broker) -> None:
    """A record whose win's total is no number (markup in its place), whose seats are a list, or whose player is
    no text (the statistics sort by name): each was filed, and from then on `/api/stats` (the page's 技术统计) and
    the archive were a 500 for the whole hall, and stayed so after a restart. Now each is refused as malformed and
    kept for the audit. A record one field short of what the printable page needs (a seat without its chair: a
    table of another version) made the table's printable records and the archive a 500: it is counted and kept,
    and its page says it cannot be printed; t01's is counted, printed and archived."""
    import io
    import zipfile

    good = _record("t01")
    bad = [_record("t02", wins=[{**good["record"]["wins"][0], "total": "<img src=x onerror=alert(1)>"}]),
           _record("t02", seats=list(good["record"]["seats"].values())),
           _record("t02", seats={**good["record"]["seats"], "N": {"chair": 4, "player_no": 4, "player": ["辛"]}})]
    short = _record("t02")
    for seat in short["record"]["seats"].values():
        del seat["chair"]
    hub = HubService(broker.url, "cup", tmp_path / "hub", port=0, organizer_token=TOKEN)
    await hub.start()
    await until(lambda: hub.hub.connected, 5, "the hub to connect")
    try:
        async with aiomqtt.Client("127.0.0.1", broker.port, identifier="test-rogue") as client:
            for table_id, record in (("t01", good), *(("t02", b) for b in bad), ("t02", short)):
                await client.publish(f"mahjong/cup/{table_id}/state", json.dumps(_state(table_id, seq=5)).encode(),
                                     qos=1)
                await client.publish(f"mahjong/cup/{table_id}/records", json.dumps(record).encode(), qos=1)
        await until(lambda: hub.hub.received == 2 * (2 + len(bad)), 5, "every message at the hub")
        assert (hub.hub.malformed, hub.hub.errors) == (len(bad), 0)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{hub.bound_port}") as http:
            stats = await http.get("/api/stats")
            assert stats.status_code == 200, stats.text
            assert sorted((p["name"], p["wins"], p["best"]["total"]) for p in stats.json()["players"] if p["wins"]) \
                == [("戊", 1, 8), ("甲", 1, 8)]
            text = await http.get("/api/tables/t01/records", params={"format": "text"})
            assert text.status_code == 200 and "合计 8" in text.text, text.text
            said = "第 1 盘的牌谱无法打印（KeyError: 'chair'），原始记录见 JSON"
            for path in ("/api/tables/t02/records", "/api/tables/t02/hands/1/record"):
                text = await http.get(path, params={"format": "text"})
                assert text.status_code == 200 and text.text.startswith(said), (path, text.text)
            archive = await http.get("/api/archive.zip")
            assert archive.status_code == 200, archive.text
            with zipfile.ZipFile(io.BytesIO(archive.content)) as z:
                assert "合计 8" in z.read("tables/t01/records.txt").decode()
                assert z.read("tables/t02/records.txt").decode().startswith(said)
                assert json.loads(z.read("tables/t02/records.json"))[0]["seats"] == short["record"]["seats"]
        db = sqlite3.connect(hub.hub.dir / "hub.sqlite3")
        kept = db.execute("SELECT error FROM rejected ORDER BY id").fetchall()
        db.close()
        assert len(kept) == len(bad) and all("record the hub cannot read" in e for (e,) in kept), kept
    finally:
        await hub.stop()
