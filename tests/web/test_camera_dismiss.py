"""A camera reading that is no tile (a coin, a phone, a glare spot, a sleeve): the referee rules it so
(`POST /api/referee/camera/dismiss`, `referee.camera_dismiss`) over the real app and its SQLite log. Before,
an unsure reading could only be confirmed or corrected to a tile: a phantom held its seat's pool back in the
camera's record all hand, or went into the record as whatever tile the referee named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from table_controller.config import parse_config
from table_controller.controller import Controller
from table_controller.store import EventStore
from table_controller.web.app import create_app
from table_controller.web.auth import Credentials

REFEREE, OPERATOR, NAMED = "ref-dismiss-3579", "op-dismiss-2468", "ref-wangli-8642"


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(f"nothing at {url}")


@pytest.fixture
def client(tmp_path: Path):  # type: ignore[no-untyped-def]
    """The display's app over a controller and its SQLite log, a hand in play; a named referee (王立) too."""
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test")
    store = EventStore(tmp_path / "events.sqlite3")
    ctl = Controller(cfg, store, _no_table)
    ctl.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "mcr", "dealer_position": 1,
                                                   "prevalent_wind": "E", "seats": {"E": 1, "S": 2, "W": 3, "N": 4}})
    c = TestClient(create_app(ctl, Credentials(referee=REFEREE, operator=OPERATOR, referees={NAMED: "王立"})))
    c.controller = ctl  # type: ignore[attr-defined]
    with c:
        yield c
    store.close()


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _asked(c: TestClient, zone: str = "discard:S", kind: str = "6m", track: int = 7) -> int:
    """An unsure reading, logged as the camera watcher logs it; its seq."""
    return c.controller.accept("camera", "camera.tile_appeared", {  # type: ignore[attr-defined]
        "event": "appeared", "zone": zone, "kind": kind, "confidence": 0.42, "seat": zone[-1], "track": track,
        "needs_referee": True, "wind": zone[-1]}).seq


@pytest.mark.parametrize("token,status", [(None, 403), (OPERATOR, 403), ("wrong", 401)])
def test_only_the_referee_may_rule_a_reading_no_tile(client: TestClient, token: str | None, status: int) -> None:
    seq = _asked(client)
    head = client.controller.state.seq  # type: ignore[attr-defined]
    r = client.post("/api/referee/camera/dismiss", json={"seq": seq}, headers=_bearer(token) if token else {})
    assert r.status_code == status
    assert client.controller.state.seq == head  # type: ignore[attr-defined]


def test_a_reading_ruled_no_tile_leaves_the_questions_logged_by_name_and_undone_comes_back(client: TestClient) -> None:
    seq = _asked(client)
    head = client.controller.state.seq  # type: ignore[attr-defined]
    r = client.post("/api/referee/camera/dismiss", json={"seq": 9999}, headers=_bearer(NAMED))
    assert r.status_code == 409 and r.json()["detail"].startswith("没有待确认的识牌 #9999")
    r = client.post("/api/referee/camera/dismiss", json={"seq": seq, "kind": "5m"}, headers=_bearer(NAMED))
    assert r.status_code == 422  # no tile is named with it
    assert client.controller.state.seq == head  # type: ignore[attr-defined]  # refusals log nothing
    r = client.post("/api/referee/camera/dismiss", json={"seq": seq}, headers=_bearer(NAMED))
    assert r.status_code == 200, r.text
    state = client.get("/api/referee/state", headers=_bearer(NAMED)).json()
    assert state["camera_pending"] == []
    ruling = state["actions"][-1]
    assert ruling["type"] == "referee.camera_dismiss" and ruling["camera_seq"] == seq and ruling["by_name"] == "王立"
    assert ruling["read_as"] == "6m" and "kind" not in ruling  # what it was read as; it names no tile kind
    logged = client.controller.store.since(0)[-1]  # type: ignore[attr-defined]
    assert logged.type == "referee.camera_dismiss" and logged.data["by_name"] == "王立"
    assert state["log"][-1]["text"] == f"裁判判定识牌 #{seq} 不是牌"
    assert state["last_action"]["name_zh"] == "判为不是牌"
    # the referee undoes it: the question is back, and may be ruled otherwise
    r = client.post("/api/referee/undo", json={"reason": "是一张牌", "target": r.json()["seq"]}, headers=_bearer(NAMED))
    assert r.status_code == 200, r.text
    assert [p["seq"] for p in client.get("/api/state").json()["camera_pending"]] == [seq]
    r = client.post("/api/referee/camera/confirm", json={"seq": seq, "kind": "9m"}, headers=_bearer(REFEREE))
    assert r.status_code == 200, r.text


def test_a_reading_ruled_is_not_ruled_again_either_way(client: TestClient) -> None:
    """Two referees' pages: a reading ruled no tile on one is refused on the other, naming that ruling, whether
    the other confirms it or rules it no tile too; and one confirmed is not ruled no tile afterwards."""
    coin = _asked(client, track=7)
    tile = _asked(client, track=8)
    first = client.post("/api/referee/camera/dismiss", json={"seq": coin}, headers=_bearer(NAMED))
    assert first.status_code == 200
    head = client.controller.state.seq  # type: ignore[attr-defined]
    for path, body in (("/api/referee/camera/dismiss", {"seq": coin}), ("/api/referee/camera/confirm", {"seq": coin})):
        again = client.post(path, json=body, headers=_bearer(REFEREE))
        assert again.status_code == 409, again.text
        said = again.json()["detail"]
        assert said.startswith(f"识牌 #{coin} 已判为不是牌（#{first.json()['seq']} 判为不是牌（裁判 王立 "), said
        assert "要改请先撤销该裁决" in said
    assert client.controller.state.seq == head  # type: ignore[attr-defined]
    confirmed = client.post("/api/referee/camera/confirm", json={"seq": tile}, headers=_bearer(REFEREE))
    assert confirmed.status_code == 200
    again = client.post("/api/referee/camera/dismiss", json={"seq": tile}, headers=_bearer(NAMED))
    assert again.status_code == 409 and again.json()["detail"].startswith(f"识牌 #{tile} 已确认为 六万（#"), again.text


def test_the_public_sees_nothing_new_of_a_reading_ruled_no_tile(client: TestClient) -> None:
    """A reading in a hand laid down (the meld area) was never named in public; its no-tile ruling names it
    nowhere in public either (state, actions, log, events)."""
    seq = _asked(client, zone="meld:N", kind="8m")
    assert client.post("/api/referee/camera/dismiss", json={"seq": seq}, headers=_bearer(REFEREE)).status_code == 200
    public = client.get("/api/state").json()
    ruling = public["actions"][-1]
    assert ruling["type"] == "referee.camera_dismiss" and ruling["camera_seq"] == seq and "read_as" not in ruling
    assert public["log"][-1]["text"] == f"裁判判定识牌 #{seq} 不是牌"
    events = client.get(f"/api/events?since={seq - 1}").json()
    assert [e["type"] for e in events] == ["camera.tile_appeared", "referee.camera_dismiss"]
    assert "8m" not in str(public) and "八万" not in str(public) and "8m" not in str(events)
