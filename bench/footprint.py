"""Benchmark of the service's footprint on a Raspberry Pi: start, imports, memory, idle CPU, the card's writes.

A table's Pi is small (a Pi 4 with 2-4 GB, sometimes a Pi 3 with 1 GB) and its SD card wears out with
what is written to it. This runs the real `tablectl run` as a subprocess, as systemd does, and reads
what the kernel says of it (`/proc/PID/{status,stat,io}`, and `strace -c` for the syscalls when it
is installed):

1. cold start: from the process's start until the display answers (`GET /` 200) and until the
   table is linked (`/api/health`), `--starts` times, the table a `tablectl sim --pty` of its own
   (as a real board is another machine, its work is not counted);
2. imports: the modules the started service holds (`python -X importtime`, the same run), the
   heavy ones by name, and whether a table without a camera loads cv2, numpy or onnxruntime at all;
3. RSS after start, and after `--hands` hands played by the demo's simulated players (sim://, fast);
4. idle with one page open (a public `/ws` socket, as the display's page holds): CPU % and the
   process's wakeups per second (its threads' voluntary context switches: each a sleep ended; the preemptions
   by other work on a shared machine counted apart), with and without a log mirror;
   Under systemd's watchdog (`--watchdog SECONDS`, the unit's `WatchdogSec=`; systemd's is 60): the same idle
   once more with a real notify socket as `$NOTIFY_SOCKET` and `$WATCHDOG_USEC` set as systemd sets them, the
   pings (WATCHDOG=1, each after the display answered its own health check) and status lines counted;
5. what reaches the card: bytes written per event, per hand and per hour (`/proc/PID/io`
   write_bytes, the file system's blocks; wchar, what the process wrote), the files' growth (the
   log, its WAL and its frames per commit, the mirror), stdout bytes (the journal's share), and
   fsyncs per event; as fast as the players go, and at a table's pace alone and publishing to a
   tournament's broker (a local Mosquitto).

Run: `nice -n 15 .venv/bin/python bench/footprint.py [--hands 50] [--idle 10] [--starts 3] [--paced 3]
[--watchdog 60]`.
Prints the figures (x86, shared cores: note the load printed with them) and a final JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import re
import shutil
import signal
import sqlite3
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Run as `python bench/footprint.py`, this folder comes first on sys.path and bench/vision.py would
# shadow the project's `vision` package: take the folder off.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import httpx  # noqa: E402
import websockets  # noqa: E402
from tqdm import tqdm  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
#: Modules a Pi should not load for a table that does not need them (the camera's, the hub's, the tests').
HEAVY = ("cv2", "numpy", "onnxruntime", "PIL", "scipy", "aiomqtt", "paho", "playwright", "httpx", "fastapi",
         "starlette", "uvicorn", "pydantic", "serial", "websockets", "pymahjonggb", "mahjong")
#: Hands an hour at a real table (a tournament's session: 16 hands in about two hours; a club plays faster).
HANDS_PER_HOUR = 10


def env(extra: dict[str, str] | None = None) -> dict[str, str]:
    paths = [str(ROOT), str(ROOT / "hardware-sim"), os.environ.get("PYTHONPATH", "")]
    base = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")}
    return {**base, "PYTHONPATH": os.pathsep.join(p for p in paths if p), "PYTHONUNBUFFERED": "1", **(extra or {})}


class NotifySocket:
    """systemd's side of sd_notify(3): a datagram socket the service is given as `$NOTIFY_SOCKET`, its messages
    counted by a thread of this process (never the service's wakeups)."""

    def __init__(self, path: Path, watchdog_s: float) -> None:
        self.path = path
        self.watchdog_s = watchdog_s
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.2)
        self.counts: dict[str, int] = {}
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def env(self) -> dict[str, str]:
        """As systemd sets it for a unit with `WatchdogSec=` (no WATCHDOG_PID: the service is the main process)."""
        return {"NOTIFY_SOCKET": str(self.path), "WATCHDOG_USEC": str(round(self.watchdog_s * 1e6))}

    def _read(self) -> None:
        while not self._done.is_set():
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                for line in data.decode("utf-8", "replace").splitlines():
                    key = line.partition("=")[0]
                    self.counts[key] = self.counts.get(key, 0) + 1

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self.counts)

    def close(self) -> None:
        self._done.set()
        self._thread.join(5)
        self.sock.close()


