"""The per-ruleset caches (the penalty catalogue, the timers, the hand's flow, the deal plan, the scoring tables) are
the ruleset file's as this process read it from its folder ($TABLECTL_RULESETS_DIR): a venue's copy of a shipped
ruleset keeps the shipped id. Keyed by the id alone, a second folder's copy in the same process (a pytest worker, a
tool beside the service) got the first one's penalties, timers and flow; and every part, read when first asked for,
came from the file as it was at that moment: a file edited while the service ran gave the Penalties page the new
catalogue and the turn timers the old. Now every part comes from one read of the file per folder
(`rules.ruleset.in_use`): an edit waits for the restart, whole, and the config watch says so once
(`config_watch.RulesetWatch`)."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from table_controller.penalties import catalogue
from table_controller.referee import flow_of
from table_controller.rules import deal_plan, load_ruleset
from table_controller.rules.ruleset import ENV_DIR, PACKAGED
from table_controller.scoring import ruleset_file, ruleset_tiles
from table_controller.scoring.config import family, scored, scoring
from table_controller.state import hand_plan
from table_controller.timers import timer_rules

OPERATOR = "op-venue-7731"
CONFIG = f'''[table]
link = "sim://"
sim_speed = 1000.0

[rules]
ruleset = "mcr"

[display]
port = 0
referee_token = "ref-venue-5190"
operator_token = "{OPERATOR}"

[storage]
data_dir = "record"
'''

#: What a venue changes in its copy of mcr.toml: each line appears once in the shipped file.
EDITS = {
    'count = "both_totals"': 'count = "second_total"',     # [break]: the deal plan
    "multiple_winners = false": "multiple_winners = true",  # [flow]
    "amount = 10\nstops_win = true": "amount = 30\nstops_win = true",  # [penalties] 诈和
    "claim_s = 3\n": "claim_s = 5\n",                       # [timers]
    "min_fan = 8 ": "min_fan = 6 ",                         # [scoring]
}
HAND = {"ruleset": "mcr", "throws": [{"dice": [3, 4]}, {"dice": [2, 5]}], "wall_lengths": {}}


def _copy(folder: Path, edits: dict[str, str]) -> Path:
    """`folder` holding the shipped mcr.toml with `edits` made (old text → new)."""
    folder.mkdir(exist_ok=True)
    text = (PACKAGED / "mcr.toml").read_text(encoding="utf-8")
    for old, new in edits.items():
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    (folder / "mcr.toml").write_text(text, encoding="utf-8")
    return folder


def _parts() -> tuple[int | None, float | None, bool, int, int]:
    """What the running table reads of mcr: 诈和's amount, the claim window, 一炮多响, the break's stack, min_fan."""
    return (catalogue("mcr").get("false_win").amount, timer_rules("mcr").claim_s, flow_of("mcr").multiple_winners,
            hand_plan(HAND).break_stack, int(scoring("mcr")["min_fan"]))


def test_a_venue_copy_in_another_folder_is_read_as_its_own_file_in_the_same_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped mcr first (as every other test of the worker may have read it), then a venue's copy with the
    same id in its own folder: each part is the copy's. Before, the catalogue, the timers, the flow and the deal plan
    were the shipped file's (keyed by the id), only [scoring] the copy's: 30 points of 诈和 charged as 10."""
    monkeypatch.delenv(ENV_DIR, raising=False)
    shipped = _parts()
    assert shipped == (10, 3, False, shipped[3], 8)
    venue = _copy(tmp_path / "venue", EDITS)
    monkeypatch.setenv(ENV_DIR, str(venue))
    copy_plan = deal_plan(load_ruleset("mcr", venue), dice=(3, 4), dice2=(2, 5))
    assert copy_plan.break_stack != shipped[3]  # the edit moves the break: the plan tells the two files apart
    assert _parts() == (30, 5, True, copy_plan.break_stack, 6)
    monkeypatch.delenv(ENV_DIR)
    assert _parts() == shipped  # and back: each folder its own


