"""本场 on a riichi table: counted by the session (+1 after the dealer's win or any draw, 荒牌 or 途中流局;
back to 0 when another seat wins), recorded with each hand's start and given to each win read, so a
ron pays 300 a 本场 more without the referee typing it (a number typed on the Win page still wins)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from table_controller.config import parse_config
from table_controller.hand.match import MatchRules, next_hand, start
from table_controller.service import TableService
from table_controller.tiles import parse_tiles
from test_browser import OPERATOR, REFEREE, _auth, _http, _start_hand, _throw_all

HAND = parse_tiles("22444m333567p44s")  # 立直 断幺九 on 4s: 2 han 40 fu, 2600 on a ron


def test_the_session_counts_honba_as_riichi_players_do() -> None:
    m = start(MatchRules.for_ruleset("riichi"))
    seen = []
    for winners, ready, abortive in ((["E"], (), False),   # the dealer wins: keeps the deal, 1 本场
                                     ([], ("E",), False),  # 荒牌, the dealer ready: keeps it, 2
                                     ([], (), True),       # 途中流局: keeps it, 3
                                     ([], (), False),      # 荒牌, the dealer not ready: the deal passes, 4
                                     (["W"], (), False),   # another seat wins: 0
                                     (["E"], (), False)):  # the new dealer wins: 1
        m, _ = next_hand(m, winners, ready=ready, abortive=abortive)
        seen.append((m.dealer_position, m.honba))
    assert seen == [(1, 1), (1, 2), (1, 3), (2, 4), (3, 0), (3, 1)]


async def test_a_hand_after_a_draw_scores_its_ron_with_one_honba(tmp_path: Path) -> None:
    config = parse_config({"table": {"link": "sim://", "sim_seed": 5, "sim_speed": 100.0},
                           "rules": {"ruleset": "riichi"},
                           "display": {"port": 0, "operator_token": OPERATOR, "referee_token": REFEREE}},
                          source="test")
    svc = TableService(config, tmp_path)
    await svc.start()
    hand = lambda: svc.controller.state.hand  # noqa: E731
    try:
        await svc.controller.wait_linked(10)
        async with _http(svc) as http:
            async def post(path: str, token: str = OPERATOR, **body: Any) -> Any:
                r = await http.post(path, json=body, headers=_auth(token))
                assert r.status_code == 200, r.text
                return r

            async def ron_on_4s(options: dict[str, Any]) -> dict[str, Any]:
                await post("/api/referee/win", REFEREE, hand={
                    "seat_wind": "S", "concealed": HAND, "win_tile": "4s", "win": "discard", "discarder": "E",
                    "options": options})
                return svc.controller.state.actions[-1]["result"]

            await _start_hand(svc, http)
            started = [ev for ev in svc.controller.store.since(0) if ev.type == "operator.hand_start"]
            assert hand()["honba"] == 0 and "honba" not in started[-1].data  # none: nothing logged for it
            await _throw_all(svc)
            await post("/api/play", type="deal_done")
            await post("/api/play", type="discard", seat="E", tile="9p")
            await post("/api/hand/end", result="draw")  # 荒牌, nobody ready: the deal passes, 1 本场
            await _start_hand(svc, http)
            assert (hand()["dealer_position"], hand()["honba"]) == (2, 1)
            await _throw_all(svc)
            await post("/api/play", type="deal_done")
            await post("/api/play", type="discard", seat="E", tile="4s")
            result = await ron_on_4s({"riichi": True})
            assert result["valid"] and result["payments"]["S"] == 2900, result  # 2600 + 300
            assert (await ron_on_4s({"riichi": True, "honba": 0}))["payments"]["S"] == 2600  # the referee's own
            await ron_on_4s({"riichi": True})
            await post("/api/referee/win/confirm", REFEREE)
            await post("/api/hand/end", result="win")
            await _start_hand(svc, http)  # S, not the dealer, won: 0 本场, the deal passes
            assert (hand()["dealer_position"], hand()["honba"]) == (3, 0)
    finally:
        await svc.stop()
