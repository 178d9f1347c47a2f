"""Two referees, one table (`table_controller/stale.py`): the floor referee and the head referee (or a
tablet and a phone) each have the referee page open and act on what it shows. Over real HTTP, two
clients against a running service on the simulated table and its SQLite log: an action on a view that
another page changed since is refused (409) naming what changed, who and when, and nothing accepted is
lost; the same action on a fresh view, or from an older page that sends no `seen`, is taken."""

from __future__ import annotations

from typing import Any

import httpx

from table_controller.service import TableService

from keyed_hand import dealt

REFEREE = "ref-two-4821"
REF = {"Authorization": f"Bearer {REFEREE}"}
SIM_SEED = 3
#: N wins on a self-drawn 2p (MCR: 清龙 and more), read first as N's, then corrected to W's
WIN = {"seat_wind": "N", "prevalent_wind": "E", "melds": [],
       "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p".split(), "win_tile": "2p", "win": "self_draw"}


def _client(svc: TableService) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=f"http://127.0.0.1:{svc.port}")


async def _seen(http: httpx.AsyncClient) -> int:
    """What a referee's page has in view: the state's `seq`, as its socket last sent it."""
    return int((await http.get("/api/referee/state", headers=REF)).json()["seq"])


def _live(svc: TableService, type: str) -> list[dict[str, Any]]:
    return [a for a in svc.controller.state.actions if a["type"] == type and not a.get("undone")]


async def test_a_win_confirmed_on_a_read_another_referee_corrected_since_is_refused_naming_the_correction(
        service: TableService) -> None:
    ctl = service.controller
    async with _client(service) as a, _client(service) as b:
        await dealt(service, a)
        assert (await a.post("/api/referee/win", json={"hand": WIN}, headers=REF)).status_code == 200
        seen_a = await _seen(a)  # A's Win page shows N's read
        fixed = await b.post("/api/referee/win", json={"hand": {**WIN, "seat_wind": "W"}, "seen": await _seen(b)},
                             headers=REF)
        assert fixed.status_code == 200, fixed.text  # B corrects it: W won
        head = ctl.state.seq
        r = await a.post("/api/referee/win/confirm", json={"seen": seen_a}, headers=REF)
        assert r.status_code == 409, r.text  # before: 200, W's win confirmed by a referee who saw N's
        said = r.json()["detail"]
        assert said.startswith("未执行：你的页面显示之后") and f"#{fixed.json()['seq']} 读牌（裁判" in said, said
        assert ctl.state.seq == head and not _live(service, "referee.win_confirm")  # nothing logged
        # A's second read of the same win on the old view would replace B's correction: refused too
        again = await a.post("/api/referee/win", json={"hand": WIN, "seen": seen_a}, headers=REF)
        assert again.status_code == 409 and ctl.state.seq == head
        # on the view as it is now the confirmation is taken, and it is B's read (W) that is confirmed
        ok = await a.post("/api/referee/win/confirm", json={"seen": await _seen(a)}, headers=REF)
        assert ok.status_code == 200, ok.text
        assert [w["seat"] for w in _live(service, "referee.win_confirm")] == ["W"]


