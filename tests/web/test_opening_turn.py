"""The dealer plays first: before any discard and with no turn set (配牌完成 not pressed), `POST /api/play`
takes a discard or a kong from the dealer (东) only, over real HTTP against a service on the simulated
table (a real pseudo-terminal) with its real SQLite log. Before, any seat's was taken then, and the
record began with a play that cannot have happened. The opening 补花 and 定缺 stay every seat's, a claim
stays any seat's once there is a discard, and a correction is refused only where it would make the record
begin with a seat other than the dealer."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from table_controller.config import parse_config
from table_controller.service import TableService

from keyed_hand import OP, key_dice, start_hand

REFEREE = "ref-pin-2468"
REF = {"Authorization": f"Bearer {REFEREE}"}


@contextlib.asynccontextmanager
async def _hand(tmp_path: Path, ruleset: str = "mcr") -> AsyncIterator[tuple[TableService, httpx.AsyncClient]]:
    """A service of `ruleset` on the simulator, a hand started and its dice keyed; 配牌完成 not pressed."""
    config = parse_config({"table": {"link": "sim://", "sim_seed": 5, "sim_speed": 1000.0},
                           "rules": {"ruleset": ruleset},
                           "display": {"port": 0, "operator_token": "op", "referee_token": REFEREE}}, source="test")
    svc = TableService(config, tmp_path / ruleset)
    await svc.start()
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{svc.port}") as http:
            await start_hand(svc, http)
            await key_dice(svc, http)
            yield svc, http
    finally:
        await svc.stop()


async def _taken(http: httpx.AsyncClient, **body: Any) -> int:
    r = await http.post("/api/play", json=body, headers=OP)
    assert r.status_code == 200, (body, r.text)
    return int(r.json()["seq"])


async def _refused(svc: TableService, http: httpx.AsyncClient, words: str, **body: Any) -> None:
    """A play refused with 409 and `words` first (Chinese), nothing logged and the hand as it was."""
    seq, turn = svc.controller.state.seq, svc.controller.state.hand["turn"]
    r = await http.post("/api/play", json=body, headers=OP)
    assert r.status_code == 409 and r.json()["detail"].startswith(words), (body, r.text)
    assert svc.controller.state.seq == seq and len(svc.controller.store.since(seq)) == 0
    assert svc.controller.state.hand["turn"] == turn


async def test_before_the_first_discard_only_the_dealer_discards_flowers_stay_everyones(tmp_path: Path) -> None:
    async with _hand(tmp_path) as (svc, http):
        assert svc.controller.state.hand["turn"] is None  # 配牌完成 not pressed
        await _refused(svc, http, "未轮到南家，现在是东家：庄家先出牌", type="discard", seat="S", tile="1z")
        await _refused(svc, http, "未轮到北家，现在是东家", type="kong", seat="N", tiles=["2z"] * 4, concealed=True)
        await _refused(svc, http, "南家没有可吃碰的最后一张弃牌", type="claim", seat="W", kind="pung", **{"from": "S"},
                       tiles=["1z"] * 3)
        await _taken(http, type="flower", seat="W", tile="1f")  # the opening 补花: every seat in its round
        await _taken(http, type="flower", seat="E", tile="5f")
        first = await _taken(http, type="discard", seat="E", tile="1z")  # the dealer's: taken, the turn set
        assert svc.controller.state.hand["turn"]["seat"] == "S"
        await _refused(svc, http, "未轮到北家，现在是南家", type="discard", seat="N", tile="3z")
        await _taken(http, type="claim", seat="W", kind="pung", **{"from": "E"}, tiles=["1z"] * 3)  # past S: a pung
        assert svc.controller.state.hand["turn"]["seat"] == "W"
        lines = (await http.get("/api/hands/1/record")).json()["lines"]
        played = [(x["type"], x["play"].get("seat")) for x in lines if x["type"].startswith("play.")]
        assert played == [("play.flower", "W"), ("play.flower", "E"), ("play.discard", "E"), ("play.claim", "W")]
        assert next(x["seq"] for x in lines if x["type"] == "play.discard") == first


async def test_the_dealers_concealed_kong_opens_the_hand_and_sets_the_turn(tmp_path: Path) -> None:
    async with _hand(tmp_path) as (svc, http):
        await _refused(svc, http, "未轮到西家，现在是东家", type="kong", seat="W", tiles=["7s"] * 4, concealed=True)
        await _taken(http, type="kong", seat="E", tiles=["7s"] * 4, concealed=True)  # 暗杠 before the first discard
        assert svc.controller.state.hand["turn"]["seat"] == "E"
        await _refused(svc, http, "未轮到南家，现在是东家 / not S's turn but E's", type="discard", seat="S", tile="1z")
        await _taken(http, type="discard", seat="E", tile="1z")
        await _taken(http, type="discard", seat="S", tile="2z")
        assert svc.controller.state.hand["turn"]["seat"] == "W"


@pytest.mark.parametrize("ruleset", ["sichuan", "xueliu", "riichi"])
async def test_the_dealer_plays_first_under_missing_suit_and_riichi(tmp_path: Path, ruleset: str) -> None:
    """定缺 (血战, 血流) is said by every seat before play; 立直 goes with a seat's own discard."""
    async with _hand(tmp_path, ruleset) as (svc, http):
        hand = svc.controller.state.hand
        if hand["missing_suit"]:
            for seat, suit in zip("ESWN", "mpsm"):
                await _taken(http, type="missing", seat=seat, suit=suit)
        tile = "1s" if hand["missing_suit"] else "1z"  # no honours in 四川's tiles
        await _refused(svc, http, "未轮到西家，现在是东家：庄家先出牌", type="discard", seat="W", tile=tile)
        if hand["riichi_declarations"]:
            await _refused(svc, http, "立直随打出的牌宣告：南家尚未出牌", type="riichi", seat="S")
        await _taken(http, type="discard", seat="E", tile=tile)
        await _taken(http, type="discard", seat="S", tile="2s")
        assert svc.controller.state.hand["turn"]["seat"] == "W"


