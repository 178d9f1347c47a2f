"""The hub's HTTP side under requests no page sends (its real app over a real hub's SQLite files): a number
past SQLite's integers, an organiser's decision with text that cannot be written, a malformed query. Each is
refused with the words of what is wrong, Chinese first, and nothing is filed; the full walk of every route is
tests/security/test_api_fuzz.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from table_controller.tournament.hub import Hub
from table_controller.tournament.web import create_hub_app

TOKEN = "org-secret-77"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
BIG = 10**23


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[TestClient]:
    """A hub that has heard table t01's first event."""
    hub = Hub("mqtt://127.0.0.1:1", "cup", tmp_path / "hub", expected=["t01", "t02"], organizer_token=TOKEN)
    event = {"v": 1, "tournament": "cup", "table_id": "t01", "seq": 1, "prev": 0, "at": 1.0, "source": "controller",
             "type": "controller.configured", "data": {"players": {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}}}
    assert hub.handle("mahjong/cup/t01/events", json.dumps(event).encode()) == "new"
    client = TestClient(create_hub_app(hub))
    client.hub = hub  # type: ignore[attr-defined]
    try:
        yield client
    finally:
        hub.close()


def test_a_number_past_sqlites_integers_is_refused_not_a_500(hub: TestClient) -> None:
    """Each of these reached SQLite, which cannot hold the number: OverflowError, a 500."""
    for path, params in (("/api/tables/t01/events", {"since": BIG}), ("/api/tables/t01/records", {"round": BIG}),
                         (f"/api/tables/t01/hands/{BIG}/record", {}),
                         ("/api/tables/t01/hands/1/record", {"round": BIG})):
        r = hub.get(path, params=params)
        assert r.status_code == 422, (path, r.status_code, r.text)
        assert r.json()["detail"].split(" / ")[0] in ("起始编号超出范围（最大 9223372036854775807）", "轮次须为 1 至 999",
                                                     "盘号超出范围（最大 9223372036854775807）"), r.text
    assert [e["seq"] for e in hub.get("/api/tables/t01/events", params={"since": 0}).json()["events"]] == [1]


def test_a_decision_with_text_that_is_none_is_refused_and_nothing_is_filed(hub: TestClient) -> None:
    """A lone surrogate in a reason was a 500 (UnicodeEncodeError writing the hub's file); a name that
    is an object was filed as its Python spelling ("{'a': 1}"). Both are 422 with the field named."""
    h = {**AUTH, "Content-Type": "application/json"}
    said = []
    for body in ('{"action": "table_out", "table_id": "t01", "reason": "\\ud800"}',
                 '{"action": "table_out", "table_id": ["t01"]}', '{"action": "player_out", "player": 5}',
                 '{"action": "stand_in", "name": {"a": 1}}', '{"action": "stand_in", "name": "\\udfffx"}'):
        r = hub.post("/api/organiser", content=body.encode(), headers=h)
        assert r.status_code == 422, (body, r.status_code, r.text)
        said.append(r.json()["detail"].split(" / ")[0])
    assert said == ["理由含有无法保存的字符", "桌号须为文字", "选手须为文字", "陪打的名字须为文字", "陪打的名字含有无法保存的字符"]
    assert hub.get("/api/organiser").json()["decisions"] == []
    r = hub.post("/api/organiser", json={"action": "table_out", "table_id": "t01", "reason": "桌子卡牌 🀄"}, headers=AUTH)
    assert r.status_code == 200 and hub.get("/api/organiser").json()["decisions"][0]["data"]["reason"] == "桌子卡牌 🀄"


def test_a_malformed_query_is_said_in_chinese_first_as_the_tables_are(hub: TestClient) -> None:
    """The hub answered pydantic's English alone ("Input should be a valid integer …") where a table says
    the field in the pages' words first."""
    r = hub.get("/api/standings", params={"through": "abc"})
    assert r.status_code == 422 and r.json()["detail"] == [
        "轮次须为数字 / query.through: Input should be a valid integer, unable to parse string as an integer"]
    r = hub.post("/api/pairings/publish", params={"fresh": "maybe"}, headers=AUTH)
    assert r.status_code == 422 and r.json()["detail"][0].startswith("重新编排须为是或否 / query.fresh: ")
    r = hub.post("/api/organiser", content=b"[]", headers={**AUTH, "Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["detail"][0].startswith("请求有误 / body: ")


def test_the_frameworks_own_refusals_are_said_in_chinese_first(hub: TestClient) -> None:
    """An unknown address and a body nested too deep answered FastAPI's English alone."""
    assert hub.get("/api/tables/..%2F..%2Fetc/records").json() == {"detail": "没有这个地址 / Not Found"}
    deep = b"[" * 5000 + b"]" * 5000
    r = hub.post("/api/organiser", content=deep, headers={**AUTH, "Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["detail"].startswith("请求内容无法解析")
    assert hub.delete("/api/standings").json()["detail"].startswith("此地址不接受这种请求方法 / ")


def test_an_unknown_format_or_a_negative_count_is_refused_as_the_table_refuses_it(hub: TestClient) -> None:
    """`?format=xml` was answered with JSON, `events?since=-5&limit=-3` with the whole log: each is 422 now,
    naming the value in the pages' words, as the table's display answers them."""
    for path in ("/api/tables/t01/records", "/api/tables/t01/hands/1/record", "/api/pairings"):
        r = hub.get(path, params={"format": "xml"})
        assert r.status_code == 422, (path, r.status_code, r.text)
        assert r.json()["detail"][0].startswith("格式须为 json、text 之一 / query.format"), r.text
    for params, said in (({"since": -5}, "编号不能小于 0"), ({"limit": -3}, "条数不能小于 1"), ({"limit": 0}, "条数不能小于 1")):
        r = hub.get("/api/tables/t01/events", params=params)
        assert r.status_code == 422 and r.json()["detail"][0].startswith(said), (params, r.text)
    assert hub.get("/api/tables/t01/records", params={"format": "text"}).status_code == 200
    assert [e["seq"] for e in hub.get("/api/tables/t01/events", params={"limit": 9000}).json()["events"]] == [1]
