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
                         (f"/api/tables/t01/hands/{BIG}/record", {}), ("/api/tables/t01/hands/1/record", {"round": BIG})):
        r = hub.get(path, params=params)
        assert r.status_code == 422, (path, r.status_code, r.text)
        assert r.json()["detail"].split(" / ")[0] in ("起始编号超出范围（最大 9223372036854775807）", "轮次须为 1 至 999",
                                                     "盘号超出范围（最大 9223372036854775807）"), r.text
    assert [e["seq"] for e in hub.get("/api/tables/t01/events", params={"since": 0}).json()["events"]] == [1]
