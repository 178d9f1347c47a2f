"""Benchmark of keying a whole hand on the Table page, as the operator of a table without a camera does.

Run: `.venv/bin/python bench/keying.py [--seed 28] [--way keys|mouse]`.
Starts the real service (simulated table on a pty, real uvicorn on a loopback port, real SQLite), opens
the Table page in Debian's Chromium as the operator and keys one hand the simulator's players played
(`tablesim.players.play_hand`, MCR, seed `--seed`: 81 plays for seed 28, with flowers, chows, pungs, a
kong of each kind) through the page only: clicks and keystrokes, never the API. After each play it waits
until the page shows it. Counts clicks (a select picked: 2, open and choose) and keystrokes per play and
prints them by kind, the machine's seconds per play (press to the page showing it) and an operator's
seconds by the keystroke-level model (a click 1.1 s, a keystroke 0.28 s, a hand moved between mouse and
keyboard 0.4 s: Card, Moran and Newell), then a final JSON line.

`--ahead` presses every play without waiting for the page (an operator catching up, not looking), with
`--latency MS` on each play's request and answer (the venue's Wi-Fi); either way the record must then be
the hand, play for play. `--way mouse`: the page by pointer (tap a select, type the tile after tapping 牌, tap the play's key).
`--way keys`: the page by keyboard where it lets (a seat's letter typed in 牌, Enter keys 打出 or 补花,
the focus left in 牌, 配牌完成 keyed with the dealer's first discard, 碰 and 明杠 without a tile); the keys a
play has no key for (吃, 杠) are clicked. The page before these (commit c84fe52) keys only `--way mouse`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "hardware-sim")]

from tqdm import tqdm  # noqa: E402

from table_controller.config import parse_config  # noqa: E402
from table_controller.controller import side_of_wind  # noqa: E402
from table_controller.demo import win_judge  # noqa: E402
from table_controller.rules import deal_plan, load_ruleset, physical_wall  # noqa: E402
from table_controller.service import TableService  # noqa: E402
from table_controller.tiles import SEATS  # noqa: E402
from tablesim.players import PlayerAction, play_hand  # noqa: E402

OPERATOR = "bench-operator"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
FORM = "#play-form"
#: keystroke-level model (Card, Moran and Newell): point and click, keystroke, homing between devices
CLICK_S, KEY_S, HOME_S = 1.1, 0.28, 0.4
LETTER = {"E": "e", "S": "s", "W": "w", "N": "n"}


def hand_plays(seed: int) -> list[PlayerAction]:
    """The face-up plays of one MCR hand of the simulator's players, up to its win (not keyed: the
    referee reads it on the Win page)."""
    rs = load_ruleset("mcr")
    rng = random.Random(seed)
    plan = deal_plan(rs, (rng.randint(1, 6), rng.randint(1, 6)), (rng.randint(1, 6), rng.randint(1, 6)))
    out = []
    for action in play_hand(plan, physical_wall(rs, None, rng), rng, win_judge("mcr", "E"), chows=True,
                            kong_after_chow=False):  # 国标: no kong right after a chow
        if action.type in ("win", "reveal"):
            break
        out.append(action)
    return out


def kind_of(a: PlayerAction) -> str:
    """The play's key on the page (data-play)."""
    if a.type == "claim":
        return {"chow": "chow", "pung": "pung", "kong": "kong"}[a.kind or "pung"]
    if a.type == "kong":
        return "concealed" if a.kind == "concealed" else "added"
    return a.type


