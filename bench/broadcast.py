"""Benchmark of the broadcast feed (`/ws?delay=S`) with a hall's worth of viewers.

A streaming crew's overlay, the hall's screens and spectators' phones each hold a delayed socket.
This serves the display in this process over a log of `--hands` hands, opens `--viewers` delayed
sockets from a subprocess (over loopback, permessage-deflate as browsers ask), feeds `--feed`
events of the day at `--rate` per second and measures, against the same number of live sockets:
the loop's own CPU per event (`time.thread_time`), its lag (a 10 ms timer task), the process's
memory (RSS) before and after, and the messages delivered. Then the viewers' pages reconnect all
at once (a restart, the hall's Wi-Fi back): the time until every one has its delayed snapshot, and
the loop's longest stall meanwhile.

Run: `nice -n 15 .venv/bin/python bench/broadcast.py [--hands 100] [--viewers 100] [--delay 2]`.
Prints the figures and a final JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Run as `python bench/broadcast.py`: this folder off sys.path (bench/vision.py shadows `vision`).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tqdm import tqdm  # noqa: E402

from day import CLIENT, build_log, controller_on, lag_timer, log_of  # noqa: E402


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


RUNS = iter(range(1, 250))


async def open_clients(url: str, n: int) -> tuple[subprocess.Popen[str], float]:
    clients = subprocess.Popen([sys.executable, "-c", CLIENT, url, str(n), str(next(RUNS))], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    line = (await asyncio.to_thread(clients.stdout.readline)).split()  # type: ignore[union-attr]
    assert line and line[0] == "ready", line
    return clients, float(line[1])


async def close_clients(clients: subprocess.Popen[str]) -> int:
    clients.stdin.write("\n")  # type: ignore[union-attr]
    clients.stdin.flush()  # type: ignore[union-attr]
    got = int((await asyncio.to_thread(clients.stdout.readline)).strip() or 0)  # type: ignore[union-attr]
    await asyncio.to_thread(clients.wait, 10)
    return got


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """The bench in a temporary folder, removed after (the day's logs: each run left ~10 MB in /tmp)."""
    with tempfile.TemporaryDirectory(prefix="broadcast-bench-") as tmp:
        return await _run(args, Path(tmp))


async def _run(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    from table_controller.web.app import create_app
    from table_controller.web.auth import Credentials
    from table_controller.web.serve import serve, stop_tasks

    rows = build_log(tmp / "day.sqlite3", args.hands, 7)
    shift = time.time() - 60 - rows[-1][1]  # the simulator's stamps are its own: the day ends a minute ago
    rows = [(seq, at + shift, *rest) for seq, at, *rest in rows]
    at = len(rows) - 2 * args.feed
    store = log_of(rows[:at], tmp / "served.sqlite3")
    ctl = controller_on(store)
    served = await serve(create_app(ctl, Credentials(referee="r", operator="o")), "127.0.0.1", 0, name="http",
                         what="bench")
    base = f"ws://127.0.0.1:{served.port}/ws"
    out: dict[str, Any] = {"events_in_log": at, "viewers": args.viewers, "delay_s": args.delay, "runs": {}}
    queue = rows[at:]
    try:
        for name, url in (("live", base), ("delayed", f"{base}?delay={args.delay}")):
            lags: list[float] = []
            timer = asyncio.create_task(lag_timer(lags))
            clients, joined = await open_clients(url, args.viewers)
            rss0 = rss_mb()
            cpu0, wall0 = time.thread_time(), time.perf_counter()
            for _, _, source, type_, data in tqdm(queue[:args.feed], desc=f"{name}, {args.viewers} viewers",
                                                  unit="ev", file=sys.stderr):
                ctl.accept(source, type_, json.loads(data))
                await asyncio.sleep(1 / args.rate)
            await asyncio.sleep(args.delay + 1.0)  # the delayed feed's last events released
            cpu = time.thread_time() - cpu0
            timer.cancel()
            got = await close_clients(clients)
            queue = queue[args.feed:]
            lags.sort()
            out["runs"][name] = {"join_all_s": joined, "loop_cpu_ms_per_event": round(cpu * 1000 / args.feed, 2),
                                 "lag_p50_ms": round(lags[len(lags) // 2] * 1000, 1),
                                 "lag_p99_ms": round(lags[int(len(lags) * 0.99)] * 1000, 1),
                                 "lag_max_ms": round(lags[-1] * 1000, 1), "rss_mb_before": round(rss0, 1),
                                 "rss_mb_after": round(rss_mb(), 1), "delivered": got,
                                 "sent": args.viewers * args.feed, "wall_s": round(time.perf_counter() - wall0, 1)}
        # a restart: the controller starts again from the log; every viewer's page reconnects at once
        await stop_tasks([served.task], served)
        ctl = controller_on(store)
        served = await serve(create_app(ctl, Credentials(referee="r", operator="o")), "127.0.0.1", 0, name="http",
                             what="bench")
        lags = []
        timer = asyncio.create_task(lag_timer(lags))
        clients, joined = await open_clients(f"ws://127.0.0.1:{served.port}/ws?delay={max(args.delay, 30)}",
                                             args.viewers)
        timer.cancel()
        await close_clients(clients)
        out["reconnect_after_restart"] = {"join_all_s": joined, "lag_max_ms": round(max(lags or [0]) * 1000, 1)}
    finally:
        await stop_tasks([served.task], served)
        store.close()
    return out


def report(r: dict[str, Any]) -> None:
    print(f"{r['viewers']} viewers, {r['events_in_log']} events in the log, delay {r['delay_s']} s")
    for name, v in r["runs"].items():
        print(f"  {name:>7}: all joined in {v['join_all_s']} s; loop CPU {v['loop_cpu_ms_per_event']} ms per event; "
              f"lag p50 {v['lag_p50_ms']} ms, p99 {v['lag_p99_ms']} ms, max {v['lag_max_ms']} ms; "
              f"RSS {v['rss_mb_before']} -> {v['rss_mb_after']} MB; delivered {v['delivered']}/{v['sent']}")
    rc = r["reconnect_after_restart"]
    print(f"  after a restart, {r['viewers']} delayed viewers back at once: all had their snapshot in "
          f"{rc['join_all_s']} s, the loop's longest stall {rc['lag_max_ms']} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100, help="hands in the day's log (default 100)")
    parser.add_argument("--viewers", type=int, default=100, help="sockets (default 100)")
    parser.add_argument("--delay", type=float, default=2.0, help="the feed's delay in seconds (default 2)")
    parser.add_argument("--feed", type=int, default=100, help="events fed per run (default 100)")
    parser.add_argument("--rate", type=float, default=5.0, help="events per second (default 5)")
    args = parser.parse_args(argv)
    result = asyncio.run(run(args))
    report(result)
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