async def test_a_correction_may_not_make_a_seat_other_than_the_dealer_play_first(tmp_path: Path) -> None:
    async with _hand(tmp_path) as (svc, http):
        ctl = svc.controller
        first = await _taken(http, type="discard", seat="E", tile="1z")
        before = ctl.state.seq

        async def correct(**body: Any) -> httpx.Response:
            return await http.post("/api/referee/play/correct", json={**body, "reason": "看错"}, headers=REF)

        r = await correct(target=first, seat="S")
        assert r.status_code == 409 and r.json()["detail"].startswith("更正后不成立：未轮到南家，现在是东家"), r.text
        r = await correct(insert_before=first, play={"type": "discard", "seat": "N", "tile": "2z"})
        assert r.status_code == 409 and r.json()["detail"].startswith("补录后不成立：未轮到北家，现在是东家"), r.text
        # nothing of the referee's logged (the simulated table may log its own meanwhile on a loaded machine)
        assert [e.type for e in ctl.store.since(before) if e.source == "referee"] == []
        # a flower missed in the opening is put in before the dealer's first discard, and a tile corrected
        r = await correct(insert_before=first, play={"type": "flower", "seat": "N", "tile": "2f"})
        assert r.status_code == 200, r.text
        assert (await correct(target=first, tile="3z")).status_code == 200
        hand = ctl.state.hand
        assert hand["flowers"]["N"] == ["2f"] and [d["tile"] for d in hand["discards"]["E"]] == ["3z"]
        assert hand["turn"]["seat"] == "S"


async def test_a_record_begun_by_the_wrong_seat_is_put_right_by_the_referee(tmp_path: Path) -> None:
    """A log written before this check (S's discard taken with no turn set) folds as it did, and the
    referee's correction of that discard to the dealer's is taken: nothing legitimate is refused."""
    async with _hand(tmp_path) as (svc, http):
        ctl = svc.controller
        wrong = ctl.accept("operator", "play.discard", {"seat": "S", "tile": "1z", "by": "operator"}).seq
        assert ctl.state.hand["turn"]["seat"] == "W"
        r = await http.post("/api/referee/play/correct", json={"target": wrong, "seat": "E", "reason": "座位录错"},
                            headers=REF)
        assert r.status_code == 200, r.text
        assert ctl.state.hand["discards"]["E"][0]["tile"] == "1z" and ctl.state.hand["turn"]["seat"] == "S"
        await _taken(http, type="discard", seat="S", tile="2z")


async def test_after_the_dealers_heavenly_win_under_blood_battle_the_next_seat_plays(tmp_path: Path) -> None:
    """血战到底: the dealer wins on its dealt tiles (天和) before any discard; once the referee confirms the
    win the turn passes to 南 (the dealer is out), and 南's discard is taken: the win, not a discard, opened
    the hand. Before the win is confirmed the dealer still has the turn, as after any win read."""
    async with _hand(tmp_path, "sichuan") as (svc, http):
        for seat, suit in zip("ESWN", "pmmm"):
            await _taken(http, type="missing", seat=seat, suit=suit)
        win = {"seat_wind": "E", "prevalent_wind": "E", "win": "self_draw", "win_tile": "9m",
               "concealed": "1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 9m 9m 9m".split(), "melds": []}
        r = await http.post("/api/referee/win", json={"hand": win}, headers=REF)
        assert r.status_code == 200, r.text
        await _refused(svc, http, "未轮到南家，现在是东家", type="discard", seat="S", tile="2s")
        assert (await http.post("/api/referee/win/confirm", json={}, headers=REF)).status_code == 200
        assert svc.controller.state.hand["turn"]["seat"] == "S" and svc.controller.state.hand["out"] == ["E"]
        await _refused(svc, http, "东家本盘已和牌，不再行牌", type="discard", seat="E", tile="2s")
        await _taken(http, type="discard", seat="S", tile="2s")
        assert svc.controller.state.hand["turn"]["seat"] == "W"
