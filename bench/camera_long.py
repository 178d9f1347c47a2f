"""Benchmark: the camera over a match day: a long soak, then the camera unplugged and replugged,
frozen, dark and sending garbage.

The real service runs the demo with its camera (`tablectl demo --camera STYLE`): the simulated
players lay their plays on the felt, the virtual MJPEG camera serves it, the service's camera path
(reader thread, tile reader, tracker, play record) keeps the record. Every few seconds it samples
the process: RSS, open fds and sockets, threads (Python's and the OS's), the time of each camera
step, and the state the camera path keeps (tracks, the play record's tables, unsure crops, rulings,
open questions, the hand's kept events, camera events in the log). Then the MJPEG server is
stopped and started again `--reconnects` times (a camera unplugged and plugged back), each time
waiting for the service to record the camera unplugged and then OK; then frozen, dark and garbage
frames, each waited out to its recorded status and back to OK.

Prints RSS at the start, half way and the end and its slope per hour (least squares over the soak's
second half, once warm), camera step time p50/p95, fds/sockets/threads before and after the reconnects, the
reconnects survived, the largest of each kept structure, camera events per hour; then a JSON line.
Run: `nice -n 15 .venv/bin/python bench/camera_long.py [--minutes 20] [--reconnects 30]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

# Run as `python bench/camera_long.py`, this file's folder comes first on sys.path and the
# project's `vision` package would be shadowed by bench/vision.py: take the folder off.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from tqdm import tqdm  # noqa: E402

from table_controller.config import parse_config  # noqa: E402
from table_controller.service import TableService  # noqa: E402


def rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def fds() -> tuple[int, int]:
    """(open fds, of which sockets) of this process."""
    n = s = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        n += 1
        s += target.startswith("socket:")
    return n, s


def os_threads() -> int:
    return len(os.listdir("/proc/self/task"))


def kept(service: TableService) -> dict[str, int]:
    """Sizes of what the camera path keeps (each should stay bounded over a day)."""
    watcher = service.camera
    loop = watcher.loop if watcher is not None else None
    ctl = service.controller
    assert ctl is not None
    out: dict[str, int] = {
        "camera_pending": len(ctl.state.camera_pending),
        "hand_events": len(ctl.state.hand_events),
        "log_tail": len(ctl.state.log),
    }
    if watcher is not None:
        out.update(ruled=len(watcher._ruled), asked=len(watcher._asked))
        rec = watcher.record
        if rec is not None:
            out.update(lying=sum(len(v) for v in rec.lying.values()), accounted=len(rec.accounted),
                       lost=sum(len(v) for v in rec.lost.values()), refusals=len(rec.refusals),
                       recorded_as=len(rec.recorded_as), claimed=len(rec.claimed))
    if loop is not None:
        out.update(tracks=len(loop.tracker.tracks), unsure=len(loop._unsure), unsure_views=len(loop._unsure_views))
        enrolled = loop.reader.enrollment
        out["enrolled"] = len(enrolled) if enrolled is not None else 0
    return out


class Timed:
    """Wraps the vision loop's `step` to time each camera step (grab included: the wait for a frame)."""

    def __init__(self, loop: Any) -> None:
        self.loop = loop
        self.step = loop.step
        self.times: list[tuple[float, float]] = []  # (when, seconds) of each step that read a frame
        loop.step = self

    def __call__(self) -> Any:
        t = time.perf_counter()
        result = self.step()
        if result.status.ok and (result.readings or result.events):
            self.times.append((t, time.perf_counter() - t))
        return result


