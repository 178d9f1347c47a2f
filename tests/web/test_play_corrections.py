"""Correcting a play already in the record (`POST /api/referee/play/correct`) over real HTTP, against a
running service on the simulated table with its real SQLite log: the log keeps the play as keyed and
the correction beside it, the fold and the public record show the play as corrected, a correction
the hand cannot take is refused in Chinese first with nothing logged, and an undo takes it back."""

from __future__ import annotations

from typing import Any

import httpx

from table_controller.service import TableService

from keyed_hand import OP, dealt

REFEREE = "ref-pin-5173"
REF = {"Authorization": f"Bearer {REFEREE}"}


async def _correct(http: httpx.AsyncClient, **body: Any) -> httpx.Response:
    return await http.post("/api/referee/play/correct", json=body, headers=REF)


async def test_a_tile_keyed_wrong_is_corrected_the_log_keeps_both_and_the_public_sees_the_fix(
        service: TableService) -> None:
    ctl = service.controller
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        play = await dealt(service, http)
        wrong = await play(type="discard", seat="E", tile="5m")  # the tile was 5p
        await play(type="discard", seat="S", tile="1z")
        left = ctl.state.hand["tiles_left"]
        # only the referee corrects: an operator or a viewer cannot
        body = {"target": wrong, "tile": "5p", "reason": "五筒看成五万"}
        assert (await http.post("/api/referee/play/correct", json=body, headers=OP)).status_code == 403
        assert (await http.post("/api/referee/play/correct", json=body)).status_code == 403  # a viewer
        r = await _correct(http, **body)
        assert r.status_code == 200, r.text
        fix = r.json()["seq"]
        state = (await http.get("/api/state")).json()
        assert [d["tile"] for d in state["hand"]["discards"]["E"]] == ["5p"]
        assert state["hand"]["tiles_left"] == left and state["hand"]["turn"]["seat"] == "W"
        # the log is not rewritten: the play as keyed, and the correction naming it
        logged = {e.seq: e for e in ctl.store.since(0)}
        assert logged[wrong].data["tile"] == "5m"
        assert logged[fix].type == "referee.play_correct" and logged[fix].data["target"] == wrong
        # the public record (牌谱) is the corrected one only; the referee's shows what was first keyed
        pub = (await http.get("/api/hands/1/record")).json()
        texts = [line["text"] for line in pub["lines"]]
        assert "东家打出 五筒" in texts and not any("五万" in t for t in texts), texts
        assert not any(line["type"] == "referee.play_correct" for line in pub["lines"])
        line = next(x for x in pub["lines"] if x["seq"] == wrong)
        assert (line["play"]["seat"], line["play"]["tile"]) == ("E", "5p")  # the replay lays the corrected tile
        ref = (await http.get("/api/referee/hands/1/record", headers=REF)).json()
        line = next(x for x in ref["lines"] if x["seq"] == wrong)
        assert line["text"] == "东家打出 五筒" and line["was"] == "东家打出 五万"
        fixed = next(x for x in ref["lines"] if x["seq"] == fix)
        assert fixed["text"] == f"更正 #{wrong}：东家打出 五万 → 东家打出 五筒（五筒看成五万）"
        text = (await http.get("/api/referee/hands/1/record?format=text", headers=REF)).text
        assert "东家打出 五筒（已更正，原记 东家打出 五万）" in text
        # the referee's record list names it; the last action to undo is the correction
        assert state["actions"][-1]["type"] == "referee.play_correct"
        assert state["last_action"] == {"seq": fix, "type": "referee.play_correct", "name_zh": "更正牌谱"}
        # undo takes it back: the play as keyed again, both events still in the log
        r = await http.post("/api/referee/undo", json={"reason": "原来没错", "target": fix}, headers=REF)
        assert r.status_code == 200, r.text
        state = (await http.get("/api/state")).json()
        assert [d["tile"] for d in state["hand"]["discards"]["E"]] == ["5m"]
        # (the table's own reports may fall between them: only the referee's are asserted)
        assert [e.type for e in ctl.store.since(fix - 1) if e.source == "referee"] == \
            ["referee.play_correct", "referee.undo"]
        pub = (await http.get("/api/hands/1/record")).json()
        assert "东家打出 五万" in [x["text"] for x in pub["lines"]]