class Operator:
    """The operator's hands on the page: every click and keystroke counted."""

    def __init__(self, page: Any, way: str, ahead: bool = False) -> None:
        self.page, self.way, self.ahead = page, way, ahead
        self.clicks = self.keys = self.homes = 0
        self.on = "mouse"
        #: --ahead: the seat the operator expects the form to follow to (the page may not show it yet)
        self.expect: str | None = None

    def _device(self, device: str) -> None:
        if device != self.on:
            self.homes += 1
            self.on = device

    async def click(self, selector: str) -> None:
        self._device("mouse")
        self.clicks += 1
        await self.page.click(selector)

    async def select(self, name: str, value: str) -> None:
        self._device("mouse")
        self.clicks += 2  # open the picker, choose
        await self.page.select_option(f"{FORM} select[name={name}]", value)

    async def type(self, text: str) -> None:
        focused = f"document.activeElement === document.querySelector('{FORM} input[name=tiles]')"
        if not await self.page.evaluate(focused):
            await self.click(f"{FORM} input[name=tiles]")
        self._device("keyboard")
        self.keys += len(text)
        await self.page.keyboard.type(text)

    async def enter(self) -> None:
        self._device("keyboard")
        self.keys += 1
        await self.page.keyboard.press("Enter")

    async def seat(self, name: str, seat: str) -> None:
        if self.ahead:  # not looking: a letter unless the seat is the one in turn; 来自 follows the last discard
            if name == "seat" and seat != self.expect:
                await self.type(LETTER[seat])
            return
        if await self.page.input_value(f"{FORM} select[name={name}]") == seat:
            return
        if self.way == "keys" and name == "seat":
            await self.type(LETTER[seat])
        else:
            await self.select(name, seat)

    async def key(self, a: PlayerAction) -> None:
        """One play, the fewest presses the page asks of this way."""
        kind = kind_of(a)
        if kind == "deal_done":
            if self.way == "mouse":  # by keys the dealer's first discard keys it
                await self.click(f"{FORM} [data-play=deal_done]")
            return
        await self.seat("seat", a.seat or "E")
        if a.type == "claim":
            await self.seat("from", a.frm or "E")
        tiles = "".join(t[:-1] for t in a.run) + a.run[0][-1] if kind == "chow" else a.tile or ""  # 345s
        if kind in ("pung", "kong") and self.way == "keys":
            tiles = ""  # the claimed tile is the last discard: 碰 and 明杠 take it
        if tiles:
            await self.type(tiles)
        if self.way == "keys" and kind in ("discard", "flower"):
            await self.enter()
        else:
            await self.click(f"{FORM} [data-play={kind}]")
        if a.seat and (self.expect or kind == "discard"):  # the turn as the operator follows it
            self.expect = SEATS[(SEATS.index(a.seat) + 1) % 4] if kind == "discard" else a.seat


async def _until(check: Any, timeout: float = 15.0) -> None:
    end = time.monotonic() + timeout
    while not check():
        if time.monotonic() > end:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)


def _as_recorded(a: PlayerAction) -> tuple[Any, ...]:
    type_, data = a.event()
    return (type_, data.get("seat"), data.get("tile"), tuple(data.get("tiles") or ()), data.get("from"))


async def _slow(route: Any, latency_s: float) -> None:
    """The venue's Wi-Fi: half the latency each way."""
    await asyncio.sleep(latency_s / 2)
    response = await route.fetch()
    await asyncio.sleep(latency_s / 2)
    await route.fulfill(response=response)


