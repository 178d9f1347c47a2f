"""国标 win conditions the live table gives the scorer over real HTTP: 和绝张 from what the table
shows, 抢杠和 on a recorded 补杠 (seeds 000 范文五 47/58: "抢杠和 和别人自抓开明杠的牌。不计和绝张";
"和绝张 和牌池、桌面已亮明的3张牌所剩的第4张牌")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_api import OPERATOR, REFEREE, _client, bearer  # type: ignore[import-not-found]

# N: 123456789m 34p 99s, waiting on 2p / 5p
N_HAND = "1m 2m 3m 4m 5m 6m 7m 8m 9m 3p 4p 9s 9s".split()


def _play(c: Any, *bodies: dict[str, Any]) -> None:
    for body in bodies:
        r = c.post("/api/play", json=body, headers=bearer(OPERATOR))
        assert r.status_code == 200, (body, r.text)


def _w_adds_the_fourth_5p(c: Any) -> None:
    """W pungs E's 5p, and three turns later adds the fourth 5p to it (补杠)."""
    _play(c, {"type": "deal_done"}, {"type": "discard", "seat": "E", "tile": "5p"},
          {"type": "claim", "seat": "W", "kind": "pung", "tiles": ["5p"] * 3, "from": "E"},
          {"type": "discard", "seat": "W", "tile": "9m"}, {"type": "discard", "seat": "N", "tile": "1z"},
          {"type": "discard", "seat": "E", "tile": "2z"}, {"type": "discard", "seat": "S", "tile": "3z"},
          {"type": "kong", "seat": "W", "tiles": ["5p"] * 4, "added": True})


def test_robbing_a_recorded_added_kong_scores_and_pays(tmp_path: Path) -> None:
    """The robbed 5p is the winning tile, not a fourth one seen: the table shows three 5p (W's pung).
    Before, the read counted the 补杠's four and the scorer refused it ("a set has 4 of 5p"),
    so no 抢杠和 could be confirmed on a table whose record holds the 补杠."""
    c = _client(tmp_path)
    with c:
        _w_adds_the_fourth_5p(c)
        hand = {"seat_wind": "N", "prevalent_wind": "E", "melds": [], "concealed": N_HAND,
                "win_tile": "5p", "win": "rob_kong", "discarder": "W"}
        r = c.post("/api/referee/win", json={"hand": hand}, headers=bearer(REFEREE))
        assert r.status_code == 200, r.text
        win = c.get("/api/referee/state", headers=bearer(REFEREE)).json()["win"]
        assert win["hand"]["visible"] == {"5p": 3, "9m": 1, "1z": 1, "2z": 1, "3z": 1}
        result = win["result"]
        assert result["valid"] is True, result
        names = {f["name"] for f in result["fans"]}
        assert "抢杠和" in names and "和绝张" not in names  # 抢杠和不计和绝张
        # 清龙 16 + 抢杠和 8 + 门前清 2 + 平和 2 = 28: the konger pays 8 + 28, the others 8 each
        assert result["total"] == 28
        assert result["payments"] == {"N": 36 + 16, "W": -36, "E": -8, "S": -8}
        r = c.post("/api/referee/win/confirm", headers=bearer(REFEREE))
        assert r.status_code == 200, r.text
    c.store.close()  # type: ignore[attr-defined]


def test_robbing_a_kong_named_on_the_wrong_seat_says_whose_kong_it_was(tmp_path: Path) -> None:
    """点炮方 left on the last discard's seat (S) for a 抢杠和 of W's 补杠: the read was refused as "visible.5p:
    4 visible and 1 in the hand: a set has 4 of 5p", in English, naming no seat. Now it names the konger."""
    c = _client(tmp_path)
    with c:
        _w_adds_the_fourth_5p(c)
        hand = {"seat_wind": "N", "prevalent_wind": "E", "melds": [], "concealed": N_HAND,
                "win_tile": "5p", "win": "rob_kong", "discarder": "S"}
        assert c.post("/api/referee/win", json={"hand": hand}, headers=bearer(REFEREE)).status_code == 200
        result = c.get("/api/referee/state", headers=bearer(REFEREE)).json()["win"]["result"]
        assert result["valid"] is False and result["reason"] == "not_robbed"
        assert result["message"].startswith("抢杠和：加杠五筒的是西家，点炮方应选西家"), result
        r = c.post("/api/referee/win/confirm", headers=bearer(REFEREE))
        assert r.status_code == 409 and "点炮方应选西家" in r.json()["detail"]
        # named right, it stands (the kong back to W's pung)
        hand["discarder"] = "W"
        assert c.post("/api/referee/win", json={"hand": hand}, headers=bearer(REFEREE)).status_code == 200
        assert c.post("/api/referee/win/confirm", headers=bearer(REFEREE)).status_code == 200
        assert [m["type"] for m in c.get("/api/referee/state", headers=bearer(REFEREE)).json()["hand"]["melds"]["W"]] == ["pung"]
    c.store.close()  # type: ignore[attr-defined]


