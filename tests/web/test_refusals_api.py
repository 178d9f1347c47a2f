"""The referee's refusals over real HTTP, in the words the controller gives every other path
(`tests/controller/test_acceptance_refusals.py`): 422 or 409, Chinese first, nothing logged."""

from __future__ import annotations

from typing import Any

import httpx

from table_controller.service import TableService

REFEREE = "ref-pin-8642"
AUTH = {"Authorization": f"Bearer {REFEREE}"}


async def _refused(http: httpx.AsyncClient, svc: TableService, path: str, body: dict[str, Any], status: int,
                   words: str) -> None:
    before = svc.controller.state.seq
    r = await http.post(path, json=body, headers=AUTH)
    assert r.status_code == status and r.json()["detail"].startswith(words), r.text
    # nothing of the referee's logged (the table's own events, e.g. its link coming up, may arrive meanwhile)
    assert [e.type for e in svc.controller.store.since(before) if e.source == "referee"] == []


async def test_the_api_refuses_with_the_folds_words(service: TableService) -> None:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        await _refused(http, service, "/api/referee/penalty", {"seat": "S", "code": "late_5", "victim": "N"}, 422,
                       "迟到")
        r = await http.post("/api/referee/session/start", json={"minutes": 60}, headers=AUTH)
        assert r.status_code == 200
        await _refused(http, service, "/api/referee/session/start", {"minutes": 90}, 409,
                       f"比赛计时已在进行（#{r.json()['seq']}）")
        await _refused(http, service, "/api/referee/appeal", {"position": 1, "target": r.json()["seq"],
                                                               "text": "开始晚了"}, 409,
                       f"#{r.json()['seq']}（开始计时）不是裁判的裁决")
        await _refused(http, service, "/api/referee/round",
                       {"round": 2, "players": {"1": "戊", "2": "戊", "3": "庚", "4": "辛"}}, 422,
                       "同一选手不能占两个号位：戊")


async def test_a_chairs_entry_is_named_by_its_chair_not_by_its_number_alone(service: TableService) -> None:
    """A round's players are keyed by chair: an empty name read "1不能为空 / body.players.1", the chair's number
    as if it were the field's name. Now 1号位的选手不能为空; a key that is no chair, 号位须为 1、2、3、4 之一."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        for body, said in (
                ({"round": 1, "players": {"1": "", "2": "乙", "3": "丙", "4": "丁"}}, "1号位的选手不能为空 / body.players.1"),
                ({"round": 1, "players": {"1": "甲", "2": "乙", "3": "丙", "4": "丁" * 41}}, "4号位的选手太长"),
                ({"round": 1, "players": {"5": "甲"}}, "号位须为 1、2、3、4 之一 / body.players.5.[key]"),
                ({"round": 1, "players": {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}, "player_ids": {"2": 7}},
                 "2号位的选手编号有误"),
                ({"hands": {"X": {"concealed": "1m"}}}, "座位须为 E、S、W、N 之一 / body.hands.X.[key]")):
            path = "/api/referee/exhaustive" if "hands" in body else "/api/referee/round"
            r = await http.post(path, json=body, headers=AUTH)
            assert r.status_code == 422 and r.json()["detail"][0].startswith(said), (body, r.text)
        assert service.controller.state.rounds == [] and not service.controller.state.actions
