"""A tournament day rehearsed with real processes, as the organiser and the tables' referees run it
(docs/tournament.md "Running one"): `tablectl broker-config` writes the venue's files, Mosquitto runs
on them (a user per table, the access list), `tablectl hub` with the registration list and the
venue's tables, and one `tablectl run` per table (`sim://`, the demo players playing, each its own
data dir, port and credentials). The organiser and the referees act over HTTP, as from their pages.

`cross_check` is the organiser's own count: the standings computed from the tables' own score
sheets (`GET /api/rounds` and `/api/scoresheet` at each table), against the hub's page data, CSV and
archive. Used by tests/tournament/test_day.py (a short day) and bench/tourday.py (the full day).
"""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from table_controller.tournament.broker import free_port

REPO = Path(__file__).resolve().parents[2]
MOSQUITTO = "/usr/sbin/mosquitto"
TOURNAMENT = "day-cup"
#: The registration list: 16 players, numbers D001…, Chinese names (a reserve, 候补, is not on it).
SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭"
GIVEN = "伟芳娜敏静强磊军洋勇艳杰涛明超霞"
PLAYERS = [{"id": f"D{i + 1:03d}", "name": SURNAMES[i] + GIVEN[(i * 7) % 16]} for i in range(16)]


class DayError(AssertionError):
    """The rehearsal found the day going wrong; the text says where."""


def until(check: Callable[[], Any], timeout: float, what: str, poll: float = 0.2) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        try:
            got = check()
        except (httpx.HTTPError, OSError):
            got = None
        if got:
            return got
        if time.monotonic() > deadline:
            raise DayError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(poll)


@dataclass
class Table:
    table_id: str
    port: int
    section: str  # the table's [tournament] section from broker-config
    proc: subprocess.Popen[bytes] | None = None
    restarts: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def referee(self) -> dict[str, str]:
        return {"Authorization": f"Bearer ref-{self.table_id}"}


