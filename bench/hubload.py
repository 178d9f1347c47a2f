"""Benchmark: the tournament hub under a national event's load (32-64 tables, 5-7 rounds).

A synthetic day (`tests/tournament/hubday.py`: per hand and table some public events, a standing and the
hand's public record, real records of the simulator's players) is fed to the hub's message handler on its
own loop, at `--rate` messages a second, while `--pages` standings pages (a subprocess over real HTTP)
fetch what the page fetches at each change (`/api/standings`, `/api/pairings`, `/api/pairings/published`,
`/api/stats`, `/api/organiser`, the last four with the ETag held, then a quarter second's pause as the live
channel coalesces), and one
asks a hand's record now and then. Measured: the loop's stall (a 10 ms timer's lateness: p95, max), the
lag from a standing's message to the standings showing it (p50, p95, max; the last one), the hub's CPU
per message (the process, the pages being elsewhere), its peak RSS, a restart on the day's files, and that
the standings at the end are the day's own sums. `--pollers N` adds N phones and hall screens (another
subprocess) fetching `/api/standings` every `--poll-s` seconds, staggered, each on its own connection from its
own loopback address, gzip accepted and, with `--revalidate`, the last `ETag` sent back as a browser does:
their fetch's time (p50, p95), answers (200, 304, errors) and the bytes the hub sent them.

Run: `nice -n 15 .venv/bin/python bench/hubload.py [--tables 32] [--rounds 7] [--hands 4] [--rate 400]
[--pollers 200 --poll-s 3 [--revalidate]]`.
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

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "tournament"))
sys.path.append(str(ROOT / "bench"))  # after the packages: bench/vision.py must not shadow `vision`

import hubday  # noqa: E402
from day import lag_timer  # noqa: E402  (the loop's lateness, as bench/day.py and broadcast.py measure it)
from tqdm import tqdm  # noqa: E402

PAGES = r"""
import json, sys, time, threading, httpx
base, n, tables = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
stop = threading.Event()
seen = []  # (when, {table: [round, seq]}) of each standings answer
asked = []  # seconds each fetch took
def page(k):
    with httpx.Client(base_url=base, timeout=120) as http:
        i, tags = 0, {}
        while not stop.is_set():
            for path in ("/api/standings", "/api/pairings", "/api/pairings/published", "/api/stats", "/api/organiser"):
                t = time.time()  # as the page asks: the standings afresh, the rest with the ETag it holds
                r = http.get(path, headers={"If-None-Match": tags[path]} if path in tags else {})
                if r.headers.get("etag") and path != "/api/standings":
                    tags[path] = r.headers["etag"]
                asked.append((path, time.time() - t))
                if path == "/api/standings" and r.status_code == 200:
                    seen.append((time.time(), {x["table_id"]: [x["round"], x["seq"]] for x in r.json()["tables"]}))
            if k == 0:  # one spectator opens a hand's record now and then
                i += 1
                t = time.time()
                http.get(f"/api/tables/{tables[i % len(tables)]}/hands/1/record")
                asked.append(("record", time.time() - t))
            time.sleep(0.25)
threads = [threading.Thread(target=page, args=(k,), daemon=True) for k in range(n)]
for t in threads:
    t.start()
print("ready", flush=True)
sys.stdin.readline()
stop.set()
for t in threads:
    t.join(120)
print(json.dumps({"seen": seen, "asked": asked}), flush=True)
"""

POLLERS = r"""
import asyncio, json, random, sys, time, httpx
base, n, every, revalidate = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "1"
asked, codes, wire = [], {}, [0]
def client(k):
    # each phone from its own address, as on the hall's Wi-Fi (the hub holds 64 connections an address at most)
    transport = httpx.AsyncHTTPTransport(local_address=f"127.0.{1 + k // 250}.{2 + k % 250}", verify=False)
    return httpx.AsyncClient(base_url=base, timeout=60, transport=transport)
async def poller(http, stop):
    async with http:
        await asyncio.sleep(random.random() * every)  # phones open the page at any moment
        tag = None
        while not stop.is_set():
            t = time.time()
            try:
                r = await http.get("/api/standings", headers={"If-None-Match": tag} if revalidate and tag else {})
                codes[r.status_code] = codes.get(r.status_code, 0) + 1
                wire[0] += r.num_bytes_downloaded
                tag = r.headers.get("etag") or tag
            except httpx.HTTPError as exc:
                codes[type(exc).__name__] = codes.get(type(exc).__name__, 0) + 1
            asked.append(time.time() - t)
            try:
                await asyncio.wait_for(stop.wait(), max(0.0, every - (time.time() - t)))
            except asyncio.TimeoutError:
                pass