async def test_a_confirmation_right_after_the_pages_own_read_is_taken_another_pages_read_still_refused(
        service: TableService) -> None:
    """The page's read answered (#N) and its socket not yet bringing #N: 确认和牌 pressed then was sent on the
    view before the page's own read and refused as stale, naming the page's own read. The page now names
    its own actions since its view (`mine`); another page's read in between is still refused."""
    ctl = service.controller
    async with _client(service) as a, _client(service) as b:
        await dealt(service, a)
        seen_a = await _seen(a)
        read = await a.post("/api/referee/win", json={"hand": WIN, "seen": seen_a}, headers=REF)
        assert read.status_code == 200, read.text
        own = read.json()["seq"]
        alone = await a.post("/api/referee/win/confirm", json={"seen": seen_a}, headers=REF)
        assert alone.status_code == 409 and f"#{own} " in alone.json()["detail"]  # what an older page still gets
        head = ctl.state.seq
        fixed = await b.post("/api/referee/win", json={"hand": {**WIN, "seat_wind": "W"}, "seen": await _seen(b)},
                             headers=REF)
        assert fixed.status_code == 200, fixed.text
        r = await a.post("/api/referee/win/confirm", json={"seen": seen_a, "mine": [own]}, headers=REF)
        assert r.status_code == 409 and f"#{fixed.json()['seq']} 读牌" in r.json()["detail"], r.text  # B's, unseen
        assert ctl.state.seq == head + 1 and not _live(service, "referee.win_confirm")
        undone = await b.post("/api/referee/undo", json={"reason": "读错", "target": fixed.json()["seq"]}, headers=REF)
        assert undone.status_code == 200, undone.text
        # B's read and its undo both unseen by A: still refused (an undo of a read changes the read)
        assert (await a.post("/api/referee/win/confirm", json={"seen": seen_a, "mine": [own]},
                             headers=REF)).status_code == 409
        late = await a.post("/api/referee/win/confirm", json={"seen": await _seen(a)}, headers=REF)
        assert late.status_code == 200, late.text
        assert [w["seat"] for w in _live(service, "referee.win_confirm")] == ["N"]
        # `mine` is checked, not logged
        assert all("mine" not in a and "seen" not in a for a in ctl.state.actions)
        bad = await a.post("/api/referee/win/confirm", json={"seen": 1, "mine": [0]}, headers=REF)
        assert bad.status_code == 422


async def test_the_pages_own_read_alone_since_its_view_lets_its_confirmation_through(service: TableService) -> None:
    async with _client(service) as a:
        await dealt(service, a)
        seen_a = await _seen(a)
        own = (await a.post("/api/referee/win", json={"hand": WIN, "seen": seen_a}, headers=REF)).json()["seq"]
        ok = await a.post("/api/referee/win/confirm", json={"seen": seen_a, "mine": [own]}, headers=REF)
        assert ok.status_code == 200, ok.text  # before: 409 naming the page's own read
        assert [w["seat"] for w in _live(service, "referee.win_confirm")] == ["N"]


async def test_an_older_page_without_seen_is_taken_as_before(service: TableService) -> None:
    async with _client(service) as a:
        await dealt(service, a)
        assert (await a.post("/api/referee/win", json={"hand": WIN}, headers=REF)).status_code == 200
        fixed = await a.post("/api/referee/win", json={"hand": {**WIN, "seat_wind": "W"}}, headers=REF)
        assert fixed.status_code == 200
        assert (await a.post("/api/referee/win/confirm", headers=REF)).status_code == 200
        assert [w["seat"] for w in _live(service, "referee.win_confirm")] == ["W"]


async def test_a_play_corrected_by_one_referee_is_not_corrected_again_on_the_others_older_view(
        service: TableService) -> None:
    ctl = service.controller
    async with _client(service) as a, _client(service) as b:
        play = await dealt(service, a)
        first = await play(type="discard", seat="E", tile="5m")
        second = await play(type="discard", seat="S", tile="1z")
        old = await _seen(b)  # B's Penalties page, e.g. offline for two minutes from here
        fix = await a.post("/api/referee/play/correct", json={"target": first, "tile": "5p", "reason": "五筒看成五万",
                                                              "seen": await _seen(a)}, headers=REF)
        assert fix.status_code == 200, fix.text
        head = ctl.state.seq
        late = await b.post("/api/referee/play/correct", json={"target": first, "tile": "6m", "reason": "应为六万",
                                                               "seen": old}, headers=REF)
        assert late.status_code == 409, late.text  # before: 200, 6m put on top of A's 5p, which B never saw
        assert f"#{fix.json()['seq']} 更正牌谱（裁判" in late.json()["detail"]
        assert ctl.state.seq == head and [d["tile"] for d in ctl.state.hand["discards"]["E"]] == ["5p"]
        # B's undo from that view, where nothing was to undo (no target): A's correction is not undone
        undo = await b.post("/api/referee/undo", json={"reason": "记错", "seen": old}, headers=REF)
        assert undo.status_code == 409 and f"#{fix.json()['seq']} 更正牌谱" in undo.json()["detail"], undo.text
        assert [d["tile"] for d in ctl.state.hand["discards"]["E"]] == ["5p"]
        # another play of the hand, untouched since B's view, is corrected from it
        other = await b.post("/api/referee/play/correct", json={"target": second, "tile": "2z", "reason": "南看成东",
                                                                "seen": old}, headers=REF)
        assert other.status_code == 200, other.text
        # an undo of A's correction after B's view refuses B's correction of that play too
        assert (await a.post("/api/referee/undo", json={"reason": "更正错了", "target": other.json()["seq"]},
                             headers=REF)).status_code == 200
        undone = await a.post("/api/referee/undo", json={"reason": "更正错了", "target": fix.json()["seq"]}, headers=REF)
        assert undone.status_code == 200, undone.text
        stale = await b.post("/api/referee/play/correct", json={"target": first, "void": True, "reason": "多记",
                                                                "seen": old}, headers=REF)
        assert stale.status_code == 409 and f"#{undone.json()['seq']} 撤销 #{fix.json()['seq']} 更正牌谱" in \
            stale.json()["detail"], stale.text


