"""Before the match (开赛前检查): is this Pi ready to run its table? (`tablectl check --config FILE`)

At a venue of thirty tables the questions are always the same: does the config hold, can the
service write its log (and its copy on the stick), does the table's board answer on its port, is
the camera there and lit, does the broker take this table's password, is the display's port free,
is the clock set. Each is checked here the way the service itself will do it, without changing
anything at the table (the board is only asked who it is) or in the log (opened, never written),
and answered in one line with what to do when it fails.
"""

from __future__ import annotations

import asyncio
import errno
import os
import shutil
import socket
import sqlite3
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table_controller.config import TableConfig
from table_controller.web.auth import weak_credentials

#: Free space under which a data directory is flagged. A season is tens of MB, not a few: the log grows
#: ~10.6 KB a hand (115 events, bench/footprint.py), its WAL stays at ~4 MB and the snapshot ~1.3 KB a hand
#: played (2,000 hands: ~21 + 4 + 2.6 MB); what kills a card's room is something else filling it.
MIN_FREE_MB = 200


@dataclass(frozen=True)
class Finding:
    """One check: `level` ok, warn (runs, but look) or fail (will not run right)."""

    what: str
    level: str
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"what": self.what, "level": self.level, "detail": self.detail}


def _said(zh: str, en: str, subject: object = "") -> str:
    """A line's detail Chinese first, as the labels and the table's pages say things ("中文 / English"), after
    the path, device or address it is of: the venue's technician read most of the check in English alone."""
    return f"{subject}: {zh} / {en}" if subject != "" else f"{zh} / {en}"


def _more(detail: str, zh: str, en: str) -> str:
    """`detail` ("中文 / English") with `zh` added to its Chinese and `en` to its English."""
    first, _, second = detail.partition(" / ")
    return f"{first}{zh} / {second}{en}"


def _writable(directory: Path) -> str:
    """"" when a file can be made and removed in `directory`, else why not."""
    try:
        with tempfile.NamedTemporaryFile(dir=directory, prefix=".tablectl-check-"):
            pass
        return ""
    except OSError as exc:
        return exc.strerror or str(exc)


def _free_mb(directory: Path) -> float:
    return shutil.disk_usage(directory).free / 1e6