async def test_a_pung_given_to_the_wrong_seat_moves_with_the_turn(service: TableService) -> None:
    ctl = service.controller
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        play = await dealt(service, http)
        await play(type="discard", seat="E", tile="1z")
        pung = await play(type="claim", seat="W", kind="pung", tiles=["1z"] * 3, **{"from": "E"})  # N's pung
        r = await _correct(http, target=pung, seat="N", reason="是北家碰")
        assert r.status_code == 200, r.text
        hand = ctl.state.hand
        assert hand["melds"]["W"] == [] and hand["melds"]["N"][0]["tiles"] == ["1z"] * 3
        assert hand["turn"]["seat"] == "N" and hand["discards"]["E"][0]["claimed"]
        await play(type="discard", seat="N", tile="9p")  # play goes on from the corrected record
        assert ctl.state.hand["turn"]["seat"] == "E"


async def test_a_correction_the_hand_cannot_take_is_refused_in_chinese_and_nothing_is_logged(
        service: TableService) -> None:
    ctl = service.controller
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        play = await dealt(service, http)
        await play(type="discard", seat="E", tile="5z")
        pung = await play(type="claim", seat="W", kind="pung", tiles=["5z"] * 3, **{"from": "E"})
        w = await play(type="discard", seat="W", tile="2z")
        n = await play(type="discard", seat="N", tile="5z")  # the fourth 白
        before = ctl.state.seq

        async def refused(body: dict[str, Any], status: int, words: str) -> None:
            r = await _correct(http, **body)
            assert r.status_code == status and r.json()["detail"].startswith(words), r.text
            assert ctl.state.seq == before and len(ctl.store.since(before)) == 0

        # a fifth copy of 白 face up once N discards the fourth
        await refused({"target": w, "tile": "5z", "reason": "看错"}, 409,
                      f"更正后其后 #{n}（北家打出 白）不成立：桌面将出现第 5 张 5z")
        # the pung moved to N: W's discard after it is out of turn
        await refused({"target": pung, "seat": "N", "reason": "看错"}, 409,
                      f"更正后其后 #{w}（西家打出 南）不成立：未轮到西家")
        # not a play of this hand; a field the play has not; no reason; nothing to change
        await refused({"target": 1, "tile": "5z", "reason": "看错"}, 409, "#1 不是本盘的行牌记录")
        await refused({"target": w, "tiles": ["5z"] * 3, "reason": "看错"}, 422, "打出只能更正 seat、tile")
        await refused({"target": w, "tile": "3z", "reason": " "}, 422, "更正须说明理由")
        await refused({"target": w, "reason": "看错"}, 422, "须给出更正的内容，或作废")
        await refused({"target": w, "tile": "2z", "reason": "看错"}, 409, f"#{w} 的记录已是如此")
        assert [d["tile"] for d in ctl.state.hand["discards"]["W"]] == ["2z"]


