"""What `tablectl`'s commands print as they run is read Chinese first, English after ("中文 / English"), as their
`--help` is (test_cli_chinese.py) and `tablectl check` says things.

Before, `deal`'s input errors ("--dice takes whole numbers…"), `conform`'s "unknown check" and its report, `probe`'s
table ("table at …, firmware …"), `install-service`'s "wrote …" and "then, as root:", `broker-config`'s summary, the
`vision` actions' messages, `sim`'s and `demo`'s refusals and the hub's command-line errors were English only or
English first: the venue technician and the table maker read them so. Each command's common error paths and its
normal output are run here (in process, or as a real process where the command serves), and every line is held to
Chinese first, so a new English-only message on these paths fails.

Left as they are, being read by programs: `--json`'s JSON, `vision corners`' lines for the config, `sim`'s address
(the first line, which `probe` and the tests take), `pin`'s hashed line, `install-service --print`'s files, `vision
read`'s rows of tile codes and figures and `eval`'s per-kind figures.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from table_controller.cli import main

ROOT = Path(__file__).resolve().parents[2]
HAN = re.compile(r"[\u4e00-\u9fff]")
#: what a line may hold that is no English words: paths, URLs, options, code spans, quoted values, tile codes
NOT_WORDS = re.compile(r"\S*://\S*|\S*/\S+|--?[\w-]+|`[^`]*`|'[^']*'|\"[^\"]*\"|\$\w+|\b\w*[_.]\w+\b|\[[^\]]*\]")
ENGLISH = re.compile(r"[A-Za-z]{3,}")
PREFIX = re.compile(r"^tablectl( [\w-]+)*: ")
#: a shell command to type (`install-service`'s steps after it): the shell's words, in no language to translate
COMMAND = re.compile(r"^\s*(mkdir|systemctl|udevadm|cp|install|chown|journalctl|sudo) ")
#: a line for a TOML file (`pin`'s, `vision corners`'): the config's own keys
TOML = re.compile(r"^(#\s*)?(\[\[?[\w.]+\]\]?|[\w.]+ = )")


def not_chinese_first(line: str) -> bool:
    """Whether `line` holds English words but not its Chinese first: Chinese before its first " / " (after the path
    or address it is of, as `preflight._said` puts them), English after it."""
    said = PREFIX.sub("", line.strip())
    if COMMAND.match(said) or TOML.match(said):
        return False
    if not ENGLISH.search(NOT_WORDS.sub(" ", said)):
        return False  # figures, tile codes, positions, a path: nothing to read in a language
    head, _, tail = said.partition(" / ")
    return not (HAN.search(head) and ENGLISH.search(tail))


def english_first(text: str) -> list[str]:
    """The lines of `text` not said Chinese first."""
    return [line for line in text.splitlines() if line.strip() and not_chinese_first(line)]


def _said(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """`tablectl ARGV` run in this process: its exit status, and what it printed (standard output and error)."""
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out + err


def test_the_check_of_a_line_sees_english_first() -> None:
    """The rule the tests below hold every line to (else they could pass on anything)."""
    assert not_chinese_first("tablectl deal: error: --dice takes whole numbers separated by commas")
    assert not_chinese_first("wrote /etc/systemd/system/mahjong-table.service")
    assert not_chinese_first("cannot open /dev/ttyUSB0 / 找不到串口")  # the Chinese after the English
    assert not_chinese_first("未写入")  is False  # Chinese alone is no English first
    assert not not_chinese_first("tablectl deal: 骰子点数须为 1 至 6 / dice: a die shows 1..6, not 7")
    assert not not_chinese_first("/tmp/x.png: 没有画面 / no picture")
    assert not not_chinese_first("  E 东 14: W15t W15b W16t W16b S05t")
    assert not not_chinese_first("  1m    0.981")


@pytest.mark.parametrize(("argv", "status"), [
    (["deal", "--ruleset", "nope", "--dice", "3,4"], 2),
    (["deal", "--ruleset", "jingji", "--dice", "3,7"], 2),
    (["deal", "--ruleset", "jingji", "--dice", "3"], 2),
    (["deal", "--ruleset", "jingji", "--dice", "three,4"], 2),
    (["deal", "--ruleset", "jingji"], 2),
    (["deal", "--dice", "3,4"], 2),
    (["deal", "--ruleset", "mcr", "--dice", "3,4"], 2),
    (["deal", "--ruleset", "jingji", "--dice", "3,4", "--dice2", "1,1"], 2),
    (["deal", "--ruleset", "jingji", "--dice", "3,4", "--wall-lengths", "18,18,18,17"], 2),
    (["deal", "--list", "--rulesets-dir", "/nonexistent"], 2),
    (["deal", "--list"], 0),
    (["deal", "--ruleset", "mcr", "--dice", "3,4", "--dice2", "2,5"], 0),
    (["deal", "--ruleset", "riichi", "--dice", "3,4"], 0),
    (["conform", "loop://", "--only", "nonsense"], 2),
    (["probe", "socket://127.0.0.1:1", "--timeout", "1"], 1),
    (["probe", "/dev/no-such-table", "--timeout", "1"], 1),
], ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_a_command_says_it_chinese_first(argv: list[str], status: int, capsys: pytest.CaptureFixture[str]) -> None:
    code, said = _said(argv, capsys)
    assert code == status, said
    assert said.strip()
    wrong = english_first(said)
    assert not wrong, "English first (中文 / English wanted):\n" + "\n".join(wrong)


@contextlib.contextmanager
def _running(*argv: str, script: Path | None = None) -> Iterator[str]:
    """`tablectl ARGV` (or `script` ARGV) as a real process: the first line it prints (the simulator's address), while
    it runs."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "hardware-sim"),
                                                        os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, str(script)] if script else [sys.executable, "-m", "table_controller.cli"]
    proc = subprocess.Popen([*command, *argv], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        yield proc.stdout.readline().strip()
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stdout:
            proc.stdout.close()


def test_probe_and_conform_report_a_table_chinese_first(capsys: pytest.CaptureFixture[str]) -> None:
    """`probe`'s table and `conform`'s line per check and its summary, of a table that keeps the rules."""
    with _running("sim", "--tcp", "0") as url:
        code, probed = _said(["probe", url], capsys)
        assert code == 0 and "固件 tablesim" in probed and "功能：机器配牌" in probed, probed
        code, conformed = _said(["conform", url, "--only", "reset,garbage"], capsys)
        assert code == 0 and "2/2 通过 / 2/2 passed" in conformed, conformed
    wrong = english_first(probed + conformed)
    assert not wrong, "English first:\n" + "\n".join(wrong)


def test_conform_reports_a_broken_rule_chinese_first(capsys: pytest.CaptureFixture[str]) -> None:
    """A firmware whose CRC is wrong: its ✗ line and the rule it broke, in the table maker's Chinese first."""
    with _running("bad_crc", script=ROOT / "tests" / "drivers" / "buggy_firmware.py") as path:
        code, said = _said(["conform", path, "--only", "identify"], capsys)
    assert code == 1 and "✗ 不符" in said and "不符：identify / 0/1 passed; failed: identify" in said, said
    wrong = english_first(said)
    assert not wrong, "English first:\n" + "\n".join(wrong)


def test_every_conformance_check_has_its_rule_in_chinese() -> None:
    from drivers.conformance import CHECKS, RULE_ZH

    assert [c[0] for c in CHECKS] == list(RULE_ZH) and all(HAN.search(RULE_ZH[c[0]]) for c in CHECKS)


TABLE_TOML = '[table]\nlink = "sim://"\nname = "一号桌"\n[storage]\ndata_dir = "{tmp}/data"\n'


@pytest.mark.parametrize(("argv", "status"), [
    # written (under a root of its own), with the steps after it; and its warnings: the config and data under /tmp
    (["install-service", "--config", "{tmp}/table.toml", "--root", "{tmp}/root", "--user", "pi"], 0),
    (["install-service", "--config", "{tmp}/table.toml", "--root", "{tmp}/root", "--unit", "../etc/passwd"], 2),
    (["install-service"], 2),
    (["install-service", "--hub", "--config", "{tmp}/table.toml", "--", "--broker", "mqtt://h", "--tournament", "c"], 2),
    (["install-service", "--hub", "--", "--broker", "http://h", "--tournament", "c"], 2),
    (["install-service", "--config", "{tmp}/missing.toml"], 2),
    (["broker-config", "--broker", "mqtt://10.0.0.2", "--tournament", "cup", "--tables", "t01=一号桌,t02",
      "--out", "{tmp}/out"], 0),
    (["broker-config", "--broker", "http://10.0.0.2", "--tournament", "cup", "--tables", "2", "--out", "{tmp}/out"], 2),
    (["broker-config", "--broker", "mqtt://10.0.0.2", "--tournament", "cup", "--tables", "2", "--out", "{tmp}/out",
      "--tls-dir", "/etc/x"], 2),
    (["hub", "--broker", "mqtt://h", "--tournament", "a b"], 2),
    (["hub", "--broker", "mqtts://h", "--tournament", "cup", "--ca-file", "{tmp}/table.toml"], 2),
    (["hub", "--broker", "mqtt://h", "--tournament", "cup", "--tls-cert", "{tmp}/cert.pem"], 2),
    (["hub", "--broker", "mqtt://h", "--tournament", "cup", "--topic-prefix", "a b"], 2),
    (["run", "--config", "{tmp}/missing.toml"], 2),
    (["sim", "--faults", "ber=often"], 2),
    (["sim", "--faults", "often"], 2),
    (["sim", "--scenario", "{tmp}/missing.txt"], 2),
    (["sim", "--scenario", "{tmp}/table.toml"], 2),
    (["demo", "--ruleset", "klondike", "--no-browser", "--data-dir", "{tmp}/demo"], 2),
    (["demo", "--tables", "0"], 2),
    (["demo", "--tables", "2", "--camera", "kmahjongg-default"], 2),
    (["pin", "--config", "{tmp}/missing.toml"], 2),  # a PIN that will do, for a config not there
    (["pin"], 2),  # a PIN guessed at once (1234)
    (["pin", "--referee", "李娜"], 0),  # its line for the config, and the comment naming where it goes
    (["pin", "--config", "{tmp}/table.toml"], 0),  # written into the config
], ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_setting_up_a_table_or_a_tournament_is_said_chinese_first(
        argv: list[str], status: int, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "table.toml").write_text(TABLE_TOML.format(tmp=tmp_path), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO("1234\n" if argv == ["pin"] else "k7Vq9mZp2w\n"))  # `pin`'s PIN
    code, said = _said([a.format(tmp=tmp_path) for a in argv], capsys)
    assert code == status, said
    assert said.strip()
    wrong = english_first(said)
    assert not wrong, "English first (中文 / English wanted):\n" + "\n".join(wrong)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`vision render`'s folder of one picture a kind and one table frame (xmahjongg-dorothys: loads in well under a
    second), its output held to Chinese first too; and that frame too dark to read (光线太暗)."""
    import cv2

    folder = tmp_path_factory.mktemp("rendered")
    code = main(["vision", "render", "xmahjongg-dorothys", str(folder / "r"), "--singles", "1", "--scenes", "1"])
    assert code == 0
    frame = cv2.imread(str(folder / "r" / "scene-0.jpg"))
    cv2.imwrite(str(folder / "dark.jpg"), (frame * 0.08).astype("uint8"))
    return folder


@pytest.mark.parametrize(("argv", "status"), [
    (["vision", "render", "xmahjongg-dorothys", "{tmp}/again", "--singles", "0"], 0),
    (["vision", "render", "nope", "{tmp}/again"], 1),
    (["vision", "render", "xmahjongg-dorothys", "{tmp}/r/labels.csv"], 1),  # a file where the folder goes
    (["vision", "eval", "{tmp}/r"], 0),
    (["vision", "eval", "{tmp}"], 1),  # no labels.csv
    (["vision", "eval", "{tmp}/r/labels.csv"], 1),
    (["vision", "read", "{tmp}/missing.png"], 1),
    (["vision", "read", "{tmp}/dark.jpg"], 1),
    (["vision", "read", "{tmp}/r/scene-0.jpg", "--corners", "1,2;3"], 1),
    (["vision", "read", "{tmp}/r/scene-0.jpg", "--enrollment", "{tmp}/missing.npz"], 1),
    (["vision", "corners", "{tmp}/dark.jpg"], 1),
    (["vision", "corners", "{tmp}/r/scene-0.jpg"], 0),  # the lines for the config
    (["vision", "grab", "{tmp}/r/scene-0.jpg", "{tmp}/grabbed.png"], 0),
    (["vision", "grab", "{tmp}/missing.jpg", "{tmp}/grabbed.png"], 1),
    (["vision", "grab", "{tmp}/r/scene-0.jpg", "{tmp}/grabbed.txt"], 1),
    (["vision", "enroll", "--kinds", "zz", "--out", "{tmp}/e", "{tmp}/r/scene-0.jpg"], 1),
    (["vision", "enroll", "--out", "{tmp}/e", "{tmp}/r/scene-0.jpg"], 1),  # a table in play: not 42 kinds in rows
    (["vision", "enroll", "--out", "{tmp}/e", "{tmp}/missing.jpg"], 1),
    (["vision", "camera", "--style", "nope"], 1),
], ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_the_camera_tools_say_it_chinese_first(argv: list[str], status: int, rendered: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    code, said = _said([a.format(tmp=rendered) for a in argv], capsys)
    assert code == status, said
    assert said.strip()
    wrong = english_first(said)
    assert not wrong, "English first (中文 / English wanted):\n" + "\n".join(wrong)