def free_port() -> int:
    return random.randint(20000, 60000)


def write_config(where: Path, link: str, port: int, demo: bool = False, mirror: Path | None = None,
                 turn_s: float = 0.0, broker: str = "") -> Path:
    lines = ["[table]", f'link = "{link}"', "sim_speed = 1000.0", "[display]", f"port = {port}",
             'referee_token = "ref-footprint"', 'operator_token = "op-footprint"', "[storage]",
             f'data_dir = "{where / "data"}"']
    if mirror is not None:
        lines.append(f'mirror_dir = "{mirror}"')
    if demo:
        lines += ["[demo]", "autoplay = true", f"turn_seconds = {turn_s}", "hand_seconds = 0.0"]
    if broker:
        lines += ["[tournament]", f'broker = "{broker}"', 'name = "footprint"', 'table_id = "t01"']
    path = where / "table.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# -- what the kernel says of a process -------------------------------------------------------------
def proc_status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM in KiB, and the threads' context switches summed: voluntary (`switches`: each a sleep that
    ended, a wakeup) and not (`preempted`: the CPU taken by other work, which a loaded machine adds and a Pi does not)."""
    out: dict[str, int] = {"rss_kib": 0, "hwm_kib": 0, "threads": 0, "switches": 0, "preempted": 0}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key == "VmRSS":
            out["rss_kib"] = int(value.split()[0])
        elif key == "VmHWM":
            out["hwm_kib"] = int(value.split()[0])
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            text = (task / "status").read_text()
        except OSError:  # a thread that ended meanwhile
            continue
        out["threads"] += 1
        out["switches"] += sum(int(n) for n in re.findall(r"^voluntary_ctxt_switches:\s+(\d+)", text, re.M))
        out["preempted"] += sum(int(n) for n in re.findall(r"^nonvoluntary_ctxt_switches:\s+(\d+)", text, re.M))
    return out


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def proc_io(pid: int) -> dict[str, int]:
    return {k: int(v) for k, v in (line.split(": ") for line in Path(f"/proc/{pid}/io").read_text().splitlines())}


def files_size(where: Path) -> dict[str, int]:
    return {p.name: p.stat().st_size for p in where.iterdir() if p.is_file()} if where.is_dir() else {}


def loaded_libraries(pid: int) -> list[str]:
    """Shared objects of the heavy packages mapped in the process (cv2, numpy, onnxruntime)."""
    maps = Path(f"/proc/{pid}/maps").read_text()
    return sorted({name for name in ("cv2", "numpy", "onnxruntime", "PIL") if f"/{name}/" in maps
                   or f"/{name}." in maps})


@dataclass
class Service:
    """A `tablectl run` subprocess (optionally under `-X importtime` or `strace -c`)."""

    proc: subprocess.Popen[bytes]
    port: int
    started_at: float
    stdout: Path
    stderr: Path

    @property
    def pid(self) -> int:
        """The Python process's pid (strace's child when run under it)."""
        if Path(f"/proc/{self.proc.pid}/comm").read_text().strip() != "strace":
            return self.proc.pid
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()
        return int(children[0])

    def stop(self) -> int:
        os.kill(self.pid, signal.SIGINT)  # Ctrl-C: the service stops in order (strace then ends with it)
        return self.proc.wait(60)


def start_service(config: Path, port: int, where: Path, importtime: bool = False,
                  strace: Path | None = None, notify: NotifySocket | None = None) -> Service:
    cmd = [PYTHON, *(["-X", "importtime"] if importtime else []), "-m", "table_controller.cli", "run",
           "--config", str(config)]
    if strace is not None:  # only the syscalls counted are stopped at (seccomp): the rest run at full speed
        cmd = ["strace", "-f", "-c", "-o", str(strace), "--seccomp-bpf",
               "-e", "trace=fsync,fdatasync,write,pwrite64,writev,openat", *cmd]
    out, err = where / f"stdout-{port}.txt", where / f"stderr-{port}.txt"
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env(notify.env() if notify is not None else None),
                            stdout=out.open("wb"), stderr=err.open("wb"))
    return Service(proc, port, t0, out, err)


def wait_answers(service: Service, timeout: float = 60.0) -> tuple[float, float]:
    """Seconds from the start until `GET /` answers 200, and until `/api/health` says the link is up."""
    base = f"http://127.0.0.1:{service.port}"
    answered = linked = None
    end = time.perf_counter() + timeout
    with httpx.Client(base_url=base, timeout=2.0) as http:
        while time.perf_counter() < end and linked is None:
            if service.proc.poll() is not None:
                why = service.stderr.read_text()[-2000:]
                raise RuntimeError(f"tablectl run exited {service.proc.returncode}: {why}")
            try:
                if answered is None and http.get("/").status_code == 200:
                    answered = time.perf_counter() - service.started_at
                if answered is not None and http.get("/api/health").json().get("link", {}).get("up"):
                    linked = time.perf_counter() - service.started_at
            except httpx.HTTPError:
                pass
            time.sleep(0.01)
    if answered is None or linked is None:
        raise RuntimeError("the display did not answer or the table did not link in time")
    return answered, linked


def start_sim(where: Path) -> tuple[subprocess.Popen[bytes], str]:
    """`tablectl sim --pty` in a process of its own: the table's side, never counted as the service's."""
    proc = subprocess.Popen([PYTHON, "-m", "table_controller.cli", "sim", "--pty", "--speed", "1000"], cwd=ROOT,
                            env=env(), stdout=subprocess.PIPE, stderr=(where / "sim-stderr.txt").open("wb"))
    assert proc.stdout is not None
    pty = proc.stdout.readline().decode().strip()
    if not pty.startswith("/dev/"):
        raise RuntimeError(f"tablectl sim printed {pty!r}")
    return proc, pty


# -- 1-2: cold start and imports -------------------------------------------------------------------
def import_report(stderr: str) -> dict[str, Any]:
    """`-X importtime`'s lines: each top-level package's own cumulative time (ms), the modules loaded."""
    cumulative: dict[str, float] = {}
    modules: set[str] = set()
    for line in stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( +)(\S+)", line)
        if not m:
            continue
        name = m.group(4)
        modules.add(name)
        if len(m.group(3)) == 1:  # a top-level import of the process
            top = name.split(".")[0]
            cumulative[top] = cumulative.get(top, 0.0) + int(m.group(2)) / 1000
    tops = sorted(cumulative.items(), key=lambda kv: -kv[1])
    return {"modules": len(modules), "total_ms": round(sum(cumulative.values()), 1),
            "top_ms": {k: round(v, 1) for k, v in tops[:12]},
            "heavy_loaded": [h for h in HEAVY if h in modules or any(m.startswith(h + ".") for m in modules)]}


async def one_page_idle(port: int, pid: int, seconds: float, notify: NotifySocket | None = None) -> dict[str, float]:
    """A public page's socket held open for `seconds`: the service's CPU % and wakeups a second meanwhile (and,
    under the watchdog, the pings and status lines systemd was sent)."""
    async with websockets.connect(f"ws://127.0.0.1:{port}/ws") as ws:
        await ws.recv()  # the snapshot: the page is up
        await asyncio.sleep(1.0)  # what the start left behind settles
        sent0 = notify.snapshot() if notify is not None else {}
        io0, cpu0, st0, t0 = proc_io(pid), cpu_seconds(pid), proc_status(pid), time.perf_counter()
        received = 0
        end = t0 + seconds
        while time.perf_counter() < end:
            try:
                await asyncio.wait_for(ws.recv(), max(0.01, end - time.perf_counter()))
                received += 1
            except asyncio.TimeoutError:
                break
        dt = time.perf_counter() - t0
        io1, st1, cpu1 = proc_io(pid), proc_status(pid), cpu_seconds(pid)
        sent1 = notify.snapshot() if notify is not None else {}
        sent = {k: sent1.get(k, 0) - sent0.get(k, 0) for k in ("WATCHDOG", "STATUS")} if notify is not None else {}
        return {"cpu_pct": round(100 * (cpu1 - cpu0) / dt, 2), "cpu_s": round(cpu1 - cpu0, 3),
                "switches": st1["switches"] - st0["switches"], "preempted": st1["preempted"] - st0["preempted"],
                "seconds": round(dt, 2),
                **({"pings": sent["WATCHDOG"], "statuses": sent["STATUS"]} if notify is not None else {}),
                "wakeups_per_s": round((st1["switches"] - st0["switches"]) / dt, 1),
                "threads": st1["threads"], "messages_per_s": round(received / dt, 2),
                "written_bytes_per_hour": round((io1["write_bytes"] - io0["write_bytes"]) / dt * 3600),
                "wchar_per_hour": round((io1["wchar"] - io0["wchar"]) / dt * 3600)}


def measure_start_and_idle(tmp: Path, starts: int, idle_s: float, bar: tqdm, watchdog_s: float = 0.0) -> dict[str, Any]:
    sim, pty = start_sim(tmp)
    out: dict[str, Any] = {"starts": []}
    try:
        for i in range(starts):
            where = tmp / f"start{i}"
            where.mkdir()
            port = free_port()
            service = start_service(write_config(where, pty, port), port, where)
            answered, linked = wait_answers(service)
            out["starts"].append({"display_s": round(answered, 2), "linked_s": round(linked, 2)})
            if i == 0:
                time.sleep(1.0)
                out["after_start"] = proc_status(service.pid)
                out["libraries"] = loaded_libraries(service.pid)
                out["idle"] = asyncio.run(one_page_idle(port, service.pid, idle_s))
            service.stop()
            bar.update(1)
        where = tmp / "importtime"
        where.mkdir()
        port = free_port()
        service = start_service(write_config(where, pty, port), port, where, importtime=True)
        wait_answers(service)
        service.stop()
        out["imports"] = import_report(service.stderr.read_text())
        bar.update(1)
        where = tmp / "mirrored"
        (where / "stick").mkdir(parents=True)
        port = free_port()
        service = start_service(write_config(where, pty, port, mirror=where / "stick"), port, where)
        wait_answers(service)
        time.sleep(1.0)
        out["idle_mirrored"] = asyncio.run(one_page_idle(port, service.pid, idle_s))
        service.stop()
        bar.update(1)
        if watchdog_s > 0:  # as systemd runs it: a ping every watchdog_s / 2, each after the display's health check
            where = tmp / "watched"
            where.mkdir()
            notify = NotifySocket(where / "notify", watchdog_s)
            try:
                port = free_port()
                service = start_service(write_config(where, pty, port), port, where, notify=notify)
                wait_answers(service)
                time.sleep(1.0)
                out["idle_watched"] = {"watchdog_s": watchdog_s,
                                       **asyncio.run(one_page_idle(port, service.pid, idle_s, notify))}
                service.stop()
            finally:
                notify.close()
            bar.update(1)
    finally:
        sim.send_signal(signal.SIGINT)
        sim.wait(30)
    return out


# -- 3 and 5: hands played -------------------------------------------------------------------------
def hands_in(db: Path) -> tuple[int, int]:
    """Hands ended and events in the log (read-only, beside the running service)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        ended = con.execute("SELECT COUNT(*) FROM events WHERE type = 'operator.hand_end'").fetchone()[0]
        events = con.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()[0]
    finally:
        con.close()
    return int(ended), int(events)


