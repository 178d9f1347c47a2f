"""An action that reaches the service twice is done once (`web/replays.py`): a referee's double tap,
or a retry after the Wi-Fi lost the answer. Before, two penalties were recorded, and a second undo
undid a ruling nobody meant to touch. Real HTTP against a running service."""

from __future__ import annotations

import asyncio

import httpx

from table_controller.service import TableService
from table_controller.web.replays import Replays

REFEREE = "ref-replay"
SIM_SEED = 3


def _auth(key: str | None = None) -> dict[str, str]:
    return {"Authorization": f"Bearer {REFEREE}", **({"Idempotency-Key": key} if key else {})}


def _live(svc: TableService, type: str) -> list[dict]:
    return [a for a in svc.controller.state.actions if a["type"] == type and not a.get("undone")]


async def test_a_penalty_sent_twice_under_one_key_is_recorded_once(service: TableService) -> None:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        body = {"seat": "S", "code": "late_5"}
        first = await http.post("/api/referee/penalty", json=body, headers=_auth("k-1"))
        again = await http.post("/api/referee/penalty", json=body, headers=_auth("k-1"))
        assert first.status_code == again.status_code == 200
        assert again.json() == first.json() and again.headers["idempotent-replayed"] == "true"
        assert "idempotent-replayed" not in first.headers
        assert len(_live(service, "referee.penalty")) == 1
        # the same penalty pressed later is a new action (a new key): recorded
        third = await http.post("/api/referee/penalty", json=body, headers=_auth("k-2"))
        assert third.json()["seq"] > first.json()["seq"]
        # without a key every request acts, as before (scripts, curl)
        await http.post("/api/referee/penalty", json=body, headers=_auth())
        assert len(_live(service, "referee.penalty")) == 3


async def test_a_double_tap_arriving_together_acts_once(service: TableService) -> None:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        answers = await asyncio.gather(*(http.post("/api/referee/penalty", json={"seat": "W", "code": "late_5"},
                                                   headers=_auth("tap")) for _ in range(5)))
        assert {a.status_code for a in answers} == {200} and len({a.json()["seq"] for a in answers}) == 1
        assert len(_live(service, "referee.penalty")) == 1


async def test_a_repeated_undo_undoes_one_ruling(service: TableService) -> None:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        for seat, key in (("E", "p-E"), ("N", "p-N")):
            assert (await http.post("/api/referee/penalty", json={"seat": seat, "code": "late_5"},
                                    headers=_auth(key))).status_code == 200
        for _ in range(2):  # the answer to the first was lost; the referee presses again
            r = await http.post("/api/referee/undo", json={"reason": "记错了"}, headers=_auth("undo-1"))
            assert r.status_code == 200, r.text
        assert [a["seat"] for a in _live(service, "referee.penalty")] == ["E"]


async def test_a_refused_action_is_judged_afresh_and_a_reused_key_for_another_request_is_refused(
        service: TableService) -> None:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        refused = await http.post("/api/referee/undo", json={"reason": "x"}, headers=_auth("u"))
        assert refused.status_code == 409  # nothing to undo yet: nothing was done, nothing kept
        await http.post("/api/referee/penalty", json={"seat": "S", "code": "late_5"}, headers=_auth("p"))
        retried = await http.post("/api/referee/undo", json={"reason": "x"}, headers=_auth("u"))
        assert retried.status_code == 200 and not _live(service, "referee.penalty")
        other = await http.post("/api/referee/penalty", json={"seat": "E", "code": "late_5"}, headers=_auth("p"))
        assert other.status_code == 422 and "另一个请求" in other.json()["detail"]
        bad = await http.post("/api/referee/penalty", json={"seat": "E", "code": "late_5"},
                              headers=_auth("x" * 200))
        assert bad.status_code == 400
        assert not _live(service, "referee.penalty")  # neither acted