async def run(seed: int, way: str, ahead: bool = False, latency_ms: int = 0) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    plays = hand_plays(seed)
    with tempfile.TemporaryDirectory(prefix="keying-") as tmp:
        config = parse_config({"table": {"link": "sim://", "sim_seed": 11, "sim_speed": 100.0},
                               "rules": {"ruleset": "mcr"},
                               "players": [{"position": p, "name": n} for p, n in enumerate("甲乙丙丁", 1)],
                               "display": {"port": 0, "operator_token": OPERATOR}}, source="bench")
        svc = TableService(config, Path(tmp))
        await svc.start()
        try:
            await svc.controller.wait_linked(10)
            async with async_playwright() as pw:
                browser = await pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = await browser.new_page(viewport={"width": 1280, "height": 800})
                await page.goto(f"http://127.0.0.1:{svc.port}/")
                await page.fill("#token", OPERATOR)
                await page.click("#login button[type=submit]")
                await page.wait_for_function("document.body.dataset.role === 'operator'")
                await page.click("#start-hand")
                await _until(lambda: svc.controller.state.phase == "walls_raised")
                while (hand := svc.controller.state.hand)["deal"] is None and hand["next_thrower"]:
                    n = len(hand["throws"])
                    svc.sim.press_button(seat=side_of_wind(hand["next_thrower"], hand["dealer_position"]),
                                         button="dice")
                    await _until(lambda: len(svc.controller.state.hand["throws"]) > n)
                await page.wait_for_selector(f"{FORM}:not([hidden])")
                if latency_ms:
                    await page.route("**/api/play", lambda route: _slow(route, latency_ms / 1000))
                op = Operator(page, way, ahead)
                by_kind: dict[str, list[tuple[int, int, int, float]]] = defaultdict(list)
                started = time.monotonic()
                for a in tqdm(plays, desc="plays keyed", unit="play", file=sys.stderr):
                    c0, k0, h0, t0 = op.clicks, op.keys, op.homes, time.monotonic()
                    before = svc.controller.state.seq
                    await op.key(a)
                    if ahead or (kind_of(a) == "deal_done" and way == "keys"):
                        by_kind[kind_of(a)].append((op.clicks - c0, op.keys - k0, op.homes - h0, 0.0))
                        continue
                    try:
                        await _until(lambda: svc.controller.state.seq > before, 5.0)
                    except AssertionError:
                        said = await page.text_content("#action-msg")
                        raise SystemExit(f"not recorded: {a} — the page says {said!r}")
                    seq = svc.controller.state.seq
                    await page.wait_for_function(f"window.__lastSeq >= {seq}")
                    by_kind[kind_of(a)].append((op.clicks - c0, op.keys - k0, op.homes - h0, time.monotonic() - t0))
                if ahead:  # every play pressed without waiting: until the record has them all
                    with contextlib.suppress(AssertionError):
                        await _until(lambda: sum(ev.type.startswith("play.") for ev in svc.controller.store.since(0))
                                     >= len(plays), 120.0)
                machine = time.monotonic() - started
                recorded = [(ev.type, ev.data.get("seat"), ev.data.get("tile"), tuple(ev.data.get("tiles") or ()),
                             ev.data.get("from")) for ev in svc.controller.store.since(0) if ev.type.startswith("play.")]
                want = [_as_recorded(a) for a in plays]
                if recorded != want:  # the record is the hand, play for play
                    said = await page.text_content("#action-msg")
                    at = next((i for i, (x, y) in enumerate(zip(recorded, want)) if x != y), min(len(recorded), len(want)))
                    raise SystemExit(f"the record is not the hand keyed from play {at} ({said!r}):\n"
                                     f" recorded {recorded[at:at + 4]}\n keyed    {want[at:at + 4]}")
                await browser.close()
        finally:
            await svc.stop()
    rows = {k: {"plays": len(v), "clicks": sum(x[0] for x in v) / len(v), "keys": sum(x[1] for x in v) / len(v),
                "machine_s": statistics.mean(x[3] for x in v)} for k, v in by_kind.items()}
    operator_s = op.clicks * CLICK_S + op.keys * KEY_S + op.homes * HOME_S
    return {"seed": seed, "way": way, "ahead": ahead, "latency_ms": latency_ms, "plays": len(plays), "clicks": op.clicks, "keys": op.keys, "homes": op.homes,
            "per_play": round((op.clicks + op.keys) / len(plays), 2), "machine_s": round(machine, 2),
            "operator_s": round(operator_s, 1), "operator_s_per_play": round(operator_s / len(plays), 2),
            "kinds": rows}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=28)
    p.add_argument("--way", choices=("keys", "mouse"), default="keys")
    p.add_argument("--ahead", action="store_true", help="press every play without waiting for the page")
    p.add_argument("--latency", type=int, default=0, help="ms each play's request and answer take in all")
    args = p.parse_args()
    result = asyncio.run(run(args.seed, args.way, args.ahead, args.latency))
    for kind, row in sorted(result["kinds"].items()):
        print(f"{kind:10} {row['plays']:3} plays  {row['clicks']:.2f} clicks {row['keys']:.2f} keys per play"
              f"  {row['machine_s'] * 1000:.0f} ms")
    print(f"{result['plays']} plays: {result['clicks']} clicks + {result['keys']} keystrokes"
          f" ({result['per_play']} a play), {result['homes']} moves between mouse and keyboard;"
          f" machine {result['machine_s']} s; operator (KLM) {result['operator_s']} s,"
          f" {result['operator_s_per_play']} s a play")
    print(json.dumps({k: v for k, v in result.items() if k != "kinds"}))


if __name__ == "__main__":
    main()
