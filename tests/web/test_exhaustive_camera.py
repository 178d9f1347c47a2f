"""查叫 at 荒牌 from the camera: the hands the seats still playing lay down after a 四川 draw are read
by the camera's play record and settled (查花猪, 查大叫); unsure tiles wait for the referee."""

from __future__ import annotations

from fastapi.testclient import TestClient

from table_controller.camera import CameraWatcher
from table_controller.controller import Controller
from table_controller.web.app import create_app
from table_controller.web.auth import Credentials

from test_api import OPERATOR, REFEREE, bearer  # type: ignore[import-not-found]

HANDS = {"E": "1m 1m 2m 3m 4m 6m 6m 6m 7m 8m 7p 8p 9p",   # ready on 5m / 9m
         "S": "1m 2m 4m 5p 6p 8p 9p 1s 1s 2s 3s 5s 7s",   # three suits: 花猪
         "W": "1m 3m 5m 7m 9m 2p 4p 6p 8p 1p 3p 5p 9p",   # not ready
         "N": "2s 3s 4s 5s 6s 7s 2p 2p 2p 6p 7p 9s 9s"}   # ready on 5p / 8p


def test_the_hands_laid_down_at_a_draw_are_read_for_the_check(sichuan_table: Controller) -> None:
    ctl = sichuan_table
    watcher = CameraWatcher(ctl, make_loop=lambda: None)
    ctl.camera = watcher
    tracks = iter(range(1, 200))
    c = TestClient(create_app(ctl, Credentials(referee=REFEREE, operator=OPERATOR)))
    with c:
        assert c.post("/api/referee/exhaustive/camera", headers=bearer(REFEREE)).status_code == 409  # still in play
        assert c.post("/api/hand/end", json={"result": "draw"}, headers=bearer(OPERATOR)).status_code == 200
        r = c.post("/api/referee/exhaustive/camera", headers=bearer(REFEREE))
        assert r.status_code == 409 and "未见" in r.json()["detail"]  # nothing laid down yet
        unsure = None
        for seat, tiles in HANDS.items():
            seen = []
            for i, tile in enumerate(tiles.split()):
                track = next(tracks)
                doubt = seat == "W" and i == 0
                unsure = track if doubt else unsure
                seen.append({"event": "appeared", "zone": f"meld:{seat}", "kind": tile, "track": track,
                             "confidence": 0.5 if doubt else 0.97, "needs_referee": doubt})
            watcher._record_play(seen)
        r = c.post("/api/referee/exhaustive/camera", headers=bearer(REFEREE))
        assert r.status_code == 409 and "未确认" in r.json()["detail"]  # W's first tile waits for a ruling
        watcher.record.see(ctl.state.hand, [{"event": "ruled", "zone": "meld:W", "kind": "1m", "track": unsure}])
        r = c.post("/api/referee/exhaustive/camera", headers=bearer(REFEREE))
        assert r.status_code == 200, r.text
        done = ctl.state.actions[-1]
        assert done["type"] == "referee.exhaustive" and "error" not in done
        assert done["flower_pigs"] == ["S"] and sorted(done["ready"]) == ["E", "N"] and done["not_ready"] == ["W"]
        assert sorted(done["hands"]["W"]["concealed"]) == sorted(HANDS["W"].split())
        pays = done["by_wind"]
        cap = -pays["S"] // 3  # the 花猪 pays each other seat the capped amount
        assert pays["W"] == cap - sum(done["ready"].values())  # not ready: pays each ready seat its best
        assert pays["E"] == cap + done["ready"]["E"] and sum(pays.values()) == 0
        public = c.get("/api/state").json()
        assert "hands" not in public["actions"][-1] and public["exhaustive"]["flower_pigs"] == ["S"]
        assert public["scoresheet"]["rows"][-1]["exhaustive_points"] == {"1": pays["E"], "2": pays["S"],
                                                                         "3": pays["W"], "4": pays["N"]}


def test_a_malformed_hand_at_the_check_is_a_422_that_logs_nothing(sichuan_table: Controller) -> None:
    ctl = sichuan_table
    ctl.accept("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    c = TestClient(create_app(ctl, Credentials(referee=REFEREE, operator=OPERATOR)))
    hands = {w: {"concealed": HANDS[w]} for w in "ESWN"}
    with c:
        head = ctl.state.seq
        short = {**hands, "W": {"concealed": "1m 3m 5m"}}
        r = c.post("/api/referee/exhaustive", json={"hands": short}, headers=bearer(REFEREE))
        assert r.status_code == 422 and "13" in r.json()["detail"]  # says how many a hand needs
        r = c.post("/api/referee/exhaustive", json={"hands": {"E": hands["E"]}}, headers=bearer(REFEREE))
        assert r.status_code == 422 and "E、S、W、N" in r.json()["detail"]
        r = c.post("/api/referee/exhaustive", json={"hands": {**hands, "X": hands["E"]}}, headers=bearer(REFEREE))
        assert r.status_code == 422  # not a seat: the request itself is refused
        assert ctl.state.seq == head  # nothing was logged
        assert c.post("/api/referee/exhaustive", json={"hands": hands}, headers=bearer(REFEREE)).status_code == 200