def check_storage(config: TableConfig) -> list[Finding]:
    out = []
    data = config.data_path()
    parent = data if data.exists() else next((p for p in data.parents if p.exists()), Path("/"))
    why = _writable(parent)
    if why:
        out.append(Finding("事件记录 / event log", "fail", _said(
            f"无法写入（{why}）：请让服务的用户可写该目录", f"cannot write there ({why}); make the directory writable "
            "for the service's user", data)))
        return out
    log_file = data / "events.sqlite3"
    detail = _said(f"可写，剩余 {_free_mb(parent):.0f} MB", f"writable, {_free_mb(parent):.0f} MB free", data)
    if log_file.exists():
        from table_controller.state import UnknownRuleset, missing_rulesets
        from table_controller.store import LogEmptied, LogTooNew, NotALog, ReadOnlyLog, storage_refusal

        named: list[str] = []
        try:
            with ReadOnlyLog(log_file) as log:
                ok = log.db.execute("PRAGMA quick_check").fetchone()[0]
                if ok == "ok":  # an event with bytes changed: SQLite's check passes it, the service's start does not
                    from table_controller.salvage import unsound_events

                    ok = unsound_events(log.db) or ok
                n = log.db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
                # the rulesets the log's hands were played under: folding them needs their files
                named = [str(r[0]) for r in log.db.execute(
                    "SELECT DISTINCT json_extract(data, '$.ruleset') FROM events WHERE type = 'operator.hand_start' "
                    "AND json_valid(data) AND json_extract(data, '$.ruleset') IS NOT NULL")]
        except LogTooNew as exc:
            return [Finding("事件记录 / event log", "fail", str(exc))]
        except LogEmptied:  # not opened: even read-only, SQLite would delete the WAL's events
            ok = "the log file is empty but its WAL holds events"
        except NotALog:  # an empty file, another program's SQLite file: as SQLite words it
            ok = "no such table: events"
        except sqlite3.Error as exc:
            if storage_refusal(exc):  # a whole log the card will not let SQLite open: the service would not start
                return [Finding("事件记录 / event log", "fail",
                                f"存储卡已满或只读，服务无法打开事件记录（记录本身完好）/ {log_file}: the card refuses the "
                                f"log's writes ({exc}; {_free_mb(parent):.1f} MB free): the service cannot open it. Free "
                                "space on the card (not in the data directory) or check its write protection")]
            ok = str(exc)
        if ok != "ok":
            # the service still starts: it keeps the file aside and carries over what reads (salvage.py)
            return [Finding("事件记录 / event log", "warn", _said(
                "记录已损坏：下次启动时自动保留原文件（events.damaged-<时间>.sqlite3），把可读事件（及备份中的）转入新记录，"
                "并说明丢失了什么", f"damaged ({ok.splitlines()[0][:120]}); the next start keeps it aside as "
                "events.damaged-<time>.sqlite3 and carries its readable events (and the mirror's) into a fresh log, "
                "naming what was lost", log_file))]
        missing = missing_rulesets(named)
        if missing:  # the service would stop at start: its hands cannot be folded without them
            also = f" (also: {', '.join(missing[1:])})" if missing[1:] else ""
            return [Finding("事件记录 / event log", "fail", f"{log_file}: {UnknownRuleset(missing[0])}{also}")]
        detail = _more(detail, f"；记录中有 {n} 个事件", f"; the log holds {n} events")
    else:
        detail = _more(detail, "；尚无记录（首次启动时创建）", "; no log yet (the first start makes it)")
    level = "warn" if _free_mb(parent) < MIN_FREE_MB else "ok"
    detail = _more(detail, "；剩余空间不足", "; little space left") if level == "warn" else detail
    # logs a start found damaged and kept aside (salvage.py): evidence for the record, never removed by the
    # service, so on an SD card they pile up unseen; the technician copies them off and removes them
    aside = _kept_aside(data, "events.damaged-")
    if aside:
        level = "warn"
        detail = _more(detail, *aside)
    out.append(Finding("事件记录 / event log", level, detail))
    mirror = config.mirror_path()
    if mirror is not None:
        out.append(_check_mirror(mirror, log_file))
    return out


def check_confirmed(config: TableConfig) -> list[Finding]:
    """Confirmed wins that today's rulesets and scorer would score otherwise (a ruleset's file edited, the
    scorer upgraded since): the log keeps the figures the referee confirmed, and the head referee decides
    whether any is to be put right. The log is read, never written, and folded as the service folds it at
    start (from its snapshot when that is of this code and these rulesets: a ruleset edited, or an
    upgrade, folds it whole); then, one line each, the 查叫 rulings, penalties, kong and 追牌 payments
    kept as recorded that today's rules would settle otherwise (`settlements.KINDS`). Nothing where there
    is no log, or one the event log's own check refuses."""
    from table_controller.settlements import KINDS, differences, told
    from table_controller.snapshot import restore
    from table_controller.state import UnknownRuleset
    from table_controller.store import ReadOnlyLog, StoreError

    log_file = config.data_path() / "events.sqlite3"
    if not log_file.exists():
        return []
    try:
        with ReadOnlyLog(log_file) as log:
            state, _ = restore(log)  # type: ignore[arg-type]
    except (StoreError, sqlite3.Error, ValueError, UnknownRuleset):  # refused, damaged or unfoldable: the event
        return []                                                    # log's line says so
    every = differences(state)
    out = [_wins_finding([d for d in every if d["kind"] == "win"])]
    others = [d for d in every if d["kind"] != "win"]
    for kind, (zh, en) in KINDS.items():
        mine = [d for d in others if d["kind"] == kind]
        if mine:
            out.append(Finding(f"已记录的{zh} / recorded {en}", "warn", "；".join(told(d) for d in mine)
                               + f" — 记分仍按当时记录；是否更正由裁判长决定 / {len(mine)} {en} would be settled "
                               "otherwise under today's rulesets or scorer: the sheet keeps the figures recorded "
                               "when each was taken; the head referee decides whether to put any right"))
    if not others:
        out.append(Finding("已记录的结算 / recorded settlements", "ok", "查叫、罚分、杠分、追牌按现行规则均与记录时相同 / "
                           "every 查叫, penalty, kong and 追牌 payment settles today as it was recorded"))
    return out


