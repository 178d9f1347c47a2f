"""The hand record (牌谱) from the event log: every play in order, the wins and the score; the
public record holds no concealed tile, the referee's has the hands as read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from table_controller.cli import main
from table_controller.record import RecordError, as_text, hand_numbers, hand_record
from table_controller.store import EventStore
from table_controller.tiles import parse_tiles

from test_referee_fold import Log  # type: ignore[import-not-found]

WIN = {"seat_wind": "S", "prevalent_wind": "E", "concealed": parse_tiles("123456789m 1112p"), "win_tile": "2p",
       "win": "discard", "discarder": "E"}


def _session() -> Log:
    log = Log("mcr")
    log.start(hand_no=1, dealer=1)
    log.add("table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]})
    log.add("table", "table.dice", {"seat": "W", "wind": "W", "dice": [2, 5]})
    for type_, data in (("play.deal_done", {}), ("play.discard", {"seat": "E", "tile": "9s"}),
                        ("play.kong", {"seat": "S", "tiles": ["7z"] * 4, "concealed": True}),
                        ("play.discard", {"seat": "S", "tile": "1z"}), ("play.discard", {"seat": "W", "tile": "3z"}),
                        ("play.discard", {"seat": "N", "tile": "4z"}), ("play.discard", {"seat": "E", "tile": "2p"})):
        log.add("demo", type_, {**data, "by": "demo"})
    log.ref("referee.penalty", seat="W", code="late_5")
    log.ref("referee.undo", reason="记错了")
    log.ref("referee.win_read", hand={**WIN, "melds": [{"type": "kong", "tiles": ["7z"] * 4, "concealed": True}],
                                      "concealed": parse_tiles("123456789m 2p")})
    log.ref("referee.win_confirm")
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "win"})
    log.start(hand_no=2, dealer=2)
    log.add("demo", "play.discard", {"seat": "E", "tile": "5m", "by": "demo"})
    return log


def test_the_public_record_has_every_play_in_order_the_win_and_the_score_but_no_concealed_tile() -> None:
    log = _session()
    assert hand_numbers(log.events) == [1, 2]
    rec = hand_record(log.events, 1)
    texts = [line["text"] for line in rec["lines"]]
    assert texts[0].startswith("开始第 1 盘") and texts[-1] == "第 1 盘结束"
    assert "东家打出 九条" in texts and "南家暗杠" in texts and "裁判确认和牌" in texts
    assert texts.index("东家打出 九条") < texts.index("南家暗杠") < texts.index("东家打出 二筒")
    assert not any("五万" in t for t in texts)  # hand 2's play is not hand 1's
    assert [line.get("undone") for line in rec["lines"] if line["type"] == "referee.penalty"] == [True]
    assert [t["dice"] for t in rec["throws"]] == [[3, 4], [2, 5]] and rec["break"]
    assert rec["seats"]["E"] == {"chair": 1, "player_no": 1, "player": "甲"}
    (win,) = rec["wins"]
    assert win["seat"] == "S" and win["discarder"] == "E" and win["win_tile"] == "2p" and win["total"] > 0
    # MCR: the discarder pays the fans and 8, the others 8 each (S sits in chair 2, E in chair 1)
    assert rec["points"] == {"1": -(win["total"] + 8), "2": win["total"] + 24, "3": -8, "4": -8}
    assert rec["result"] == "win"
    public = json.dumps(rec, ensure_ascii=False)
    assert '"hand"' not in public and "7z" not in public  # the concealed kong and the hand read stay hidden
    text = as_text(rec)
    assert "第 1 盘 · 国标麻将" in text and "和牌：南家 点和：东家打出 二筒" in text and "（已撤销）" in text
    assert f"本盘得分：东 甲 -{win['total'] + 8}  南 乙 +{win['total'] + 24}  西 丙 -8  北 丁 -8" in text
    assert "结果：和牌" in text


def test_the_referees_record_has_the_hand_as_read() -> None:
    rec = hand_record(_session().events, 1, referee=True)
    read = next(line for line in rec["lines"] if line["type"] == "referee.win_read")
    assert read["hand"]["concealed"] == parse_tiles("123456789m 2p") and rec["view"] == "referee"


def test_a_hand_still_in_play_and_a_hand_not_in_the_log() -> None:
    log = _session()
    rec = hand_record(log.events, 2)
    assert rec["result"] == "playing" and rec["wins"] == [] and rec["seats"]["E"]["chair"] == 2
    with pytest.raises(RecordError, match="hands: 1, 2"):
        hand_record(log.events, 7)


def _store(tmp_path: Path) -> Path:
    store = EventStore(tmp_path / "events.sqlite3")
    for ev in _session().events:
        store.append(ev.source, ev.type, ev.data, at=ev.at)
    store.close()
    return tmp_path


def test_tablectl_record_reads_the_tables_log(tmp_path: Path, capsys: Any) -> None:
    data = _store(tmp_path)
    assert main(["record", "--data-dir", str(data), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"round": 1, "rounds": [1], "hands": [1, 2]}
    assert main(["record", "--data-dir", str(data), "--hand", "1"]) == 0
    assert "和牌：南家" in capsys.readouterr().out
    assert main(["record", "--data-dir", str(data), "--hand", "1", "--json", "--referee"]) == 0
    assert json.loads(capsys.readouterr().out)["view"] == "referee"
    assert main(["record", "--data-dir", str(data), "--all"]) == 0
    text = capsys.readouterr().out
    assert text.index("第 1 盘") < text.index("第 2 盘") and "和牌：南家" in text
    assert main(["record", "--data-dir", str(data), "--all", "--json"]) == 0
    assert [r["hand_no"] for r in json.loads(capsys.readouterr().out)] == [1, 2]
    assert main(["record", "--data-dir", str(data), "--hand", "9"]) == 2
    assert "no hand 9" in capsys.readouterr().err
    assert main(["record", "--data-dir", str(tmp_path / "nowhere"), "--hand", "1"]) == 2
    assert "no event log" in capsys.readouterr().err
    assert not (tmp_path / "nowhere").exists()  # reading never creates a log


def test_tablectl_record_writes_nothing_into_what_it_reads(tmp_path: Path, capsys: Any) -> None:
    """`record` opened the file as the service does (`EventStore`): on a log a file system repair emptied,
    whose events only its WAL held, SQLite deleted the WAL (every event lost) and it said "no hands"; into
    another program's SQLite file, or an empty file, it wrote the log's tables and said "no hands" too."""
    import shutil
    import sqlite3

    src = tmp_path / "src"
    store = EventStore(src / "events.sqlite3")
    store._db.execute("PRAGMA wal_autocheckpoint=0")  # the events stay in the WAL, as before a checkpoint
    for ev in _session().events:
        store.append(ev.source, ev.type, ev.data, at=ev.at)
    cut = tmp_path / "cut"
    cut.mkdir()
    shutil.copy(src / "events.sqlite3-wal", cut / "events.sqlite3-wal")
    (cut / "events.sqlite3").write_bytes(b"")
    store.close()
    wal = (cut / "events.sqlite3-wal").read_bytes()
    assert main(["record", "--data-dir", str(cut)]) == 2
    assert "WAL" in capsys.readouterr().err
    assert (cut / "events.sqlite3-wal").read_bytes() == wal and (cut / "events.sqlite3").stat().st_size == 0

    other = tmp_path / "other"
    other.mkdir()
    db = sqlite3.connect(other / "events.sqlite3")
    db.execute("CREATE TABLE scores (x)")
    db.commit()
    db.close()
    before = (other / "events.sqlite3").read_bytes()
    assert main(["record", "--data-dir", str(other)]) == 2
    assert "not a table's event log" in capsys.readouterr().err
    assert (other / "events.sqlite3").read_bytes() == before

    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "events.sqlite3").write_bytes(b"")
    assert main(["record", "--data-dir", str(empty)]) == 2
    assert "empty file" in capsys.readouterr().err and (empty / "events.sqlite3").stat().st_size == 0


def test_the_record_over_http_public_and_referee(offline_client: Any) -> None:
    c = offline_client("mcr", "ref-rec-1", "op-rec-1", dice=[3, 4])
    with c:
        for ev in _session().events[2:]:  # after its own configure and hand start, the session's plays
            if ev.type.startswith("play."):
                c.controller.accept(ev.source, ev.type, ev.data)
        r = c.get("/api/hands/1/record")
        assert r.status_code == 200 and r.json()["view"] == "public" and r.json()["lines"]
        r = c.get("/api/hands/1/record", params={"format": "text"})
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain") and "第 1 盘" in r.text
        assert c.get("/api/hands/5/record").status_code == 404
        r = c.get("/api/records")
        assert r.status_code == 200 and [x["hand_no"] for x in r.json()] == [1]
        assert "第 1 盘" in c.get("/api/records", params={"format": "text"}).text
        assert c.get("/api/hands/x/record").status_code == 422
        assert c.get("/api/referee/hands/1/record").status_code in (401, 403)
        r = c.get("/api/referee/hands/1/record", headers={"Authorization": "Bearer ref-rec-1"})
        assert r.status_code == 200 and r.json()["view"] == "referee"
