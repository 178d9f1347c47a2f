"""Benchmark of a long day on a Pi's CPU: each event late in a day, sockets, the start-up, the camera.

The table's Pi (4 cores, each 5-8x slower than a development machine) runs one event loop for the
log, the fold, the display's sockets and the camera's scheduling. This measures, on this machine,
what grows with a long day or a busy hall, and prints each figure with the Pi's range (x5 to x8):

1. per event at 5,000 and 40,000 events in the log: `Controller.accept` (SQLite append with
   `synchronous=FULL`, fold, publish) and the pushed messages' views and text (public and referee,
   each computed once per event for all sockets: `web.app.ViewCache`, as for sockets that hold the
   day's score sheet), against the same at 5,000; the message's size whole and with `kept`;
2. with 1, 10 and 50 real sockets (a subprocess of clients over loopback, permessage-deflate as
   browsers ask for it): the loop's own CPU per event (`time.thread_time`) and its lag (a 10 ms
   timer task), the cost per socket against the shared views;
3. the start-up after an upgrade (no snapshot of this code: the log folded whole): the fold, and
   when the display first answers (it says 正在恢复记录 meanwhile), against the restart from a
   snapshot; the snapshot's pickle and write;
4. with `--camera STYLE`: the camera's reader at its configured period beside it (a virtual MJPEG
   camera in a subprocess over the demo's felt): the loop's lag with and without it.

Run: `nice -n 15 .venv/bin/python bench/day.py [--hands 420] [--sockets 1,10,50] [--camera xmahjongg-dorothys]`.
Prints the figures and a final JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pickle
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Run as `python bench/day.py`, this folder comes first on sys.path and bench/vision.py would shadow
# the project's `vision` package: take the folder off.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from tqdm import tqdm  # noqa: E402

PI = (5, 8)  # a Pi 4's core against this machine's, slowest to fastest factor (the brief's estimate)
ROOT = Path(__file__).resolve().parent.parent


def pi(ms: float) -> str:
    return f"{ms:.1f} ms (Pi ~{ms * PI[0]:.0f}-{ms * PI[1]:.0f} ms)"


def build_log(path: Path, hands: int, seed: int) -> list[tuple[int, float, str, str, str]]:
    """A day of `hands` hands by the simulator's players; its rows (seq, at, source, type, data)."""
    from table_controller.store import EventStore
    from tablesim.session import write_session

    store = EventStore(path)
    store._db.execute("PRAGMA synchronous=OFF")  # the bench's source log only: 40,000 fsyncs say nothing here
    write_session(store, "mcr", hands, seed)
    rows = [(e.seq, e.at, e.source, e.type, json.dumps(e.data, ensure_ascii=False)) for e in store.since(0)]
    store.close()
    return rows


def log_of(rows: list[tuple[int, float, str, str, str]], path: Path) -> Any:
    from table_controller.store import EventStore

    store = EventStore(path)
    store.restore(rows, None)
    return store


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(url)


def controller_on(store: Any, fold_now: bool = True) -> Any:
    from table_controller.config import parse_config
    from table_controller.controller import Controller

    return Controller(parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "bench"), store, _no_table,
                      fold_now=fold_now)


def _text(message: Any) -> str:
    """A socket message's text from `ViewCache.message` (text and version; before `kept`: the text)."""
    return message[0] if isinstance(message, tuple) else str(message)


def _held(message: Any) -> Any:
    return message[1] if isinstance(message, tuple) else None


def _kw(views: Any, held: Any) -> dict[str, Any]:
    return {"held": held} if hasattr(views, "version") else {}


