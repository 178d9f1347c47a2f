"""Kong payments, 荒牌 settlement, 诈和, the Win page's options and the fan table's payment rows are the scoring
module's (`pay_kong`, `settle_draw`, `pay_false_win`, `win_options`, `settlement_rows`), not branches on family ids
in shared code: every ruleset answers as it did, and a venue's copy of a shipped ruleset under its own id pays,
asks and lists as the original."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from table_controller.rules import ruleset_ids
from table_controller.scoring import exhaustive_settlement, false_win, kong_payment
from table_controller.scoring.config import engine
from tests.scoring.hooks_cases import answers, run_all
from tests.scoring.test_engines import _venue_copy

RECORDED = Path(__file__).parent / "data" / "hooks_recorded.json"


@pytest.mark.parametrize("part", ["kong", "exhaustive", "false_win", "win_options", "fan_table", "settlement_rows"])
def test_every_ruleset_answers_as_recorded_on_the_branching_code(part: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The answers were recorded before the dispatch moved into the modules (`hooks_cases.py` says how)."""
    monkeypatch.delenv("TABLECTL_RULESETS_DIR", raising=False)
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    now = json.loads(json.dumps(run_all()))  # tuples and the like as the record has them
    assert sorted(now) == sorted(recorded)
    for ruleset in recorded:
        assert now[ruleset][part] == recorded[ruleset][part], ruleset


@pytest.mark.parametrize("base", ["sichuan", "xueliu", "jingji", "mcr", "tuidaohu", "nanning", "riichi", "hebei"])
def test_a_venues_copy_under_its_own_id_pays_as_the_shipped_ruleset(base: str, tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, `kong_payment` and `exhaustive_settlement` asked `family(ruleset) == "sichuan"` (and "jingji", ...):
    a venue's copy of 四川 under its own id paid no 刮风下雨 (None), settled nothing at 荒牌 (None) and had
    no 诈和 rule (`no_false_win_rule`), though `[scoring] engine` said which module scores it."""
    monkeypatch.delenv("TABLECTL_RULESETS_DIR", raising=False)
    shipped = answers(base)
    _venue_copy(tmp_path, base, f"{base}_club", engine(base))
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    assert list(ruleset_ids()) == [f"{base}_club"]  # the shipped file is not there to fall back on
    assert answers(f"{base}_club") == shipped


def test_a_copy_of_sichuan_pays_kongs_settles_the_draw_and_charges_a_false_win(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the hand machine and the referee's rulings get for a 四川 copy named chengdu (numbers from seed 003's
    刮风下雨 and 和多少罚多少 with base 1, cap 4 番), and for a 竞技 copy's 杠牌现场汇 and 罚分."""
    _venue_copy(tmp_path, "sichuan", "chengdu", "sichuan")
    _venue_copy(tmp_path, "jingji", "jingji_city", "jingji")
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    rain = kong_payment("chengdu", {"seat": "N", "kind": "concealed"}, ("S", "W", "N"))  # 下雨, E has won (血战)
    assert rain == {"E": 0, "S": -2, "W": -2, "N": 4}
    assert false_win("chengdu", "S", fan=2) == {"E": 4, "S": -12, "W": 4, "N": 4}
    docs = {"W": {"seat_wind": "W", "concealed": "12345678m13579p"},  # not ready
            "S": {"seat_wind": "S", "concealed": "1112345678999m"}}  # 九莲: ready
    settled = exhaustive_settlement("chengdu", docs)
    assert settled is not None and settled["not_ready"] == ["W"] and settled["payments"]["S"] > 0
    assert kong_payment("jingji_city", {"seat": "E", "kind": "flower", "double": True}) == {
        "E": 48, "S": -16, "W": -16, "N": -16}
    assert false_win("jingji_city", "E", amount=20, victim="W") == {"E": -20, "S": 0, "W": 20, "N": 0}


@pytest.mark.parametrize("base,hand,shipped_waits", [
    ("jingji", "147m258p369s1234z", ["5z", "6z", "7z"]),  # 大乱 (knitted), read by 竞技's own shapes
    ("mcr", "147m258p369s1234z", ["5z", "6z", "7z"]),     # 全不靠, read by the MCR library
    ("sichuan", "1112345678999m", ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m"]),  # 九莲, no honours
])
def test_tablectl_waits_of_a_venues_copy_reads_shapes_as_its_engine(base: str, hand: str, shipped_waits: list[str],
                                                                    tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """`scoring.waits` asked `family == "mcr"` / `"jingji"` for the shapes those modules read: a copy under its
    own id found a 全不靠 / 大乱 hand not ready (未听牌); the engine's `completes` hook reads them now."""
    from table_controller.cli import main

    def listed(ruleset: str) -> list[str]:
        assert main(["waits", hand, "--ruleset", ruleset, "--json"]) == 0
        return [w["tile"] for w in json.loads(capsys.readouterr().out)["waits"]]

    monkeypatch.delenv("TABLECTL_RULESETS_DIR", raising=False)
    assert listed(base) == shipped_waits
    _venue_copy(tmp_path, base, f"{base}_club", base)
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    assert listed(f"{base}_club") == shipped_waits


#: A win under each, with the options only the referee gives (riichi's 立直 and indicators, 竞技's 倍打).
COPY_HANDS = {
    "riichi": {"seat_wind": "S", "concealed": "22444m333567p44s", "win_tile": "4s", "win": "self_draw",
               "options": {"riichi": True, "dora": ["1m"], "honba": 1}},
    "jingji": {"seat_wind": "E", "concealed": "123456789m78p99s", "win_tile": "9p", "win": "discard",
               "discarder": "S", "options": {"double": True}},
}


@pytest.mark.parametrize("base", ["riichi", "jingji"])
def test_a_copy_of_riichi_or_jingji_asks_lists_and_scores_as_the_original(base: str, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, `win_options` asked `family == "riichi"` and `catalog.settlement_rows` `family == "jingji"`: a
    riichi copy under its own id gave the Win page no 立直, 一发, 宝牌 fields (so its scorer never had them), and a
    竞技 copy's fan table had no 包付, 倍打, 诈和 rows. Now the engine module's `win_options` / `settlement_rows`."""
    from table_controller.scoring import score_json, win_options
    from table_controller.scoring.catalog import fan_table

    monkeypatch.delenv("TABLECTL_RULESETS_DIR", raising=False)
    shipped = (win_options(base), fan_table(base), score_json(COPY_HANDS[base], base))
    _venue_copy(tmp_path, base, "venue", base)
    monkeypatch.setenv("TABLECTL_RULESETS_DIR", str(tmp_path))
    options, rows, result = win_options("venue"), fan_table("venue"), score_json(COPY_HANDS[base], "venue")
    assert (options, rows) == shipped[:2]
    assert result["valid"] and {**result, "ruleset": base} == shipped[2]
    if base == "riichi":
        assert options == ["riichi", "ippatsu", "dora", "ura_dora", "honba", "first_turn"]
        assert ("立直", 1) in [(f["name"], f["value"]) for f in result["fans"]]
    else:
        assert [(r["name"], r["value"]) for r in rows[-3:]] == [("包付", 3), ("倍打", 2), ("诈和", 50)]
        assert result["double"] is True and result["payments"]["S"] == -2 * 2 * result["total"]
