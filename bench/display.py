"""Benchmark of the display: event-to-browser latency with many clients connected.

Run: `.venv/bin/python bench/display.py [--clients 50] [--browsers 5] [--events 200] [--rate 20]`.
Starts the real service (`tablectl run`, simulated table, real uvicorn on a loopback port) in its own
process, connects `--clients` live clients to the public WebSocket — `--browsers` of them real
Chromium pages rendering the Table page, the rest WebSocket clients — then has the referee rule
`--events` penalties over HTTP. Latency is from the event's stamp in the log (taken when it is
appended, before it is folded and published) to the moment a client has it: parsed (socket clients)
or rendered (browsers). Prints p50/p99 and a final JSON line for CI.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
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
import websockets
from tqdm import tqdm

REFEREE = "bench-referee"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parent.parent
#: The head of an event message as the service writes it (json.dumps keeps the key order).
HEAD = re.compile(r'\{"type": "event", "seq": (\d+), "event": \{"seq": \d+, "at": ([0-9.e+-]+)')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_service(workdir: Path, port: int) -> subprocess.Popen[bytes]:
    config = workdir / "table.toml"
    config.write_text(f"""
[table]
link = "sim://"
sim_speed = 50.0
[display]
port = {port}
referee_token = "{REFEREE}"
operator_token = "bench-operator"
[storage]
data_dir = "data"
[log]
level = "warning"
""", encoding="utf-8")
    exe = ROOT / ".venv" / "bin" / "tablectl"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "table_controller.cli"]
    return subprocess.Popen(cmd + ["run", "--config", str(config)], cwd=workdir,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def wait_up(base: str, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    async with httpx.AsyncClient(base_url=base) as http:
        while True:
            try:
                if (await http.get("/api/health")).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > end:
                raise SystemExit("the service did not come up")
            await asyncio.sleep(0.2)


async def socket_client(url: str, got: dict[int, float], ready: asyncio.Event, stop: asyncio.Event,
                        source: str = "127.0.0.1") -> None:
    async with websockets.connect(url, max_size=None, local_addr=(source, 0)) as ws:
        json.loads(await ws.recv())  # the snapshot
        ready.set()
        while not stop.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), 0.5)
            except asyncio.TimeoutError:
                continue
            now = time.time()
            # Only the head of the message is read (type, seq, the event's stamp): with 45 clients in
            # one process, parsing every full state would measure this script instead of the service.
            m = HEAD.match(raw if isinstance(raw, str) else raw.decode())
            if m:
                got[int(m.group(1))] = now - float(m.group(2))


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    k = min(len(values) - 1, max(0, round(p / 100 * (len(values) - 1))))
    return values[k]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="bench-display-"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = start_service(workdir, port)
    pw = browser = None
    try:
        await wait_up(base)
        n_ws = args.clients - args.browsers
        stop = asyncio.Event()
        per_client: list[dict[int, float]] = [{} for _ in range(n_ws)]
        readies = [asyncio.Event() for _ in range(n_ws)]
        # the service lets one address hold 64 connections (web/serve.py): the clients come from
        # 40 per loopback address, as that many viewers would come from many machines
        tasks = [asyncio.create_task(socket_client(f"ws://127.0.0.1:{port}/ws", per_client[i], readies[i], stop,
                                                   f"127.0.0.{2 + i // 40}"))
                 for i in range(n_ws)]
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 30)
        pages = []
        if args.browsers:
            from playwright.async_api import async_playwright

            pw = await async_playwright().start()
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for _ in range(args.browsers):
                page = await browser.new_page(viewport={"width": 1280, "height": 720})
                await page.add_init_script("window.__trace = []")
                await page.goto(base + "/")
                await page.wait_for_function("document.body.dataset.connected === '1' && window.__lastSeq !== undefined")
                pages.append(page)
        async with httpx.AsyncClient(base_url=base, headers={"Authorization": f"Bearer {REFEREE}"}) as http:
            first = None
            interval = 1.0 / args.rate
            start = time.monotonic()
            t_start = time.monotonic()
            for i in tqdm(range(args.events), desc="events", unit="ev", file=sys.stderr):
                r = await http.post("/api/referee/penalty", json={"seat": "ESWN"[i % 4], "code": "warning",
                                                                  "note": f"bench {i}"})
                r.raise_for_status()
                first = first or r.json()["seq"]
                last = r.json()["seq"]
                delay = start + (i + 1) * interval - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
            achieved = args.events / (time.monotonic() - t_start)
        await asyncio.sleep(1.0)  # let the last events arrive
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        wanted = set(range(first, last + 1))
        ws_lat = [v for got in per_client for s, v in got.items() if s in wanted]
        ws_missing = sum(len(wanted - set(got)) for got in per_client)
        br_lat: list[float] = []
        br_missing = 0
        for page in pages:
            trace = await page.evaluate("window.__trace")
            seen = {seq: shown - at for seq, at, shown in trace if seq in wanted}
            br_lat += list(seen.values())
            br_missing += len(wanted - set(seen))
        all_lat = ws_lat + br_lat
        ms = lambda v: round(v * 1000, 2)  # noqa: E731
        return {
            "bench": "display", "clients": args.clients, "browsers": args.browsers, "socket_clients": n_ws,
            "events": args.events, "rate_per_s": args.rate, "achieved_rate_per_s": round(achieved, 2), "deliveries": len(all_lat),
            "missing": ws_missing + br_missing,
            "p50_ms": ms(pct(all_lat, 50)), "p99_ms": ms(pct(all_lat, 99)), "max_ms": ms(max(all_lat)),
            "socket_p50_ms": ms(pct(ws_lat, 50)) if ws_lat else None,  # null, not NaN: the line stays JSON
            "socket_p99_ms": ms(pct(ws_lat, 99)) if ws_lat else None,
            "browser_p50_ms": ms(pct(br_lat, 50)) if br_lat else None,
            "browser_p99_ms": ms(pct(br_lat, 99)) if br_lat else None,
            "mean_ms": ms(statistics.fmean(all_lat)), "python": platform.python_version(),
            "cpus": os.cpu_count(),
        }
    finally:
        if browser is not None:
            await browser.close()
        if pw is not None:
            await pw.stop()
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        shutil.rmtree(workdir, ignore_errors=True)  # the service's log and config: each run left them in /tmp


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50, help="live clients in all (default 50)")
    parser.add_argument("--browsers", type=int, default=5, help="of which Chromium pages (default 5; 0 = none)")
    parser.add_argument("--events", type=int, default=200, help="events to publish (default 200)")
    parser.add_argument("--rate", type=float, default=20.0, help="events per second (default 20)")
    args = parser.parse_args(argv)
    if not 0 <= args.browsers <= args.clients:
        parser.error("--browsers must be between 0 and --clients")
    result = asyncio.run(run(args))
    print(f"display latency, {result['clients']} clients ({result['browsers']} Chromium pages), "
          f"{result['events']} events at {result['rate_per_s']}/s (achieved {result['achieved_rate_per_s']}/s)")
    print(f"  all      p50 {result['p50_ms']:8.2f} ms   p99 {result['p99_ms']:8.2f} ms   max {result['max_ms']:.2f} ms")
    if result["socket_p50_ms"] is not None:
        print(f"  sockets  p50 {result['socket_p50_ms']:8.2f} ms   p99 {result['socket_p99_ms']:8.2f} ms")
    if result["browser_p50_ms"] is not None:
        print(f"  browsers p50 {result['browser_p50_ms']:8.2f} ms   p99 {result['browser_p99_ms']:8.2f} ms (rendered)")
    print(f"  missing deliveries: {result['missing']}")
    print(json.dumps(result))
    return 0 if result["missing"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
