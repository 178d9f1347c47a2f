"""Benchmark of the referee's pages left open all day: what grows in Chromium while a day plays.

Run: `.venv/bin/python bench/page_long.py [--events 4000] [--drops 5] [--no-restart]`.
Starts the real service (`tablectl run`, the simulated table, the demo's players playing whole hands fast,
real uvicorn on a loopback port) in its own process and opens the Table, Penalties and Score sheet pages as
the referee and the Public page and the overlay as the hall, in Debian's Chromium, through a TCP proxy that
plays the venue's Wi-Fi (`tests/web/wifi.py`). While `--events` events play, the Wi-Fi resets `--drops`
times and (unless `--no-restart`) the service is stopped and started again on its log halfway. Each page is
read through the DevTools protocol after a garbage collection (`Performance.getMetrics`: the JS heap, DOM nodes,
event listeners) and from the page (sockets open, timers pending, the lines of the lists shown), with the
time the page took to apply each socket message (p50/p95/max). Prints a table per page and a JSON line last.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from tqdm import tqdm

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "web"))
from wifi import Wifi  # noqa: E402  (the browser tests' Wi-Fi: a real TCP proxy)

REFEREE = "bench-referee"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
#: The pages a venue leaves open: (path, logged in as the referee)
PAGES = (("/", True), ("/penalties", True), ("/scoresheet", True), ("/public", False), ("/overlay", False))
#: Counts what the page holds that could grow: its sockets and timers (wrapped before app.js runs) and the
#: time each socket message took to apply (app.js renders inside its handler).
PROBE = """(() => {
  const W = window.WebSocket, open = new Set();
  window.__probe = { opened: 0, open, intervals: new Set(), timeouts: new Set(), apply: [] };
  window.WebSocket = class extends W {
    constructor(...a) {
      super(...a); __probe.opened++; open.add(this); this.addEventListener("close", () => open.delete(this));
    }
  };
  const desc = Object.getOwnPropertyDescriptor(W.prototype, "onmessage");
  Object.defineProperty(W.prototype, "onmessage", { get() { return desc.get.call(this); }, set(h) {
    desc.set.call(this, (e) => { const t0 = performance.now(); try { return h.call(this, e); }
      finally { __probe.apply.push(performance.now() - t0); } });
  } });
  const si = setInterval, ci = clearInterval, st = setTimeout, ct = clearTimeout;
  window.setInterval = (f, ms, ...a) => { const id = si(f, ms, ...a); __probe.intervals.add(id); return id; };
  window.clearInterval = (id) => { __probe.intervals.delete(id); ci(id); };
  window.setTimeout = (f, ms, ...a) => { const id = st((...b) => { __probe.timeouts.delete(id); f(...b); }, ms, ...a);
    __probe.timeouts.add(id); return id; };
  window.clearTimeout = (id) => { __probe.timeouts.delete(id); ct(id); };
})();"""
READ = """() => ({ sockets: [...__probe.open].filter((s) => s.readyState < 2).length, opened: __probe.opened,
  intervals: __probe.intervals.size, timeouts: __probe.timeouts.size, apply: __probe.apply.splice(0),
  lists: Object.fromEntries([...document.querySelectorAll("ul[id], ol[id], tbody[id], table[id], div[id]")]
    .map((el) => [el.id, el.children.length]).filter(([, n]) => n > 20)),
  dom: document.getElementsByTagName("*").length, seq: window.__lastSeq })"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_service(workdir: Path, port: int, turn_s: float) -> subprocess.Popen[bytes]:
    """`tablectl run` with the demo's players: hands start on their own and play out fast."""
    config = workdir / "table.toml"
    config.write_text(f"""
[table]
link = "sim://"
sim_speed = 1000.0
[display]
port = {port}
referee_token = "{REFEREE}"
operator_token = "bench-operator"
[demo]
autoplay = true
turn_seconds = {turn_s}
hand_seconds = 0.3
[storage]
data_dir = "data"
[log]
level = "warning"
""", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": f"{ROOT}:{ROOT / 'hardware-sim'}"}
    return subprocess.Popen([sys.executable, "-m", "table_controller.cli", "run", "--config", str(config)],
                            cwd=workdir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


async def head(port: int) -> int:
    """The service's last sequence number, or -1 while it does not answer."""
    try:
        async with httpx.AsyncClient(timeout=2) as http:
            r = await http.get(f"http://127.0.0.1:{port}/api/health")
            r2 = await http.get(f"http://127.0.0.1:{port}/api/state")
            return int(r2.json()["seq"]) if r.status_code == 200 and r2.status_code == 200 else -1
    except (httpx.HTTPError, ValueError, KeyError):
        return -1


async def until_up(port: int, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while await head(port) < 0:
        if time.monotonic() > end:
            raise SystemExit("the service did not answer")
        await asyncio.sleep(0.2)


async def record_ms(port: int) -> float:
    """What the Penalties page asks the service for at every play (the hand's record, 更正牌谱's list): the
    median of three answers, in ms."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
        state = (await http.get("/api/state")).json()
        hand = (state.get("hand") or {}).get("hand_no")
        if hand is None:
            return 0.0
        took = []
        for _ in range(3):
            t0 = time.perf_counter()
            r = await http.get(f"/api/referee/hands/{hand}/record", headers={"Authorization": f"Bearer {REFEREE}"})
            took.append((time.perf_counter() - t0) * 1000)
            if r.status_code != 200:
                return 0.0
        return round(statistics.median(took), 1)


async def sample(page: Any, cdp: Any) -> dict[str, Any]:
    """One page's figures after a garbage collection."""
    await cdp.send("HeapProfiler.collectGarbage")
    metrics = {m["name"]: m["value"] for m in (await cdp.send("Performance.getMetrics"))["metrics"]}
    got = await page.evaluate(READ)
    return {"heap_mb": round(metrics["JSHeapUsedSize"] / 2**20, 2), "nodes": int(metrics["Nodes"]),
            "listeners": int(metrics["JSEventListeners"]), **got}


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return round(s[min(len(s) - 1, int(q * len(s)))], 2)


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=4000, help="events played while the pages are open")
    ap.add_argument("--drops", type=int, default=5, help="Wi-Fi resets spread over the day")
    ap.add_argument("--restart", action=argparse.BooleanOptionalAction, default=True,
                    help="stop and start the service halfway (the default)")
    ap.add_argument("--turn-seconds", type=float, default=0.01, help="the demo's players' pace")
    ap.add_argument("--samples", type=int, default=5, help="readings of each page over the day")
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    from playwright.async_api import async_playwright

    port = args.port or free_port()
    workdir = Path(tempfile.mkdtemp(prefix="pagelong-bench-"))
    proc = start_service(workdir, port, args.turn_seconds)
    wifi = await Wifi(port).start()
    rows: dict[str, list[dict[str, Any]]] = {path: [] for path, _ in PAGES}
    applied: dict[str, list[float]] = {path: [] for path, _ in PAGES}
    try:
        await until_up(port)
        start_seq = await head(port)
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            context = await browser.new_context(viewport={"width": 1280, "height": 800})
            await context.add_init_script(PROBE)
            opened: list[tuple[str, Any, Any]] = []
            for path, referee in PAGES:
                page = await context.new_page()
                await page.goto(f"http://127.0.0.1:{wifi.port}{path}")
                if referee:
                    await page.fill("#token", REFEREE)
                    await page.click("#login button[type=submit]")
                    await page.wait_for_function("document.body.dataset.role === 'referee'")
                cdp = await context.new_cdp_session(page)
                await cdp.send("Performance.enable")
                opened.append((path, page, cdp))
            target = start_seq + args.events
            marks = {start_seq + args.events * (k + 1) // (args.drops + 1) for k in range(args.drops)}
            restart_at = start_seq + args.events // 2 if args.restart else None
            every = args.events // args.samples
            next_sample = start_seq
            service: list[dict[str, Any]] = []  # the day's pace and the record's cost, at each reading
            last_at, last_seq = time.monotonic(), start_seq
            bar = tqdm(total=args.events, unit="ev", desc="day")
            seq = start_seq
            began = time.monotonic()
            while seq < target:
                await asyncio.sleep(0.5)
                now = await head(port)
                if now < 0:
                    continue
                bar.update(now - seq)
                seq = now
                for m in sorted(x for x in marks if x <= seq):
                    marks.discard(m)
                    wifi.cut()
                if restart_at is not None and seq >= restart_at:
                    restart_at = None
                    proc.terminate()
                    proc.wait(30)
                    await asyncio.sleep(1.0)
                    proc = start_service(workdir, port, args.turn_seconds)
                    await until_up(port)
                if seq >= next_sample:
                    next_sample += every
                    now_at = time.monotonic()
                    service.append({"events": seq - start_seq, "record_ms": await record_ms(port),
                                    "events_per_s": round((seq - last_seq) / max(now_at - last_at, 1e-3), 1)})
                    last_at, last_seq = now_at, seq
                    for path, page, cdp in opened:
                        got = await sample(page, cdp)
                        applied[path] += got.pop("apply")
                        got["events"] = seq - start_seq
                        rows[path].append(got)
            bar.close()
            await asyncio.sleep(3)  # the pages catch up
            for path, page, cdp in opened:
                got = await sample(page, cdp)
                applied[path] += got.pop("apply")
                got["events"] = seq - start_seq
                rows[path].append(got)
            elapsed = time.monotonic() - began
            await browser.close()
    finally:
        await wifi.close()
        proc.terminate()
        proc.wait(30)
        shutil.rmtree(workdir, ignore_errors=True)  # the day's log (thousands of events): each run left it in /tmp
    summary: dict[str, Any] = {}
    for path, got in rows.items():
        print(f"\n{path}")
        print(f"{'events':>7} {'heap MB':>8} {'nodes':>6} {'in DOM':>6} {'listen':>6} {'socks':>5} {'opened':>6} "
              f"{'timers':>6} lists")
        for r in got:
            print(f"{r['events']:>7} {r['heap_mb']:>8} {r['nodes']:>6} {r['dom']:>6} {r['listeners']:>6} "
                  f"{r['sockets']:>5} "
                  f"{r['opened']:>6} {r['intervals'] + r['timeouts']:>6} {r['lists']}")
        a = applied[path]
        print(f"apply one message: p50 {pct(a, .5)} ms, p95 {pct(a, .95)} ms, max {pct(a, 1.0)} ms ({len(a)})")
        first, last = got[1] if len(got) > 2 else got[0], got[-1]
        summary[path] = {"heap_mb": [first["heap_mb"], last["heap_mb"]], "nodes": [first["nodes"], last["nodes"]],
                         "dom": [first["dom"], last["dom"]],
                         "listeners": [first["listeners"], last["listeners"]], "sockets_end": last["sockets"],
                         "sockets_opened": last["opened"], "timers_end": last["intervals"] + last["timeouts"],
                         "seq_end": last["seq"], "apply_p50_ms": pct(a, .5), "apply_p95_ms": pct(a, .95),
                         "apply_max_ms": pct(a, 1.0), "messages": len(a)}
    print("\nthe service: events a second (the demo's pace, the machine shared) and the hand's record (ms)")
    for r in service:
        print(f"{r['events']:>7} {r['events_per_s']:>6} ev/s {r['record_ms']:>8} ms")
    print(json.dumps({"bench": "page_long", "service": service, "events": seq - start_seq, "drops": args.drops,
                      "restart": args.restart,
                      "seconds": round(elapsed, 1), "cpu": platform.processor() or platform.machine(),
                      "pages": summary}))


if __name__ == "__main__":
    asyncio.run(main())
