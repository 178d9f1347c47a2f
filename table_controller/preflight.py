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
        out.append(Finding("事件记录 / event log", "fail", f"{data}: cannot write there ({why}); make the directory "
                                                          "writable for the service's user"))
        return out
    log_file = data / "events.sqlite3"
    detail = f"{data}: writable, {_free_mb(parent):.0f} MB free"
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
            return [Finding("事件记录 / event log", "warn",
                            f"{log_file} is damaged ({ok.splitlines()[0][:120]}); the next start keeps it aside as "
                            "events.damaged-<time>.sqlite3 and carries its readable events (and the mirror's) into a "
                            "fresh log, naming what was lost / 记录已损坏：启动时自动保留原文件并恢复可读事件")]
        missing = missing_rulesets(named)
        if missing:  # the service would stop at start: its hands cannot be folded without them
            also = f" (also: {', '.join(missing[1:])})" if missing[1:] else ""
            return [Finding("事件记录 / event log", "fail", f"{log_file}: {UnknownRuleset(missing[0])}{also}")]
        detail += f"; the log holds {n} events"
    else:
        detail += "; no log yet (the first start makes it)"
    level = "warn" if _free_mb(parent) < MIN_FREE_MB else "ok"
    detail += "; little space left" if level == "warn" else ""
    # logs a start found damaged and kept aside (salvage.py): evidence for the record, never removed by the
    # service, so on an SD card they pile up unseen; the technician copies them off and removes them
    aside = _kept_aside(data, "events.damaged-")
    if aside:
        level = "warn"
        detail += aside
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
        return Finding(what, "ok", "every confirmed win scores today as it was confirmed")
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


def _kept_aside(directory: Path, prefix: str) -> str:
    """Words on the damaged copies a start or the mirror kept aside under `prefix` (never removed by the
    service, so on an SD card or a stick they pile up unseen); "" when there are none."""
    kept = sorted(directory.glob(f"{prefix}*.sqlite3")) if directory.is_dir() else []
    if not kept:
        return ""
    size = sum(f.stat().st_size for f in directory.glob(f"{prefix}*")) / 1e6
    return (f"; {len(kept)} damaged log(s) kept aside ({size:.1f} MB: {kept[-1].name} the newest): copy them off "
            f"for the record, then remove them / 有 {len(kept)} 个损坏的记录文件已保留：复制留档后删除")


def _check_mirror(mirror: Path, log_file: Path) -> Finding:
    found = _mirror_state(mirror, log_file)
    aside = _kept_aside(mirror, "events.corrupt-") if found.level != "fail" else ""
    if aside:  # an unreadable copy the mirror moved aside (mirror.py) before copying afresh
        return Finding(found.what, "warn", found.detail + aside)
    return found


def _mirror_state(mirror: Path, log_file: Path) -> Finding:
    what = "记录备份 / log mirror"
    if not mirror.is_dir():
        return Finding(what, "fail", f"{mirror} is not there: insert the stick (mounted at boot) and make the "
                                     "directory on it once")
    why = _writable(mirror)
    if why:
        return Finding(what, "fail", f"{mirror}: cannot write there ({why})")
    copy = mirror / "events.sqlite3"
    if copy.exists() and log_file.exists():
        from table_controller.mirror import LogMirror, MirrorRefused
        from table_controller.salvage import behind_mirror

        behind = behind_mirror(log_file, mirror)
        if behind:  # not another table's log: the only copy of the events the card lost, never to be moved aside
            return Finding(what, "warn", f"{behind}; the next start carries them back into the log from {copy} "
                                         "/ 下次启动时自动从备份盘补回")
        from table_controller.store import ReadOnlyLog, StoreError

        # read-only, as the rest of the check (an EventStore opened writes its tables and WAL mode)
        try:
            with ReadOnlyLog(log_file) as log:
                last = LogMirror(log, mirror).inspect()  # type: ignore[arg-type]
        except MirrorRefused as exc:
            return Finding(what, "fail", str(exc))
        except (StoreError, sqlite3.Error) as exc:  # the log's own finding says what is wrong with it
            return Finding(what, "warn", f"the log cannot be read to compare with {copy}: {exc}")
        if last is None:
            return Finding(what, "warn", f"{copy} cannot be read: the service will move it aside and copy afresh")
        return Finding(what, "ok", f"{mirror}: this table's log, {last} events copied, {_free_mb(mirror):.0f} MB free")
    return Finding(what, "ok", f"{mirror}: writable, {_free_mb(mirror):.0f} MB free")


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
    return (f"{url} can change name after a replug or with another USB device plugged in; set [table].link to "
            f"{name} / 串口名会随插拔变化，请改用 by-id 名称")


