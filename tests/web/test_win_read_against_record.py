"""A win read against the play record (`referee.read_against_record`), over real HTTP: the record, where it
speaks plainly, says who pays and where a flower lies. Before, a read naming the wrong 点炮方 was scored and
confirmed with that seat paying, a flower the record had at another seat was counted a second time, and a fifth
copy seen on the table was refused in the scorer's English alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_api import REFEREE, _client, bearer  # type: ignore[import-not-found]
from test_mcr_win_flags import N_HAND, _play  # type: ignore[import-not-found]


def _hand(discarder: str, **more: Any) -> dict[str, Any]:
    """N's read: 123456789m 34p 99s winning on 5p discarded by `discarder`."""
    return {"seat_wind": "N", "prevalent_wind": "E", "melds": [], "concealed": N_HAND,
            "win_tile": "5p", "win": "discard", "discarder": discarder, **more}


def _read(c: Any, hand: dict[str, Any]) -> dict[str, Any]:
    assert c.post("/api/referee/win", json={"hand": hand}, headers=bearer(REFEREE)).status_code == 200
    return c.get("/api/referee/state", headers=bearer(REFEREE)).json()["win"]["result"]


def test_a_win_naming_the_wrong_discarder_is_refused_saying_whose_discard_it_was(tmp_path: Path) -> None:
    """W's 5p is the record's last play; N's win on it read with 南 (S, the seat before) as 点炮方 would have had S
    pay. It is shown invalid naming W, its confirmation refused; named right, it stands and W pays."""
    c = _client(tmp_path)
    with c:
        _play(c, {"type": "deal_done"}, {"type": "discard", "seat": "E", "tile": "1z"},
              {"type": "discard", "seat": "S", "tile": "2z"}, {"type": "discard", "seat": "W", "tile": "5p"})
        hand = _hand("S")
        result = _read(c, hand)
        assert result["valid"] is False and result["reason"] == "wrong_discarder", result
        assert result["message"].startswith("点炮方：记录中最后打出五筒的是西家，不是南家"), result
        r = c.post("/api/referee/win/confirm", headers=bearer(REFEREE))
        assert r.status_code == 409 and "最后打出五筒的是西家" in r.json()["detail"], r.text
        result = _read(c, {**hand, "discarder": "W"})
        assert result["valid"] is True, result
        assert result["payments"]["W"] < 0 and result["payments"]["S"] <= 0
        assert c.post("/api/referee/win/confirm", headers=bearer(REFEREE)).status_code == 200
    c.store.close()  # type: ignore[attr-defined]


def test_a_record_that_does_not_speak_plainly_leaves_the_discarder_to_the_referee(tmp_path: Path) -> None:
    """The last discard is another tile (a discard the record missed, the camera's or the operator's): the
    referee's 点炮方 stands; so it does where nothing was keyed at all."""
    c = _client(tmp_path)
    with c:
        _play(c, {"type": "deal_done"}, {"type": "discard", "seat": "E", "tile": "1z"},
              {"type": "discard", "seat": "S", "tile": "2z"})
        hand = _hand("W")
        result = _read(c, hand)
        assert result["valid"] is True, result
    c.store.close()  # type: ignore[attr-defined]


def test_a_flower_the_record_has_at_another_seat_is_refused(tmp_path: Path) -> None:
    """S laid out 夏 (2f) as a 补花; N's read holding it too counted one flower twice (花牌 番 for N)."""
    c = _client(tmp_path)
    with c:
        _play(c, {"type": "deal_done"}, {"type": "discard", "seat": "E", "tile": "1z"},
              {"type": "flower", "seat": "S", "tile": "2f"}, {"type": "discard", "seat": "S", "tile": "2z"},
              {"type": "discard", "seat": "W", "tile": "5p"})
        hand = _hand("W", flowers=["1f", "2f"])
        result = _read(c, hand)
        assert result["valid"] is False and result["reason"] == "flower_elsewhere", result
        assert result["message"].startswith("花牌：夏在记录中是南家补的花"), result
        result = _read(c, {**hand, "flowers": ["1f"]})
        assert result["valid"] is True, result
    c.store.close()  # type: ignore[attr-defined]


def test_a_fifth_copy_seen_on_the_table_is_said_in_chinese_first(tmp_path: Path) -> None:
    """Three 9s discarded and two in N's read: the scorer's "visible.9s: 3 visible and 2 in the hand" alone,
    in English, was the read's message."""
    c = _client(tmp_path)
    with c:
        _play(c, {"type": "deal_done"}, {"type": "discard", "seat": "E", "tile": "9s"},
              {"type": "discard", "seat": "S", "tile": "9s"}, {"type": "discard", "seat": "W", "tile": "9s"},
              {"type": "discard", "seat": "N", "tile": "1z"}, {"type": "discard", "seat": "E", "tile": "5p"})
        hand = _hand("E")
        result = _read(c, hand)
        assert result["valid"] is False and result["reason"] == "bad_hand", result
        assert result["message"].startswith("同一张牌超过 4 张"), result
        assert "visible.9s" in result["message"], result
    c.store.close()  # type: ignore[attr-defined]
