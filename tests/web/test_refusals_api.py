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


async def test_a_name_with_an_invisible_or_control_character_is_refused_and_says_which(service: TableService) -> None:
    """A player's name or number pasted with a zero-width space (a chat app's copy), a line break, a NUL or a
    right-to-left override was taken: "甲\\u200b" beside "甲" passed 同一选手不能占两个号位 and the hub would count two
    players; a name of a zero-width space alone seated nobody anyone could see; a line break split the record's
    line, and U+202E turned the rest of a text record's line (the scores) round. Now 422, naming the chair and
    the character, nothing logged; a name with a space inside (Anna Li, 欧阳 娜) is still a name."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        seated = {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}
        for field, chair, value, said in (
                ("players", "2", "甲\u200b", "2号位的选手含不可见或控制字符（第 2 个字 U+200B）"),
                ("players", "1", "\u200b", "1号位的选手含不可见或控制字符（第 1 个字 U+200B）"),
                ("players", "3", "丙\n第2盘", "3号位的选手含不可见或控制字符（第 2 个字 U+000A）"),
                ("players", "4", "\u202e丁 +32", "4号位的选手含不可见或控制字符（第 1 个字 U+202E）"),
                ("player_ids", "1", "A01\x00", "1号位的选手编号含不可见或控制字符（第 4 个字 U+0000）")):
            body = {"round": 1, "players": {**seated, **({chair: value} if field == "players" else {})},
                    **({"player_ids": {chair: value}} if field == "player_ids" else {})}
            r = await http.post("/api/referee/round", json=body, headers=AUTH)
            assert r.status_code == 422 and r.json()["detail"][0].startswith(said), (value, r.text)
        for body, said in (({"name": "戊\u200d"}, "替补选手含不可见或控制字符（第 2 个字 U+200D）"),
                           ({"name": "戊", "player_id": "\ufeffB07"}, "替补选手编号含不可见或控制字符（第 1 个字 U+FEFF）")):
            r = await http.post("/api/referee/substitute", json={"position": "1", "reason": "伤病", **body}, headers=AUTH)
            assert r.status_code == 422 and r.json()["detail"][0].startswith(said), (body, r.text)
        assert service.controller.state.rounds == [] and not service.controller.state.actions
        r = await http.post("/api/referee/round", json={"round": 1, "players": {**seated, "1": "Anna Li", "2": "欧阳 娜"}},
                            headers=AUTH)
        assert r.status_code == 200, r.text
        assert service.controller.state.players == {1: "Anna Li", 2: "欧阳 娜", 3: "丙", 4: "丁"}


async def test_a_hand_number_past_sqlites_integers_is_refused_not_a_500(service: TableService) -> None:
    """`/api/hands/99999999999999999999/record` (the referee's too) reached the log's read, which cannot hold the
    number: OverflowError, a 500 to anyone on the venue's Wi-Fi. Now 422 naming the hand number, as `?since=` is."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        for number, said in (("99999999999999999999", "盘号不能大于 9223372036854775807 / path.hand_no"),
                             ("9223372036854775808", "盘号不能大于 9223372036854775807 / path.hand_no"),
                             ("-9223372036854775809", "盘号不能小于 1 / path.hand_no"), ("0", "盘号不能小于 1 / path.hand_no")):
            for path in (f"/api/hands/{number}/record", f"/api/referee/hands/{number}/record?format=text"):
                r = await http.get(path, headers=AUTH)
                assert r.status_code == 422 and r.json()["detail"][0].startswith(said), (path, r.status_code, r.text)
        r = await http.get("/api/hands/9223372036854775807/record")  # the last number SQLite holds: no such hand
        assert r.status_code == 404 and "9223372036854775807" in r.json()["detail"], r.text
        assert (await http.get("/api/health")).status_code == 200


async def test_a_win_read_whose_win_is_an_object_or_a_list_is_refused_not_a_500(service: TableService) -> None:
    """A win read with `"win": {}` or `[]` (a script's slip, a page's field sent whole) was looked up among the
    self-drawn kinds before the hand was checked: unhashable, a 500 and nothing said. Now 422 naming `win` and the
    kinds it may be, as a misspelt kind is; nothing logged."""
    hand = {"seat_wind": "N", "prevalent_wind": "E", "melds": [], "win_tile": "2p", "discarder": "E",
            "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p".split()}
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        for win in ({}, [], ["self_draw"], {"self_draw": True}, "selfdraw"):
            await _refused(http, service, "/api/referee/win", {"hand": {**hand, "win": win}}, 422, "读牌有误 / hand.win: ")
        assert (await http.get("/api/health")).status_code == 200


async def test_a_reason_or_note_with_a_control_character_is_refused(service: TableService) -> None:
    """A referee's reasons and notes went into the record as typed: a line break split the text record's line and
    the CSV's row, U+202E turned the rest of the line round, a NUL and a BEL were kept. Now 422 naming the field and
    the character, nothing logged; an appeal and its decision keep the writer's line breaks (a reason of spaces
    alone is the controller's to refuse, in its own words: 撤销须说明理由, 更正须说明理由 …)."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        for path, body, said in (
                ("/api/referee/undo", {"reason": "误点\n第二行"}, "理由含不可见或控制字符（第 3 个字 U+000A）"),
                ("/api/referee/play/correct", {"target": 5, "void": True, "reason": "\u202e重复录入"},
                 "理由含不可见或控制字符（第 1 个字 U+202E）"),
                ("/api/referee/substitute", {"position": "1", "name": "戊", "reason": "伤病\x00"},
                 "理由含不可见或控制字符（第 3 个字 U+0000）"),
                ("/api/referee/penalty", {"seat": "S", "code": "late_5", "note": "迟到\x07"},
                 "备注含不可见或控制字符（第 3 个字 U+0007）"),
                ("/api/referee/session/pause", {"reason": "牌桌\u200b故障"}, "理由含不可见或控制字符（第 3 个字 U+200B）"),
                ("/api/referee/appeal", {"position": 2, "text": "不服\u202e判罚"}, "申诉内容含不可见或控制字符（第 3 个字 U+202E）"),
                ("/api/referee/appeal/ruling", {"appeal": 1, "upheld": False, "note": "驳回\r\n"},
                 "备注含不可见或控制字符（第 3 个字 U+000D）")):
            before = service.controller.state.seq
            r = await http.post(path, json=body, headers=AUTH)
            assert r.status_code == 422 and r.json()["detail"][0].startswith(said), (path, body, r.text)
            assert [e.type for e in service.controller.store.since(before) if e.source == "referee"] == []
        r = await http.post("/api/referee/appeal", json={"position": 2, "text": "第一点：……\n第二点：……"}, headers=AUTH)
        assert r.status_code == 200, r.text
        r = await http.post("/api/referee/appeal/ruling", json={"appeal": r.json()["seq"], "upheld": False,
                                                                 "note": "一、……\n二、……"}, headers=AUTH)
        assert r.status_code == 200, r.text
        kept = [e.data for e in service.controller.store.since(0) if e.type.startswith("referee.appeal")]
        assert [d.get("text") or d.get("note") for d in kept] == ["第一点：……\n第二点：……", "一、……\n二、……"]