def check_table(config: TableConfig, timeout: float = 5.0) -> Finding:
    """The board answers on its port (handshake only: nothing moves)."""
    what = "牌桌控制板 / table board"
    url = config.table.link
    if url.startswith("sim://"):
        return Finding(what, "ok", "sim://: the built-in simulator (no board)")
    if "://" not in url:
        path = Path(url)
        if not path.exists():
            return Finding(what, "fail", f"{url} is not there: is the cable in? (ls /dev/serial/by-id/)")
        if not os.access(url, os.R_OK | os.W_OK):
            return Finding(what, "fail", f"{url}: no permission; add the service's user to group dialout "
                                         "(sudo usermod -aG dialout $USER, then log in again)")

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
            return Finding(what, "warn", f"{url}: in use by another program (the table's service, if it runs: "
                                         "the board is checked with the service stopped) / 串口被占用")
        if getattr(exc, "code", "") == "cannot_open":  # it never opened (a USB board not on the bus, no permission,
            return Finding(what, "fail", str(exc))    # no libusb): its own words say what to do; nothing could answer
        return Finding(what, "fail", f"{url}: no answer ({exc}); check the cable, the baud rate and [table].dialect")
    found = (f"{url}: {info.dialect} protocol {info.protocol_version}, firmware "
             f"{info.firmware or '-'}, serial {info.serial or '-'}")
    hint = unstable_port(url) if "://" not in url else None
    return Finding(what, "warn", f"{found}; {hint}") if hint else Finding(what, "ok", found)


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


def no_picture_hint(source: str) -> str:
    """What to look at when `source` gives no picture: a camera on the network is not a matter of
    device permissions, a local one is (a hint naming group video for an IP camera sent people the wrong way).
    A camera that answers with parts that do not decode is said so (`vision.camera.probe`), in the display's
    words: `grab` and `tablectl check` sent the technician after the URL and its credentials, while the
    display said 摄像头已连接，但画面无法解码."""
    if "://" in source:
        return undecodable_hint(source) or "the camera is off or unreachable, the URL or its credentials are wrong, or it serves another format"
    if source.isdigit() or source.startswith(("/dev/video", "/dev/v4l/")):  # a file in /dev/shm is a file
        return "unplugged, wrong device, or the user is not in group video"
    path = Path(source)
    if path.is_dir():  # was "no such file" of a folder that is there
        return "a folder, not a camera nor a video or picture file"
    if path.is_file():
        return ("an empty file" if path.stat().st_size == 0 else
                "a file OpenCV cannot read as video or a picture (damaged, or another format)")
    return "no such file"


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
            return f"[camera] model = {cam.model!r}: {exc} (识牌模型无法加载)"
    if cam.enrollment:
        try:
            Enrollment.load(base / cam.enrollment)
        except EnrollmentError as exc:
            return (f"[camera] enrollment = {cam.enrollment!r}: {exc}; the camera would read nothing "
                    "(本桌牌样文件无法读取)")
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
        return Finding(what, "fail", f"{source}: no picture ({no_picture_hint(source)})")
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
            return Finding(what, "warn", f"{source}: {w}×{h}, the corners were picked on {cam.corners_size[0]}×"
                                         f"{cam.corners_size[1]}: scaled, but the tiles read best at that resolution")
    elif cam.corners:
        return Finding(what, "warn", f"{source}: {w}×{h}, picture fine; set [camera] corners_size = [{w}, {h}] if the "
                                     "corners were picked on this resolution (a camera back at another is then caught)")
    if cam.corners:
        moved = _camera_moved(frame, cam.corners, cam.corners_size)
        if moved is not None:
            return Finding(what, moved[0], f"{source}: {moved[1]}")
    else:
        unlocated = _markers_missing(frame)
        if unlocated is not None:
            return Finding(what, unlocated[0], f"{source}: {w}×{h}, {unlocated[1]}")
    coarse = _too_coarse(frame, cam.corners, cam.corners_size)
    if coarse:
        return Finding(what, "warn", f"{source}: {w}×{h}, {coarse}")
    unlike = _enrollment_unlike(config, frame) if cam.enrollment else ""
    if unlike:
        return Finding(what, "fail", f"{source}: {unlike}")
    return Finding(what, "ok", f"{source}: {w}×{h}, picture fine")


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
        return "fail", ("no corner marker in view and no [camera] corners: the camera cannot locate the table; a table "
                        "without markers stores its corners (`tablectl vision grab`, then `tablectl vision corners`), "
                        "else check the camera's focus and framing (看不到台角标记，也未设置台面四角：无法识牌)")
    return "warn", (f"only {len(seen)} of the 4 corner markers in view (ids {seen}); 3 are needed: clear the felt's "
                    "corners, check the focus and that all four are in view (台角标记不足 3 个)")


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
        return "fail", (f"the felt's edges lie {edges.moved_mm:.0f} mm from the stored corners and not all four are in "
                        "view: the camera moved since they were picked; store the corners again "
                        "(摄像头位置已变，请重新标定四角)")
    now = edges.corrected(calibration).corners()
    return "warn", (f"the felt's edges lie {edges.moved_mm:.0f} mm from the stored corners: the camera moved since "
                    f"they were picked; the reader corrects it from the edges, or store corners = {now} "
                    "(摄像头位置已变，识牌会按台面边缘自动校正)")


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
        return Finding(what, "fail", f"{t.broker}: {exc or type(exc).__name__} (the address, the table's user and "
                                     "password, the CA file)")
    level = "warn" if t.username and t.username != t.table_id else "ok"
    note = "; the user name is not the table id: a broker set up by broker-config drops its messages" \
        if level == "warn" else ""
    return Finding(what, level, f"{t.broker}: connected as {t.username or 'anonymous'}{note}")