def test_an_edit_in_place_after_one_part_was_read_leaves_every_part_as_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The venue's file read once (the turn timers, asked for by the first page), then edited in place: the
    catalogue, the flow, the deal and the scoring asked for afterwards are the file as read, not as edited. Before,
    each part was the file as it was when that part was first asked for: [scoring]'s min_fan was the edit's 6."""
    venue = _copy(tmp_path / "venue", {})
    monkeypatch.setenv(ENV_DIR, str(venue))
    assert timer_rules("mcr").claim_s == 3
    read = deal_plan(load_ruleset("mcr", venue), dice=(3, 4), dice2=(2, 5)).break_stack
    _copy(venue, EDITS)
    assert _parts() == (10, 3, False, read, 8)


CLUB = 'extends = "sichuan"\nid = "club"\nname_zh = "俱乐部"\nname_en = "Club"\n[dice]\ncount = 2\n'


def _club_as_read() -> tuple[bool, str, bool, bool, bool]:
    """What the process makes of the house file `club` (四川 with its dice said again): scored, its family, its
    file, 东 among its tiles, chows in its flow."""
    kinds = ruleset_tiles("club")[1]
    return scored("club"), family("club"), ruleset_file("club") is not None, "1z" in kinds, flow_of("club").chow


def test_a_ruleset_file_that_did_not_read_is_read_again_once_put_right(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A house file saved with a typo ([dice] cuont) is asked for (a page, `tablectl check`, the config watch's
    reload), then put right: the same process reads it as it is now. The failure was kept by the caches over the
    read (scored, family, the file, its tiles, its flow): the club stayed 裁判计分 and its own family, unknown to
    the record (UnknownRuleset) and played with chows and honours until a restart."""
    folder = tmp_path / "venue"
    folder.mkdir()
    monkeypatch.setenv(ENV_DIR, str(folder))
    (folder / "club.toml").write_text(CLUB.replace("count = 2", "cuont = 2"), encoding="utf-8")
    assert _club_as_read() == (False, "club", False, False, True)  # as if unknown: named where it is configured
    (folder / "club.toml").write_text(CLUB, encoding="utf-8")
    assert _club_as_read() == (True, "sichuan", True, False, False)
    assert scoring("club")["family"] == "sichuan"


def _said(caplog: pytest.LogCaptureFixture, words: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if words in r.getMessage()]


async def _until_said(caplog: pytest.LogCaptureFixture, words: str, count: int = 1) -> logging.LogRecord:
    end = time.monotonic() + 5
    while len(_said(caplog, words)) < count:
        assert time.monotonic() < end, f"the config watch never said {words!r}"
        await asyncio.sleep(0.02)
    return _said(caplog, words)[-1]


async def _save(path: Path, text: str) -> None:
    """Written so that the watch's stamp of it differs (a save within the same clock tick keeps the size)."""
    before = os.stat(path).st_mtime_ns if path.exists() else 0
    path.write_text(text, encoding="utf-8")
    if os.stat(path).st_mtime_ns == before:
        os.utime(path, ns=(before + 1_000_000, before + 1_000_000))


