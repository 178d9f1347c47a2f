"""The referee API over a real app and a real SQLite log: every role against every action, bad input
answered with a 4xx that says what is wrong, and the public channels free of concealed tiles."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.websockets import WebSocketDisconnect

from table_controller.config import parse_config
from table_controller.controller import Controller
from table_controller.store import EventStore
from table_controller.web.app import create_app
from table_controller.web.auth import Credentials

REFEREE, OPERATOR = "ref-pin-2468", "op-pin-1357"
WIN_HAND = {"seat_wind": "N", "prevalent_wind": "E", "melds": [],
            "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p".split(),
            "win_tile": "2p", "win": "discard", "discarder": "E"}


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(f"nothing at {url}")


def _client(tmp_path: Path, max_failures: int = 50) -> TestClient:
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test")
    store = EventStore(tmp_path / "events.sqlite3")
    controller = Controller(cfg, store, _no_table)
    controller.accept("operator", "operator.hand_start", {
        "hand_no": 1, "ruleset": "mcr", "dealer_position": 1, "prevalent_wind": "E",
        "seats": {"E": 1, "S": 2, "W": 3, "N": 4}})
    for wind, dice in (("E", [3, 4]), ("W", [2, 5])):  # the table's two throws (7 counts to W): the wall is broken
        controller.accept("table", "table.dice", {"seat": wind, "wind": wind, "dice": dice})
    app = create_app(controller, Credentials(referee=REFEREE, operator=OPERATOR, max_failures=max_failures))
    c = TestClient(app)
    c.controller = controller  # type: ignore[attr-defined]
    c.store = store  # type: ignore[attr-defined]
    return c


@pytest.fixture
def client(tmp_path: Path):
    c = _client(tmp_path)
    with c:
        yield c
    c.store.close()  # type: ignore[attr-defined]


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def _prepare_win(c: TestClient) -> None:
    assert c.post("/api/referee/win", json={"hand": WIN_HAND}, headers=bearer(REFEREE)).status_code == 200


def _prepare_penalty(c: TestClient) -> None:
    assert c.post("/api/referee/penalty", json={"seat": "S", "code": "late_5"}, headers=bearer(REFEREE)).status_code == 200


# (path, body, least role, setup, status the allowed roles get)
ACTIONS = [
    ("/api/hand/start", {}, "operator", None, 409),  # no table linked: a reason, not a 500
    ("/api/hand/end", {"result": "draw"}, "operator", None, 200),
    ("/api/play", {"type": "discard", "seat": "E", "tile": "9p"}, "operator", None, 200),
    ("/api/referee/penalty", {"seat": "W", "code": "empty_claim"}, "referee", None, 200),
    ("/api/referee/win", {"hand": WIN_HAND}, "referee", None, 200),
    ("/api/referee/win/confirm", {}, "referee", _prepare_win, 200),
    ("/api/referee/undo", {"reason": "判错了"}, "referee", _prepare_penalty, 200),
    ("/api/referee/session/start", {"minutes": 90}, "referee", None, 200),
    ("/api/referee/session/end", {}, "referee", None, 200),
    # 查叫 while the hand is in play (and in MCR, which has none): a reason, nothing logged
    ("/api/referee/exhaustive", {"hands": {"E": {"concealed": "123456789m 1112p"}}}, "referee", None, 409),
    ("/api/referee/exhaustive/camera", {}, "referee", None, 409),
    # a new round while hand 1 is in play: a reason, nothing changed
    ("/api/referee/round", {"round": 2, "players": {"1": "戊", "2": "己", "3": "庚", "4": "辛"}}, "referee", None, 409),
]
ROLES = {"viewer": None, "operator": OPERATOR, "referee": REFEREE}
RANK = ["viewer", "operator", "referee"]


@pytest.mark.parametrize("path,body,least,setup,ok", ACTIONS, ids=[a[0] for a in ACTIONS])
@pytest.mark.parametrize("who", ["viewer", "operator", "referee", "wrong"])
def test_every_role_against_every_action(client: TestClient, who: str, path: str, body: dict[str, Any],
                                         least: str, setup: Any, ok: int) -> None:
    if setup:
        setup(client)
    head = client.controller.state.seq  # type: ignore[attr-defined]
    r = client.post(path, json=body, headers=bearer("not-a-pin" if who == "wrong" else ROLES[who]))
    if who == "wrong":
        assert r.status_code == 401 and "credential" in r.json()["detail"]
    elif RANK.index(who) < RANK.index(least):
        assert r.status_code == 403 and least in r.json()["detail"]
    else:
        assert r.status_code == ok, r.text
        if ok == 200:
            seq = r.json()["seq"]
            ev = client.store.since(seq - 1, 1)[0]  # type: ignore[attr-defined]
            assert ev.data["by"] == who and ev.source == (who if path == "/api/play" else ev.source)
            # who acted is in the log, with the time
            assert ev.at > 0
    if r.status_code != 200:
        assert client.controller.state.seq == head  # type: ignore[attr-defined]  # nothing was logged


def test_referee_state_needs_the_referee(client: TestClient) -> None:
    _prepare_win(client)
    assert client.get("/api/referee/state").status_code == 403
    assert client.get("/api/referee/state", headers=bearer(OPERATOR)).status_code == 403
    r = client.get("/api/referee/state", headers=bearer(REFEREE))
    assert r.status_code == 200 and r.json()["win"]["hand"]["concealed"] == WIN_HAND["concealed"]


def test_public_endpoints_show_fans_but_no_concealed_tile(client: TestClient) -> None:
    client.post("/api/play", json={"type": "kong", "seat": "W", "tiles": ["7s"] * 4, "concealed": True},
                headers=bearer(OPERATOR))
    _prepare_win(client)
    state = client.get("/api/state").json()
    assert state["win"]["result"]["fans"] and state["win"]["hand"] is None
    text = json.dumps(state) + client.get("/api/events").text
    for tile in ("1m", "9m", "7s", "2p"):
        assert f'"{tile}"' not in text
    assert "ref-pin" not in text


def test_a_concealed_kong_keyed_with_a_single_tile_names_no_tile_in_public(tmp_path: Path) -> None:
    """`POST /api/play` took a `tile` beside a concealed kong's `tiles` (a keying script naming the kong by its
    tile, as it names a discard) and the public event and the hand's record (the replay's `play`) carried it:
    the kong lay face down and its tile was in every public read. Now the API refuses a `tile` on a kong (its
    tiles go in `tiles`), and one already in a log is not shown in public."""
    c = _client(tmp_path)
    with c:
        r = c.post("/api/play", json={"type": "kong", "seat": "E", "tiles": ["7s"] * 4, "concealed": True,
                                      "tile": "7s"}, headers=bearer(OPERATOR))
        assert r.status_code == 422 and r.json()["detail"][0].startswith("杠不用单张的牌"), r.text
        assert c.controller.state.seq == 3  # type: ignore[attr-defined]  # nothing logged
        # a log written before the refusal (or by another client of the fold) holds one
        c.controller.accept("operator", "play.kong", {"seat": "E", "tiles": ["7s"] * 4, "concealed": True,  # type: ignore[attr-defined]
                                                      "added": False, "tile": "7s", "by": "operator"})
        text = c.get("/api/events").text + c.get("/api/hands/1/record").text + c.get("/api/state").text
        assert "7s" not in text, text
        assert "7s" in c.get("/api/referee/state", headers=bearer(REFEREE)).text  # the check finds it where it may be
    c.store.close()  # type: ignore[attr-defined]


def test_bad_requests_say_what_is_wrong(client: TestClient) -> None:
    h = bearer(REFEREE)
    r = client.post("/api/referee/penalty", json={"seat": "X", "code": "late_5"}, headers=h)
    assert r.status_code == 422 and any("seat" in d for d in r.json()["detail"])
    r = client.post("/api/referee/penalty", json={"seat": "E", "code": "no_such"}, headers=h)
    assert r.status_code == 422 and "late_5" in r.json()["detail"]
    r = client.post("/api/referee/penalty", json={"seat": "E", "code": "exposed_other", "amount": 7, "victim": "S"}, headers=h)
    assert r.status_code == 422 and "5" in r.json()["detail"]
    r = client.post("/api/referee/penalty", json={"seat": "E", "code": "exposed_other", "amount": 10}, headers=h)
    assert r.status_code == 422 and "victim" in r.json()["detail"]
    r = client.post("/api/referee/win", json={"hand": {**WIN_HAND, "win_tile": "9x"}}, headers=h)
    assert r.status_code == 422 and "win_tile" in r.json()["detail"]
    r = client.post("/api/referee/win", json={"hand": {**WIN_HAND, "win": "self_draw"}}, headers=h)  # discarder E
    assert r.status_code == 422 and r.json()["detail"].startswith("自摸没有点炮方"), r.text
    r = client.post("/api/referee/undo", json={"reason": ""}, headers=h)
    assert r.status_code == 422 and any("reason" in d for d in r.json()["detail"])
    r = client.post("/api/referee/undo", json={"reason": "x"}, headers=h)
    assert r.status_code == 409 and "撤销" in r.json()["detail"]
    r = client.post("/api/referee/win/confirm", headers=h)
    assert r.status_code == 409 and "读牌" in r.json()["detail"]
    r = client.post("/api/play", json={"type": "discard", "seat": "E"}, headers=bearer(OPERATOR))
    assert r.status_code == 422 and "tile" in json.dumps(r.json())
    r = client.post("/api/referee/penalty", content=b"{not json", headers={**h, "Content-Type": "application/json"})
    assert r.status_code == 422


def test_a_malformed_request_is_said_in_the_referees_words_first(client: TestClient) -> None:
    """A negative amount answered only "body.amount: Input should be greater than or equal to 0" on
    the referee's page; each problem now starts in Chinese, naming the field as the page does."""
    h = bearer(REFEREE)
    r = client.post("/api/referee/penalty", json={"seat": "E", "code": "late_5", "amount": -5}, headers=h)
    assert r.status_code == 422
    assert r.json()["detail"] == ["罚分不能小于 0 / body.amount: Input should be greater than or equal to 0"]
    r = client.post("/api/dice", json={"seat": "E", "dice": [3, 9]}, headers=bearer(OPERATOR))
    assert r.json()["detail"][0].startswith("骰子不能大于 6 / body.dice.1: ")
    r = client.post("/api/referee/undo", json={}, headers=h)
    assert r.json()["detail"][0].startswith("缺少理由 / body.reason: ")
    r = client.post("/api/referee/penalty", json={"seat": "X", "code": "late_5", "note": "x" * 201}, headers=h)
    said = [d.split(" / ")[0] for d in r.json()["detail"]]
    assert said == ["座位须为 E、S、W、N 之一", "备注太长（最多 200 个字）"], said
    r = client.post("/api/referee/penalty", content=b"{not json", headers={**h, "Content-Type": "application/json"})
    assert r.json()["detail"][0].startswith("请求不是合法的 JSON / ")