async def test_an_undo_from_a_second_tab_does_not_undo_a_ruling_it_never_saw(service: TableService) -> None:
    async with _client(service) as a, _client(service) as b:
        for seat in ("E", "N"):
            assert (await a.post("/api/referee/penalty", json={"seat": seat, "code": "late_5"},
                                 headers=REF)).status_code == 200
        last = _live(service, "referee.penalty")[-1]["seq"]  # both tabs show N's penalty as the last
        first = await a.post("/api/referee/undo", json={"reason": "记错了", "target": last}, headers=REF)
        assert first.status_code == 200
        second = await b.post("/api/referee/undo", json={"reason": "记错了", "target": last}, headers=REF)
        assert second.status_code == 409
        said = second.json()["detail"]  # before: only "只能撤销最后一次裁判操作（#n）", not why
        assert said.startswith(f"未撤销：#{last} 已被撤销（#{first.json()['seq']} 撤销 #{last} 罚分（裁判"), said
        assert [p["seat"] for p in _live(service, "referee.penalty")] == ["E"]  # E's penalty stands
        # a target that is no referee action is not said to have come before the last one
        wrong = await b.post("/api/referee/undo", json={"reason": "记错了", "target": 99999}, headers=REF)
        assert wrong.status_code == 409 and wrong.json()["detail"].startswith("未撤销：#99999 不是可撤销的裁判操作")


async def test_an_appeal_decided_on_one_page_is_not_decided_again_on_the_other(service: TableService) -> None:
    async with _client(service) as a, _client(service) as b:
        pen = (await a.post("/api/referee/penalty", json={"seat": "E", "code": "late_5"}, headers=REF)).json()["seq"]
        appeal = (await a.post("/api/referee/appeal", json={"position": 1, "target": pen, "text": "没有迟到"},
                               headers=REF)).json()["seq"]
        up = await a.post("/api/referee/appeal/ruling", json={"appeal": appeal, "upheld": True, "note": "录像为证"},
                          headers=REF)
        assert up.status_code == 200
        down = await b.post("/api/referee/appeal/ruling", json={"appeal": appeal, "upheld": False, "note": "维持"},
                            headers=REF)
        assert down.status_code == 409
        said = down.json()["detail"]  # before: "申诉 #n 已裁决", not which way nor by whom
        assert said.startswith(f"申诉 #{appeal} 已裁决：支持（#{up.json()['seq']} 申诉裁决（裁判") and "录像为证" in said
        waiting = service.controller.state.actions
        assert [a["upheld"] for a in waiting if a["type"] == "referee.appeal_ruling"] == [True]


