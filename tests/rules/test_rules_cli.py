"""`tablectl deal`: JSON, the text picture, and exit 2 with a message on wrong input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from table_controller.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["deal", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_has_the_issue_keys(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--ruleset", "nanjing", "--dice", "1,5", "--dice2", "5,6", "--json")
    assert code == 0
    data = json.loads(out)
    for key in ("ruleset", "tiles", "wall_lengths", "break", "first_dealt", "hands", "live", "tail",
                "last_live", "indicators", "dice", "dice2", "throws"):
        assert key in data
    assert data["first_dealt"] == "S12t"  # walls.md nanjing check
    assert data["break"] == {"wall": "S", "count": 11, "mode": "leave", "stack": "S11"}
    assert data["throws"][1] == {"seat": "S", "dice": [5, 6], "total": 11}
    assert data["wall_lengths"] == {"E": 18, "S": 18, "W": 18, "N": 18}
    assert len(data["hands"]["E"]) == 14
    assert data["ring"][:2] == ["E01", "E02"] and data["ring"][18] == "N01" and len(data["ring"]) == 72


def test_riichi_json_indicator(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--ruleset", "riichi", "--dice", "3,4", "--json")
    assert code == 0 and json.loads(out)["indicators"] == {"dora": "W05t"}


def test_text_picture(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--ruleset", "hefei", "--dice", "4,5", "--wall-lengths", "14,13,14,13")
    assert code == 0
    assert "first dealt E04t" in out and "next draw W03b" in out
    lines = out.splitlines()
    bottom = next(line for line in lines if line.startswith("    ") and "<" in line)
    # E's wall printed E14..E01 left to right: E14..E04 dealt, E03 the next replacement, E02 E01 live
    assert bottom.split() == ["."] * 11 + ["<", "#", "#"]


@pytest.mark.parametrize("argv, words", [
    (["--ruleset", "nope", "--dice", "3,4"], "unknown ruleset 'nope'"),
    (["--ruleset", "jingji", "--dice", "0,4"], "1..6"),
    (["--ruleset", "jingji", "--dice", "3,7"], "not 7"),
    (["--ruleset", "jingji", "--dice", "3"], "2 dice"),
    (["--ruleset", "taiwan", "--dice", "3,4"], "3 dice"),
    (["--ruleset", "mcr", "--dice", "3,4"], "second throw"),
    (["--ruleset", "jingji", "--dice", "3,4", "--dice2", "1,1"], "one throw"),
    (["--ruleset", "jingji", "--dice", "3,4", "--wall-lengths", "18,18,18,17"], "142 tiles"),
    (["--ruleset", "jingji", "--dice", "3,4", "--wall-lengths", "18,18,18"], "four numbers"),
    (["--ruleset", "jingji", "--dice", "three,4"], "'three'"),
    (["--ruleset", "jingji"], "--dice is required"),
    (["--dice", "3,4"], "--ruleset ID is required"),
])
def test_wrong_input_exits_2_with_a_message(capsys: pytest.CaptureFixture[str], argv: list[str], words: str) -> None:
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("tablectl deal: ") and words in err


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "--list")
    assert code == 0 and "mcr" in out and "四川血战到底" in out
    code, out, err = _run(capsys, "--list", "--rulesets-dir", "/nonexistent")  # was: nothing listed, exit 0
    assert code == 2 and out == "" and "no ruleset files" in err and "/nonexistent" in err


def test_real_process_exit_code() -> None:
    proc = subprocess.run([sys.executable, "-m", "table_controller.cli", "deal", "--ruleset", "mcr",
                           "--dice", "3,4", "--dice2", "9,9"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "dice2: a die shows 1..6, not 9" in proc.stderr


@pytest.mark.parametrize("argv", [["deal", "--list"], ["deal", "--ruleset", "mcr", "--dice", "3,4", "--dice2", "2,5"],
                                  ["waits", "1112345678999m"]])
def test_a_reader_that_stops_early_gets_no_traceback(argv: list[str]) -> None:
    """`tablectl deal --list | head -3`: the pipe's reader is gone before the output is written.
    Before, a traceback (BrokenPipeError) or "Exception ignored" at exit; now the shell's SIGPIPE status."""
    proc = subprocess.Popen([sys.executable, "-m", "table_controller.cli", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader leaves before the command has printed anything
    err = proc.stderr.read().decode()
    assert proc.wait(60) == 141, err
    assert "Traceback" not in err and "BrokenPipeError" not in err and "Exception ignored" not in err