ENDPOINTS = ["/api/referee/penalty", "/api/referee/win", "/api/referee/undo", "/api/referee/session/start",
             "/api/play", "/api/hand/end", "/api/referee/win/confirm", "/api/referee/exhaustive",
             "/api/referee/exhaustive/camera", "/api/referee/win/camera", "/api/referee/camera/confirm", "/api/dice",
             "/api/referee/round"]
json_values = st.recursive(st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=8)
                           | st.sampled_from(["E", "S", "1m", "late_5", "discard", "pung", "exposed_other", "missing",
                                             "m", "z"]),
                           lambda kids: st.lists(kids, max_size=4) | st.dictionaries(
                               st.sampled_from(["seat", "code", "amount", "victim", "hand", "reason", "type",
                                                "tile", "tiles", "kind", "from", "minutes", "concealed",
                                                "win_tile", "seat_wind", "target", "result", "suit", "options",
                                                "points", "pays", "special", "wildcard", "horses", "dice"]),
                               kids, max_size=5),
                           max_leaves=12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(ENDPOINTS), body=json_values)
def test_no_input_gets_a_500(client: TestClient, path: str, body: Any) -> None:
    r = client.post(path, json=body, headers=bearer(REFEREE))
    assert r.status_code < 500, (path, body, r.text)
    if r.status_code >= 400:
        assert r.json().get("detail")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(hand=st.one_of(st.integers(-10**9, 10**9), st.text("abc-_.%~1234567890", max_size=6)),
       fmt=st.sampled_from(["json", "text", "xml", ""]))