def _wins_finding(found: list[dict[str, Any]]) -> Finding:
    from table_controller.settlements import in_words as _pays
    from table_controller.tiles import SEAT_NAMES

    what = "已确认和牌 / confirmed wins"
    if not found:
        return Finding(what, "ok", _said("已确认的和牌按现行规则计分均与确认时相同",
                                         "every confirmed win scores today as it was confirmed"))
    lines = []
    for d in found:
        now = d["now"]
        today = (f"现行规则计 {now.get('total')}（{_pays(now.get('payments'))}）" if now.get("valid")
                 else f"现行规则不成和（{now.get('message', '')}）")
        lines.append(f"第 {d['round']} 轮第 {d['hand_no']} 盘 {SEAT_NAMES.get(d['seat'], d['seat'])}家和牌 #{d['seq']}：确认时 "
                     f"{d['confirmed']['total']}（{_pays(d['confirmed']['payments'])}），{today}")
    return Finding(what, "warn", "；".join(lines) + f" — 记分仍按裁判确认；是否更正由裁判长决定 / {len(found)} confirmed "
                   "win(s) would score otherwise under today's rulesets or scorer: the sheet keeps the figures the "
                   "referee confirmed; the head referee decides whether to put any right")


def _kept_aside(directory: Path, prefix: str) -> tuple[str, str] | None:
    """Words (Chinese, English) on the damaged copies a start or the mirror kept aside under `prefix` (never
    removed by the service, so on an SD card or a stick they pile up unseen); None when there are none."""
    kept = sorted(directory.glob(f"{prefix}*.sqlite3")) if directory.is_dir() else []
    if not kept:
        return None
    size = sum(f.stat().st_size for f in directory.glob(f"{prefix}*")) / 1e6
    return (f"；有 {len(kept)} 个损坏的记录文件已保留（{size:.1f} MB，最新为 {kept[-1].name}）：复制留档后删除",
            f"; {len(kept)} damaged log(s) kept aside ({size:.1f} MB: {kept[-1].name} the newest): copy them off "
            "for the record, then remove them")


def _check_mirror(mirror: Path, log_file: Path) -> Finding:
    found = _mirror_state(mirror, log_file)
    aside = _kept_aside(mirror, "events.corrupt-") if found.level != "fail" else None
    if aside:  # an unreadable copy the mirror moved aside (mirror.py) before copying afresh
        return Finding(found.what, "warn", _more(found.detail, *aside))
    return found


def _mirror_state(mirror: Path, log_file: Path) -> Finding:
    what = "记录备份 / log mirror"
    if not mirror.is_dir():
        return Finding(what, "fail", _said("备份目录不存在：请插入U盘（开机时挂载）并在其上建好该目录一次",
                                           "is not there: insert the stick (mounted at boot) and make the directory "
                                           "on it once", mirror))
    why = _writable(mirror)
    if why:
        return Finding(what, "fail", _said(f"无法写入（{why}）", f"cannot write there ({why})", mirror))
    copy = mirror / "events.sqlite3"
    if copy.exists() and log_file.exists():
        from table_controller.mirror import LogMirror, MirrorRefused
        from table_controller.salvage import behind_mirror

        behind = behind_mirror(log_file, mirror)
        if behind:  # not another table's log: the only copy of the events the card lost, never to be moved aside
            return Finding(what, "warn", _more(behind, "；下次启动时自动从备份盘补回",
                                               f"; the next start carries them back into the log from {copy}"))
        from table_controller.store import ReadOnlyLog, StoreError

        # read-only, as the rest of the check (an EventStore opened writes its tables and WAL mode)
        try:
            with ReadOnlyLog(log_file) as log:
                last = LogMirror(log, mirror).inspect()  # type: ignore[arg-type]
        except MirrorRefused as exc:
            return Finding(what, "fail", _said("备份盘上的记录不是本桌的（或是本桌更换记录之前的）：请把它移开", str(exc)))
        except (StoreError, sqlite3.Error) as exc:  # the log's own finding says what is wrong with it
            return Finding(what, "warn", _said(f"无法读取事件记录与 {copy} 比对", f"the log cannot be read to compare "
                                               f"with {copy}: {exc}"))
        if last is None:
            return Finding(what, "warn", _said("备份无法读取：服务会把它移开并重新复制",
                                               "cannot be read: the service will move it aside and copy afresh", copy))
        return Finding(what, "ok", _said(f"本桌的记录，已复制 {last} 个事件，剩余 {_free_mb(mirror):.0f} MB",
                                         f"this table's log, {last} events copied, {_free_mb(mirror):.0f} MB free",
                                         mirror))
    return Finding(what, "ok", _said(f"可写，剩余 {_free_mb(mirror):.0f} MB", f"writable, {_free_mb(mirror):.0f} MB free",
                                     mirror))


