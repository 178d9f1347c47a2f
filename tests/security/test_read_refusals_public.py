"""A refusal or a rescoring that quotes the hand as read stays the referee's. A confirmation refused at the fold
says 和牌不成立：{the read's message}, and today's rules' verdict on one kept as confirmed (`rescored`) carries that
message too; a read's message names what only the hand shows (振听: 自己打过所听的二筒, the hand's wait). Such a
confirmation is in a log whenever the fold refuses what was taken (a correction of the plays since, taken before
`corrections._win_voided` refused it; a ruleset edited since): the public read it in the action list (`error`,
`rescored`), the log's line (（无效：…）), the record's `refused` (sent to the hub too) and the score sheet's
`rescored`. Over the real display (HTTP and the
public socket), on a real SQLite log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from table_controller import settlements
from table_controller.config import parse_config
from table_controller.controller import Controller
from table_controller.refusal_public import WITHHELD
from table_controller.scoring import score_json
from table_controller.store import EventStore
from table_controller.web.app import create_app
from table_controller.web.auth import Credentials

REFEREE, OPERATOR = "ref-read-71", "op-read-72"
REF, OP = {"Authorization": f"Bearer {REFEREE}"}, {"Authorization": f"Bearer {OPERATOR}"}
#: N's hand as read: 一气通贯 waiting on 2p and 5p, N having discarded 2p itself (振听), winning on W's 5p
N_READ = {"seat_wind": "N", "prevalent_wind": "E", "melds": [],
          "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 9m 3p 4p 9s 9s".split(),
          "win_tile": "5p", "win": "discard", "discarder": "W"}
#: the words of the read's refusal that give its wait away, Chinese and English
SECRET = ("所听", "振听", "furiten")


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(f"nothing at {url}")


def test_a_confirmation_refused_or_rescored_for_the_reads_reason_does_not_quote_it_in_public(tmp_path: Path) -> None:
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}, "rules": {"ruleset": "riichi"}}, "test")
    store = EventStore(tmp_path / "events.sqlite3")
    ctl = Controller(cfg, store, _no_table)
    ctl.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "riichi", "dealer_position": 1,
                                                   "prevalent_wind": "E", "seats": {"E": 1, "S": 2, "W": 3, "N": 4}})
    for wind, dice in (("E", [3, 4]), ("W", [2, 5])):
        ctl.accept("table", "table.dice", {"seat": wind, "wind": wind, "dice": dice})
    c = TestClient(create_app(ctl, Credentials(referee=REFEREE, operator=OPERATOR)))
    with c:
        for body in ({"type": "deal_done"}, {"type": "discard", "seat": "E", "tile": "1z"},
                     {"type": "discard", "seat": "S", "tile": "2z"}, {"type": "discard", "seat": "W", "tile": "3z"},
                     {"type": "discard", "seat": "N", "tile": "2p"}, {"type": "discard", "seat": "E", "tile": "1z"},
                     {"type": "discard", "seat": "S", "tile": "2z"}, {"type": "discard", "seat": "W", "tile": "5p"}):
            assert c.post("/api/play", json=body, headers=OP).status_code == 200, body
        read = c.post("/api/referee/win", json={"hand": N_READ}, headers=REF).json()["seq"]
        assert c.post("/api/referee/win/confirm", headers=REF).status_code == 409  # refused now, nothing logged
        # as a log holds them when the fold refuses what was taken: one confirmation with no figures (refused),
        # then one with the figures confirmed (kept, today's rules refusing it: `rescored`)
        ctl.accept("referee", "referee.win_confirm", {"by": "referee"})
        figures = settlements.figures(score_json(N_READ, "riichi"))
        ctl.accept("referee", "referee.win_confirm",
                   {"by": "referee", settlements.KEY: {"read_seq": read, **figures, "corrections": []}})
        refused, kept = ctl.state.actions[-2:]
        assert "自己打过所听的二筒" in refused["error"] and "自己打过所听的二筒" in kept["rescored"]["message"]
        assert c.post("/api/hand/end", json={"result": "win"}, headers=OP).status_code == 200
        seen: dict[str, str] = {}
        for path in ("/api/state", "/api/actions", "/api/events?since=0", "/api/scoresheet", "/api/scoresheet.csv",
                     "/api/rounds", "/api/hands/1/record", "/api/hands/1/record?format=text", "/api/records",
                     "/api/records?format=text"):
            r = c.get(path)
            assert r.status_code == 200, (path, r.text)
            seen[path] = r.text if "format=text" in path or path.endswith(".csv") else json.dumps(r.json(),
                                                                                                    ensure_ascii=False)
        with c.websocket_connect("/ws") as ws:
            seen["/ws"] = json.dumps(ws.receive_json(), ensure_ascii=False)
        leaks = [(where, word) for where, text in seen.items() for word in SECRET if word in text]
        assert not leaks, leaks
        # the public reads that it was refused, and that today's rules would not take the one kept
        public = {a["seq"]: a for a in c.get("/api/actions").json()}
        assert public[refused["seq"]]["error"] == WITHHELD and public[kept["seq"]]["rescored"] == {"valid": False}
        line = next(x for x in c.get("/api/state").json()["log"] if x["seq"] == refused["seq"])
        assert line["text"] == f"裁判确认和牌（无效：{WITHHELD}）" and WITHHELD in line["text_en"]
        lines = c.get("/api/hands/1/record").json()["lines"]
        assert next(x for x in lines if x["seq"] == refused["seq"])["refused"] == WITHHELD
        # the referee reads why, in each place
        mine = {path: c.get(path, headers=REF).text for path in ("/api/referee/state", "/api/referee/hands/1/record")}
        assert all("自己打过所听的二筒" in text for text in mine.values()), mine
    store.close()