def wal_frames(db: Path) -> dict[str, Any]:
    """The WAL's frames since its last checkpoint, by the table each page is the root of (the rest:
    "leaves"), and frames per commit: what each event's transaction writes before its fsync."""
    import struct

    data = Path(f"{db}-wal").read_bytes()
    if len(data) < 32:
        return {}
    page_size, salt = struct.unpack(">I", data[8:12])[0], data[16:24]
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        roots = {int(r): str(n) for n, r in con.execute("SELECT name, rootpage FROM sqlite_master WHERE rootpage")}
    finally:
        con.close()
    by: dict[str, int] = {}
    commits = frames = 0
    at = 32
    while at + 24 + page_size <= len(data) and data[at + 8:at + 16] == salt:
        page, size_after = struct.unpack(">II", data[at:at + 8])
        name = roots.get(page, "leaves")  # not a root: the events' leaf pages (a snapshot's overflow)
        by[name] = by.get(name, 0) + 1
        frames += 1
        commits += 1 if size_after else 0
        at += 24 + page_size
    return {"page_size": page_size, "frames": frames, "commits": commits,
            "frames_per_commit": round(frames / max(commits, 1), 2), "by_table": by}


def strace_counts(path: Path) -> dict[str, int]:
    counts: dict[str, int] = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) >= 5 and parts[-1] in ("fsync", "fdatasync", "write", "pwrite64", "writev", "openat"):
            counts[parts[-1]] = int(parts[3])
    return counts


