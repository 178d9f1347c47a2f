"""Tile codes: parsing, formatting, ordering, names and successions (glossary, walls.md)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from table_controller import tiles as T


def test_parse_compact_and_words() -> None:
    assert T.parse_tiles("123m456p") == ["1m", "2m", "3m", "4p", "5p", "6p"]
    assert T.parse_tiles("1910m 5z, back 12f") == ["1m", "9m", "10m", "5z", "back", "1f", "2f"]


@pytest.mark.parametrize("bad", ["8z", "0m", "9f", "12x", "m", "1m2", "11"])
def test_parse_rejects_with_stable_code(bad: str) -> None:
    with pytest.raises(T.TileError) as err:
        T.parse_tiles(bad)
    assert err.value.code == "bad_tile"


def test_names_follow_glossary() -> None:
    assert [T.tile_name(c) for c in ("1m", "9p", "5s", "10m", "10p", "10s")] == [
        "一万", "九筒", "五条", "十万", "十饼", "十条"]
    assert "".join(T.tile_name(f"{r}z") for r in range(1, 8)) == "东南西北白发中"
    assert "".join(T.tile_name(f"{r}f") for r in range(1, 9)) == "春夏秋冬梅兰菊竹"
    assert [T.seat_name(s) for s in T.SEATS] == ["东", "南", "西", "北"]
    assert T.tile_name("back") == "牌背"


def test_order_and_seats() -> None:
    assert T.sort_tiles(["back", "1f", "7z", "1s", "9p", "1m"]) == ["1m", "9p", "1s", "7z", "1f", "back"]
    assert [T.seat_after("E", k) for k in (1, 2, 3, 4)] == ["S", "W", "N", "E"]
    assert len(T.all_kinds()) == 34 and len(T.all_kinds(honours=False)) == 27
    assert len(T.all_kinds(tens=True, flowers=True)) == 30 + 7 + 8


def test_next_kind_per_walls_md() -> None:
    assert T.next_kind("9m") == "1m" and T.next_kind("9m", tens=True) == "10m"
    assert [T.next_kind(f"{r}z") for r in range(1, 8)] == ["2z", "3z", "4z", "1z", "6z", "7z", "5z"]
    assert T.next_kind("4z", "fujian") == "7z" and T.next_kind("5z", "fujian") == "1z"
    assert T.next_kind("4z", "wuhan") == "6z" and T.next_kind("7z", "wuhan") == "6z"
    with pytest.raises(T.TileError):
        T.next_kind("3f")


@settings(max_examples=60)
@given(st.lists(st.sampled_from(T.all_kinds(tens=True, flowers=True) + ["back"]), max_size=20))
def test_format_parse_round_trip(codes: list[str]) -> None:
    assert T.parse_tiles(T.format_tiles(codes)) == T.sort_tiles(codes)


def test_is_tile_is_exactly_the_glossary() -> None:
    import re

    code = re.compile(r"^(?:(10|[1-9])[mps]|[1-7]z|[1-8]f)$")
    candidates = [f"{n}{s}" for n in range(0, 12) for s in "mpszfx"] + ["back", "", "1", [], None]
    for c in candidates:
        assert T.is_tile(c) == bool(isinstance(c, str) and code.match(c)), c