async def test_keys_expire_and_the_kept_answers_are_bounded() -> None:
    now = [0.0]
    calls: list[bytes] = []

    async def app(scope, receive, send):  # type: ignore[no-untyped-def]
        message = await receive()
        calls.append(message["body"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    replays = Replays(app, keep=3, keep_s=60, clock=lambda: now[0])

    async def post(key: bytes) -> None:
        sent: list[dict] = []

        async def receive():  # type: ignore[no-untyped-def]
            return {"type": "http.request", "body": key, "more_body": False}

        async def send(message):  # type: ignore[no-untyped-def]
            sent.append(message)

        await replays({"type": "http", "method": "POST", "path": "/a", "query_string": b"",
                       "headers": [(b"idempotency-key", key)]}, receive, send)

    for key in (b"a", b"a", b"b", b"c", b"d", b"a"):
        await post(key)
    assert calls == [b"a", b"b", b"c", b"d", b"a"]  # the 4th key pushed the oldest out
    now[0] = 61.0
    await post(b"d")
    assert calls[-1] == b"d"  # expired: acts again


async def test_an_action_repeated_after_a_restart_that_lost_its_answer_is_not_done_again(tmp_path) -> None:
    """The service writes the referee's penalty and dies before answering (a power cut, kill -9); the
    page, its answer lost, asks again under the same key once the service is back. Before, the
    restarted service had forgotten the key (kept in memory only) and recorded the penalty a second
    time. Now the key is kept in the log with the action's event: the repeat is answered from the
    log (same #, `Idempotent-Replayed`), the same key for another request is still refused, and an
    action the log does not hold is done."""
    from table_controller.config import parse_config

    config = parse_config({"table": {"link": "sim://", "sim_seed": SIM_SEED, "sim_speed": 1000.0},
                           "display": {"port": 0, "operator_token": "op", "referee_token": REFEREE}}, source="test")
    body = {"seat": "S", "code": "late_5"}
    first = TableService(config, tmp_path)
    await first.start()
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{first.port}") as http:
            answer = await http.post("/api/referee/penalty", json=body, headers=_auth("k-power-cut"))
            assert answer.status_code == 200, answer.text
    finally:
        await first.stop()
    again = TableService(config, tmp_path)
    await again.start()
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{again.port}") as http:
            asked = await http.get("/api/requests/k-power-cut", headers=_auth())  # asked, not sent: from the log too
            assert asked.status_code == 200 and asked.json()["seq"] == answer.json()["seq"]
            repeat = await http.post("/api/referee/penalty", json=body, headers=_auth("k-power-cut"))
            assert repeat.status_code == 200 and repeat.headers.get("Idempotent-Replayed") == "true"
            assert repeat.json() == answer.json()
            assert len(_live(again, "referee.penalty")) == 1
            other = await http.post("/api/referee/penalty", json={"seat": "W", "code": "late_5"},
                                    headers=_auth("k-power-cut"))
            assert other.status_code == 422 and len(_live(again, "referee.penalty")) == 1
            fresh = await http.post("/api/referee/penalty", json=body, headers=_auth("k-next"))
            assert fresh.status_code == 200 and len(_live(again, "referee.penalty")) == 2
    finally:
        await again.stop()


async def test_a_page_asks_whether_an_action_was_done_without_doing_it(service: TableService) -> None:
    """`GET /api/requests/{key}`: the page that lost an answer learns the action's fate without sending it
    again (which did it, possibly minutes late, when it had not arrived). An action asked about and not
    found is given up: its request, landing afterwards over a slow link, is refused, not done."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        body = {"seat": "S", "code": "late_5"}
        done = await http.post("/api/referee/penalty", json=body, headers=_auth("asked-1"))
        asked = await http.get("/api/requests/asked-1", headers=_auth())
        assert asked.status_code == 200 and asked.json()["seq"] == done.json()["seq"]
        assert asked.headers["idempotent-replayed"] == "true"
        other = await http.get("/api/requests/asked-1", headers={"Authorization": "Bearer someone-else"})
        assert other.status_code == 404  # keys are per credential: another's key tells nothing
        missing = await http.get("/api/requests/never-sent", headers=_auth())
        assert missing.status_code == 404 and "未记录" in missing.json()["detail"]
        late = await http.post("/api/referee/penalty", json=body, headers=_auth("never-sent"))
        assert late.status_code == 409 and "太晚" in late.json()["detail"]
        assert len(_live(service, "referee.penalty")) == 1
        refused = await http.post("/api/referee/penalty", json={"seat": "S", "code": "no_such"}, headers=_auth("r-1"))
        assert refused.status_code == 422
        assert (await http.get("/api/requests/r-1", headers=_auth())).status_code == 404  # refused: not done



async def test_a_key_that_is_none_is_refused_in_chinese_first_and_nothing_acts(service: TableService) -> None:
    """An empty, overlong or non-ASCII Idempotency-Key answered English alone ("Idempotency-Key: 1 to 128 ASCII
    characters"), the one refusal of the API a referee's page could meet that did."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        before = service.controller.state.seq
        for key in (b"", b"k" * 129, "牌".encode()):
            r = await http.post("/api/referee/penalty", json={"seat": "S", "code": "late_5"},
                                headers=[(b"Authorization", f"Bearer {REFEREE}".encode()), (b"Idempotency-Key", key)])
            assert r.status_code == 400 and r.json()["detail"].startswith("Idempotency-Key 须为 1 至 128 个 ASCII 字符 / ")
        r = await http.get("/api/requests/" + "k" * 129, headers=_auth())
        assert r.status_code == 400 and r.json()["detail"].startswith("Idempotency-Key 须为")
        assert service.controller.state.seq == before