async def test_two_substitutes_for_one_chair_from_views_of_the_same_age_seat_the_first(service: TableService) -> None:
    async with _client(service) as a, _client(service) as b:
        seen = await _seen(a)  # both pages show chair 2's player, before the round's first hand
        first = await a.post("/api/referee/substitute", json={"position": "2", "name": "壬", "reason": "伤病",
                                                              "seen": seen}, headers=REF)
        assert first.status_code == 200, first.text
        second = await b.post("/api/referee/substitute", json={"position": "2", "name": "癸", "reason": "弃权",
                                                               "seen": seen}, headers=REF)
        assert second.status_code == 409, second.text  # before: 200, 癸 replaced 壬, whom B never saw seated
        assert f"#{first.json()['seq']} 换人（裁判" in second.json()["detail"]
        assert [s["name"] for s in _live(service, "referee.substitute")] == ["壬"]
        # another chair, untouched since that view, is substituted from it
        other = await b.post("/api/referee/substitute", json={"position": "3", "name": "癸", "reason": "弃权",
                                                              "seen": seen}, headers=REF)
        assert other.status_code == 200, other.text


async def test_a_false_win_ruled_on_a_read_the_other_referee_confirmed_meanwhile_is_refused_and_back(
        service: TableService) -> None:
    """The Win page's 判诈和 and 确认和牌 act on the same read: one page confirms N's win while the other,
    on the view before it, rules N's 诈和. Before, both were taken: N paid for a false win and was paid
    for the win. Now the second is refused, whichever comes second; a penalty of another kind is not."""
    ctl = service.controller
    async with _client(service) as a, _client(service) as b:
        await dealt(service, a)
        assert (await a.post("/api/referee/win", json={"hand": WIN}, headers=REF)).status_code == 200
        seen = await _seen(a)
        won = await a.post("/api/referee/win/confirm", json={"seen": seen}, headers=REF)
        assert won.status_code == 200, won.text
        false = await b.post("/api/referee/penalty", json={"seat": "N", "code": "false_win", "seen": seen}, headers=REF)
        assert false.status_code == 409, false.text
        assert f"#{won.json()['seq']} 确认和牌（裁判" in false.json()["detail"]
        assert not _live(service, "referee.penalty")
        late = await b.post("/api/referee/penalty", json={"seat": "E", "code": "late_5", "seen": seen}, headers=REF)
        assert late.status_code == 200, late.text  # another ruling, not on the read: taken
        # the other way round: 诈和 ruled first (the confirmation undone, the read stands), then a confirmation
        # pressed on the view before it
        assert (await a.post("/api/referee/undo", json={"reason": "先处理迟到", "target": late.json()["seq"]},
                             headers=REF)).status_code == 200
        assert (await a.post("/api/referee/undo", json={"reason": "看错了", "target": won.json()["seq"]},
                             headers=REF)).status_code == 200
        seen = await _seen(a)
        false = await b.post("/api/referee/penalty", json={"seat": "N", "code": "false_win", "seen": seen}, headers=REF)
        assert false.status_code == 200, false.text
        head = ctl.state.seq
        again = await a.post("/api/referee/win/confirm", json={"seen": seen}, headers=REF)
        assert again.status_code == 409 and f"#{false.json()['seq']} 诈和/错和（裁判" in again.json()["detail"], again.text
        assert ctl.state.seq == head and not _live(service, "referee.win_confirm")


async def test_a_camera_tile_ruled_on_one_page_is_not_ruled_again_on_the_other(service: TableService) -> None:
    ctl = service.controller
    asked = ctl.accept("camera", "camera.tile_appeared", {
        "event": "appeared", "zone": "discard:S", "kind": "3f", "confidence": 0.4, "seat": "S", "track": 901,
        "needs_referee": True}).seq
    async with _client(service) as a, _client(service) as b:
        ok = await a.post("/api/referee/camera/confirm", json={"seq": asked, "kind": "5f"}, headers=REF)
        assert ok.status_code == 200, ok.text
        again = await b.post("/api/referee/camera/confirm", json={"seq": asked}, headers=REF)
        assert again.status_code == 409
        said = again.json()["detail"]  # before: "没有待确认的识牌 #n", as if it had never been asked
        assert said.startswith(f"识牌 #{asked} 已确认为 梅（#{ok.json()['seq']} 确认识牌（裁判"), said
        assert [a["kind"] for a in _live(service, "referee.camera_confirm")] == ["5f"]