def per_event(rows: list[Any], at: int, feed: int, tmp: Path) -> dict[str, Any]:
    """Accept `feed` events after the first `at` of the day; time the accept and the views."""
    from table_controller.state import apply
    from table_controller.web.app import ViewCache

    store = log_of(rows[:at], tmp / f"at{at}.sqlite3")
    t0 = time.perf_counter()
    ctl = controller_on(store)
    fold_s = time.perf_counter() - t0
    views = ViewCache(ctl)
    accept, fold, view_pub, view_ref = [], [], [], []
    held: dict[bool, Any] = {False: None, True: None}  # as a socket of each channel holds the big parts
    for seq, _, source, type_, data in tqdm(rows[at:at + feed], desc=f"events after {at}", unit="ev",
                                            file=sys.stderr):
        before = ctl.state
        t0 = time.perf_counter()
        ev = ctl.accept(source, type_, json.loads(data))
        t1 = time.perf_counter()
        held[False] = _held(views.message(ev, private=False, with_state=True, **_kw(views, held[False])))
        t2 = time.perf_counter()
        held[True] = _held(views.message(ev, private=True, with_state=True, **_kw(views, held[True])))
        t3 = time.perf_counter()
        apply(before, ev)
        fold.append(time.perf_counter() - t3)
        accept.append(t1 - t0)
        view_pub.append(t2 - t1)
        view_ref.append(t3 - t2)
    size = len(_text(views.message(ev, private=False, with_state=True)).encode())
    kept = size
    if hasattr(views, "version"):  # (a tree from before `kept`: the whole message only)
        kept = len(_text(views.message(ev, private=False, with_state=True, held=views.version(False))).encode())
    store.close()
    ms = lambda v: round(statistics.median(v) * 1000, 2)  # noqa: E731
    return {"events": at, "fold_whole_s": round(fold_s, 2), "accept_ms": ms(accept), "fold_ms": ms(fold),
            "append_ms": round(ms(accept) - ms(fold), 2), "public_view_ms": ms(view_pub),
            "referee_view_ms": ms(view_ref), "message_kb": round(size / 1024, 1),
            "message_kept_kb": round(kept / 1024, 1)}


CLIENT = r"""
import asyncio, os, sys, time, websockets
NET = sys.argv[3] if len(sys.argv) > 3 else "0"
async def one(url, ready, counts, i):
    # 40 a machine (the display lets one address hold 64); each run its own machines (argv[3])
    async with websockets.connect(url, max_size=None, local_addr=(f"127.{NET}.0.{2 + i // 40}", 0)) as ws:
        while True:
            m = await ws.recv()
            if '"snapshot"' in m[:40]:
                ready.set()
            elif '"event"' in m[:40]:
                counts[i] += 1
async def main(url, n):
    readies = [asyncio.Event() for _ in range(n)]
    counts = [0] * n
    t0 = time.perf_counter()
    tasks = [asyncio.create_task(one(url, readies[i], counts, i)) for i in range(n)]
    await asyncio.gather(*(r.wait() for r in readies))
    print("ready", round(time.perf_counter() - t0, 3), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    print(sum(counts), flush=True)
    os._exit(0)
asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


async def lag_timer(out: list[float], period: float = 0.01) -> None:
    loop = asyncio.get_running_loop()
    while True:
        t = loop.time()
        await asyncio.sleep(period)
        out.append(loop.time() - t - period)


async def sockets(rows: list[Any], at: int, counts: list[int], feed: int, rate: float, tmp: Path,
                  camera: str | None) -> dict[str, Any]:
    """The display served in this loop, `n` socket clients in a subprocess, `feed` events at `rate`."""
    from table_controller.web.app import create_app
    from table_controller.web.auth import Credentials
    from table_controller.web.serve import serve, stop_tasks

    store = log_of(rows[:at], tmp / f"sockets-{camera or 'plain'}.sqlite3")
    ctl = controller_on(store, fold_now=False)
    t0 = time.perf_counter()
    served = await serve(create_app(ctl, Credentials(referee="r", operator="o")), "127.0.0.1", 0, name="http",
                         what="bench")
    recovering = asyncio.create_task(ctl.recover())
    import httpx

    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{served.port}") as http:
        health = (await http.get("/api/health")).json()
    first_answer = time.perf_counter() - t0
    await recovering
    up = {"first_answer_s": round(first_answer, 3), "said_recovering": bool(health.get("recovering")),
          "recovered_s": round(time.perf_counter() - t0, 2)}
    watcher = cam = None
    if camera:
        cam, watcher = start_camera(ctl, camera)
        end = time.monotonic() + 60
        while not ctl.camera.status.get("ok") and time.monotonic() < end:  # the model loaded, frames read
            await asyncio.sleep(0.2)
        await asyncio.sleep(2.0)  # the tiles on the felt seen and logged: the steady state is measured
    out: dict[str, Any] = {"startup": up, "by_sockets": {}}
    queue = rows[at:]
    try:
        for n in counts:
            clients = subprocess.Popen([sys.executable, "-c", CLIENT, f"ws://127.0.0.1:{served.port}/ws", str(n)],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            line = await asyncio.to_thread(clients.stdout.readline)  # type: ignore[union-attr]
            assert line.split()[:1] == ["ready"], line
            lags: list[float] = []
            timer = asyncio.create_task(lag_timer(lags))
            cpu0, wall0 = time.thread_time(), time.perf_counter()
            for _, _, source, type_, data in tqdm(queue[:feed], desc=f"{n} sockets", unit="ev", file=sys.stderr):
                ctl.accept(source, type_, json.loads(data))
                await asyncio.sleep(1 / rate)
            await asyncio.sleep(0.5)
            cpu = time.thread_time() - cpu0
            timer.cancel()
            clients.stdin.write("\n")  # type: ignore[union-attr]
            clients.stdin.flush()  # type: ignore[union-attr]
            got = int((await asyncio.to_thread(clients.stdout.readline)).strip() or 0)  # type: ignore[union-attr]
            await asyncio.to_thread(clients.wait, 10)
            queue = queue[feed:]
            lags.sort()
            out["by_sockets"][n] = {"loop_cpu_ms_per_event": round(cpu * 1000 / feed, 2),
                                    "lag_p50_ms": round(lags[len(lags) // 2] * 1000, 1),
                                    "lag_p99_ms": round(lags[int(len(lags) * 0.99)] * 1000, 1),
                                    "lag_max_ms": round(lags[-1] * 1000, 1), "delivered": got, "sent": n * feed,
                                    "wall_s": round(time.perf_counter() - wall0, 1)}
    finally:
        if watcher is not None:
            watcher.cancel()
        if cam is not None:
            cam.terminate()
        await stop_tasks([served.task], served)
        store.close()
    return out


CAMERA = r"""
import sys, time
from tablesim.felt import FeltCamera
from tablesim.scenes.camera import VirtualCamera
from vision.tileart import load_style
felt = FeltCamera(load_style(sys.argv[1]), seed=1)
for seat, tile in [("E", "1m"), ("S", "5p"), ("W", "9s"), ("N", "1z"), ("E", "3m"), ("S", "7p"), ("W", "2s")]:
    felt.lay("discard", seat, tile)