async def test_a_play_keyed_by_mistake_is_voided_and_the_undo_that_no_longer_fits_is_refused(
        service: TableService) -> None:
    ctl = service.controller
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        play = await dealt(service, http)
        await play(type="discard", seat="E", tile="9m")
        left = ctl.state.hand["tiles_left"]
        slip = await play(type="discard", seat="S", tile="4m")  # S had not discarded yet
        assert ctl.state.hand["tiles_left"] == left - 1  # S's draw counted
        r = await _correct(http, target=slip, void=True, reason="误录")
        assert r.status_code == 200, r.text
        fix = r.json()["seq"]
        hand = ctl.state.hand
        assert hand["discards"]["S"] == [] and hand["turn"]["seat"] == "S" and hand["tiles_left"] == left
        pub = (await http.get("/api/hands/1/record")).json()
        assert slip not in [x["seq"] for x in pub["lines"]]  # void: not in the public record
        ref = (await http.get("/api/referee/hands/1/record", headers=REF)).json()
        assert next(x for x in ref["lines"] if x["seq"] == slip)["void"] is True
        assert (await _correct(http, target=slip, void=True, reason="再来")).json()["detail"].startswith(
            f"#{slip} 已作废")
        await play(type="discard", seat="S", tile="7m")  # S's real discard
        # putting the slip back would leave S discarding twice in a row
        r = await http.post("/api/referee/undo", json={"reason": "改回", "target": fix}, headers=REF)
        assert r.status_code == 409 and r.json()["detail"].startswith("撤销更正后其后 #"), r.text
        assert "未轮到南家" in r.json()["detail"]
        assert [d["tile"] for d in ctl.state.hand["discards"]["S"]] == ["7m"]


async def test_a_restart_folds_the_corrected_hand_the_same(service: TableService) -> None:
    """The correction is in the log, not in memory: the log folded afresh gives the same hand."""
    from table_controller.state import fold

    ctl = service.controller
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        play = await dealt(service, http)
        first = await play(type="discard", seat="E", tile="3s")
        await play(type="discard", seat="S", tile="3s")
        assert (await _correct(http, target=first, tile="4s", reason="看错")).status_code == 200
        await play(type="discard", seat="W", tile="8s")
    again = fold(ctl.store.since(0))
    assert again.hand == ctl.state.hand and again.log == ctl.state.log and again.actions == ctl.state.actions
    assert [d["tile"] for d in again.hand["discards"]["E"]] == ["4s"]


async def test_a_flower_never_keyed_is_inserted_before_the_discard_after_it_shown_in_the_records_and_undone(
        service: TableService) -> None:
    """S laid 梅 and drew its replacement, then discarded: the operator missed the flower. Keyed late
    it is refused (out of turn); the referee inserts it before S's discard: the wall counts the
    replacement, the log keeps every event as it was, both records show the flower in its place."""
    from table_controller.state import fold

    ctl = service.controller
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        play = await dealt(service, http)
        await play(type="discard", seat="E", tile="1z")
        s_discard = await play(type="discard", seat="S", tile="2m")
        await play(type="discard", seat="W", tile="3m")
        late = await http.post("/api/play", json={"type": "flower", "seat": "S", "tile": "5f"}, headers=OP)
        assert late.status_code == 409 and late.json()["detail"].startswith("未轮到南家补花"), late.text
        left, logged = ctl.state.hand["tiles_left"], [e.to_json() for e in ctl.store.since(0)]
        body = {"insert_before": s_discard, "play": {"type": "flower", "seat": "S", "tile": "5f"}, "reason": "漏记南家补花"}
        assert (await http.post("/api/referee/play/correct", json=body, headers=OP)).status_code == 403
        r = await _correct(http, **body)
        assert r.status_code == 200, r.text
        fix = r.json()["seq"]
        state = (await http.get("/api/state")).json()
        assert state["hand"]["flowers"]["S"] == ["5f"] and state["hand"]["tiles_left"] == left - 1
        assert state["hand"]["turn"]["seat"] == "N"
        # nothing rewritten: the log holds what it held, and the correction naming the play and its place
        now = ctl.store.since(0)
        assert [e.to_json() for e in now[:len(logged)]] == logged
        # the one event logged since, but the table's own (it builds the next set during play: its 点牌 may come in)
        [added] = [e for e in now[len(logged):] if e.source != "table"]
        assert added.seq == fix and added.data["insert_before"] == s_discard and added.data["play"]["tile"] == "5f"
        # the public record has the flower in its place (for the replay too), the correction's line not
        pub = (await http.get("/api/hands/1/record")).json()
        texts = [x["text"] for x in pub["lines"]]
        at = texts.index("南家补花 梅")
        assert texts[at - 1] == "东家打出 东" and texts[at + 1:at + 3] == ["南家打出 二万", "西家打出 三万"], texts
        assert pub["lines"][at]["inserted"] is True and pub["lines"][at]["play"] == {"seat": "S", "tile": "5f"}
        assert pub["lines"][at]["seq"] == fix and not any(x["type"] == "referee.play_correct" for x in pub["lines"])
        ref = (await http.get("/api/referee/hands/1/record", headers=REF)).json()
        assert next(x for x in ref["lines"] if x["seq"] == fix and x["type"] == "referee.play_correct")["text"] == \
            f"补录 #{fix}（#{s_discard} 前）：南家补花 梅（漏记南家补花）"
        text = (await http.get("/api/referee/hands/1/record?format=text", headers=REF)).text
        assert "南家补花 梅（补录）" in text
        # the public audit trail says where, never the tiles of what was inserted
        (action,) = [a for a in (await http.get("/api/actions")).json() if a["seq"] == fix]
        assert action["insert"] == {"anchor": s_discard, "after": False, "type": "play.flower"}
        assert action["now"] == "南家补花 梅" and "data" not in action["insert"]
        assert fold(ctl.store.since(0)).hand == ctl.state.hand  # a restart folds it the same
        r = await http.post("/api/referee/undo", json={"reason": "记错了", "target": fix}, headers=REF)
        assert r.status_code == 200, r.text
        assert ctl.state.hand["flowers"]["S"] == [] and ctl.state.hand["tiles_left"] == left
        pub = (await http.get("/api/hands/1/record")).json()
        assert "南家补花 梅" not in [x["text"] for x in pub["lines"]]