def measure_hands(tmp: Path, hands: int, bar: tqdm, mirrored: bool = False, turn_s: float = 0.0,
                  broker: str = "", name: str = "hands") -> dict[str, Any]:
    """`hands` hands by the demo's players (`turn_s` between plays: 0 as fast as they go, a batch of
    events at each commit of the publisher and the mirror; paced, one event at a time as at a table)."""
    where = tmp / name
    stick = where / "stick" if mirrored else None
    if stick is not None:
        stick.mkdir(parents=True)
    else:
        where.mkdir()
    port = free_port()
    traced = where / "strace.txt" if shutil.which("strace") else None
    config = write_config(where, "sim://", port, demo=True, mirror=stick, turn_s=turn_s, broker=broker)
    service = start_service(config, port, where, strace=traced)
    wait_answers(service)
    pid = service.pid
    db = where / "data" / "events.sqlite3"
    io0, (_, events0), t0 = proc_io(pid), hands_in(db), time.perf_counter()
    done = 0
    while done < hands:
        time.sleep(0.2)
        now, _ = hands_in(db)
        bar.update(max(0, min(now, hands) - done))
        done = now
        if service.proc.poll() is not None:
            raise RuntimeError(f"tablectl run exited: {service.stderr.read_text()[-2000:]}")
    io1, (done, events1), dt = proc_io(pid), hands_in(db), time.perf_counter() - t0
    status = proc_status(pid)
    libraries = loaded_libraries(pid)
    sizes = files_size(where / "data")
    wal = wal_frames(db)
    stdout_bytes = service.stdout.stat().st_size
    service.stop()
    events = events1 - events0
    out: dict[str, Any] = {
        "hands": done, "events": events, "events_per_hand": round(events / done, 1), "seconds": round(dt, 1),
        "rss_kib": status["rss_kib"], "hwm_kib": status["hwm_kib"], "threads": status["threads"],
        "libraries": libraries, "wal": wal,
        "write_bytes_per_event": round((io1["write_bytes"] - io0["write_bytes"]) / events),
        "wchar_per_event": round((io1["wchar"] - io0["wchar"]) / events),
        "files": sizes, "stdout_bytes_per_event": round(stdout_bytes / events1),
        "mirror_bytes": files_size(stick) if stick is not None else {},
    }
    if traced is not None:
        counts = strace_counts(traced)  # the whole run (start, hands, stop): per event of the whole log
        out["syscalls"] = counts
        out["fsyncs_per_event"] = round((counts.get("fsync", 0) + counts.get("fdatasync", 0)) / events1, 2)
        out["fsyncs_per_hand"] = round(out["fsyncs_per_event"] * out["events_per_hand"], 1)
    out["write_bytes_per_hand"] = round(out["write_bytes_per_event"] * out["events_per_hand"])
    return out