@dataclass
class Day:
    """The venue: broker, hub and tables as child processes under `root`."""

    root: Path
    hands: int = 4
    tables: int = 4
    speed: float = 200.0
    #: seconds between the demo players' plays: a hand (80 or so discards, 100 plays) lasts long enough for a
    #: referee to act in it, 1.5 to 2 s on two quiet cores (at 0.03, 3.5 to 4.5 s: the test's 44 s day was
    #: hands played, six of them one after another at the last table each round)
    turn_seconds: float = 0.015
    #: seconds an ended hand stays on the table before the next: a referee substitutes between hands
    hand_seconds: float = 0.6
    #: ... longer at the table where the referee seats a substitute (`substitute`): its one window in a round of
    #: two hands, 0.6 s, was missed by a starved run 1 in 4 under heavy load (409 本轮比赛已结束)
    hand_seconds_at: dict[str, float] = field(default_factory=lambda: {"t02": 2.5})
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    table: dict[str, Table] = field(default_factory=dict)
    hub_proc: subprocess.Popen[bytes] | None = None
    broker_proc: subprocess.Popen[bytes] | None = None
    #: the organiser's and the referees' one HTTP client, its connections kept: `httpx.get` made a client, and
    #: its TLS context (the CA bundle read, 24 ms of CPU), for every request, the waits' polls too (every 0.05 s
    #: for each table at the last round's end), beside four tables playing on two cores
    http: httpx.Client = field(default_factory=httpx.Client)

    def __post_init__(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.broker_port, self.hub_port = free_port(), free_port()
        self.env = {**os.environ, "PYTHONPATH": f"{REPO}:{REPO / 'hardware-sim'}",
                    "TABLECTL_RULESETS_DIR": str(self.root / "rulesets")}
        self.hub_url = f"http://127.0.0.1:{self.hub_port}"
        self.ids = [f"t{k + 1:02d}" for k in range(self.tables)]

    # -- the venue ------------------------------------------------------------------------------
    def tablectl(self, *args: str, log: str | None = None,
                 env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        out = open(self.root / f"{log}.log", "ab") if log else subprocess.DEVNULL  # noqa: SIM115
        return subprocess.Popen([sys.executable, "-m", "table_controller.cli", *args], cwd=REPO,
                                env={**self.env, **(env or {})}, stdout=out, stderr=subprocess.STDOUT)

    def set_up(self) -> None:
        """The organiser's laptop: the broker's users, the registration list, a shortened round."""
        venue = self.root / "venue"
        made = self.tablectl("broker-config", "--broker", f"mqtt://127.0.0.1:{self.broker_port}",
                             "--tournament", TOURNAMENT, "--tables", str(self.tables), "--out", str(venue),
                             log="broker-config")
        if made.wait(60) != 0:
            raise DayError((self.root / "broker-config.log").read_text())
        conf = (venue / "mosquitto" / "tournament.conf").read_text()
        conf = conf.replace("/etc/mosquitto/", f"{venue / 'mosquitto'}/").replace(" 0.0.0.0", " 127.0.0.1")
        (self.root / "mosquitto.conf").write_text(conf + "persistence false\nuser root\n")
        self.hub_env = dict(line.split("=", 1) for line in (venue / "hub.env").read_text().split())
        with open(self.root / "players.csv", "w", encoding="utf-8") as f:
            f.write("id,name\n" + "".join(f"{p['id']},{p['name']}\n" for p in PLAYERS))
        (self.root / "rulesets").mkdir(exist_ok=True)
        (self.root / "rulesets" / "mcr_day.toml").write_text(
            f'extends = "mcr"\nid = "mcr_day"\nname_zh = "国标麻将（赛事日：每轮{self.hands}盘）"\n'
            f'name_en = "MCR, {self.hands} hands a round"\n[match]\nhands_per_session = {self.hands}\n')
        for tid in self.ids:
            self.table[tid] = Table(tid, free_port(), (venue / "tables" / f"{tid}.toml").read_text())

    def start_broker(self) -> None:
        with open(self.root / "mosquitto.log", "ab") as out:
            self.broker_proc = subprocess.Popen([MOSQUITTO, "-c", str(self.root / "mosquitto.conf")],
                                                stdout=out, stderr=subprocess.STDOUT)
        until(lambda: socket.create_connection(("127.0.0.1", self.broker_port), 0.2).close() or True, 10,
              "mosquitto to listen", poll=0.05)

    def stop_broker(self) -> None:
        if self.broker_proc is not None:
            self.broker_proc.terminate()
            self.broker_proc.wait(10)

    def start_hub(self) -> None:
        self.hub_proc = self.tablectl(
            "hub", "--broker", f"mqtt://127.0.0.1:{self.broker_port}", "--tournament", TOURNAMENT,
            # each table by the name posted in the hall (its Pi says the same), the tournament by its title
            "--username", "hub", "--tables", ",".join(f"{tid}={int(tid[1:])}号桌" for tid in self.ids),
            "--title", "春季杯彩排", "--players", str(self.root / "players.csv"),
            "--port", str(self.hub_port), "--data-dir", str(self.root / "hub"), log="hub", env=self.hub_env)
        until(lambda: self.http.get(f"{self.hub_url}/api/standings", timeout=2).status_code == 200, 60, "the hub's page")

    def start_table(self, tid: str, seating: dict[str, Any]) -> None:
        """The referee keys the round's four players (as the hub's seating says) and starts the Pi."""
        t = self.table[tid]
        players = "".join(f'[[players]]\nposition = {c}\nname = "{p["name"]}"\n'
                          + (f'id = "{p["id"]}"\n' if p["id"] else "")
                          for c, p in sorted(seating["seats"].items()))
        config = self.root / f"{tid}.toml"
        config.write_text(
            f'[table]\nname = "{int(tid[1:])}号桌"\nlink = "sim://"\nsim_seed = {int(tid[1:])}\n'
            f'sim_speed = {self.speed}\n[rules]\nruleset = "mcr_day"\n{players}'
            f'[display]\nport = {t.port}\nreferee_token = "ref-{tid}"\noperator_token = "op-{tid}"\n'
            f'[storage]\ndata_dir = "{self.root / tid}"\n'
            f'[demo]\nautoplay = true\nhand_seconds = {self.hand_seconds_at.get(tid, self.hand_seconds)}\n'
            f'turn_seconds = {self.turn_seconds}\n'
            + t.section)
        self.restart_table(tid, wait=False)

    def restart_table(self, tid: str, wait: bool = True) -> None:
        t = self.table[tid]
        t.proc = self.tablectl("run", "--config", str(self.root / f"{tid}.toml"), log=tid)
        if wait:
            self.wait_table(tid)

    def wait_table(self, tid: str) -> None:
        t = self.table[tid]
        def up() -> bool:  # the display answers and its log is folded (while it is, other routes answer 503)
            health = self.http.get(f"{t.url}/api/health", timeout=2)
            return health.status_code == 200 and health.json().get("recovering") is None

        until(up, 60, f"{tid}'s display")

    def pull_plug(self, tid: str) -> None:
        """The table's Pi loses power: no goodbye to the broker, nothing flushed."""
        t = self.table[tid]
        assert t.proc is not None
        t.proc.send_signal(signal.SIGKILL)
        t.proc.wait(10)
        t.restarts += 1

    def pull_plug_mid_hand(self, tid: str, discards: int, timeout: float = 60) -> int:
        """The power cut lands in a hand, never between two: once the display shows a hand with `discards`
        discards, the Pi is frozen (SIGSTOP) and its own log read; a hand still open there is the one the
        cut stops, else (it ended in between) the Pi goes on to the next such hand. Returns the hand cut."""
        t = self.table[tid]
        assert t.proc is not None
        deadline = time.monotonic() + timeout
        while True:
            until(lambda: sum(len(d) for d in ((self.in_hand(tid) or {}).get("discards") or {}).values())
                  >= discards, max(1.0, deadline - time.monotonic()), f"{tid}: a hand with {discards} discards",
                  poll=0.05)
            t.proc.send_signal(signal.SIGSTOP)
            try:
                open_hand = self.open_hand(tid)
            except sqlite3.Error:
                t.proc.send_signal(signal.SIGCONT)  # the log unreadable: the day stops, the Pi not frozen
                raise
            if open_hand is not None:
                self.pull_plug(tid)
                return open_hand
            t.proc.send_signal(signal.SIGCONT)
            until(lambda: not self.in_hand(tid), 30, f"{tid}: its ended hand off the display", poll=0.05)

    def open_hand(self, tid: str) -> int | None:
        """The hand in play (started, not ended) in the table's own log (its SQLite file), or None."""
        db = sqlite3.connect(f"file:{self.root / tid / 'events.sqlite3'}?mode=ro", uri=True, timeout=10)
        try:
            row = db.execute("SELECT type, data FROM events WHERE type IN ('operator.hand_start', "
                             "'operator.hand_end') ORDER BY seq DESC LIMIT 1").fetchone()
        finally:
            db.close()
        return int(json.loads(row[1])["hand_no"]) if row and row[0] == "operator.hand_start" else None

    def stop(self) -> None:
        for p in [t.proc for t in self.table.values()] + [self.hub_proc]:
            if p is not None and p.poll() is None:
                p.terminate()
        for p in [t.proc for t in self.table.values()] + [self.hub_proc]:
            if p is not None:
                try:
                    p.wait(15)
                except subprocess.TimeoutExpired:
                    p.kill()
        if self.broker_proc is not None and self.broker_proc.poll() is None:
            self.stop_broker()
        self.http.close()

    # -- the organiser --------------------------------------------------------------------------
    def hub(self, path: str, **kw: Any) -> Any:
        r = self.http.get(f"{self.hub_url}{path}", timeout=10, **kw)
        r.raise_for_status()
        return r.json() if "json" in r.headers.get("content-type", "") else r

    def organiser(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        token = self.hub_env["TABLECTL_HUB_ORGANIZER_TOKEN"]
        r = self.http.post(f"{self.hub_url}{path}", json=body, headers={"Authorization": f"Bearer {token}"}, timeout=20)
        if r.status_code != 200:
            raise DayError(f"organiser {path} {body}: {r.status_code} {r.text}")
        return dict(r.json())

    def decide(self, action: str, reason: str, **who: str) -> dict[str, Any]:
        return self.organiser("/api/organiser", {"action": action, "reason": reason, **who})

    def publish(self, round_no: int) -> dict[str, Any]:
        return self.organiser(f"/api/pairings/publish?round={round_no}")

    def round_final(self, round_no: int, tables: list[str]) -> bool:
        """Every table listed has its round's final standing at the hub, the hub holding its whole log."""
        rows = {t["table_id"]: t for t in self.hub("/api/standings")["tables"]}
        return all(rows[t]["round"] >= round_no and round_no in rows[t]["rounds"] and rows[t]["complete"]
                   and (rows[t]["round"] > round_no or rows[t]["final"]) for t in tables)

    def alert(self, tid: str, kind: str) -> list[dict[str, Any]]:
        """The hub's alerts (需要裁判长处理) of this kind on the table's row."""
        row = next(t for t in self.hub("/api/standings")["tables"] if t["table_id"] == tid)
        return [a for a in row.get("alerts") or [] if a.get("kind") == kind]

    # -- the referees ---------------------------------------------------------------------------
    def referee(self, tid: str, path: str, body: dict[str, Any]) -> httpx.Response:
        t = self.table[tid]
        return self.http.post(f"{t.url}{path}", json=body, headers=t.referee, timeout=10)

    def state(self, tid: str) -> dict[str, Any]:
        return dict(self.http.get(f"{self.table[tid].url}/api/state", timeout=10).json())

    def in_hand(self, tid: str) -> dict[str, Any] | None:
        """The hand in play at the table (dealt, not ended), or None."""
        hand = self.state(tid).get("hand")
        return hand if hand and not hand.get("ended") else None


# -- the day ----------------------------------------------------------------------------------------
LATE = "D016"
STAND_IN = "钱多多"  # not on the registration list: a stand-in (陪打) the organiser names


@dataclass
class Log:
    """What happened when, for the report."""

    marks: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    penalty: dict[str, Any] = field(default_factory=dict)
    appeal: dict[str, Any] = field(default_factory=dict)
    substitute: dict[str, Any] = field(default_factory=dict)
    seatings: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: the hand t02's power cut stopped (中止 and replayed)
    cut: int = 0


#: "just begun": a hand with fewer discards than this (about a second's play at 0.015 s a turn, of the 80 or so a
#: hand has), seen by polls every 0.02 s
EARLY_DISCARDS = 16


def _retry(act: Callable[[], httpx.Response], what: str, timeout: float = 60) -> dict[str, Any]:
    """A referee's action that needs a hand in play: tried again until the table takes it."""
    last: list[str] = []

    def once() -> Any:
        r = act()
        if r.status_code == 200:
            return r.json()
        last[:] = [f"{r.status_code} {r.text}"]
        return None

    try:
        return dict(until(once, timeout, what, poll=0.05))
    except DayError:
        raise DayError(f"{what}: {last}") from None


def penalty_and_undo(day: Day, tid: str, log: Log) -> None:
    """The referee rules a penalty, undoes it (the wrong seat), and rules it on the right one."""
    def pen(seat: str, victim: str) -> Callable[[], httpx.Response]:
        return lambda: day.referee(tid, "/api/referee/penalty",
                                   {"seat": seat, "code": "exposed_other", "amount": 10, "victim": victim})

    def early_in_a_hand() -> bool:
        """A hand just begun: the undo follows the penalty before the demo's referee can rule a win in it
        (a win read between the two makes the penalty no longer the last action, and the undo is refused)."""
        hand = day.in_hand(tid) or {}
        return sum(len(d) for d in (hand.get("discards") or {}).values()) < EARLY_DISCARDS if hand else False

    until(early_in_a_hand, 60, f"{tid}: a hand just begun", poll=0.02)
    wrong = _retry(pen("E", "S"), f"{tid}: a penalty")
    undo = day.referee(tid, "/api/referee/undo", {"reason": "罚错了座位", "target": wrong["seq"]})
    if undo.status_code != 200:  # the demo's referee ruled something in between (a win read): not the last
        log.notes.append(f"{tid}: undo refused ({undo.status_code} {undo.text}); the penalty stands")
    right = _retry(pen("S", "E"), f"{tid}: the penalty again")
    log.penalty = {"table": tid, "wrong": wrong["seq"], "undone": undo.status_code == 200, "right": right["seq"]}
    pos = 2
    log.appeal = {"table": tid, **_retry(lambda: day.referee(tid, "/api/referee/appeal", {
        "position": pos, "target": right["seq"], "text": "我没有亮牌，请仲裁委员会复议"}),
        f"{tid}: an appeal")}
    until(lambda: day.alert(tid, "appeal"), 20, f"the hub to show {tid}'s appeal waiting")


def decide_appeal(day: Day, log: Log) -> None:
    tid = log.appeal["table"]
    r = day.referee(tid, "/api/referee/appeal/ruling",
                    {"appeal": log.appeal["seq"], "upheld": False, "note": "录像显示确有亮牌，维持原判"})
    if r.status_code != 200:
        raise DayError(f"{tid}: appeal ruling {r.status_code} {r.text}")
    until(lambda: not day.alert(tid, "appeal"), 20, f"{tid}'s appeal to leave the hub's list once decided")


def substitute(day: Day, tid: str, chair: str, reserve: dict[str, str], log: Log) -> None:
    """A player taken ill mid-round: the referee seats a registered player sitting out this round."""
    def early_in_first_hand() -> bool:
        """The round's first hand just begun: the substitution must reach the table before the round's last
        hand starts (a starved run posted it as hand 2 began: 409 没有下一盘可换人)."""
        hand = day.in_hand(tid) or {}
        return hand.get("hand_no") == 1 and sum(len(d) for d in (hand.get("discards") or {}).values()) < EARLY_DISCARDS

    until(early_in_first_hand, 60, f"{tid}: the round's first hand in play", poll=0.02)
    got = _retry(lambda: day.referee(tid, "/api/referee/substitute", {
        "position": chair, "name": reserve["name"], "player_id": reserve["id"], "reason": "伤病（突发不适）"}),
        f"{tid}: the substitute")
    log.substitute = {"table": tid, "chair": chair, **reserve, "seq": got["seq"]}


def last_hand(day: Day, round_no: int, timeout: float) -> float:
    """Wait for the round to be final at the hub; seconds from the last table's sheet going final (its
    last hand ended, as its own display says) to the hub's standings counting every table's final."""
    at_table: dict[str, float] = {}
    deadline = time.monotonic() + timeout
    while True:
        for tid in day.ids:
            if tid not in at_table:
                sheet = day.http.get(f"{day.table[tid].url}/api/scoresheet", timeout=10).json()
                if sheet["round"] == round_no and sheet["final"]:
                    at_table[tid] = time.monotonic()
        if len(at_table) == len(day.ids) and day.round_final(round_no, day.ids):
            return time.monotonic() - max(at_table.values())
        if time.monotonic() > deadline:
            raise DayError(f"round {round_no} not final at the hub after {timeout:.0f} s: "
                           f"tables final {sorted(at_table)}")
        time.sleep(0.05)


def play_day(day: Day, progress: Callable[[str], None] = lambda s: None) -> Log:
    """The day: three rounds, and on the way a Pi restarted, the broker restarted, a table out for a round,
    a late player, a stand-in, a substitute, a penalty undone, an appeal."""
    log = Log()
    t0 = time.monotonic()
    day.set_up()
    day.start_broker()
    day.start_hub()
    progress("venue up")
    # round 1: D016 is late; the organiser names a stand-in for the empty chair
    day.decide("player_out", "迟到", player=f"id:{LATE}")
    day.decide("stand_in", "迟到选手空座", name=STAND_IN)
    first = log.seatings[1] = day.publish(1)
    for t in first["tables"]:
        day.start_table(t["table_id"], t)
    for tid in day.ids:
        day.wait_table(tid)
    log.marks["round 1 started"] = time.monotonic() - t0
    progress("round 1 playing")
    # first the referee's penalty at t01, an HTTP call or two, while its round has both hands to come; then
    # t02's power cut, whose restart (a process started) can outlast t01's two hands, not t02's own (its cut
    # hand is replayed)
    penalty_and_undo(day, "t01", log)
    # t02's Pi loses power mid-hand and is switched on again
    log.cut = day.pull_plug_mid_hand("t02", discards=8)
    until(lambda: day.alert("t02", "offline"), 20, "the hub to flag t02 cut off (its will)")
    day.restart_table("t02")
    until(lambda: not day.alert("t02", "offline"), 30, "t02's flag to go once it is back")
    progress("t02 restarted")
    # the broker restarts (no persistence: it forgets what it had not delivered)
    day.stop_broker()
    time.sleep(1.0)
    day.start_broker()
    progress("broker restarted")
    day.decide("player_back", "已到场", player=f"id:{LATE}")
    day.decide("stand_in_end", "迟到选手已到", name=STAND_IN)
    until(lambda: day.round_final(1, day.ids), 300, "round 1 final at the hub")
    log.marks["round 1 final"] = time.monotonic() - t0
    decide_appeal(day, log)
    progress("round 1 final")
    # round 2: t04's board is broken; four players sit out
    day.decide("table_out", "电机故障，待修", table_id="t04")
    second = log.seatings[2] = day.publish(2)
    if len(second["tables"]) != 3 or len(second["byes"]) != 4:
        raise DayError(f"round 2 with t04 out: {second['tables']} byes {second['byes']}")
    seated = {s["id"] for t in second["tables"] for s in t["seats"].values()}
    if LATE not in seated:
        raise DayError(f"the late player, back, was not seated in round 2: byes {second['byes']}")
    reserve = next(b for b in second["byes"])
    reserve = {"id": reserve["id"], "name": reserve["name"]}
    until(lambda: day.state("t02").get("round") == 2, 120, "t02 to start round 2")
    substitute(day, "t02", "3", reserve, log)
    progress("round 2 playing")
    until(lambda: day.round_final(2, ["t01", "t02", "t03"]), 300, "round 2 final at the hub")
    log.marks["round 2 final"] = time.monotonic() - t0
    progress("round 2 final")
    # round 3: t04 repaired
    day.decide("table_back", "已修复", table_id="t04")
    third = log.seatings[3] = day.publish(3)
    if len(third["tables"]) != 4 or third["byes"]:
        raise DayError(f"round 3: {third}")
    seen = last_hand(day, 3, 600)
    log.marks["round 3 final"] = time.monotonic() - t0
    log.marks["standings after the last hand"] = seen
    progress("round 3 final")
    return log


# -- the organiser's own count -----------------------------------------------------------------------
def sheets(day: Day) -> dict[str, list[dict[str, Any]]]:
    """Each table's rounds as its own score sheets have them: `GET /api/rounds` (who sat, numbers) and
    each round's `GET /api/scoresheet?round=N` (rows, totals, 标准分, sitters)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for tid, t in day.table.items():
        rounds = day.http.get(f"{t.url}/api/rounds", timeout=10).json()
        out[tid] = [{**r, "sheet": day.http.get(f"{t.url}/api/scoresheet", params={"round": r["round"]},
                                             timeout=10).json()} for r in rounds]
    return out


def _spans(chair: str, r: dict[str, Any]) -> list[tuple[str, str, int, float]]:
    """Who sat `chair` in round `r`, each (key, name, from_hand, to_hand) from the table's record of it."""
    spans = (r["sheet"].get("sitters") or {}).get(chair)
    pid, name = (r.get("player_ids") or {}).get(chair, ""), r["players"][chair]
    if not spans:
        return [(pid or name, name, 0, float("inf"))]
    return [(s.get("id") or s["name"], s["name"], int(s["from_hand"]),
             float("inf") if s.get("to_hand") is None else int(s["to_hand"])) for s in spans]


def expected_standings(by_table: dict[str, list[dict[str, Any]]], registered: list[dict[str, str]],
                       through: int | None = None) -> dict[str, dict[str, Any]]:
    """The organiser's own standings, from the score sheets' rows alone: per registered number (or name
    where a table keyed none) the points of each hand sat (a row before the first hand, and what the
    session's end adds, to the chair's first and last sitter) and the chair's 标准分 shared by hands sat
    (`--substitute-credit hands`), summed over every round at every table."""
    names = {p["id"]: p["name"] for p in registered}
    out: dict[str, dict[str, Any]] = {}
    for tid, rounds in by_table.items():
        for r in rounds:
            if through is not None and r["round"] > through:
                continue
            sheet = r["sheet"]
            rows = sheet["rows"]
            played = [row["hand_no"] for row in rows if row["hand_no"] > 0 and row.get("result") != "abandoned"]
            for chair in "1234":
                spans = _spans(chair, r)
                credit: dict[str, list[Any]] = {}
                for k, (key, name, lo, hi) in enumerate(spans):
                    c = credit.setdefault(key, [name, 0, 0])
                    first, last = k == 0, k == len(spans) - 1
                    c[1] += sum(row["points"][chair] for row in rows
                                if lo <= row["hand_no"] <= hi or (first and row["hand_no"] < lo))
                    c[2] += sum(1 for h in played if lo <= h <= hi)
                    if last:
                        c[1] += sheet["totals"][chair] - sum(row["points"][chair] for row in rows)
                hands = sum(c[2] for c in credit.values())
                for key, (name, pts, sat) in credit.items():
                    tp = sheet["table_points"][chair] * (sat / hands if hands else (1 if key == spans[0][0] else 0))
                    e = out.setdefault(key, {"name": names.get(key, name), "points": 0, "table_points": 0.0,
                                             "rounds": []})
                    e["points"] += pts
                    e["table_points"] += round(tp, 2)
                    e["rounds"].append((r["round"], tid))
    for e in out.values():
        e["table_points"] = round(e["table_points"], 2)
        e["rounds"].sort()
    return out


def _differences(mine: dict[str, dict[str, Any]], theirs: dict[str, dict[str, Any]]) -> list[str]:
    """Each player whose name, points, 标准分 or rounds differ between the two counts."""
    wrong = []
    for key, e in mine.items():
        p = theirs.get(key)
        if p is None:
            wrong.append(f"{key} {e['name']}: not in the hub's standings")
            continue
        got_rounds = sorted((x["round"], x["table_id"]) for x in p["tables"])
        if p["name"] != e["name"] or p["points"] != e["points"] or abs(p["table_points"] - e["table_points"]) > 0.011 \
                or got_rounds != e["rounds"]:
            wrong.append(f"{key}: hub {p['name']} {p['table_points']} {p['points']} {got_rounds}, "
                         f"sheets {e['name']} {e['table_points']} {e['points']} {e['rounds']}")
    return wrong + [f"{k}: at the hub only ({theirs[k]['points']})" for k in theirs.keys() - mine.keys()]


def _key(p: dict[str, Any]) -> str:
    return str(p.get("id") or p["name"])


def cross_check(day: Day, log: Log | None = None) -> dict[str, Any]:
    """The hub's standings (JSON, CSV, archive) against the organiser's own count from the tables' score
    sheets; every hand once; every registered player's rounds. Returns figures; raises DayError on a
    difference, naming it."""
    by_table = sheets(day)
    wrong: list[str] = []
    last = max(r["round"] for rounds in by_table.values() for r in rounds)
    for through in range(1, last + 1):  # each round's standings as the organiser posts them (?through=N)
        mine = expected_standings(by_table, PLAYERS, through)
        theirs = {_key(p): p for p in day.hub(f"/api/standings?through={through}")["players"]}
        wrong += [f"through round {through}: {w}" for w in _differences(mine, theirs)]
    mine = expected_standings(by_table, PLAYERS)
    theirs = {_key(p): p for p in day.hub("/api/standings")["players"]}
    # every player's rounds: as the published seatings sat them, and the substitute's round
    for rnd, seating in (log.seatings if log else {}).items():
        for t in seating["tables"]:
            for seat in t["seats"].values():
                p = theirs.get(seat["id"] or seat["name"])
                if p is None or (rnd, t["table_id"]) not in [(x["round"], x["table_id"]) for x in p["tables"]]:
                    wrong.append(f"{seat['name']} seated at {t['table_id']} in round {rnd}: not counted there")
    if log and log.substitute:
        p = theirs.get(log.substitute["id"])
        if p is None or not any(x.get("sat", {}).get("substitute") for x in p["tables"]):
            wrong.append(f"the substitute {log.substitute['name']}: no round as a substitute at the hub")
    # the CSV and the archive say the same
    text = day.http.get(f"{day.hub_url}/api/standings.csv", timeout=10).content.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    for row in rows[1:]:
        if not row:
            continue
        key = row[2] or row[1]
        p = theirs.get(key)
        if p is None or abs(float(row[3]) - p["table_points"]) > 0.005 or int(float(row[4])) != p["points"]:
            wrong.append(f"CSV row {row[:5]} differs from the page's {p and (p['table_points'], p['points'])}")
    if len([r for r in rows[1:] if r]) != len(theirs):
        wrong.append(f"CSV has {len(rows) - 1} players, the page {len(theirs)}")
    archive = zipfile.ZipFile(io.BytesIO(day.http.get(f"{day.hub_url}/api/archive.zip", timeout=30).content))
    names = archive.namelist()
    standing_file = next((n for n in names if n.endswith("standings.json")), None)
    if standing_file is None:
        wrong.append(f"archive without standings.json: {names[:10]}")
    else:
        arch = {_key(p): (p["table_points"], p["points"]) for p in json.loads(archive.read(standing_file))["players"]}
        if arch != {k: (p["table_points"], p["points"]) for k, p in theirs.items()}:
            wrong.append("the archive's standings differ from the page's")
    # no hand twice or lost: each table's rounds' hands at the hub = its own sheets' hands
    hands = abandoned = 0
    for tid, rounds in by_table.items():
        records = day.hub(f"/api/tables/{tid}/records")
        held = sorted((r.get("round", 1), r["hand_no"]) for r in _records(records))
        sheet_hands = sorted((r["round"], row["hand_no"]) for r in rounds for row in r["sheet"]["rows"]
                             if row["hand_no"])
        hands += len(sheet_hands)
        abandoned += sum(1 for r in rounds for row in r["sheet"]["rows"]
                         if row["hand_no"] and row.get("result") == "abandoned")
        if held != sheet_hands:
            wrong.append(f"{tid}: the hub holds hands {held}, the table's sheets {sheet_hands}")
    if wrong:
        raise DayError("standings differ:\n" + "\n".join(wrong))
    return {"players": len(mine), "hands": hands, "abandoned": abandoned, "archive_files": len(names)}


def _records(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The hub's archive of a table's records: each hand's round and number."""
    return [{"round": h.get("round", 1), "hand_no": h["hand_no"]} for h in body["records"]]


def page_check(day: Day, chromium: str = "/usr/bin/chromium") -> dict[str, Any]:
    """The standings page in Debian's Chromium (`chromium`: the tests' is tests/browsers.py's), as the organiser
    and the hall's kiosk show it: in Chinese, each player's 标准分 and points as `/api/standings` has them.
    Returns what it read."""
    from playwright.sync_api import sync_playwright

    api = {p["name"]: (p["table_points"], p["points"]) for p in day.hub("/api/standings")["players"]}
    seen: dict[str, Any] = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        try:
            for path in ("/", "/?kiosk=30"):
                page = browser.new_page()
                page.goto(f"{day.hub_url}{path}")
                page.wait_for_function("n => document.querySelectorAll('[data-testid=standings] tbody tr').length >= n",
                                       arg=len(api), timeout=20000)
                rows = page.eval_on_selector_all("[data-testid=standings] tbody tr", """trs => trs.map(tr =>
                    [tr.dataset.player, tr.cells[2].innerText, tr.cells[3].innerText])""")
                got = {name: (float(tp), int(pts)) for name, tp, pts in rows}
                if got != {n: (float(tp), pts) for n, (tp, pts) in api.items()}:
                    raise DayError(f"the page at {path} shows {got}, the API {api}")
                text = page.inner_text("body")
                missing = [w for w in ("春季杯彩排 · 排名", "标准分", "比赛分", "各桌进度", "组织者操作", "第3轮", "1号桌")
                           if w not in text]
                lang = page.evaluate("document.documentElement.lang")
                if missing or not lang.startswith("zh"):
                    raise DayError(f"the page at {path} lacks {missing} (lang {lang})")
                said = [x for x in (*day.ids, TOURNAMENT) if x in text]  # players read names, never ids
                if said:
                    raise DayError(f"the page at {path} says ids to the players: {said}")
                seen[path] = len(rows)
                page.close()
        finally:
            browser.close()
    return seen