def unstable_port(url: str, by_id: Path = Path("/dev/serial/by-id")) -> str | None:
    """The kernel's name of a USB serial port (ttyUSB0, ttyACM1) follows the order devices were
    plugged in: after a replug, or with a second adapter, the table's board may get another one
    and the service would talk to the wrong device or none. Its /dev/serial/by-id name does not."""
    import re

    if not re.fullmatch(r"tty(USB|ACM)\d+", Path(url).name):
        return None
    target = Path(url).resolve()
    stable = sorted(str(p) for p in by_id.iterdir() if p.resolve() == target) if by_id.is_dir() else []
    name = stable[0] if stable else "/dev/serial/by-id/...（ls /dev/serial/by-id/）"
    return (f"串口名会随插拔或接入其他 USB 设备而变化：请把 [table].link 改为 by-id 名称 {name} / {url} can change name "
            f"after a replug or with another USB device plugged in; set [table].link to {name}")


def check_table(config: TableConfig, timeout: float = 5.0) -> Finding:
    """The board answers on its port (handshake only: nothing moves)."""
    what = "牌桌控制板 / table board"
    url = config.table.link
    if url.startswith("sim://"):
        return Finding(what, "ok", _said("内置模拟器（无控制板）", "the built-in simulator (no board)", "sim://"))
    if "://" not in url:
        path = Path(url)
        if not path.exists():
            return Finding(what, "fail", _said("找不到该串口：数据线插好了吗？（ls /dev/serial/by-id/）",
                                               "is not there: is the cable in? (ls /dev/serial/by-id/)", url))
        if not os.access(url, os.R_OK | os.W_OK):
            return Finding(what, "fail", _said("没有权限：请把服务的用户加入 dialout 组（sudo usermod -aG dialout "
                                               "$USER，然后重新登录）", "no permission; add the service's user to group "
                                               "dialout (sudo usermod -aG dialout $USER, then log in again)", url))

    async def probe() -> Any:
        from drivers.table import open_table

        table = await open_table(url, dialect=config.table.dialect, reconnect=False, connect_timeout=timeout,
                                 command_timeout=timeout)
        try:
            return table.info
        finally:
            await table.close()

    try:
        info = asyncio.run(probe())
    except Exception as exc:  # the driver's errors all say what went wrong
        if getattr(exc, "code", "") == "port_busy":  # the service itself, most likely: it holds its port
            return Finding(what, "warn", _said("串口被其他程序占用（若本桌服务在运行，即是它：控制板须在服务停止时检查）",
                                               "in use by another program (the table's service, if it runs: the "
                                               "board is checked with the service stopped)", url))
        if getattr(exc, "code", "") == "cannot_open":  # it never opened (a USB board not on the bus, no permission,
            return Finding(what, "fail", str(exc))    # no libusb): its own words say what to do; nothing could answer
        return Finding(what, "fail", _said("控制板无应答：请检查数据线、波特率和 [table].dialect", f"no answer ({exc}); "
                                           "check the cable, the baud rate and [table].dialect", url))
    found = _said(f"{info.dialect} 协议 {info.protocol_version}，固件 {info.firmware or '-'}，序列号 {info.serial or '-'}",
                  f"{info.dialect} protocol {info.protocol_version}, firmware {info.firmware or '-'}, serial "
                  f"{info.serial or '-'}", url)
    hint = unstable_port(url) if "://" not in url else None
    if hint:
        zh, en = hint.split(" / ", 1)
        return Finding(what, "warn", _more(found, f"；{zh}", f"; {en}"))
    return Finding(what, "ok", found)


