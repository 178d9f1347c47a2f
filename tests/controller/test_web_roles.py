"""The display API without a table: roles, credentials, rate limiting, malformed requests, resync."""

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from table_controller.config import parse_config
from table_controller.controller import Controller
from table_controller.store import EventStore
from table_controller.web.app import create_app
from table_controller.web.auth import Credentials

REFEREE, OPERATOR = "ref-secret-1", "op-secret-2"


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(f"nothing at {url}")


@pytest.fixture
def client(tmp_path: Path):
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test")
    store = EventStore(tmp_path / "events.sqlite3")
    controller = Controller(cfg, store, _no_table)
    app = create_app(controller, Credentials(referee=REFEREE, operator=OPERATOR, max_failures=3))
    with TestClient(app) as c:
        c.controller = controller  # type: ignore[attr-defined]
        yield c
    store.close()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_roles_of_each_credential(client: TestClient) -> None:
    assert client.get("/api/whoami").json()["role"] == "viewer"
    assert client.get("/api/whoami", headers=bearer(OPERATOR)).json()["role"] == "operator"
    assert client.get("/api/whoami", headers=bearer(REFEREE)).json()["role"] == "referee"
    assert client.get("/api/whoami", headers=bearer("nope")).status_code == 401


@pytest.mark.parametrize("path", ["/api/hand/start", "/api/hand/end"])
def test_viewer_cannot_act_and_operator_gets_a_reason(client: TestClient, path: str) -> None:
    r = client.post(path)
    assert r.status_code == 403 and "operator" in r.json()["detail"]
    r = client.post(path, headers=bearer(OPERATOR))
    assert r.status_code == 409  # no table linked / no hand: a reason, not a 500
    assert r.json()["detail"]


def test_wrong_tokens_are_rate_limited(client: TestClient) -> None:
    for _ in range(3):
        assert client.get("/api/whoami", headers=bearer("guess")).status_code == 401
    r = client.get("/api/whoami", headers=bearer(REFEREE))
    assert r.status_code == 429  # even the right token waits once the client is locked out


def test_malformed_body_is_a_4xx_that_names_the_field(client: TestClient) -> None:
    r = client.post("/api/hand/end", headers=bearer(REFEREE), json={"result": "maybe"})
    assert r.status_code == 422
    assert any("result" in d for d in r.json()["detail"])
    r = client.get("/api/events?since=-4")
    assert r.status_code == 422


def test_websocket_resync_gives_exactly_the_missed_events(client: TestClient) -> None:
    ctl: Controller = client.controller  # type: ignore[attr-defined]
    for i in range(5):
        ctl.accept("table", "table.tile_count", {"count": 100 + i})
    head = ctl.state.seq
    with client.websocket_connect("/ws") as ws:
        first = ws.receive_json()
        assert first["type"] == "snapshot" and first["seq"] == head
    with client.websocket_connect(f"/ws?since={head - 3}") as ws:
        got = [ws.receive_json() for _ in range(3)]
    assert [m["seq"] for m in got] == [head - 2, head - 1, head]
    assert got[-1]["state"]["tile_count"] == 104
    assert got[0]["state"] is None


def test_public_state_has_no_tile_faces(client: TestClient) -> None:
    state = client.get("/api/state").json()
    assert "wall" not in state  # the physical wall arrangement (the sim's ground truth) never leaves the table


def test_named_referees_rule_under_their_own_names(tmp_path: Path) -> None:
    """Two referees with credentials of their own: each ruling is logged (and shown in the
    public audit trail) under the name of the referee who made it; no anonymous referee
    credential exists unless one is configured."""
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"},
                        "display": {"operator_token": OPERATOR,
                                    "referees": [{"name": "王立", "token": "wang-pin-1"},
                                                 {"name": "李敏", "token": "li-pin-22"}]}}, "test")
    store = EventStore(tmp_path / "events.sqlite3")
    controller = Controller(cfg, store, _no_table)
    with TestClient(create_app(controller)) as c:
        me = c.get("/api/whoami", headers=bearer("li-pin-22")).json()
        assert me == {"role": "referee", "role_zh": "裁判", "name": "李敏"}
        assert c.get("/api/whoami", headers=bearer(OPERATOR)).json()["name"] == ""
        assert c.post("/api/referee/session/start", json={"minutes": 90}, headers=bearer("wang-pin-1")).status_code == 200
        assert c.post("/api/referee/session/end", json={}, headers=bearer("li-pin-22")).status_code == 200
        assert c.post("/api/referee/session/end", json={}, headers=bearer(OPERATOR)).status_code == 403
        trail = c.get("/api/actions").json()
        assert [(a["type"], a["by"], a["by_name"]) for a in trail] == [
            ("referee.session_start", "referee", "王立"), ("referee.session_end", "referee", "李敏")]
        assert all("client" not in a for a in trail)
    assert [ev.data["by_name"] for ev in store.since(0) if ev.type.startswith("referee.")] == ["王立", "李敏"]
    store.close()


@pytest.mark.parametrize("display, what", [
    ({"referees": [{"name": "王立", "token": "same-pin"}, {"name": "李敏", "token": "same-pin"}]}, "differ"),
    ({"referees": [{"name": "王立", "token": "pin-one"}, {"name": "王立", "token": "pin-two"}]}, "each name once"),
    ({"referee_token": "pin-one", "referees": [{"name": "王立", "token": "pin-one"}]}, "differ"),
    ({"referees": [{"name": "王立", "token": "123"}]}, "at least 6"),
])
def test_named_referee_credentials_are_checked_when_read(display: dict[str, Any], what: str) -> None:
    from table_controller.config import ConfigError

    with pytest.raises(ConfigError, match=what):
        parse_config({"table": {"link": "socket://127.0.0.1:9"}, "display": display}, "test")