async def test_an_insertion_or_a_change_of_kind_the_hand_cannot_take_is_refused_and_nothing_is_logged(
        service: TableService) -> None:
    ctl = service.controller
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        play = await dealt(service, http)
        e = await play(type="discard", seat="E", tile="1z")
        s = await play(type="discard", seat="S", tile="7s")
        before = ctl.state.seq

        async def refused(body: dict[str, Any], status: int, words: str) -> None:
            r = await _correct(http, **body)
            assert r.status_code == status and r.json()["detail"].startswith(words), r.text
            assert ctl.state.seq == before and len(ctl.store.since(before)) == 0

        pung = {"type": "claim", "seat": "W", "kind": "pung", "from": "E", "tiles": ["1z"] * 3}
        await refused({"insert_after": e, "play": pung, "reason": "漏记"}, 409,
                      f"补录后其后 #{s}（南家打出 七条）不成立：未轮到南家，现在是西家")
        await refused({"play": pung, "reason": "漏记"}, 422, "补录须给出位置")
        await refused({"insert_after": e, "play": {"type": "claim", "seat": "W", "tiles": ["1z"] * 3}, "reason": "漏记"},
                      422, "补录吃碰杠须给出 from、kind")
        r = await _correct(http, insert_after=e, play={"type": "pass", "seat": "W"}, reason="漏记")
        assert r.status_code == 422 and ctl.state.seq == before  # not a play at all: the body's own check
        # S's 7s was its concealed kong: voided and replaced in one action; S still to discard
        kong = {"type": "kong", "seat": "S", "tiles": ["7s"] * 4, "concealed": True}
        r = await _correct(http, target=s, play=kong, reason="是暗杠")
        assert r.status_code == 200, r.text
        hand = ctl.state.hand
        assert hand["discards"]["S"] == [] and hand["melds"]["S"][0]["type"] == "kong" and hand["turn"]["seat"] == "S"
        pub = (await http.get("/api/hands/1/record")).json()
        assert "南家暗杠" in [x["text"] for x in pub["lines"]] and "南家打出 七条" not in [x["text"] for x in pub["lines"]]
        assert "7s" not in str(pub) and "7s" not in str((await http.get("/api/state")).json()["hand"]["melds"])
        await play(type="discard", seat="S", tile="9p")  # play goes on from the corrected record