def undecodable_hint(source: str) -> str:
    """What the display says of a network camera that answers with parts that do not decode (`undecodable`,
    `vision.camera.probe`: a second look over its own connection), with why; "" for one whose picture decodes,
    one not answering, or a source that is no HTTP URL. OpenCV's own decoder opens some such streams and hands
    over noise as a picture, which went on to "no corner marker in view"."""
    from vision.camera import probe
    from vision.health import MESSAGES

    why = probe(source)
    if not why:
        return ""
    zh, en = MESSAGES["undecodable"]
    return f"{zh.removesuffix('，请手动录入')} / {en.removesuffix('; enter tiles by hand')} ({why})"


def no_picture_hint(source: str) -> tuple[str, str]:
    """What to look at when `source` gives no picture: a camera on the network is not a matter of
    device permissions, a local one is (a hint naming group video for an IP camera sent people the wrong way).
    A camera that answers with parts that do not decode is said so (`vision.camera.probe`), in the display's
    words: `grab` and `tablectl check` sent the technician after the URL and its credentials, while the
    display said 摄像头已连接，但画面无法解码. (Chinese, English)."""
    if "://" in source:
        undecodable = undecodable_hint(source)
        if undecodable:
            zh, en = undecodable.split(" / ", 1)
            return zh, en
        return ("摄像头未开或无法连接，地址或其账号密码有误，或其画面格式不对",
                "the camera is off or unreachable, the URL or its credentials are wrong, or it serves another format")
    if source.isdigit() or source.startswith(("/dev/video", "/dev/v4l/")):  # a file in /dev/shm is a file
        return "未插好、设备不对，或用户不在 video 组", "unplugged, wrong device, or the user is not in group video"
    path = Path(source)
    if path.is_dir():  # was "no such file" of a folder that is there
        return "这是文件夹，不是摄像头，也不是视频或图片文件", "a folder, not a camera nor a video or picture file"
    if path.is_file():
        return (("空文件", "an empty file") if path.stat().st_size == 0 else
                ("OpenCV 无法作为视频或图片读取的文件（已损坏或格式不对）",
                 "a file OpenCV cannot read as video or a picture (damaged, or another format)"))
    return "没有这个文件", "no such file"


def _camera_files(config: TableConfig) -> str:
    """Why `[camera] enrollment` or `model` will not load, or "": the service then has no reader at all
    and the camera reads nothing all match (识牌模型不可用), while the check said ready. Relative
    paths are the config file's, as the service takes them."""
    from vision.enroll import Enrollment, EnrollmentError
    from vision.model import ModelError, TileClassifier

    cam = config.camera
    base = Path(config.source).parent if config.source != "<defaults>" else Path.cwd()
    if cam.model:
        try:
            TileClassifier(base / cam.model)
        except (ModelError, OSError, ValueError) as exc:
            return f"识牌模型无法加载 / [camera] model = {cam.model!r}: {exc}"
    if cam.enrollment:
        try:
            Enrollment.load(base / cam.enrollment)
        except EnrollmentError as exc:
            return (f"本桌牌样文件无法读取，摄像头将什么也读不出 / [camera] enrollment = {cam.enrollment!r}: {exc}; "
                    "the camera would read nothing")
    return ""