async def test_a_camera_reading_ruled_no_tile_on_one_page_is_not_ruled_again_on_the_other(service: TableService) -> None:
    """A coin read as a tile: one page rules it no tile; the other page's 确认 or 不是牌 is refused naming it."""
    ctl = service.controller
    asked = ctl.accept("camera", "camera.tile_appeared", {
        "event": "appeared", "zone": "discard:W", "kind": "2p", "confidence": 0.4, "seat": "W", "track": 902,
        "needs_referee": True}).seq
    async with _client(service) as a, _client(service) as b:
        ok = await a.post("/api/referee/camera/dismiss", json={"seq": asked}, headers=REF)
        assert ok.status_code == 200, ok.text
        head = ctl.state.seq
        for path in ("/api/referee/camera/confirm", "/api/referee/camera/dismiss"):
            again = await b.post(path, json={"seq": asked}, headers=REF)
            assert again.status_code == 409, again.text
            said = again.json()["detail"]
            assert said.startswith(f"识牌 #{asked} 已判为不是牌（#{ok.json()['seq']} 判为不是牌（裁判"), said
        # nothing the referee's pages did was logged (the table's own events may come meanwhile: its link)
        assert not [e.type for e in ctl.store.since(head) if e.source == "referee" or e.type.startswith("referee.")]
        assert len(_live(service, "referee.camera_dismiss")) == 1
        assert not _live(service, "referee.camera_confirm")


async def test_the_session_ended_on_one_page_is_not_ended_again_on_the_other(service: TableService) -> None:
    async with _client(service) as a, _client(service) as b:
        assert (await a.post("/api/referee/session/start", json={"minutes": 90}, headers=REF)).status_code == 200
        end = await a.post("/api/referee/session/end", headers=REF)
        assert end.status_code == 200
        again = await b.post("/api/referee/session/end", headers=REF)
        assert again.status_code == 409, again.text  # before: 200, a second end that one undo left in force
        assert again.json()["detail"].startswith(f"本局比赛已结束（#{end.json()['seq']} 结束计时（裁判")
        # one undo reopens the session
        assert (await a.post("/api/referee/undo", json={"reason": "按早了", "target": end.json()["seq"]},
                             headers=REF)).status_code == 200
        assert (await a.get("/api/state")).json()["session"]["ended_at"] is None


async def test_a_round_started_on_one_page_is_not_started_again_with_the_other_pages_players(
        service: TableService) -> None:
    """Both pages show round 1 over; each referee keys round 2's seating. The second, on a view from before the
    first's, replaced the players the first had seated (a 新一轮 of the round in play before its first hand is a
    correction): refused now, naming the start it never saw, and taken on a fresh view."""
    async with _client(service) as a, _client(service) as b:
        now = (await a.get("/api/referee/state", headers=REF)).json()
        nxt = int(now["round"]) + 1
        seen = await _seen(a)
        first = await a.post("/api/referee/round", json={
            "round": nxt, "players": {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}, "seen": seen}, headers=REF)
        assert first.status_code == 200, first.text
        second = await b.post("/api/referee/round", json={
            "round": nxt, "players": {"1": "戊", "2": "己", "3": "庚", "4": "辛"}, "seen": seen}, headers=REF)
        assert second.status_code == 409, second.text  # before: 200, 戊己庚辛 seated over 甲乙丙丁
        assert f"#{first.json()['seq']} 新一轮（裁判" in second.json()["detail"]
        starts = _live(service, "referee.round_start")
        assert starts[-1]["players"] == {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}
        # on the view as it is now, B's correction of the seating is taken
        fixed = await b.post("/api/referee/round", json={
            "round": nxt, "players": {"1": "戊", "2": "己", "3": "庚", "4": "辛"}, "seen": await _seen(b)}, headers=REF)
        assert fixed.status_code == 200, fixed.text
        assert _live(service, "referee.round_start")[-1]["players"]["1"] == "戊"