async def until(check: Any, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while not check():
        if time.monotonic() > end:
            return False
        await asyncio.sleep(0.1)
    return True


def slope_per_hour(samples: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, MB) in MB per hour."""
    if len(samples) < 3:
        return 0.0
    xs, ys = [s[0] for s in samples], [s[1] for s in samples]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den * 3600 if den else 0.0


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from tablesim.scenes.camera import VirtualCamera

    config = parse_config({
        "table": {"link": "sim://", "sim_speed": args.speed, "sim_seed": args.seed},
        "display": {"port": 0, "operator_token": "bench-op", "referee_token": "bench-ref"},
        "demo": {"autoplay": True, "turn_seconds": 0.0, "hand_seconds": 1.0, "camera": args.style},
        "camera": {"period_s": args.period},
    }, source="bench")
    with tempfile.TemporaryDirectory(prefix="camlong-") as tmp:
        service = TableService(config, Path(tmp))
        await service.start()
        ctl = service.controller
        assert ctl is not None and service.camera is not None
        ok = lambda: bool(ctl.state.camera and ctl.state.camera.get("ok"))  # noqa: E731
        code = lambda: (ctl.state.camera or {}).get("code")  # noqa: E731
        try:
            await until(lambda: service.camera.loop is not None, 120)
            timed = Timed(service.camera.loop)
            await until(ok, 120)
            t0 = time.monotonic()
            samples: list[dict[str, Any]] = []
            peak: Counter[str] = Counter()

            def sample(phase: str) -> dict[str, Any]:
                n, s = fds()
                row = {"t": round(time.monotonic() - t0, 1), "phase": phase, "rss_mb": round(rss_mb(), 1),
                       "fds": n, "sockets": s, "py_threads": threading.active_count(), "os_threads": os_threads(),
                       "hands": len(ctl.state.hands), "seq": ctl.state.seq, **kept(service)}
                for k, v in row.items():
                    if isinstance(v, int) and k not in ("t", "seq", "hands"):
                        peak[k] = max(peak[k], v)
                samples.append(row)
                return row

            soak_s = args.minutes * 60
            with tqdm(total=int(soak_s), desc="soak (s)", unit="s") as bar:
                while (elapsed := time.monotonic() - t0) < soak_s:
                    await asyncio.sleep(min(args.sample_s, soak_s - elapsed))
                    row = sample("soak")
                    bar.update(int(row["t"]) - bar.n)
                    bar.set_postfix(rss=row["rss_mb"], hands=row["hands"], fds=row["fds"], steps=len(timed.times))
            # the slope once warm (the model, the first hand's tables and enrollment, the allocator's pools):
            # the soak's second half
            soak = [(r["t"], r["rss_mb"]) for r in samples if r["t"] >= soak_s / 2] or [(r["t"], r["rss_mb"])
                                                                                          for r in samples]
            half_rss = soak[0][1]
            statuses = Counter(f"{e.data.get('code')}{': ' + e.data['problem'][:40] if e.data.get('problem') else ''}"
                               for e in ctl.store.since(0) if e.type == "camera.status")
            before = sample("before reconnects")

            # unplugged and plugged back: the MJPEG server stopped and started again on its port
            survived = 0
            unplug_s: list[float] = []
            back_s: list[float] = []
            for _ in tqdm(range(args.reconnects), desc="reconnects"):
                cam = service._virtual_camera
                port = cam.server.server_address[1]
                t = time.monotonic()
                cam.stop()
                if not await until(lambda: code() == "unplugged", 60):
                    break
                unplug_s.append(time.monotonic() - t)
                # served at the rate the demo set (service.demo_camera_fps)
                service._virtual_camera = VirtualCamera(service.felt.frame, port=port, fps=cam.fps).start()
                t = time.monotonic()
                if not await until(ok, 60):
                    break
                back_s.append(time.monotonic() - t)
                survived += 1
            if args.reconnects:
                await asyncio.sleep(3)  # closed sockets go (none closed without reconnects: the faults start at once)
            after = sample("after reconnects")

            faults: dict[str, Any] = {}
            for fault in args.faults.split(","):
                cam = service._virtual_camera
                t = time.monotonic()
                setattr(cam, fault, True)
                logged = ctl.state.seq
                seen = await until(lambda: code() not in ("ok", None), args.fault_s)
                faults[fault] = {"code": code(), "seen_s": round(time.monotonic() - t, 1) if seen else None}
                await asyncio.sleep(max(0.0, args.fault_s - (time.monotonic() - t)))  # nothing should pile up
                faults[fault]["row"] = sample(fault)
                faults[fault]["events"] = dict(Counter(e.type for e in ctl.store.since(logged)))
                # every status the fault went through, not only the first one seen (garbage went unplugged,
                # ok, unplugged, then undecodable before frames of one flat colour were not taken for pictures)
                faults[fault]["statuses"] = [e.data.get("code") for e in ctl.store.since(logged)
                                             if e.type == "camera.status"]
                setattr(cam, fault, False)
                t = time.monotonic()
                back = await until(ok, 60)
                faults[fault]["back_s"] = round(time.monotonic() - t, 1) if back else None
            end = sample("end")
            logged = list(ctl.store.since(0))
            events = Counter(e.type for e in logged)
            corrected = sum(1 for e in logged if e.type == "camera.learned" and e.data.get("corrected"))
        finally:
            await service.stop()
    hours = max(1e-9, (before["t"]) / 3600)
    camera_events = sum(n for t, n in events.items() if t.startswith("camera."))
    times = sorted(d for _, d in timed.times)
    soaked = [d for t, d in timed.times if t - timed.times[0][0] <= before["t"]] if timed.times else []
    quarter = max(1, len(soaked) // 4)
    return {
        "style": args.style, "minutes": args.minutes, "hands": before["hands"], "steps_read": len(times),
        "rss_mb_start": samples[0]["rss_mb"], "rss_mb_end_of_soak": before["rss_mb"], "rss_mb_end": end["rss_mb"],
        "rss_mb_half_soak": half_rss, "rss_slope_mb_per_hour": round(slope_per_hour(soak), 1),
        "soak_statuses": dict(statuses),
        "step_ms_p50": round(1000 * statistics.median(times), 1) if times else None,
        "step_ms_p95": round(1000 * times[int(0.95 * (len(times) - 1))], 1) if times else None,
        "step_ms_p50_first_quarter": round(1000 * statistics.median(soaked[:quarter]), 1) if soaked else None,
        "step_ms_p50_last_quarter": round(1000 * statistics.median(soaked[-quarter:]), 1) if soaked else None,
        "learned_corrected": corrected,
        "fds_before": before["fds"], "fds_after": after["fds"], "sockets_before": before["sockets"],
        "sockets_after": after["sockets"], "os_threads_before": before["os_threads"],
        "os_threads_after": after["os_threads"], "reconnects": args.reconnects, "reconnects_survived": survived,
        "unplug_seen_s_max": round(max(unplug_s), 1) if unplug_s else None,
        "back_s_max": round(max(back_s), 1) if back_s else None,
        "faults": faults, "peak": dict(peak),
        "camera_events_per_hour": round(camera_events / hours),
        "camera_events": {t: n for t, n in sorted(events.items()) if t.startswith("camera.")},
        "samples": samples if args.samples else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--style", default="xmahjongg-dorothys", help="tile style on the felt")
    ap.add_argument("--minutes", type=float, default=20.0, help="minutes of soak before the faults")
    ap.add_argument("--reconnects", type=int, default=30, help="times the MJPEG server is stopped and started")
    ap.add_argument("--speed", type=float, default=20.0, help="simulated mechanisms' speed factor")
    ap.add_argument("--period", type=float, default=0.5, help="seconds between camera reads ([camera] period_s)")
    ap.add_argument("--sample-s", type=float, default=10.0, help="seconds between samples")
    ap.add_argument("--fault-s", type=float, default=20.0, help="seconds each of frozen, dark, garbage lasts")
    ap.add_argument("--faults", default="frozen,dark,garbage,corrupt",
                    help="the virtual camera's faults switched on in turn after the reconnects")
    ap.add_argument("--seed", type=int, default=1, help="simulator seed")
    ap.add_argument("--samples", action="store_true", help="every sample in the JSON line")
    args = ap.parse_args()
    r = asyncio.run(run(args))
    print(f"\n== {r['style']}: {r['minutes']} min soak, {r['hands']} hands, {r['steps_read']} camera steps read")
    print(f"RSS {r['rss_mb_start']} MB at the start, {r['rss_mb_half_soak']} MB half way, {r['rss_mb_end_of_soak']} MB "
          f"after the soak, {r['rss_mb_end']} MB at the end; slope over the soak's second half "
          f"{r['rss_slope_mb_per_hour']} MB/h")
    print(f"camera status logged in the soak: {r['soak_statuses']}")
    print(f"camera step p50 {r['step_ms_p50']} ms, p95 {r['step_ms_p95']} ms (p50 in the soak's first quarter "
          f"{r['step_ms_p50_first_quarter']} ms, last quarter {r['step_ms_p50_last_quarter']} ms)")
    print(f"fds {r['fds_before']} -> {r['fds_after']} (sockets {r['sockets_before']} -> {r['sockets_after']}), "
          f"OS threads {r['os_threads_before']} -> {r['os_threads_after']} over {r['reconnects']} reconnects")
    print(f"reconnects survived {r['reconnects_survived']}/{r['reconnects']} (unplug seen within "
          f"{r['unplug_seen_s_max']} s, back within {r['back_s_max']} s)")
    for k, v in r["faults"].items():
        seen = (f"{' -> '.join(v['statuses'])} (the first after {v['seen_s']} s)" if v["seen_s"] is not None
                else f"no status change ({v['code']} kept)")
        print(f"fault {k}: {seen}, OK again after {v['back_s']} s; logged meanwhile {v['events']}")
    print("largest kept: " + ", ".join(f"{k} {v}" for k, v in sorted(r["peak"].items())))
    print(f"camera events {r['camera_events_per_hour']}/h: {r['camera_events']}; "
          f"rulings learnt as corrected {r['learned_corrected']}")
    print("\nJSON", json.dumps(r))


if __name__ == "__main__":
    main()