def test_no_record_request_gets_a_500(client: TestClient, hand: Any, fmt: str) -> None:
    for path in (f"/api/hands/{hand}/record", f"/api/referee/hands/{hand}/record"):
        r = client.get(path, params={"format": fmt}, headers=bearer(REFEREE))
        assert r.status_code < 500, (path, r.text)
        r = client.get(path, params={"format": "json", "round": hand}, headers=bearer(REFEREE))
        assert r.status_code < 500, (path, r.text)
    for path in ("/api/scoresheet", "/api/scoresheet.csv", "/api/records"):
        r = client.get(path, params={"round": hand})
        assert r.status_code < 500, (path, r.text)


def test_a_sequence_number_past_sqlites_integers_is_refused_not_a_500(client: TestClient) -> None:
    """`/api/events?since=10**23` reached SQLite, which cannot hold the number: OverflowError, a 500."""
    r = client.get("/api/events", params={"since": 10**23})
    assert r.status_code == 422 and r.json()["detail"][0].startswith("编号不能大于 9223372036854775807 / query.since")
    assert [e["seq"] for e in client.get("/api/events", params={"since": 2**63 - 1}).json()] == []
    assert client.get("/api/health").json()["seq"] == 3


def test_nan_or_infinity_anywhere_in_a_body_is_refused_and_nothing_logged(client: TestClient) -> None:
    """Python's JSON parser takes NaN and Infinity, which JSON has not: a win read with `options: {"points": NaN}`
    was logged, and the referee's record of the hand (JSONResponse: no NaN) answered 500 from then on."""
    h = {**bearer(REFEREE), "Content-Type": "application/json"}
    before = client.store.last_seq()  # type: ignore[attr-defined]
    for options in ({"points": float("nan")}, {"x": [float("-inf")]}):  # json.dumps writes NaN, -Infinity
        body = json.dumps({"hand": {**WIN_HAND, "options": options}}).encode()
        r = client.post("/api/referee/win", content=body, headers=h)
        assert r.status_code == 422, r.text
        assert r.json()["detail"][0].startswith("请求中有 NaN 或 Infinity（JSON 没有这种数） / body: ")
    r = client.post("/api/referee/penalty", content=b'{"seat": "E", "code": "late_5", "amount": Infinity}', headers=h)
    assert r.status_code == 422 and "NaN 或 Infinity" in r.json()["detail"][0]
    assert client.store.last_seq() == before  # type: ignore[attr-defined]
    assert client.post("/api/referee/win", json={"hand": WIN_HAND}, headers=h).status_code == 200
    assert client.get("/api/referee/hands/1/record", headers=h).status_code == 200