#: Seconds between the demo players' plays in the paced runs: one event at a time reaches the log, the
#: publisher and the mirror, as at a real table (as fast as they go, each commit of theirs takes a batch).
PACED_TURN_S = 0.05


def measure_paced(tmp: Path, hands: int) -> dict[str, Any]:
    """`hands` hands at a table's pace, alone and publishing to a local Mosquitto (when installed); none for 0."""
    out: dict[str, Any] = {}
    if hands < 1:  # `--paced 0`: the paced runs left out (their figures are per event of hands played)
        return out
    with tqdm(total=hands, desc="paced, alone", unit="hand", file=sys.stderr) as bar:
        out["alone"] = measure_hands(tmp, hands, bar, turn_s=PACED_TURN_S, name="paced")
    from table_controller.tournament.broker import MOSQUITTO, LocalBroker

    if not Path(MOSQUITTO).exists():
        return out
    broker = LocalBroker(tmp / "broker")
    broker.start()
    try:
        with tqdm(total=hands, desc="paced, in a tournament", unit="hand", file=sys.stderr) as bar:
            out["in a tournament"] = measure_hands(tmp, hands, bar, turn_s=PACED_TURN_S, broker=broker.url,
                                                   name="paced-published")
    finally:
        broker.stop()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=50, help="hands the demo's players play (default 50)")
    parser.add_argument("--idle", type=float, default=10.0, help="seconds idle with one page open (default 10)")
    parser.add_argument("--starts", type=int, default=3, help="cold starts timed (default 3)")
    parser.add_argument("--watchdog", type=float, default=0.0, metavar="SECONDS",
                        help="also idle under systemd's watchdog, WatchdogSec= SECONDS (the units': 60), a real notify "
                             "socket counting the pings (default 0: not measured)")
    parser.add_argument("--paced", type=int, default=3,
                        help="hands played at a table's pace, alone and publishing to a local Mosquitto "
                             "(default 3; 0: none)")
    args = parser.parse_args(argv)
    if args.hands < 1 or args.starts < 1:  # the figures are per hand played and of the first start
        parser.error("--hands and --starts must be 1 or more")
    if args.watchdog < 0:
        parser.error("--watchdog must be 0 (none) or more")
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="footprint-") as tmp_name:
        tmp = Path(tmp_name)
        with tqdm(total=args.starts + 2 + (args.watchdog > 0), desc="starts", unit="start", file=sys.stderr) as bar:
            started = measure_start_and_idle(tmp, args.starts, args.idle, bar, args.watchdog)
        with tqdm(total=args.hands, desc="hands", unit="hand", file=sys.stderr) as bar:
            played = measure_hands(tmp, args.hands, bar, mirrored=False)
        with tqdm(total=args.hands, desc="hands, mirrored", unit="hand", file=sys.stderr) as bar:
            mirrored = measure_hands(tmp, args.hands, bar, mirrored=True, name="hands-mirrored")
        paced = measure_paced(tmp, args.paced)
    starts = started["starts"]
    per_hour = played["write_bytes_per_hand"] * HANDS_PER_HOUR + started["idle"]["written_bytes_per_hour"]
    print(f"machine: {platform.machine()} {os.cpu_count()} cores, load {load[0]:.1f} (shared: ratios and counts "
          "matter more than times)")
    print("cold start (tablectl run, separate sim): display answers "
          + ", ".join(f"{s['display_s']:.2f}" for s in starts) + " s; linked "
          + ", ".join(f"{s['linked_s']:.2f}" for s in starts) + " s")
    imp = started["imports"]
    print(f"imports at start: {imp['modules']} modules, {imp['total_ms']:.0f} ms; heaviest: "
          + ", ".join(f"{k} {v:.0f}" for k, v in list(imp["top_ms"].items())[:8]) + " ms")
    print(f"  heavy modules loaded: {', '.join(imp['heavy_loaded']) or 'none'}; heavy libraries mapped "
          f"(no camera configured): {', '.join(started['libraries']) or 'none'}")
    st = started["after_start"]
    print(f"RSS after start: {st['rss_kib'] / 1024:.1f} MiB ({st['threads']} threads); after {played['hands']} hands: "
          f"{played['rss_kib'] / 1024:.1f} MiB (peak {played['hwm_kib'] / 1024:.1f}, {played['threads']} threads; "
          f"heavy libraries mapped: {', '.join(played['libraries']) or 'none'})")
    idles = [("idle, one page open", started["idle"]), ("  with a log mirror", started["idle_mirrored"])]
    if "idle_watched" in started:
        idles.append((f"  under systemd's watchdog (WatchdogSec={args.watchdog:g})", started["idle_watched"]))
    for name, idle in idles:
        print(f"{name}: CPU {idle['cpu_pct']:.2f} %, {idle['wakeups_per_s']:.1f} wakeups/s "
              f"({idle['preempted'] / idle['seconds']:.1f}/s more preempted), {idle['threads']} threads, "
              f"{idle['messages_per_s']:.2f} messages/s to the page, {idle['written_bytes_per_hour'] / 1024:.0f} KiB "
              "written an hour" + (f", {idle['pings']} pings and {idle['statuses']} status lines sent in "
                                   f"{idle['seconds']:.0f} s" if "pings" in idle else ""))
    print(f"play: {played['events_per_hand']:.0f} events a hand; written {played['write_bytes_per_event']} B/event "
          f"(wchar {played['wchar_per_event']} B), {played['write_bytes_per_hand'] / 1024:.0f} KiB a hand, "
          f"{per_hour / 2**20:.1f} MiB an hour at {HANDS_PER_HOUR} hands; fsyncs/event "
          f"{played.get('fsyncs_per_event', '?')}; stdout (the journal) {played['stdout_bytes_per_event']} B/event")
    wal = paced.get("alone", played)["wal"]  # the paced run: one event a commit, as at a table
    if wal:
        print(f"  WAL: {wal['frames_per_commit']} frames of {wal['page_size'] + 24} B per commit, by table "
              + ", ".join(f"{k} {v}" for k, v in sorted(wal["by_table"].items(), key=lambda kv: -kv[1]))
              + f" (of {wal['frames']} frames, {wal['commits']} commits since the last checkpoint)")
    print(f"  files after {played['hands']} hands: "
          + ", ".join(f"{k} {v // 1024} KiB" for k, v in played["files"].items()))
    print(f"  with a mirror: written {mirrored['write_bytes_per_event']} B/event, fsyncs/event "
          f"{mirrored.get('fsyncs_per_event', '?')}; mirror files "
          + ", ".join(f"{k} {v // 1024} KiB" for k, v in mirrored["mirror_bytes"].items()))
    for name, run in paced.items():
        print(f"paced play ({PACED_TURN_S} s a play), {name}: {run.get('fsyncs_per_event', '?')} fsyncs/event, written "
              f"{run['write_bytes_per_event']} B/event, {run['wal'].get('frames_per_commit', '?')} WAL frames a commit")
    print(json.dumps({"load": round(load[0], 1), "start": started, "hands": played, "hands_mirrored": mirrored,
                      "paced": paced, "bytes_per_hour": round(per_hour)}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
