"""Waits: published ready hands and their winning tiles, every ruleset's waits, `tablectl waits`."""

from __future__ import annotations

import json

import pytest

from scoring.gbnotation import read_ready
from table_controller.cli import main
from table_controller.scoring.hand import HandInput
from table_controller.scoring.waits import waits

# Ready hands and their waits from the gb-mahjong-js test data (tingCases), transcribed:
# E S W N = 1z..4z, P 白 5z, F 发 6z, C 中 7z.
PUBLISHED = [
    ("[CCCC][FFFF][PPPP][NNNN]E", ["1z"]),
    ("19m19s19pESWNCFP", ["1m", "9m", "1p", "9p", "1s", "9s", "1z", "2z", "3z", "4z", "5z", "6z", "7z"]),
    ("19m19s19pESWNNFP", ["7z"]),
    ("22559m11sEESSPP", ["9m"]),
    ("47m28s369pESWCFP", ["1m", "5s", "4z"]),
    ("28m47s369pESWCCP", []),
    ("1112345678999s", [f"{r}s" for r in range(1, 10)]),
    ("[111s,1]2345678999s", ["1s", "2s", "4s", "5s", "7s", "8s"]),
    ("1112345689999s", ["7s"]),
    ("1112346778999s", ["5s", "7s", "8s"]),
    ("3344455566667m", ["2m", "3m", "4m", "5m", "7m", "8m"]),
    ("234m45s88899pEEE", ["3s", "6s"]),
    ("234m35s88899pEEE", ["4s"]),
    ("234m345s8889pEEE", ["7p", "9p"]),
    ("234m345s6669pEEE", ["9p"]),
    ("234m345s3399pEEE", ["3p", "9p"]),
    ("34444556789pPP", ["7p", "5z"]),
    ("23344445m888pWW", ["1m", "3z"]),
    ("234m345s333pEEEE", []),
]


@pytest.mark.parametrize("text,expected", PUBLISHED, ids=[p[0] for p in PUBLISHED])
def test_published_mcr_waits(text: str, expected: list[str]) -> None:
    hand = HandInput.from_json(read_ready(text), ready_only=True)
    assert sorted(w.tile for w in waits(hand, "mcr")) == sorted(expected)


def _ready(concealed: str, **over: object) -> HandInput:
    data = {"seat_wind": "E", "prevalent_wind": "E", "concealed": concealed, "melds": [], "win": "discard"}
    data.update(over)
    return HandInput.from_json(data, ready_only=True)


def test_waits_per_ruleset() -> None:
    nine_gates = _ready("1112345678999m")
    for ruleset in ("jingji", "sichuan", "xueliu", "tuidaohu", "jipinghu"):
        assert [w.tile for w in waits(nine_gates, ruleset)] == [f"{r}m" for r in range(1, 10)], ruleset
    # 四川: a wait is scored; 1m makes 四归一 (根)
    by_tile = {w.tile: w.result for w in waits(nine_gates, "sichuan")}
    assert by_tile["1m"].total == 3 and by_tile["2m"].total == 2
    # 竞技 admits 十四不靠 (大乱): 147m258p36s + five honours waits on 9s and the two missing honours
    knitted = [w.tile for w in waits(_ready("147m258p36s12345z"), "jingji")]
    assert {"9s", "6z", "7z"} <= set(knitted)
    # 推倒胡 with a 鬼牌: the joker makes more waits
    plain = [w.tile for w in waits(_ready("123m456p789s1155z"), "tuidaohu")]
    wild = [w.tile for w in waits(_ready("123m456p789s1155z", options={"wildcard": "5z"}), "tuidaohu")]
    assert plain == ["1z", "5z"] and len(wild) > len(plain)


def test_waits_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["waits", "1112345678999m", "--ruleset", "sichuan", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ready"] and [w["tile"] for w in out["waits"]] == [f"{r}m" for r in range(1, 10)]
    assert main(["waits", "123m", "--json"]) == 2
    assert "wrong_tile_count" in capsys.readouterr().err
    assert main(["waits", "1234m", "--meld", "pung:555z:N", "--meld", "pung:666z:S", "--meld", "chi:789p:N"]) == 0
    assert "不够8番" in capsys.readouterr().out
    assert main(["waits", "1234m", "--meld", "pung:5z"]) == 2