def test_the_frameworks_own_refusals_are_said_in_chinese_first(client: TestClient) -> None:
    """A body nested 5,000 deep or not UTF-8, an unknown address, a method a route does not take: FastAPI
    answered its English alone ("There was an error parsing the body", "Not Found"); now the pages' words first."""
    h = {**bearer(REFEREE), "Content-Type": "application/json"}
    for body in (b"[" * 5000 + b"]" * 5000, b'{"note": "\xe9\xff"}'):
        r = client.post("/api/referee/penalty", content=body, headers=h)
        assert r.status_code == 400 and r.json() == {
            "detail": "请求内容无法解析（须为 UTF-8 编码的 JSON，嵌套不可过深） / There was an error parsing the body"}
    r = client.get("/api/hands/..%2F..%2Fetc%2Fpasswd/record")
    assert r.status_code == 404 and r.json() == {"detail": "没有这个地址 / Not Found"}
    r = client.put("/api/state")
    assert r.status_code == 405 and r.json()["detail"].startswith("此地址不接受这种请求方法 / ")
    assert r.headers["allow"] == "GET"
    r = client.get("/api/hands/9/record")  # the code's own words stay as they were
    assert r.status_code == 404 and r.json()["detail"].startswith("第 1 轮没有第 9 盘")
    assert client.get("/api/health").json()["seq"] == 3