def check_camera(config: TableConfig) -> Finding | None:
    source = config.camera.source
    if not source:
        return None
    what = "摄像头 / camera"
    unloadable = _camera_files(config)
    if unloadable:
        return Finding(what, "fail", unloadable)
    from vision.camera import open_capture
    from vision.health import CameraHealth

    cap = open_capture(source)  # a URL that takes the connection and sends nothing: READ_TIMEOUT_S, not 30 s
    try:
        ok, frame = cap.read() if cap.isOpened() else (False, None)
    finally:
        cap.release()
    if not ok:
        zh, en = no_picture_hint(source)
        return Finding(what, "fail", _said(f"没有画面（{zh}）", f"no picture ({en})", source))
    undecodable = undecodable_hint(source)
    if undecodable:
        return Finding(what, "fail", f"{source}: {undecodable}")
    status = CameraHealth().check(frame).to_json()
    if not status["ok"]:
        return Finding(what, "warn", f"{source}: {status['message']} / {status['message_en']}")
    h, w = frame.shape[:2]
    cam = config.camera
    if cam.corners:  # without corners_size, corners off this frame (the service read nothing, said 摄像头正常)
        from vision.calibrate import Calibration, CalibrationError

        try:
            Calibration.from_corners(cam.corners, cam.corners_size).for_frame(frame)
        except CalibrationError as exc:
            return Finding(what, "fail", f"{source}: {exc}")
    if cam.corners and cam.corners_size:
        if cam.corners_size != (w, h):
            picked = f"{cam.corners_size[0]}×{cam.corners_size[1]}"
            return Finding(what, "warn", _said(f"{w}×{h}，四角是在 {picked} 下标定的：已按比例换算，但在该分辨率下识牌最好",
                                               f"{w}×{h}, the corners were picked on {picked}: scaled, but the tiles "
                                               "read best at that resolution", source))
    elif cam.corners:
        return Finding(what, "warn", _said(f"{w}×{h}，画面正常；若四角是在此分辨率下标定的，请设 [camera] corners_size = "
                                           f"[{w}, {h}]（摄像头换了分辨率时才能发现）", f"{w}×{h}, picture fine; set "
                                           f"[camera] corners_size = [{w}, {h}] if the corners were picked on this "
                                           "resolution (a camera back at another is then caught)", source))
    if cam.corners:
        moved = _camera_moved(frame, cam.corners, cam.corners_size)
        if moved is not None:
            return Finding(what, moved[0], f"{source}: {moved[1]}")
    else:
        unlocated = _markers_missing(frame)
        if unlocated is not None:
            return Finding(what, unlocated[0], f"{source}: {w}×{h}，{unlocated[1]}")
    coarse = _too_coarse(frame, cam.corners, cam.corners_size)
    if coarse:
        return Finding(what, "warn", f"{source}: {w}×{h}，{coarse}")
    unlike = _enrollment_unlike(config, frame) if cam.enrollment else ""
    if unlike:
        return Finding(what, "fail", f"{source}: {unlike}")
    return Finding(what, "ok", _said(f"{w}×{h}，画面正常", f"{w}×{h}, picture fine", source))


def _enrollment_unlike(config: TableConfig, frame: Any) -> str:
    """Why `[camera] enrollment` is not this table's tile set (most tiles on the felt unlike every kind
    in it: `vision.enroll.UNLIKE`), or "": a venue that swapped sets, or the wrong file, sent every tile
    to the referee all match, and nothing said why. Needs tiles on the felt; says nothing without."""
    from vision.calibrate import CalibrationError
    from vision.config import VisionConfig
    from vision.enroll import UNLIKE_MESSAGE, UNLIKE_SHARE, EnrollmentError
    from vision.reader import ReadError

    cam = config.camera
    base = Path(config.source).parent if config.source != "<defaults>" else Path.cwd()
    try:
        reader = VisionConfig.from_camera_section(cam.source, cam.corners, str(base / cam.model) if cam.model else "",
                                                  str(base / cam.enrollment), cam.threshold, cam.corners_size).reader()
        readings = reader.read(frame)
    except (CalibrationError, ReadError, EnrollmentError):
        return ""  # said above (the markers, the corners, the file), or nothing to compare
    if reader.unlike is None or reader.unlike < UNLIKE_SHARE:
        return ""
    zh, en = UNLIKE_MESSAGE
    return (f"{zh} / {en}: {reader.unlike:.0%} of the {len(readings)} tiles on the felt are unlike every kind in "
            f"[camera] enrollment = {cam.enrollment!r}")


def _too_coarse(frame: Any, corners: Any, size: tuple[int, int] | None) -> str:
    """Why the felt is seen too coarsely to read well (a camera left in a low-resolution mode, too far
    or too slanted), or "": the check said "picture fine" and most tiles then went to the referee."""
    from vision.calibrate import Calibration, CalibrationError, calibrate_aruco

    try:
        calibration = (Calibration.from_corners(corners, size).for_frame(frame) if corners
                       else calibrate_aruco(frame))
    except CalibrationError:
        return ""  # said above, or nothing to measure
    return calibration.resolution_problem()