felt.lay("claim", "S", "4m", frm="E")
cam = VirtualCamera(felt.frame, fps=4).start()
print(cam.url, flush=True)
sys.stdin.readline()
"""


def start_camera(ctl: Any, style: str) -> tuple[subprocess.Popen[str], asyncio.Task[Any]]:
    """A virtual MJPEG camera over the demo's felt in a subprocess; the service's `CameraWatcher`
    at the configured period, here."""
    from table_controller.camera import CameraWatcher, vision_loop_factory
    from table_controller.config import parse_config

    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'hardware-sim'}"}
    proc = subprocess.Popen([sys.executable, "-c", CAMERA, style], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=env)
    url = proc.stdout.readline().strip()  # type: ignore[union-attr]
    if not url.startswith("http"):  # the style unknown, the camera not started: no figures "with the camera"
        proc.wait(10)
        raise SystemExit(f"the virtual camera did not start (--camera {style!r}): see its error above")
    cam = parse_config({"camera": {"source": url}}, "bench").camera
    watcher = CameraWatcher(ctl, vision_loop_factory(url, cam.corners, None, cam.threshold, cam.model, False),
                            period_s=cam.period_s, learn=False, record_play=cam.record_play)
    ctl.camera = watcher
    return proc, asyncio.create_task(watcher.run())


def snapshot_costs(rows: list[Any], tmp: Path) -> dict[str, Any]:
    from table_controller import snapshot
    from table_controller.state import fold

    store = log_of(rows, tmp / "snap.sqlite3")
    state = fold(store.since(0))
    t0 = time.perf_counter()
    blob = pickle.dumps(state, protocol=5)
    t1 = time.perf_counter()
    store.put_snapshot(state.seq, snapshot.code_version(), state.last_at or 0.0, blob)
    t2 = time.perf_counter()
    restored, folded = snapshot.restore(store)
    t3 = time.perf_counter()
    store.close()
    return {"pickle_ms": round((t1 - t0) * 1000, 1), "write_ms": round((t2 - t1) * 1000, 1),
            "kb": round(len(blob) / 1024), "restart_from_snapshot_ms": round((t3 - t2) * 1000, 1)}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-day-") as tmp_name:
        tmp = Path(tmp_name)
        rows = build_log(tmp / "day.sqlite3", args.hands, args.seed)
        late = len(rows) - args.feed * (1 + len(args.sockets))  # room for the events fed after it
        marks = [5000, late] if late > 5000 else [late]
        result: dict[str, Any] = {"bench": "day", "hands": args.hands, "events": len(rows),
                                  "per_event": [per_event(rows, m, args.feed, tmp) for m in marks]}
        result["snapshot"] = snapshot_costs(rows[:late], tmp)
        result["sockets"] = await sockets(rows, late, args.sockets, args.feed, args.rate, tmp, None)
        if args.camera:
            result["camera"] = await sockets(rows, late, [args.sockets[min(1, len(args.sockets) - 1)]], args.feed,
                                             args.rate, tmp, args.camera)
    result.update(python=platform.python_version(), machine=platform.machine(), cpus=os.cpu_count())
    return result


def report(r: dict[str, Any]) -> None:
    print(f"\na day of {r['hands']} hands, {r['events']} events; Pi figures are this machine's x{PI[0]}-x{PI[1]}")
    first = r["per_event"][0]
    for p in r["per_event"]:
        grow = (p["accept_ms"] + p["public_view_ms"] + p["referee_view_ms"]) / max(
            1e-9, first["accept_ms"] + first["public_view_ms"] + first["referee_view_ms"])
        print(f"  at {p['events']:>6} events: accept {pi(p['accept_ms'])} (append {p['append_ms']} ms, fold "
              f"{p['fold_ms']} ms); views public {pi(p['public_view_ms'])}, referee {pi(p['referee_view_ms'])}; "
              f"message {p['message_kb']} KB whole, {p['message_kept_kb']} KB with `kept`; x{grow:.2f} the per-event cost at {first['events']} events; "
              f"whole fold {p['fold_whole_s']} s")
    s = r["snapshot"]
    print(f"  snapshot: pickle {pi(s['pickle_ms'])} (holds the loop), write {s['write_ms']} ms (a worker thread), "
          f"{s['kb']} KB; restart from it {s['restart_from_snapshot_ms']} ms")
    up = r["sockets"]["startup"]
    print(f"  start-up after an upgrade: display answers after {up['first_answer_s']} s "
          f"(正在恢复记录: {up['said_recovering']}), record folded after {up['recovered_s']} s "
          f"(x{up['recovered_s'] / max(1e-3, up['first_answer_s']):.0f} the first answer)")
    base = None
    for n, v in r["sockets"]["by_sockets"].items():
        base = base if base is not None else (int(n), v["loop_cpu_ms_per_event"])
        per = (v["loop_cpu_ms_per_event"] - base[1]) / (int(n) - base[0]) if int(n) > base[0] else 0.0
        print(f"  {n:>3} sockets: loop CPU {pi(v['loop_cpu_ms_per_event'])} per event, {per:.2f} ms per socket "
              f"more; lag p50 {v['lag_p50_ms']} p99 {v['lag_p99_ms']} max {v['lag_max_ms']} ms; "
              f"delivered {v['delivered']} of {v['sent']} sent")
    if "camera" in r:
        for n, v in r["camera"]["by_sockets"].items():
            plain = r["sockets"]["by_sockets"][n]
            print(f"  camera on, {n} sockets: loop CPU {pi(v['loop_cpu_ms_per_event'])} per event; lag p99 "
                  f"{v['lag_p99_ms']} max {v['lag_max_ms']} ms (without: p99 {plain['lag_p99_ms']} max "
                  f"{plain['lag_max_ms']} ms)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=420, help="hands in the day (default 420: about 41,000 events)")
    parser.add_argument("--sockets", default="1,10,50", help="socket counts (default 1,10,50)")
    parser.add_argument("--feed", type=int, default=60, help="events fed per measurement (default 60)")
    parser.add_argument("--rate", type=float, default=5.0, help="events per second with sockets (default 5)")
    parser.add_argument("--camera", default="",
                        help="a tile style for the virtual camera (empty or none: no camera)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    args.sockets = [int(x) for x in args.sockets.split(",") if x]
    if args.camera.lower() == "none":  # as the help says: no camera (not a tile style of that name)
        args.camera = ""
    result = asyncio.run(run(args))
    report(result)
    print("JSON", json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