def test_only_an_added_kong_can_be_robbed(tmp_path: Path) -> None:
    """Seed 000 范文五 47 "抢杠和 和别人自抓开明杠的牌" (范文六: 明杠 "抓进一张与已经碰的刻子牌相同"): the tile added to
    a pung. A 暗杠 (W's four 5p from the hand) and a 明杠 on a discard (S's kong of E's 6p) are no 抢杠和: the read is
    shown invalid saying why and its confirmation refused. Before, the 暗杠's read scored 抢杠和's 8 番 (29) and W
    paid it as the discarder."""
    c = _client(tmp_path)
    with c:
        _play(c, {"type": "deal_done"}, {"type": "discard", "seat": "E", "tile": "6p"},
              {"type": "claim", "seat": "S", "kind": "kong", "tiles": ["6p"] * 4, "from": "E"},
              {"type": "discard", "seat": "S", "tile": "9m"},
              {"type": "kong", "seat": "W", "tiles": ["5p"] * 4, "concealed": True})
        for konger, tile, how in (("W", "5p", "暗杠"), ("S", "6p", "明杠")):
            hand = {"seat_wind": "N", "prevalent_wind": "E", "melds": [], "concealed": N_HAND,
                    "win_tile": tile, "win": "rob_kong", "discarder": konger}
            if tile == "6p":
                hand["concealed"] = "1m 2m 3m 4m 5m 6m 7m 8m 9m 4p 5p 9s 9s".split()
            assert c.post("/api/referee/win", json={"hand": hand}, headers=bearer(REFEREE)).status_code == 200
            result = c.get("/api/referee/state", headers=bearer(REFEREE)).json()["win"]["result"]
            assert result["valid"] is False and result["reason"] == "not_added_kong", result
            assert result["message"].startswith("抢杠和只能抢补杠") and how in result["message"], result
            r = c.post("/api/referee/win/confirm", headers=bearer(REFEREE))
            assert r.status_code == 409 and "只能抢补杠" in r.json()["detail"]
    c.store.close()  # type: ignore[attr-defined]


def test_a_discard_seen_three_times_is_the_last_one(tmp_path: Path) -> None:
    """和绝张: two 2p in the pool and one in S's chow, N wins on the fourth (E's discard)."""
    c = _client(tmp_path)
    with c:
        _play(c, {"type": "deal_done"}, {"type": "discard", "seat": "E", "tile": "2p"},
              {"type": "claim", "seat": "S", "kind": "chow", "tiles": ["1p", "2p", "3p"], "from": "E"},
              {"type": "discard", "seat": "S", "tile": "2p"}, {"type": "discard", "seat": "W", "tile": "2p"},
              {"type": "discard", "seat": "N", "tile": "1z"}, {"type": "discard", "seat": "E", "tile": "2p"})
        hand = {"seat_wind": "N", "prevalent_wind": "E", "melds": [], "concealed": N_HAND,
                "win_tile": "2p", "win": "discard", "discarder": "E"}
        assert c.post("/api/referee/win", json={"hand": hand}, headers=bearer(REFEREE)).status_code == 200
        win = c.get("/api/referee/state", headers=bearer(REFEREE)).json()["win"]
        assert win["hand"]["visible"]["2p"] == 3
        assert "和绝张" in {f["name"] for f in win["result"]["fans"]}
    c.store.close()  # type: ignore[attr-defined]


def test_a_read_without_the_prevalent_wind_takes_the_hands(offline_client: Any) -> None:
    """A read over the API without `prevalent_wind` was scored as in the East round: in the South round
    a pung of 南 lost its 圈风刻 (2 番)."""
    client = offline_client("mcr", "ref-pin-2468", "op-pin-1357", prevalent_wind="S")
    hand = {"seat_wind": "E", "win": "self_draw", "concealed": "2z 2z 2z 1m 2m 3m 4m 5m 6m 7m 8m 9m 5p",
            "win_tile": "5p"}
    r = client.post("/api/referee/win", json={"hand": hand}, headers={"Authorization": "Bearer ref-pin-2468"})
    assert r.status_code == 200, r.text
    read = client.controller.state.actions[-1]
    assert read["hand"]["prevalent_wind"] == "S" and "圈风刻" in [f["name"] for f in read["result"]["fans"]]