def _markers_missing(frame: Any) -> tuple[str, str] | None:
    """(level, detail) when a table calibrated from its markers (no `[camera] corners`) shows too few
    of them: none is a table the service cannot locate at all (it reads nothing all match, while the
    check said "picture fine"); one or two, corners covered or out of view now. None when 3+ are seen."""
    from vision.calibrate import find_markers

    seen = sorted(find_markers(frame))
    if len(seen) >= 3:
        return None
    if not seen:
        return "fail", _said("看不到台角标记，也未设置台面四角：无法识牌；无标记的牌桌请存储四角（`tablectl vision grab`，"
                             "再 `tablectl vision corners`），否则检查摄像头的对焦和取景",
                             "no corner marker in view and no [camera] corners: the camera cannot locate the table; a "
                             "table without markers stores its corners (`tablectl vision grab`, then `tablectl vision "
                             "corners`), else check the camera's focus and framing")
    return "warn", _said(f"只看到 {len(seen)} 个台角标记（编号 {seen}），至少需 3 个：请勿遮挡台面四角，检查对焦及四角是否都在"
                         "画面中", f"only {len(seen)} of the 4 corner markers in view (ids {seen}); 3 are needed: clear "
                         "the felt's corners, check the focus and that all four are in view")


def _camera_moved(frame: Any, corners: Any, size: tuple[int, int] | None) -> tuple[str, str] | None:
    """(level, detail) when the felt's edges do not lie where the stored corners put them: the
    camera moved since they were picked (`vision.bump`); None when they fit or cannot be seen."""
    from vision.bump import SIDES, TOLERANCE_MM, find_felt_edges
    from vision.calibrate import Calibration

    calibration = Calibration.from_corners(corners, size).for_frame(frame)
    edges = find_felt_edges(frame, calibration)
    if edges.moved_mm <= TOLERANCE_MM:
        return None
    if len(edges.sides) < len(SIDES):
        return "fail", _said(f"摄像头位置已变，请重新标定四角（台面边缘离存储的四角 {edges.moved_mm:.0f} 毫米，且四边不全在"
                             "画面中）", f"the felt's edges lie {edges.moved_mm:.0f} mm from the stored corners and not "
                             "all four are in view: the camera moved since they were picked; store the corners again")
    now = edges.corrected(calibration).corners()
    return "warn", _said(f"摄像头位置已变（台面边缘离存储的四角 {edges.moved_mm:.0f} 毫米），识牌会按台面边缘自动校正，"
                         f"或存储 corners = {now}", f"the felt's edges lie {edges.moved_mm:.0f} mm from the stored "
                         "corners: the camera moved since they were picked; the reader corrects it from the edges, or "
                         f"store corners = {now}")


def check_broker(config: TableConfig, timeout: float = 5.0) -> Finding | None:
    t = config.tournament
    if not t.broker:
        return None
    what = "赛事服务器 / tournament broker"

    async def connect() -> None:
        import aiomqtt

        from table_controller.tournament.wire import endpoint

        host, port, tls = endpoint(t.broker, t.ca_file)
        async with aiomqtt.Client(host, port, username=t.username or None, password=t.password or None,
                                  tls_context=tls, timeout=timeout, identifier=f"check-{t.name}-{t.table_id}"):
            pass

    try:
        asyncio.run(asyncio.wait_for(connect(), timeout + 1))
    except Exception as exc:
        return Finding(what, "fail", _said("无法连接：请检查地址、本桌的用户名和密码、CA 文件",
                                           f"{exc or type(exc).__name__} (the address, the table's user and password, "
                                           "the CA file)", t.broker))
    level = "warn" if t.username and t.username != t.table_id else "ok"
    found = _said(f"已连接，用户 {t.username or '匿名'}", f"connected as {t.username or 'anonymous'}", t.broker)
    if level == "warn":
        found = _more(found, "；用户名不是本桌编号：用 broker-config 设置的服务器会丢弃它的消息",
                      "; the user name is not the table id: a broker set up by broker-config drops its messages")
    return Finding(what, level, found)