async def test_a_running_table_plays_its_ruleset_file_as_started_and_says_an_edit_waits_for_the_restart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A venue edits `[penalties]`, `[timers]`, `[flow]`, `[break]` and `[scoring]` of its mcr.toml while the table
    runs: the Penalties page and the turn timers stay the file as started, both of them, and the journal says once,
    Chinese first, that the edit waits for the restart (nothing was said before: the config watch looked at the
    config file only). The same edit saved again is not said again; an edit that does not read is said so (a restart
    would stop on it); the file put back is said to need no restart. A new process (the restart) reads the edit."""
    from table_controller import config_watch
    from table_controller.config import load_config
    from table_controller.service import TableService

    monkeypatch.setattr(config_watch, "EVERY_S", 0.05)
    caplog.set_level(logging.WARNING, logger="table_controller.config_watch")
    venue = _copy(tmp_path / "venue", {})
    monkeypatch.setenv(ENV_DIR, str(venue))
    config = tmp_path / "table.toml"
    config.write_text(CONFIG, encoding="utf-8")
    cfg = load_config(config)
    svc = TableService(cfg, cfg.data_path())
    await svc.start()
    try:
        shipped = (venue / "mcr.toml").read_text(encoding="utf-8")
        await _save(venue / "mcr.toml", (PACKAGED / "mcr.toml").read_text(encoding="utf-8"))  # the same text
        await asyncio.sleep(0.3)
        assert not _said(caplog, "ruleset file")  # saved as it was: nothing to say
        _copy(venue, EDITS)
        said = await _until_said(caplog, "takes effect whole at the next restart")
        assert said.message_zh.startswith("规则文件 mcr.toml 已修改：须重启服务后才生效，现仍按原文件运行")  # type: ignore[attr-defined]
        assert said.files == [str(venue / "mcr.toml")]  # type: ignore[attr-defined]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{svc.port}") as http:
            items = {p["code"]: p for p in (await http.get("/api/penalties")).json()["items"]}
            timers = (await http.get("/api/state")).json()["timers"]
        assert (items["false_win"]["amount"], timers["claim_s"]) == (10, 3)
        assert _parts()[:3] == (10, 3, False)
        edited = (venue / "mcr.toml").read_text(encoding="utf-8")
        await _save(venue / "mcr.toml", edited)  # saved again, the same edit
        await asyncio.sleep(0.3)
        assert len(_said(caplog, "ruleset file")) == 1
        assert edited.count("count = 2\nthrows = 2") == 1
        await _save(venue / "mcr.toml", edited.replace("count = 2\nthrows = 2", 'count = "two"\nthrows = 2'))
        broken = await _until_said(caplog, "cannot be read")
        assert "规则文件已修改但无法读取" in broken.message_zh and "count" in broken.error  # type: ignore[attr-defined]
        await _save(venue / "mcr.toml", shipped)
        back = await _until_said(caplog, "back as the service runs it")
        assert back.message_zh == "规则文件已改回运行中的内容，无须重启"  # type: ignore[attr-defined]
        assert len(_said(caplog, "ruleset file")) == 3
    finally:
        await svc.stop()
    _copy(venue, EDITS)
    restarted = subprocess.run(
        [sys.executable, "-c", "from table_controller.penalties import catalogue; from table_controller.timers import "
         "timer_rules; print(catalogue('mcr').get('false_win').amount, timer_rules('mcr').claim_s)"],
        capture_output=True, text=True, timeout=60, env={**os.environ, ENV_DIR: str(venue)})
    assert restarted.stdout.split() == ["30", "5"], restarted.stderr


async def test_an_edit_that_changes_extends_is_said_and_the_new_bases_edits_are_said_too(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The watch took the file's `extends` chain once, at the start: a venue's club.toml moved from base_a to
    base_b was said, but base_b's own edits after it were never looked at (the restart would fold them unsaid).
    The chain is read again at each edit: the new base is looked at from then on; the old one no more."""
    from table_controller.config_watch import RulesetWatch

    caplog.set_level(logging.WARNING, logger="table_controller.config_watch")
    for base in ("base_a", "base_b"):
        (tmp_path / f"{base}.toml").write_text(f'extends = "mcr"\nid = "{base}"\nname_zh = "{base}"\nname_en = "{base}"\n', encoding="utf-8")
    club = tmp_path / "club.toml"
    club.write_text('extends = "base_a"\nid = "club"\nname_zh = "俱乐部"\nname_en = "club"\n', encoding="utf-8")
    watch = RulesetWatch("club", str(tmp_path))
    await _save(club, 'extends = "base_b"\nid = "club"\nname_zh = "俱乐部"\nname_en = "club"\n')
    watch.look()
    assert len(_said(caplog, "takes effect whole at the next restart")) == 1
    await _save(tmp_path / "base_b.toml", 'extends = "mcr"\nid = "base_b"\nname_zh = "base_b（改）"\nname_en = "b"\n')
    watch.look()
    changed = _said(caplog, "takes effect whole at the next restart")
    assert len(changed) == 2 and "base_b.toml" in changed[-1].message_zh, [r.getMessage() for r in changed]
    await _save(tmp_path / "base_a.toml", 'extends = "mcr"\nid = "base_a"\nname_zh = "base_a（改）"\nname_en = "a"\n')
    watch.look()  # no longer played: nothing to say
    assert len(_said(caplog, "takes effect whole at the next restart")) == 2
    club.unlink()  # taken away and put back: both said, the watch does not lose the file
    watch.look()
    assert len(_said(caplog, "cannot be read")) == 1
    await _save(club, 'extends = "base_a"\nid = "club"\nname_zh = "俱乐部"\nname_en = "club"\n')
    watch.look()  # base_a as edited above: a change from the start's, said
    assert len(_said(caplog, "takes effect whole at the next restart")) == 3