def test_rounds_over_the_api_the_closed_one_stays_readable(client: TestClient) -> None:
    """Hand 1 ends with a penalty on it; the referee starts round 2: the score sheet, its CSV and the
    records answer for either round, and a round the table never played is a 404 that says so."""
    assert client.post("/api/referee/penalty", json={"seat": "S", "code": "late_5"}, headers=bearer(REFEREE)).status_code == 200
    assert client.post("/api/hand/end", json={"result": "draw"}, headers=bearer(OPERATOR)).status_code == 200
    body = {"round": 2, "players": {"1": "戊", "2": "己", "3": "庚", "4": "辛"}, "player_ids": {"1": "B101"}}
    assert client.post("/api/referee/round", json=body, headers=bearer(OPERATOR)).status_code == 403
    bad = client.post("/api/referee/round", json={**body, "players": {"1": "戊"}}, headers=bearer(REFEREE))
    assert bad.status_code == 422 and "缺 2、3、4 号位" in bad.json()["detail"]
    assert client.post("/api/referee/round", json=body, headers=bearer(REFEREE)).status_code == 200
    rounds = client.get("/api/rounds").json()
    assert [(r["round"], r["final"]) for r in rounds] == [(1, True), (2, False)]
    assert rounds[0]["totals"]["2"] == -10 and rounds[1]["players"]["1"] == "戊"
    now = client.get("/api/scoresheet").json()
    assert now["rows"] == [] and now["players"]["1"] == "戊"
    closed = client.get("/api/scoresheet", params={"round": 1}).json()
    assert closed["final"] and closed["round"] == 1 and closed["totals"]["2"] == -10
    csv = client.get("/api/scoresheet.csv", params={"round": 1})
    assert csv.status_code == 200 and "round1" in csv.headers["content-disposition"] and "最终" in csv.text
    assert "戊" not in csv.text  # round 1's sheet is under round 1's players
    rec = client.get("/api/hands/1/record", params={"round": 1})
    assert rec.status_code == 200 and rec.json()["round"] == 1
    assert client.get("/api/hands/1/record").status_code == 404  # round 2 has no hand yet
    every = client.get("/api/records", params={"all": "true"}).json()
    assert [(r["round"], r["hand_no"]) for r in every] == [(1, 1)]
    missing = client.get("/api/scoresheet", params={"round": 7})
    assert missing.status_code == 404 and "no round 7" in missing.json()["detail"]
    assert client.get("/api/records", params={"round": 7}).status_code == 404


def test_scoresheet_json_and_csv(client: TestClient) -> None:
    _prepare_win(client)
    client.post("/api/referee/win/confirm", headers=bearer(REFEREE))
    sheet = client.get("/api/scoresheet").json()
    assert sheet["rows"][0]["result"] == "win" and sum(sheet["totals"].values()) == 0
    r = client.get("/api/scoresheet.csv")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    assert "标准分" in r.text and "attachment" in r.headers["content-disposition"]


def test_penalty_catalogue_is_public(client: TestClient) -> None:
    cat = client.get("/api/penalties").json()
    assert cat["ruleset"] == "mcr" and {"false_win", "late_5", "warning"} <= {i["code"] for i in cat["items"]}
    # 出处 as a referee can look it up: the rule text's title, not the project's "seed 000"
    assert cat["source"].startswith("《麻将比赛规则》范文十篇 范文四 八、处罚方式") and "seed" not in cat["source"]


def test_referee_socket_authenticates_by_first_message(client: TestClient) -> None:
    _prepare_win(client)
    for token, code in ((None, 4401), (OPERATOR, 4403), ("guess", 4401)):
        with client.websocket_connect("/ws/referee") as ws:
            ws.send_json({"token": token})
            msg = ws.receive_json()
            assert msg["type"] == "error" and msg["code"] == code
            with pytest.raises(WebSocketDisconnect):
                ws.receive_json()
    with client.websocket_connect("/ws/referee") as ws:
        ws.send_json({"token": REFEREE})
        snap = ws.receive_json()
        assert snap["type"] == "snapshot" and snap["state"]["win"]["hand"]["win_tile"] == "2p"
    with client.websocket_connect("/ws") as ws:
        snap = ws.receive_json()
        assert snap["state"]["view"] == "public" and '"2p"' not in json.dumps(snap)


def _next_event(ws: Any) -> dict[str, Any]:
    """The next numbered message, past the link-health refreshes that interleave with them."""
    while (msg := ws.receive_json())["type"] == "health":
        assert "link" in msg["health"]
    return msg


def test_public_socket_redacts_live_events_and_resyncs(client: TestClient) -> None:
    head = client.controller.state.seq  # type: ignore[attr-defined]
    with client.websocket_connect("/ws") as ws:
        assert ws.receive_json()["type"] == "snapshot"
        _prepare_win(client)
        msg = _next_event(ws)
        assert msg["event"]["type"] == "referee.win_read" and "hand" not in msg["event"]["data"]
        assert msg["state"]["win"]["seat"] == "N" and msg["now"] > 0
    _prepare_penalty(client)
    with client.websocket_connect(f"/ws?since={head}") as ws:
        got = [_next_event(ws) for _ in range(2)]
    assert [m["seq"] for m in got] == [head + 1, head + 2] and got[-1]["state"] is not None
    assert '"1m"' not in json.dumps(got)