async def main():
    stop = asyncio.Event()
    clients = [client(k) for k in range(n)]  # made before the day starts (each makes its TLS context)
    tasks = [asyncio.create_task(poller(http, stop)) for http in clients]
    print("ready", flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    stop.set()
    await asyncio.gather(*tasks)
    print(json.dumps({"asked": asked, "codes": codes, "bytes": wire[0]}), flush=True)
asyncio.run(main())
"""


async def fetch_cost(base: str, hub: Any, duplicate: tuple[str, bytes]) -> dict[str, float]:
    """The hub's CPU for one fetch of the standings (its own process: the pages and pollers stopped, this
    client's share included), with nothing changed between fetches and with a message filed before each (a
    duplicate: the tables' rows change, the players not): what a shared, busy machine's clock cannot say."""
    import httpx

    out = {}
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        for case, encoding in (("health", "identity"), ("same", "identity"), ("same_gzip", "gzip"),
                               ("changed", "identity"), ("changed_gzip", "gzip")):
            cpu = time.process_time()
            for _ in range(40):  # `health`: a small answer's, what any request costs here (client and server)
                if case.startswith("changed"):
                    hub.handle(*duplicate)
                r = await http.get("/api/health" if case == "health" else "/api/standings",
                                   headers={"Accept-Encoding": encoding})
                r.raise_for_status()
            out[case] = round((time.process_time() - cpu) * 1000 / 40, 2)
            out[case + "_kib"] = round(r.num_bytes_downloaded / 1024, 1)
    return out


def rss_kib(what: str) -> int:
    return next(int(line.split()[1]) for line in Path("/proc/self/status").read_text().splitlines()
                if line.startswith(what + ":"))


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * q))] if xs else 0.0


async def run(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    from table_controller.tournament.web import HubService

    ids = hubday.table_ids(args.tables)
    messages = list(hubday.day(args.tables, args.rounds, args.hands, events=args.events))
    service = HubService("mqtt://127.0.0.1:9", hubday.TOURNAMENT, tmp / "hub", port=0,
                         registered=hubday.players(args.tables), expected=ids)
    await service.start()
    hub = service.hub
    assert hub is not None
    pages = subprocess.Popen([sys.executable, "-c", PAGES, f"http://127.0.0.1:{service.bound_port}", str(args.pages),
                              ",".join(ids)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert (await asyncio.to_thread(pages.stdout.readline)).split()[:1] == ["ready"]  # type: ignore[union-attr]
    pollers = None
    if args.pollers:
        pollers = subprocess.Popen([sys.executable, "-c", POLLERS, f"http://127.0.0.1:{service.bound_port}",
                                    str(args.pollers), str(args.poll_s), "1" if args.revalidate else "0"],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert (await asyncio.to_thread(pollers.stdout.readline)).split()[:1] == ["ready"]  # type: ignore[union-attr]
    stalls: list[float] = []
    timer = asyncio.create_task(lag_timer(stalls))
    sent: dict[str, list[tuple[int, int, float]]] = {t: [] for t in ids}  # per table: (round, seq, when sent)
    cpu0, wall0, handle_s = time.process_time(), time.time(), 0.0
    try:
        for k, (topic, payload, kind) in enumerate(tqdm(messages, desc="hub", unit="msg", file=sys.stderr)):
            due = wall0 + k / args.rate
            if due > time.time():
                await asyncio.sleep(due - time.time())
            if kind == "state":
                msg = json.loads(payload)
                sent[msg["table_id"]].append((msg["round"], msg["seq"], time.time()))
            t = time.perf_counter()
            hub.handle(topic, payload)
            handle_s += time.perf_counter() - t
            if k % 50 == 0:
                await asyncio.sleep(0)  # the feeder lets the loop breathe as a broker's socket would
        fed_s = time.time() - wall0
        await asyncio.sleep(3.0)  # the pages' last fetches
        cpu = time.process_time() - cpu0
        timer.cancel()
        pages.stdin.write("\n")  # type: ignore[union-attr]
        pages.stdin.flush()  # type: ignore[union-attr]
        got = json.loads(await asyncio.to_thread(pages.stdout.readline))  # type: ignore[union-attr]
        await asyncio.to_thread(pages.wait, 30)
        polled: dict[str, Any] = {"asked": [], "codes": {}, "bytes": 0}
        if pollers is not None:
            pollers.stdin.write("\n")  # type: ignore[union-attr]
            pollers.stdin.flush()  # type: ignore[union-attr]
            polled = json.loads(await asyncio.to_thread(pollers.stdout.readline))  # type: ignore[union-attr]
            await asyncio.to_thread(pollers.wait, 30)
        final = hub.standings()
        fetch_cpu = await fetch_cost(f"http://127.0.0.1:{service.bound_port}", hub, messages[0][:2])
    finally:
        timer.cancel()
        for child in (pages, pollers):
            if child is not None and child.poll() is None:
                child.kill()
        await service.stop()
    from table_controller.tournament.hub import Hub

    t = time.perf_counter()  # a restart of the hub on the day's files (each record's summary read once)
    Hub("mqtt://127.0.0.1:9", hubday.TOURNAMENT, tmp / "hub", expected=ids).close()
    restart_s = time.perf_counter() - t
    lags = []
    for table_id, states in sent.items():
        shown = [(when, tuple(by[table_id])) for when, by in got["seen"] if by.get(table_id) and by[table_id][1]]
        for round_no, seq, when in states:
            first = next((w for w, rs in shown if rs >= (round_no, seq) and w >= when), None)
            if first is not None:
                lags.append(first - when)
    last_sent = max(s[-1][2] for s in sent.values())
    # a table not yet heard of at a fetch is [None, None] there
    last_shown = min((w for w, by in got["seen"]
                      if all(by.get(t) and by[t][1] and tuple(by[t]) >= sent[t][-1][:2] for t in ids)),
                     default=float("nan"))
    expected = hubday.expected_standings(args.tables, args.rounds, args.hands)
    exact = {p["id"]: (float(p["table_points"]), p["points"]) for p in final["players"]} == expected
    asked: dict[str, list[float]] = {}
    for path, s in got["asked"]:
        asked.setdefault(path, []).append(s)
    return {
        "tables": args.tables, "rounds": args.rounds, "hands": args.hands, "messages": len(messages),
        "records": args.tables * args.rounds * args.hands, "rate": args.rate, "pages": args.pages,
        "fed_s": round(fed_s, 1), "stall_p95_ms": round(pct(stalls, 0.95) * 1000, 1),
        "stall_max_ms": round(max(stalls) * 1000, 1),
        "lag_p50_ms": round(pct(lags, 0.5) * 1000), "lag_p95_ms": round(pct(lags, 0.95) * 1000),
        "lag_max_ms": round(max(lags) * 1000), "last_standing_shown_after_s": round(last_shown - last_sent, 2),
        "cpu_ms_per_message": round(cpu * 1000 / len(messages), 2), "cpu_share": round(cpu / (fed_s + 3.0), 2),
        "handle_ms_per_message": round(handle_s * 1000 / len(messages), 2),
        "rss_peak_mib": round(rss_kib("VmHWM") / 1024, 1), "restart_s": round(restart_s, 2),
        "fetch_p95_ms": {p: round(pct(v, 0.95) * 1000) for p, v in sorted(asked.items())},
        "fetches": sum(len(v) for v in asked.values()), "standings_exact": exact,
        "pollers": args.pollers, "poll_s": args.poll_s, "revalidate": args.revalidate,
        "poll_fetches": len(polled["asked"]), "poll_p50_ms": round(pct(polled["asked"], 0.5) * 1000),
        "poll_p95_ms": round(pct(polled["asked"], 0.95) * 1000), "poll_answers": polled["codes"],
        "poll_kib_per_s": round(polled["bytes"] / 1024 / (fed_s + 3.0)), "standings_fetch_cpu_ms": fetch_cpu,
    }


def fetch_cpu_items(out: dict[str, Any]) -> list[tuple[str, float]]:
    return list(out["standings_fetch_cpu_ms"].items())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=32)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--hands", type=int, default=4, help="hands a round and table (MCR plays 16)")
    ap.add_argument("--events", type=int, default=20, help="public events a hand and table")
    ap.add_argument("--rate", type=float, default=400.0, help="messages a second into the hub")
    ap.add_argument("--pages", type=int, default=4, help="standings pages open")
    ap.add_argument("--pollers", type=int, default=0, help="phones and screens polling the standings")
    ap.add_argument("--poll-s", type=float, default=3.0, help="seconds between a poller's fetches")
    ap.add_argument("--revalidate", action="store_true", help="pollers send the last ETag (If-None-Match)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="hubload-") as tmp:
        out = asyncio.run(run(args, Path(tmp)))
    print(f"{out['tables']} tables x {out['rounds']} rounds x {out['hands']} hands: {out['messages']} messages "
          f"({out['records']} records) at {out['rate']:.0f}/s with {out['pages']} pages, fed in {out['fed_s']} s")
    print(f"loop stall p95 {out['stall_p95_ms']} ms, max {out['stall_max_ms']} ms")
    print(f"standing's lag p50 {out['lag_p50_ms']} ms, p95 {out['lag_p95_ms']} ms, max {out['lag_max_ms']} ms; "
          f"the last shown {out['last_standing_shown_after_s']} s after it was sent")
    print(f"CPU {out['cpu_ms_per_message']} ms a message (handler {out['handle_ms_per_message']} ms), "
          f"peak RSS {out['rss_peak_mib']} MiB; the hub started again on the day's files in {out['restart_s']} s; "
          f"standings exact: {out['standings_exact']}")
    print("fetch p95 (ms): " + ", ".join(f"{p} {v}" for p, v in out["fetch_p95_ms"].items()))
    print("a standings fetch's CPU (ms) and size (KiB): " + ", ".join(f"{k} {v}" for k, v in fetch_cpu_items(out)))
    if out["pollers"]:
        print(f"{out['pollers']} pollers every {out['poll_s']} s: {out['poll_fetches']} fetches, "
              f"p50 {out['poll_p50_ms']} ms, p95 {out['poll_p95_ms']} ms, answers {out['poll_answers']}, "
              f"{out['poll_kib_per_s']} KiB/s sent; "
              f"the hub's process {out['cpu_share']:.0%} of a core")
    print(json.dumps(out, ensure_ascii=False))
    return 0 if out["standings_exact"] else 1


if __name__ == "__main__":
    sys.exit(main())