def check_port(config: TableConfig) -> Finding:
    """The display's address can be listened on, and where phones on the LAN will open it."""
    from table_controller.web.addresses import WILDCARD, bind_advice, phone_urls

    what = "显示端口 / display port"
    host, port = config.display.host, config.display.port
    try:
        with socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET):
            pass
    except OSError as exc:
        from table_controller.store import WriterLock

        pid = WriterLock.holder(config.data_path()) if exc.errno == errno.EADDRINUSE else None
        if pid:  # the table's own service, running on this data directory: its port, as it should be
            return Finding(what, "warn", f"{host}:{port}: in use by this table's service (pid {pid}), which is "
                                         "running; the port is checked with the service stopped / 服务正在运行")
        why = os.strerror(exc.errno) if exc.errno else str(exc)
        return Finding(what, "fail", f"{host}:{port}: {why}; {bind_advice(host, port, exc.errno)}")
    scheme = "https" if config.display.tls_cert else "http"
    free = f"{scheme}://{host}:{port}/ is free"
    if host not in WILDCARD:
        return Finding(what, "ok", free)
    urls = phone_urls(host, port, scheme)
    if not urls:
        return Finding(what, "warn", f"{free}; no LAN address yet (the network is down): phones reach it once it is up "
                                     "/ 尚无局域网地址")
    return Finding(what, "ok", f"{free}; phones on the LAN open {' '.join(urls)} / 手机访问")


def check_clock() -> Finding:
    """A Pi has no real-time clock: until NTP syncs, its time is last boot's."""
    what = "系统时钟 / clock"
    if not shutil.which("timedatectl"):
        return Finding(what, "warn", "timedatectl not found: cannot tell whether the clock is synchronised")
    try:
        out = subprocess.run(["timedatectl", "show", "-p", "NTPSynchronized", "--value"], capture_output=True,
                             text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Finding(what, "warn", f"timedatectl failed: {exc}")
    if out == "yes":
        return Finding(what, "ok", "synchronised (NTP)")
    return Finding(what, "warn", "not synchronised: the log's times follow the clock (a step later is recorded); "
                                 "give the Pi network and NTP, or set the time")


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
            problems.append(f"{file} is readable by other users (mode {mode & 0o777:o}): chmod 600 {file}")
    if problems:
        return Finding(what, "warn", "; ".join(problems))
    return Finding(what, "ok", "no short or common PIN; config and key readable by their owner only" if files
                   else "no short or common PIN; no credential in the config (random ones are made at start)")


def run_checks(config: TableConfig, *, probe_table: bool = True) -> list[Finding]:
    """Every check that applies to this config, in the order a technician would walk the table."""
    found = [Finding("配置 / config", "ok", f"{config.source}: 规则 {config.rules.ruleset}, 桌 {config.table.name}")]
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