def test_delayed_broadcast_holds_back_recent_events(client: TestClient) -> None:
    _prepare_penalty(client)
    with client.websocket_connect("/ws?delay=600") as ws:
        snap = ws.receive_json()
        assert snap["delay"] == 600 and snap["state"]["actions"] == []  # the penalty is not out yet
    with client.websocket_connect("/ws?delay=-1") as ws:
        refused = ws.receive_json()
        assert refused["code"] == 4422 and refused["detail"].startswith("delay 须为 0 至 3600 秒")
        with pytest.raises(WebSocketDisconnect):
            ws.receive_json()


def test_openapi_documents_the_referee_api(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    paths = spec["paths"]
    for p in ("/api/referee/penalty", "/api/referee/win", "/api/referee/undo", "/api/scoresheet.csv", "/api/play"):
        assert p in paths
    assert "PenaltyIn" in spec["components"]["schemas"]


def test_delayed_broadcast_releases_an_event_after_the_delay(client: TestClient) -> None:
    import time

    with client.websocket_connect("/ws?delay=1") as ws:
        snap = ws.receive_json()
        assert snap["state"]["actions"] == []
        posted = time.monotonic()
        _prepare_penalty(client)
        msg = ws.receive_json()
        # the fixture's hand start, a moment earlier; and the feed's `alive` while it holds events back
        while msg["type"] != "event" or msg["event"]["type"] != "referee.penalty":
            msg = ws.receive_json()
        waited = time.monotonic() - posted
        assert msg["event"]["type"] == "referee.penalty" and msg["state"]["actions"][-1]["code"] == "late_5"
        assert waited >= 0.9


def test_keyed_play_follows_turn_order(client: TestClient) -> None:
    op = bearer(OPERATOR)

    def play(**body: Any) -> Any:
        return client.post("/api/play", json=body, headers=op)

    assert play(type="deal_done").status_code == 200
    r = play(type="discard", seat="S", tile="1z")
    assert r.status_code == 409 and "东" in r.json()["detail"]  # the dealer discards first
    assert play(type="discard", seat="E", tile="1z").status_code == 200
    r = play(type="claim", seat="W", kind="chow", tiles=["1z", "2z", "3z"], **{"from": "E"})
    assert r.status_code == 409 and "顺子" in r.json()["detail"]  # honours make no run
    r = play(type="claim", seat="W", kind="pung", tiles=["5z"] * 3, **{"from": "E"})
    assert r.status_code == 409 and "1z" in r.json()["detail"]
    assert play(type="claim", seat="W", kind="pung", tiles=["1z"] * 3, **{"from": "E"}).status_code == 200
    r = play(type="claim", seat="N", kind="pung", tiles=["1z"] * 3, **{"from": "E"})
    assert r.status_code == 409  # already claimed
    assert play(type="discard", seat="W", tile="9p").status_code == 200
    r = play(type="claim", seat="S", kind="chow", tiles=["7p", "8p", "9p"], **{"from": "W"})
    assert r.status_code == 409 and "上家" in r.json()["detail"]  # S's 上家 is E
    assert play(type="claim", seat="N", kind="chow", tiles=["7p", "8p", "9p"], **{"from": "W"}).status_code == 200


def test_win_read_counts_the_tiles_the_table_shows(client: TestClient) -> None:
    op = bearer(OPERATOR)
    for body in ({"type": "deal_done"}, {"type": "discard", "seat": "E", "tile": "5z"},
                 {"type": "claim", "seat": "W", "kind": "pung", "tiles": ["5z"] * 3, "from": "E"},
                 {"type": "discard", "seat": "W", "tile": "2p"}, {"type": "discard", "seat": "N", "tile": "2p"},
                 {"type": "discard", "seat": "E", "tile": "2p"}):
        assert client.post("/api/play", json=body, headers=op).status_code == 200, body
    _prepare_win(client)  # N wins on E's 2p
    hand = client.get("/api/referee/state", headers=bearer(REFEREE)).json()["win"]["hand"]
    assert hand["visible"] == {"5z": 3, "2p": 2}  # W's pung, and two 2p besides the one won on


def test_openapi_describes_what_the_gets_return(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    state = schemas["StateOut"]["properties"]
    for key in ("seq", "hand", "faults", "link", "camera_pending", "scoresheet", "now"):
        assert key in state
    ok = spec["paths"]["/api/state"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok["$ref"].endswith("/StateOut")
    assert "EventOut" in schemas and "HealthOut" in schemas
    # the schema is what the server really sends
    body = client.get("/api/state").json()
    assert set(schemas["StateOut"]["required"]) <= set(body)


def test_a_name_that_reads_as_a_formula_is_text_in_the_csv(client: TestClient) -> None:
    """A player keyed as `=HYPERLINK(...)` (or a name from a table over MQTT) was written as is: Excel and WPS
    run it as a formula when the referee opens the sheet. Now text starting =, +, -, @ gets an apostrophe; the
    scores stay numbers (a negative one too)."""
    import csv as csvmod
    import io

    from table_controller.spreadsheet import cell
    from table_controller.tournament.web import standings_to_csv

    evil = '=HYPERLINK("http://x.example/","点我")'
    assert client.post("/api/referee/penalty", json={"seat": "S", "code": "late_5"}, headers=bearer(REFEREE)).status_code == 200
    assert client.post("/api/hand/end", json={"result": "draw"}, headers=bearer(OPERATOR)).status_code == 200
    body = {"round": 2, "players": {"1": evil, "2": "@己", "3": "+庚", "4": "辛"}}
    assert client.post("/api/referee/round", json=body, headers=bearer(REFEREE)).status_code == 200
    rows = list(csvmod.reader(io.StringIO(client.get("/api/scoresheet.csv").text.lstrip("\ufeff"))))
    assert rows[0][5:8] == ["'" + evil + " 本盘", "'@己 本盘", "'+庚 本盘"]
    assert not any(c.startswith(("=", "+", "@")) for row in rows for c in row)
    first = list(csvmod.reader(io.StringIO(client.get("/api/scoresheet.csv", params={"round": 1}).text)))
    assert "-10" in first[-2]  # 合计: a score is a number, not text
    st = {"players": [{"rank": 1, "name": "-甲", "id": "=1+1", "table_points": 4, "points": -10, "tables": []}]}
    line = list(csvmod.reader(io.StringIO(standings_to_csv(st).lstrip("\ufeff"))))[1]
    assert line == ["1", "'-甲", "'=1+1", "4", "-10"]
    assert (cell(-3), cell("\t=x"), cell("甲=乙")) == (-3, "'\t=x", "甲=乙")


def test_a_read_claiming_kong_replacement_without_a_kong_is_refused_in_the_referees_words(client: TestClient) -> None:
    """杠上开花 with no kong among the melds cannot happen: the read is refused with why, Chinese
    first (before: accepted and scored 杠上开花); the same win after W's kong is scored as one."""
    h = bearer(REFEREE)
    hand = {"seat_wind": "W", "prevalent_wind": "E", "win": "kong_replacement", "win_tile": "2p", "melds": [],
            "concealed": "7s 7s 7s 1m 2m 3m 4m 5m 6m 7m 8m 9m 2p".split()}
    r = client.post("/api/referee/win", json={"hand": hand}, headers=h)
    said = r.json()["detail"]  # the check's own words are Chinese first already: no gist before them, the field after
    assert r.status_code == 422 and said.startswith("杠上开花须有杠: 副露中没有杠") and said.endswith("(hand.win)"), said
    for seat, tile in (("E", "1z"), ("S", "2z")):  # W's turn: the dealer plays first
        assert client.post("/api/play", json={"type": "discard", "seat": seat, "tile": tile},
                           headers=bearer(OPERATOR)).status_code == 200
    assert client.post("/api/play", json={"type": "kong", "seat": "W", "tiles": ["7s"] * 4, "concealed": True},
                       headers=bearer(OPERATOR)).status_code == 200
    kong = {**hand, "win": "self_draw", "melds": [{"type": "kong", "tiles": ["7s"] * 4, "concealed": True}],
            "concealed": hand["concealed"][3:]}
    assert client.post("/api/referee/win", json={"hand": kong}, headers=h).status_code == 200
    read = client.controller.state.actions[-1]  # type: ignore[attr-defined]
    assert read["hand"]["win"] == "kong_replacement" and "杠上开花" in [f["name"] for f in read["result"]["fans"]]