def check_port(config: TableConfig) -> Finding:
    """The display's address can be listened on, and where phones on the LAN will open it."""
    from table_controller.web.addresses import WILDCARD, bind_advice_parts, phone_urls

    what = "显示端口 / display port"
    host, port = config.display.host, config.display.port
    try:
        with socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET):
            pass
    except OSError as exc:
        from table_controller.store import WriterLock

        pid = WriterLock.holder(config.data_path()) if exc.errno == errno.EADDRINUSE else None
        if pid:  # the table's own service, running on this data directory: its port, as it should be
            return Finding(what, "warn", _said(f"本桌服务正在运行，占用此端口（pid {pid}）：端口须在服务停止时检查",
                                               f"in use by this table's service (pid {pid}), which is running; the "
                                               "port is checked with the service stopped", f"{host}:{port}"))
        why = os.strerror(exc.errno) if exc.errno else str(exc)
        zh, en = bind_advice_parts(host, port, exc.errno)
        return Finding(what, "fail", _said(zh, f"{why}; {en}", f"{host}:{port}"))
    scheme = "https" if config.display.tls_cert else "http"
    address = f"{scheme}://{host}:{port}/"
    free = f"{address}: 空闲可用 / {address} is free"
    if host not in WILDCARD:
        return Finding(what, "ok", free)
    urls = phone_urls(host, port, scheme)
    if not urls:
        return Finding(what, "warn", _more(free, "；尚无局域网地址（网络未连上）：网络连上后手机即可访问",
                                           "; no LAN address yet (the network is down): phones reach it once it is up"))
    return Finding(what, "ok", _more(free, f"；局域网内的手机打开 {' '.join(urls)}", f"; phones on the LAN open "
                                     f"{' '.join(urls)}"))


def check_clock() -> Finding:
    """A Pi has no real-time clock: until NTP syncs, its time is last boot's."""
    what = "系统时钟 / clock"
    if not shutil.which("timedatectl"):
        return Finding(what, "warn", _said("找不到 timedatectl：无法判断时钟是否已同步",
                                           "timedatectl not found: cannot tell whether the clock is synchronised"))
    try:
        out = subprocess.run(["timedatectl", "show", "-p", "NTPSynchronized", "--value"], capture_output=True,
                             text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Finding(what, "warn", _said("timedatectl 运行失败", f"timedatectl failed: {exc}"))
    if out == "yes":
        return Finding(what, "ok", _said("已同步（NTP）", "synchronised (NTP)"))
    return Finding(what, "warn", _said("未同步：记录的时间跟随系统时钟（之后的跳变会被记下）；请给树莓派联网并启用 NTP，或手动设置时间",
                                       "not synchronised: the log's times follow the clock (a step later is "
                                       "recorded); give the Pi network and NTP, or set the time"))


def check_secrets(config: TableConfig) -> Finding:
    """Credentials a player at the next table could guess or read: a short or common PIN (5 wrong tries lock an
    address out for a minute, so a 4-digit PIN falls in a day from one phone, 123456 at the first try), and the
    config file (it holds the PINs and the broker's password) or the display's TLS key readable by other users."""
    what = "凭证 / credentials"
    problems: list[str] = weak_credentials(config.display)
    holds_secret = bool(config.display.referee_token or config.display.operator_token or config.display.referees
                        or config.tournament.password)
    files = [Path(config.source)] if holds_secret and config.source != "<defaults>" else []
    tls = config.display_tls()
    files += [Path(tls[1])] if tls else []
    for file in files:
        try:
            mode = file.stat().st_mode
        except OSError:
            continue  # a missing config or key is said where it is read
        if mode & 0o077:
            problems.append(_said(f"其他用户可读（权限 {mode & 0o777:o}）：请执行 chmod 600 {file}",
                                  f"readable by other users (mode {mode & 0o777:o}): chmod 600 {file}", file))
    if problems:
        return Finding(what, "warn", "; ".join(problems))
    return Finding(what, "ok", _said("没有过短或常见的 PIN；配置和密钥只有其所有者可读",
                                     "no short or common PIN; config and key readable by their owner only") if files
                   else _said("没有过短或常见的 PIN；配置中没有凭证（启动时随机生成）",
                              "no short or common PIN; no credential in the config (random ones are made at start)"))


def run_checks(config: TableConfig, *, probe_table: bool = True) -> list[Finding]:
    """Every check that applies to this config, in the order a technician would walk the table."""
    found = [Finding("配置 / config", "ok", _said(f"规则 {config.rules.ruleset}，桌 {config.table.name}",
                                                f"ruleset {config.rules.ruleset}, table {config.table.name}",
                                                config.source))]
    storage = check_storage(config)
    found += storage
    found += check_confirmed(config) if storage and storage[0].level != "fail" else []
    found.append(check_secrets(config))
    if probe_table:
        found.append(check_table(config))
    for extra in (check_camera(config), check_broker(config)):
        if extra is not None:
            found.append(extra)
    found.append(check_port(config))
    found.append(check_clock())
    return found
