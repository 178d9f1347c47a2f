"""Tiles the camera is unsure of go to the referee, who confirms or corrects them (never a guess)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

# the API tests' service (a hand in play, no table) and credentials
from test_api import OPERATOR, REFEREE, bearer, client  # type: ignore[import-not-found]  # noqa: F401


def _unsure(c: TestClient, kind: str = "3f", confidence: float = 0.41) -> int:
    ev = c.controller.accept("camera", "camera.tile_appeared", {  # type: ignore[attr-defined]
        "event": "appeared", "zone": "flower:S", "kind": kind, "confidence": confidence, "seat": "S",
        "track": 7, "needs_referee": True})
    return ev.seq


def test_an_unsure_reading_waits_for_the_referee_and_sure_ones_do_not(client: TestClient) -> None:
    client.controller.accept("camera", "camera.tile_appeared", {  # type: ignore[attr-defined]
        "event": "appeared", "zone": "discard:E", "kind": "5m", "confidence": 0.99, "seat": "E",
        "track": 1, "needs_referee": False})
    seq = _unsure(client)
    pending = client.get("/api/state").json()["camera_pending"]
    assert [p["seq"] for p in pending] == [seq] and pending[0]["kind"] == "3f"
    log = client.get("/api/state").json()["log"]
    assert "待裁判确认" in log[-1]["text"] and "秋" in log[-1]["text"]


@pytest.mark.parametrize("token,status", [(None, 403), (OPERATOR, 403), ("wrong", 401)])
def test_only_the_referee_may_rule_on_a_reading(client: TestClient, token: str | None, status: int) -> None:
    seq = _unsure(client)
    before = client.controller.state.seq  # type: ignore[attr-defined]
    r = client.post("/api/referee/camera/confirm", json={"seq": seq}, headers=bearer(token))
    assert r.status_code == status
    assert client.controller.state.seq == before  # type: ignore[attr-defined]  # a refusal logs nothing


def test_confirm_correct_and_undo(client: TestClient) -> None:
    seq = _unsure(client, kind="3f")
    r = client.post("/api/referee/camera/confirm", json={"seq": seq, "kind": "not-a-tile"}, headers=bearer(REFEREE))
    assert r.status_code == 422
    r = client.post("/api/referee/camera/confirm", json={"seq": 9999}, headers=bearer(REFEREE))
    assert r.status_code == 409 and "9999" in r.json()["detail"]
    r = client.post("/api/referee/camera/confirm", json={"seq": seq, "kind": "7f"}, headers=bearer(REFEREE))
    assert r.status_code == 200, r.text
    state = client.get("/api/state").json()
    assert state["camera_pending"] == []
    action = state["actions"][-1]
    assert action["type"] == "referee.camera_confirm" and action["kind"] == "7f" and action["corrected"] is True
    # the referee changes their mind: undo reopens the reading
    r = client.post("/api/referee/undo", json={"reason": "看错了"}, headers=bearer(REFEREE))
    assert r.status_code == 200, r.text
    assert [p["seq"] for p in client.get("/api/state").json()["camera_pending"]] == [seq]
    r = client.post("/api/referee/camera/confirm", json={"seq": seq}, headers=bearer(REFEREE))
    assert r.status_code == 200
    assert client.get("/api/state").json()["actions"][-1]["kind"] == "3f"  # confirmed as read


def test_a_referee_many_questions_behind_can_still_rule_on_the_oldest(client: TestClient) -> None:
    """The play record waits on the oldest unsure tile of an area, so it must stay open however many
    come after it. Before, the state kept the newest 20 readings, ruled or not: the 21st pushed the
    oldest open one out (409 "no open camera reading"), and the record waited on it all hand."""
    seqs = [_unsure(client, kind="1m") for _ in range(25)]
    pending = client.get("/api/state").json()["camera_pending"]
    assert [p["seq"] for p in pending][-25:] == seqs
    r = client.post("/api/referee/camera/confirm", json={"seq": seqs[0]}, headers=bearer(REFEREE))
    assert r.status_code == 200, r.text
    for seq in seqs[1:]:
        assert client.post("/api/referee/camera/confirm", json={"seq": seq}, headers=bearer(REFEREE)).status_code == 200
    later = _unsure(client, kind="2m")
    assert [p["seq"] for p in client.get("/api/state").json()["camera_pending"]] == [later]
    # ruled readings are kept a while, so an undo can reopen the newest of them
    from table_controller.referee import CAMERA_RULED_KEPT

    kept = client.controller.state.camera_pending  # type: ignore[attr-defined]
    assert len(kept) == CAMERA_RULED_KEPT + 1 and kept[-2]["seq"] == seqs[-1]
    assert client.post("/api/referee/undo", json={"reason": "看错了"}, headers=bearer(REFEREE)).status_code == 200
    assert [p["seq"] for p in client.get("/api/state").json()["camera_pending"]] == [seqs[-1], later]
