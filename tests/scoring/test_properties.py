"""Properties on generated legal winning hands, every ruleset: no crash, zero-sum payments,
the same verdict in any tile order, and the winning tile is among the hand's waits."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import HealthCheck, assume, given, settings, strategies as st

from table_controller import tiles as T
from table_controller.scoring import HandInput, ScoringError, score_json, scored_rulesets
from table_controller.scoring.waits import waits

#: Not here: riichi (a random hand mostly has no yaku; tests/scoring/test_riichi*.py). Every other scored ruleset,
#: read from the ruleset files, so a new one is checked without editing a list.
RULESETS = [r for r in scored_rulesets() if r != "riichi"]
SUITED = [f"{r}{s}" for s in "mps" for r in range(1, 10)]
HONOURS = [f"{r}z" for r in range(1, 8)]


@st.composite
def winning_hands(draw: Any, honours: bool = True, chows: bool = True) -> dict[str, Any]:
    """Four sets and a pair, some declared, no fifth copy; the winning tile from the concealed part."""
    kinds = SUITED + (HONOURS if honours else [])
    used: Counter[str] = Counter()
    groups: list[tuple[str, list[str]]] = []
    for _ in range(4):
        if chows and draw(st.booleans()):
            s, r = draw(st.sampled_from("mps")), draw(st.integers(1, 7))
            tiles = [f"{r + i}{s}" for i in range(3)]
            kind = "chi"
        else:
            k = draw(st.sampled_from(kinds))
            kind = draw(st.sampled_from(["pung", "pung", "kong"]))
            tiles = [k] * (4 if kind == "kong" else 3)
        groups.append((kind, tiles))
        used.update(tiles)
    pair = draw(st.sampled_from(kinds))
    used.update([pair, pair])
    assume(all(n <= 4 for n in used.values()))
    seat = draw(st.sampled_from(T.SEATS))
    melds, concealed = [], [pair, pair]
    for kind, tiles in groups:
        declared = draw(st.booleans()) or kind == "kong"
        if declared:
            meld: dict[str, Any] = {"type": kind, "tiles": tiles}
            if kind == "chi":
                meld["from"] = T.seat_after(seat, 3)
            elif kind == "kong" and draw(st.booleans()):
                meld["concealed"] = True
            else:
                meld["from"] = T.seat_after(seat, draw(st.integers(1, 3)))
            melds.append(meld)
        else:
            concealed.extend(tiles)
    win_tile = draw(st.sampled_from(concealed))
    concealed.remove(win_tile)
    konged = any(m["type"] == "kong" for m in melds)  # 杠上开花 needs a kong (impossible_kong_replacement)
    win = draw(st.sampled_from(["self_draw", "discard", "kong_replacement"] if konged else ["self_draw", "discard"]))
    data = {"seat_wind": seat, "prevalent_wind": draw(st.sampled_from(T.SEATS)), "melds": melds,
            "concealed": draw(st.permutations(concealed)), "win_tile": win_tile, "win": win,
            "last_tile": draw(st.booleans())}
    if win == "discard":
        data["discarder"] = T.seat_after(seat, draw(st.integers(1, 3)))
    return data


def _check(data: dict[str, Any], ruleset: str) -> None:
    try:
        out = score_json(data, ruleset)
    except ScoringError as exc:  # only the ruleset's own refusals: chows in 推倒胡, honours in 四川
        assert exc.code in ("bad_meld", "bad_tile"), exc
        return
    if out["valid"]:
        assert sum(out["payments"].values()) == 0
        assert out["payments"][data["seat_wind"]] > 0
    else:
        assert out["reason"] != "not_a_win", out  # the shape wins: only a rule can refuse it
    shuffled = dict(data, concealed=list(reversed(data["concealed"])))
    assert score_json(shuffled, ruleset) == out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(winning_hands(), st.sampled_from(RULESETS))
def test_every_legal_win_scores_or_is_refused_by_a_rule(data: dict[str, Any], ruleset: str) -> None:
    _check(data, ruleset)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(winning_hands(honours=False, chows=False))
def test_sichuan_two_suit_pung_hands(data: dict[str, Any]) -> None:
    _check(data, "sichuan")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(winning_hands(), st.sampled_from(["mcr", "jingji", "jipinghu"]))
def test_the_winning_tile_is_a_wait(data: dict[str, Any], ruleset: str) -> None:
    hand = HandInput.from_json(data)
    ready = HandInput.from_json({k: v for k, v in data.items() if k != "win_tile"}, ready_only=True)
    assert hand.win_tile in [w.tile for w in waits(ready, ruleset)]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(winning_hands(chows=False))
def test_nanning_pung_hands(data: dict[str, Any]) -> None:
    _check(data, "nanning")  # 南宁 has no chows: every such win scores, its payments summing to zero
