"""Table-link benchmark: round-trip latency, throughput against the line rate, and a fault soak.

Runs the simulator on a real pty in this process and the driver against it. Prints its
figures, and ends with one JSON line (the soak's counters; `duplicated_commands` and
`lost_events` must be 0).

    .venv/bin/python bench/link.py            # about a minute on a Pi-class machine
    .venv/bin/python bench/link.py --quick    # a shorter run for CI
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from typing import Any

from tqdm import tqdm

from drivers.clock import SystemClock, VirtualClock
from drivers.errors import TableError
from drivers.framing import FRAME_OVERHEAD
from drivers.table import Table, open_table
from tablesim import SimTable

BAUD = 115200
LINE_BYTES_PER_S = BAUD / 10  # 8N1: ten bits on the wire per byte


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def software_rtt(pings: int) -> list[float]:
    """Real time, no line-rate pacing: what the two Python ends and the pty cost per round trip."""
    clock = SystemClock()
    sim = SimTable(seed=1, clock=clock)
    table = await open_table(await sim.serve_pty(), clock=clock)
    assert isinstance(table, Table)
    try:
        return [await table.ping(b"12345678") for _ in range(pings)]
    finally:
        await table.close()
        await sim.close()


async def latency_and_throughput(pings: int, bulk: int) -> dict[str, Any]:
    """Real time, the sim sending at 115200 baud: sequential small pings, then pipelined big ones."""
    bare = await software_rtt(pings)
    clock = SystemClock()
    sim = SimTable(seed=1, clock=clock, baud=BAUD)
    table = await open_table(await sim.serve_pty(), clock=clock)
    assert isinstance(table, Table)
    try:
        for _ in range(20):
            await table.ping(b"warm")
        rtts = [await table.ping(b"12345678") for _ in tqdm(range(pings), desc="latency", unit="ping", leave=False)]
        payload = bytes(range(110))  # pong: req(2) + count(1) + 110 = 113-byte payload, 120-byte frame
        t0 = clock.now()
        window = 8
        sem = asyncio.Semaphore(window)

        async def one() -> None:
            async with sem:
                await table.ping(payload)

        await asyncio.gather(*(one() for _ in range(bulk)))
        elapsed = clock.now() - t0
        useful = bulk * len(payload)
        wire = bulk * (len(payload) + 3 + FRAME_OVERHEAD)
        return {
            "rtt_p50_ms": round(pct(rtts, 0.5) * 1000, 3), "rtt_p99_ms": round(pct(rtts, 0.99) * 1000, 3),
            "rtt_mean_ms": round(statistics.fmean(rtts) * 1000, 3),
            "rtt_unpaced_p50_ms": round(pct(bare, 0.5) * 1000, 3),
            "rtt_unpaced_p99_ms": round(pct(bare, 0.99) * 1000, 3),
            "throughput_bytes_per_s": round(useful / elapsed, 1),
            "throughput_fraction_of_line_rate": round(useful / elapsed / LINE_BYTES_PER_S, 3),
            "wire_fraction_of_line_rate": round(wire / elapsed / LINE_BYTES_PER_S, 3),
            "retransmits": table.health.retransmits,
        }
    finally:
        await table.close()
        await sim.close()


async def soak(faults: str, seconds: float, seed: int) -> dict[str, Any]:
    """Virtual time: commands and events under bit errors, drops and unplugs; count what went wrong."""
    clock = VirtualClock(auto=True)
    sim = SimTable(seed=seed, clock=clock, faults=faults)
    table = await open_table(await sim.serve_pty(), clock=clock, command_timeout=20.0)
    assert isinstance(table, Table)
    counts = {"commands_sent": 0, "commands_completed": 0, "commands_failed_cleanly": 0, "commands_failed_other": 0}
    completed_ms: list[int] = []
    start = clock.now()
    seen: set[int] = {ev.seq for ev in table.history}  # hello, received during open_table
    boot = table.info.boot_id

    async def watch() -> None:
        q = table.subscribe()
        while True:
            ev = await q.get()
            if ev.seq:
                seen.add(ev.seq)

    async def presses() -> None:
        seats = "ESWN"
        i = 0
        while True:
            await clock.sleep(0.4)
            sim.press_button(seats[i % 4], "start" if i % 3 else "dice")
            i += 1

    async def commands() -> None:
        ms = 0
        while True:
            ms = ms % 5000 + 1  # a unique buzzer length marks each command: a repeat would show twice
            counts["commands_sent"] += 1
            try:
                await table.buzzer(ms)
                counts["commands_completed"] += 1
                completed_ms.append(ms)
            except asyncio.CancelledError:
                counts["commands_sent"] -= 1  # the soak ended while it was in flight: not counted
                raise
            except TableError:
                counts["commands_failed_cleanly"] += 1
            except Exception:  # noqa: BLE001 - the bench reports anything else as a defect
                counts["commands_failed_other"] += 1
            await clock.sleep(0.05)

    tasks = [asyncio.create_task(c) for c in (watch(), presses(), commands())]
    with tqdm(total=int(seconds), desc=f"soak {faults}", unit="s", leave=False) as bar:
        done = 0
        while clock.now() - start < seconds:
            await clock.sleep(1.0)
            now = int(clock.now() - start)
            bar.update(now - done)
            done = now
    for t in tasks[1:]:
        t.cancel()
    await asyncio.gather(*tasks[1:], return_exceptions=True)
    # let the link catch up: every event the table numbered must arrive
    for _ in range(600):
        if table.health.up and table.last_event >= sim.last_event:
            break
        await clock.sleep(0.1)
    tasks[0].cancel()
    await asyncio.gather(tasks[0], return_exceptions=True)
    executed = sim.buzzes
    dup = sum(1 for ms in set(executed) if executed.count(ms) > 1)
    missing_runs = sum(1 for ms in completed_ms if ms not in executed)
    result = {
        "faults": faults, "virtual_seconds": seconds, **counts,
        "duplicated_commands": dup, "completed_but_not_run": missing_runs,
        "events_sent": sim.last_event if sim.boot_id == boot else None,
        "events_received": len(seen), "lost_events": sim.last_event - len(seen),
        "duplicate_events_suppressed": table.duplicate_events, "reconnects": table.reconnects,
        "retransmits": table.health.retransmits, "naks": table.health.naks_sent + table.health.naks_received,
        "crc_errors": table.health.crc_errors, "sim_damage": dict(sim.damage.counts),
    }
    await table.close()
    await sim.close()
    await clock.close()
    return result


async def main(args: argparse.Namespace) -> int:
    t0 = time.monotonic()
    perf = await latency_and_throughput(args.pings, args.bulk)
    print(f"round trip (pty, sim at {BAUD} baud): p50 {perf['rtt_p50_ms']} ms, p99 {perf['rtt_p99_ms']} ms; "
          f"unpaced (software only): p50 {perf['rtt_unpaced_p50_ms']} ms, p99 {perf['rtt_unpaced_p99_ms']} ms")
    print(f"throughput: {perf['throughput_bytes_per_s']} payload bytes/s = "
          f"{perf['throughput_fraction_of_line_rate']:.1%} of the line rate "
          f"({perf['wire_fraction_of_line_rate']:.1%} counting frame bytes)")
    soaks: list[dict[str, Any]] = []
    for ber in (1e-4, 1e-3):
        spec = f"ber={ber:g},drop=0.01,unplug_every=10:0.5"
        r = await soak(spec, args.soak_seconds, seed=len(soaks) + 1)
        soaks.append(r)
        print(f"soak {spec}: {r['commands_completed']}/{r['commands_sent']} commands completed, "
              f"{r['commands_failed_cleanly']} failed cleanly, {r['duplicated_commands']} duplicated; "
              f"{r['events_received']}/{r['events_sent']} events, {r['lost_events']} lost; "
              f"{r['reconnects']} reconnects, {r['retransmits']} retransmits, {r['crc_errors']} CRC errors")
    total = {k: sum(r[k] for r in soaks) for k in ("commands_sent", "commands_completed", "commands_failed_cleanly",
                                                  "duplicated_commands", "events_sent", "lost_events")}
    ok = total["duplicated_commands"] == 0 and total["lost_events"] == 0 and all(
        r["commands_failed_other"] == 0 and r["completed_but_not_run"] == 0 for r in soaks)
    print(json.dumps({"bench": "link", "ok": ok, **perf, **total, "soaks": soaks,
                      "wall_seconds": round(time.monotonic() - t0, 1)}))
    return 0 if ok else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pings", type=int, default=500, help="sequential pings for the latency figures")
    parser.add_argument("--bulk", type=int, default=300, help="pipelined 110-byte pings for throughput")
    parser.add_argument("--soak-seconds", type=float, default=120.0, help="virtual seconds per soak setting")
    parser.add_argument("--quick", action="store_true", help="fewer pings and a 40 s soak")
    a = parser.parse_args()
    if a.quick:
        a.pings, a.bulk, a.soak_seconds = 100, 60, 40.0
    sys.exit(asyncio.run(main(a)))
