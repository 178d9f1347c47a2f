"""宝牌指示牌 on the live riichi table: one turned up at the deal and one more after each kong (杠宝牌), so a win
read gives no more 宝牌 or 里宝牌 indicators than 1 + the kongs the record holds; more scored 宝牌 nobody turned up."""

from __future__ import annotations

from typing import Any

from table_controller.tiles import parse_tiles

from test_furiten import _table  # type: ignore[import-not-found]
from test_referee_fold import Log  # type: ignore[import-not-found]

#: S wins E's 4s with 22444m 333567p 44s: 断幺九, and 宝牌 for each indicator 1m (2m ×2) or 3s (4s ×3)
S_READY = parse_tiles("22444m333567p44s")


def _ron(log: Log, **options: Any) -> dict[str, Any]:
    log.ref("referee.win_read", hand={"seat_wind": "S", "prevalent_wind": "E", "concealed": S_READY, "win_tile": "4s",
                                      "win": "discard", "discarder": "E", "options": {"riichi": True, **options}})
    return log.state().actions[-1]["result"]


def test_a_read_gives_one_indicator_and_one_more_a_kong_the_record_holds() -> None:
    log = _table(("E", "4s"))
    assert _ron(log, dora=["1m"], ura_dora=["3s"])["han"] == 7  # 立直 断幺九 宝牌2 里宝牌3: one of each
    two = _ron(log, dora=["1m", "3s"])  # a second indicator with no kong: 宝牌 5, 跳满, was scored
    assert not two["valid"] and two["reason"] == "indicators", two
    assert "宝牌指示牌最多 1 张" in two["message"] and "0 个杠" in two["message"] and "收到 2 张" in two["message"]
    ura = _ron(log, dora=["1m"], ura_dora=["3s", "3s"])
    assert not ura["valid"] and "里宝牌指示牌最多 1 张" in ura["message"]
    # N konged (a 暗杠): one more indicator each is turned up
    log.add("demo", "play.discard", {"seat": "S", "tile": "9s", "by": "demo"})
    log.add("demo", "play.discard", {"seat": "W", "tile": "1z", "by": "demo"})
    log.add("demo", "play.kong", {"seat": "N", "tiles": ["5z"] * 4, "concealed": True, "by": "demo"})
    log.add("demo", "play.discard", {"seat": "N", "tile": "2z", "by": "demo"})
    log.add("demo", "play.discard", {"seat": "E", "tile": "4s", "by": "demo"})
    assert _ron(log, dora=["1m", "3s"], ura_dora=["9p", "9p"])["valid"]
    assert _ron(log, dora=["1m", "3s", "3s"])["reason"] == "indicators"
