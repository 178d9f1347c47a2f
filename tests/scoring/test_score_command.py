"""`tablectl score`: verdicts exit 0, malformed input exits 2 naming the field."""

from __future__ import annotations

import io
import json
import sys
from typing import Any

import pytest

from table_controller.cli import main

HAND = {"seat_wind": "E", "prevalent_wind": "E", "concealed": "1223434567899m", "melds": [],
        "win_tile": "9m", "win": "self_draw"}


def _run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], stdin: str,
         *argv: str) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(["score", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_verdict(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(monkeypatch, capsys, json.dumps(HAND), "--ruleset", "mcr", "--json")
    result = json.loads(out)
    assert code == 0 and result["valid"] and result["total"] == 46
    assert result["payments"] == {"E": 162, "S": -54, "W": -54, "N": -54}


def test_not_a_win_exits_0(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(monkeypatch, capsys, json.dumps(dict(HAND, win_tile="5z")), "--ruleset", "mcr", "--json")
    assert code == 0 and json.loads(out)["reason"] == "not_a_win"


@pytest.mark.parametrize("doc,ruleset,needle", [
    ('{"seat_wind": "E",', "mcr", "malformed JSON"),
    (json.dumps(dict(HAND, seat_wind="Q")), "mcr", "seat_wind"),
    (json.dumps(dict(HAND, concealed="122343456789m")), "mcr", "wrong_tile_count"),
    (json.dumps(dict(HAND, concealed="1111234567899m", win_tile="1m")), "mcr", "too_many_copies"),
    (json.dumps(dict(HAND, melds=[{"type": "chi", "tiles": "135m", "from": "N"}])), "mcr", "melds[0].tiles"),
    (json.dumps(HAND), "klondike", "unknown_ruleset"),
])
def test_malformed_exits_2_naming_it(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                     doc: str, ruleset: str, needle: str) -> None:
    code, out, err = _run(monkeypatch, capsys, doc, "--ruleset", ruleset, "--json")
    assert code == 2 and out == "" and needle in err


PUNG_HAND = {"seat_wind": "E", "prevalent_wind": "E", "concealed": "1234567899m", "win_tile": "9m",
             "melds": [{"type": "pung", "tiles": "555z", "from": "N"}], "win": "self_draw"}


@pytest.mark.parametrize("doc,needle", [
    # the discarder was dropped unsaid: a referee who meant 点和 got the three seats paying
    (dict(PUNG_HAND, discarder="S"), "自摸没有点炮方"),
    (dict(PUNG_HAND, win="kong_replacement", discarder="S"), "has no discarder"),
    # "a pung is 3 identical tiles, not ['1f', '1f', '1f']": they are identical
    (dict(PUNG_HAND, melds=[{"type": "pung", "tiles": "1f1f1f", "from": "N"}]), "a flower is never in a meld"),
    # the two slips behind most wrong counts, named
    (dict(PUNG_HAND, concealed="12345678999m"), "take it out of concealed"),
    (dict(HAND, concealed="11112345678999m", win_tile="5z"), "is declared in melds"),
])
def test_a_keyed_slip_is_named(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                               doc: dict[str, Any], needle: str) -> None:
    code, out, err = _run(monkeypatch, capsys, json.dumps(doc), "--ruleset", "mcr", "--json")
    assert code == 2 and out == "" and needle in err, err


def test_a_self_draw_with_no_discarder_and_a_kong_of_four_tiles_score(monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(monkeypatch, capsys, json.dumps(dict(PUNG_HAND, discarder=None)), "--ruleset", "mcr", "--json")
    assert code == 0 and json.loads(out)["valid"]
    kong = dict(PUNG_HAND, melds=[{"type": "kong", "tiles": "5555z", "from": "N"}])
    code, out, _ = _run(monkeypatch, capsys, json.dumps(kong), "--ruleset", "mcr", "--json")
    assert code == 0 and "明杠" in [f["name"] for f in json.loads(out)["fans"]]


def test_human_output_is_chinese(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(monkeypatch, capsys, json.dumps(HAND), "--ruleset", "mcr")
    assert code == 0 and "清一色 24" in out and "合计 46" in out


def test_fan_table_for_the_referee(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "--ruleset", "jingji", "--fans", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    by_name = {r["name"]: r for r in rows}
    assert by_name["清一色"]["value"] == 30 and "one suit" in by_name["清一色"]["rule"]
    assert by_name["门清"] == {"name": "门清", "value": 8, "rule": "附加分"}
    assert all(r["rule"] for r in rows)  # every valued element has its rule
    assert by_name["包付"]["value"] == 3 and by_name["倍打"]["value"] == 2 and by_name["诈和"]["value"] == 50
    assert main(["score", "--ruleset", "mcr", "--fans"]) == 0
    assert "起和" in capsys.readouterr().out
    for ruleset in ("sichuan", "xueliu", "tuidaohu", "jipinghu"):
        assert main(["score", "--ruleset", ruleset, "--fans", "--json"]) == 0
        assert all(r["rule"] for r in json.loads(capsys.readouterr().out)), ruleset


def test_every_ruleset_has_a_fan_table(capsys: pytest.CaptureFixture[str]) -> None:
    """`score --fans` under 南宁 raised KeyError ('fans': its values are by way of winning), and under
    a ruleset the referee scores said "no scoring for ruleset 'shanghai'" (exit 2)."""
    from table_controller.rules import ruleset_ids

    for ruleset in ruleset_ids():
        assert main(["score", "--ruleset", ruleset, "--fans", "--json"]) == 0, ruleset
        assert all(r["name"] and r["rule"] for r in json.loads(capsys.readouterr().out)), ruleset
    assert main(["score", "--ruleset", "nanning", "--fans", "--json"]) == 0
    by_name = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert by_name["七大对"]["value"] == 24 and "自摸 16, 放冲 24" in by_name["七大对"]["rule"]
    assert by_name["推倒胡"]["value"] == 3 and "放冲 2" in by_name["推倒胡"]["rule"]
    assert main(["score", "--ruleset", "shanghai", "--fans"]) == 0
    assert "裁判计分" in capsys.readouterr().out


def test_a_misspelt_ruleset_is_answered_with_the_nearest_id(capsys: pytest.CaptureFixture[str]) -> None:
    """`--ruleset shangai` listed the rulesets scored here only, so nothing pointed at 上海 (scored by the
    referee, not in that list)."""
    assert main(["score", "--ruleset", "shangai", "--fans"]) == 2
    assert "no scoring for ruleset 'shangai' (did you mean 'shanghai'?)" in capsys.readouterr().err
    assert main(["score", "--ruleset", "qwertyuiop", "--fans"]) == 2
    assert "did you mean" not in capsys.readouterr().err


def test_unreadable_file_and_json_waits(tmp_path: Any, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "hand.json"
    bad.write_bytes(b"\xff\xfe{")
    assert main(["score", "--ruleset", "mcr", str(bad)]) == 2
    assert "not UTF-8" in capsys.readouterr().err
    assert main(["score", "--ruleset", "mcr", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps({"seat_wind": "E", "concealed": "1112345678999m"})))
    assert main(["waits", "-", "--ruleset", "sichuan", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["waits"]) == 9
    monkeypatch.setattr(sys, "stdin", io.StringIO("{"))
    assert main(["waits", "-"]) == 2
    assert "malformed JSON" in capsys.readouterr().err


def test_the_tools_say_a_slip_in_the_referees_words_first(monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """`score` and `waits` said the scorer's English only (`bad_tile: win_tile: not a tile code: '9x'`), where the
    Win page says the same slip Chinese first (读牌中有不是牌的代码 / ...)."""
    doc = {"seat_wind": "E", "concealed": "123456789m78p99s", "win_tile": "9x", "win": "self_draw"}
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(doc)))
    assert main(["score", "--ruleset", "mcr"]) == 2
    assert "tablectl score: bad_tile: 读牌中有不是牌的代码 / win_tile: not a tile code: '9x'" in capsys.readouterr().err
    assert main(["waits", "--ruleset", "mcr", "11223344556z"]) == 2
    assert "tablectl waits: wrong_tile_count: 手牌张数不对 / concealed: 11 concealed tiles" in capsys.readouterr().err


def test_jingji_baofu_and_double_in_the_json_and_the_text(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    # seed 004 三十四 2(2) 全求独钓: the discarder of the hung tile pays three shares; 三十 倍打 doubles
    melds = [{"type": "chi", "tiles": "123m", "from": "E"}, {"type": "pung", "tiles": "999p", "from": "W"},
             {"type": "pung", "tiles": "333s", "from": "N"}, {"type": "chi", "tiles": "789m", "from": "E"}]
    doc = {"seat_wind": "S", "concealed": "5p", "melds": melds, "win_tile": "5p", "win": "discard",
           "discarder": "W", "options": {"hanging": "5p", "double": True}}
    code, out, _ = _run(monkeypatch, capsys, json.dumps(doc), "--ruleset", "jingji", "--json")
    result = json.loads(out)
    assert code == 0 and result["baofu"] == {"seat": "W", "rule": "全求独钓包付"} and result["double"] is True
    assert result["payments"]["W"] == -6 * result["total"]
    code, out, _ = _run(monkeypatch, capsys, json.dumps(doc), "--ruleset", "jingji")
    assert "包付 W (全求独钓包付)" in out and "倍打" in out
    code, _, err = _run(monkeypatch, capsys, json.dumps(dict(doc, options={"double": "yes"})), "--ruleset", "jingji")
    assert code == 2 and "options.double" in err


def test_human_output_for_riichi_and_a_referee_scored_ruleset(monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    hand = {"seat_wind": "S", "concealed": "2m 2m 4m 4m 4m 3p 3p 3p 5p 6p 7p 4s 4s".split(), "win_tile": "4s",
            "win": "self_draw", "options": {"riichi": True, "dora": ["1m"]}}
    code, out, _ = _run(monkeypatch, capsys, json.dumps(hand), "--ruleset", "riichi")
    assert code == 0 and "合计 7 番 40 符" in out and "跳满" in out and "立直 1" in out
    code, out, _ = _run(monkeypatch, capsys, json.dumps({**hand, "options": {"points": 5}}), "--ruleset", "shanghai")
    assert code == 0 and "裁判计分" in out and "S +15" in out


def test_human_output_says_how_the_total_becomes_the_payment(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """推倒胡 鸡胡 自摸 without 鬼牌: 硬胡 is a step, no fan; before, the text listed 硬胡 2 among the fans."""
    hard = {"seat_wind": "S", "concealed": "123m456p789s1122z", "win_tile": "2z", "win": "self_draw",
            "options": {"wildcard": "5z"}}
    code, out, _ = _run(monkeypatch, capsys, json.dumps(hard), "--ruleset", "tuidaohu")
    assert code == 0 and "硬胡 2\n" not in out.split("合计")[0]
    assert "计分 2 × 自摸 2 × 硬胡 2 × 底分 1 = 8\n" in out
    code, out, _ = _run(monkeypatch, capsys, json.dumps(HAND), "--ruleset", "mcr")
    assert "计分 46 + 底分 8 = 54\n" in out


def test_an_error_on_the_discarder_is_said_as_itself(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Every error on the discarder field read 点炮方不能是和牌方自己 first ("must be a seat E S W N" too): the gist
    went by the field, not the slip. Only a winner named as its own discarder says that."""
    doc = {"seat_wind": "E", "concealed": "123456789m78p99s", "win_tile": "9p", "win": "discard", "discarder": "Q"}
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(doc)))
    assert main(["score", "--ruleset", "mcr"]) == 2
    said = capsys.readouterr().err
    assert "点炮方不能是和牌方自己" not in said and "读牌有误 / discarder: must be a seat" in said
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps({**doc, "discarder": "E"})))
    assert main(["score", "--ruleset", "mcr"]) == 2
    assert "点炮方不能是和牌方自己 / the winner cannot win on their own discard (discarder)" in capsys.readouterr().err
