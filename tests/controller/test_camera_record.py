"""The camera keeps the play record: what it sees laid down becomes `play.*` events in the real log,
through the same checks as keyed play, never twice, in the order of play."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from table_controller.camera import CameraWatcher
from table_controller.config import parse_config
from table_controller.controller import Controller, side_of_wind
from table_controller.store import EventStore

DEALER = 2  # chair 2 deals: the winds sit one side round from the table's sides, as in most hands


async def _no_table(url: str) -> Any:
    raise ConnectionRefusedError(f"nothing at {url}")


@pytest.fixture(params=[True])
def table(tmp_path: Path, request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    """A controller on a real SQLite log, an MCR hand started by chair 2, its dice thrown (param False: not yet)."""
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test")
    store = EventStore(tmp_path / "events.sqlite3")
    controller = Controller(cfg, store, _no_table)
    seats = {w: (i + DEALER - 1) % 4 + 1 for i, w in enumerate("ESWN")}
    controller.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "mcr", "dealer_position": DEALER,
                                                          "prevalent_wind": "E", "seats": seats, "table_dice": 2})
    watcher = CameraWatcher(controller, make_loop=lambda: None)
    if request.param:
        throw(controller)
    yield controller, watcher
    store.close()


def throw(controller: Controller) -> None:
    """The dice thrown (3+4, then the second thrower's 2+5): the wall is broken, the deal made."""
    for dice in ([3, 4], [2, 5]):  # (a ruleset of one throw takes the first)
        hand = controller.state.hand
        if hand["deal"] is None:
            side = side_of_wind(hand["next_thrower"], hand["dealer_position"])
            controller.accept("table", "table.dice", {"seat": side, "wind": hand["next_thrower"], "dice": dice})
    assert controller.state.hand["deal"] is not None


class Camera:
    """Tile events as the reader's tracker announces them, placed by wind (turned into the table's side)."""

    def __init__(self) -> None:
        self.track = 0

    def lay(self, area: str, wind: str, kind: str, unsure: bool = False) -> dict[str, Any]:
        self.track += 1
        return {"event": "appeared", "zone": f"{area}:{side_of_wind(wind, DEALER)}", "kind": kind, "track": self.track,
                "confidence": 0.5 if unsure else 0.98, "needs_referee": unsure}


def gone(ev: dict[str, Any]) -> dict[str, Any]:
    return {**ev, "event": "disappeared"}


def plays(controller: Controller) -> list[tuple[str, dict[str, Any]]]:
    keep = ("seat", "tile", "kind", "from", "tiles", "concealed", "added")
    return [(e.type, {k: e.data[k] for k in keep if k in e.data and e.data[k] not in ([], False)})
            for e in controller.store.since(0) if e.type.startswith("play.")]


def test_discards_flowers_and_a_pung_seen_become_the_record_once(table) -> None:  # type: ignore[no-untyped-def]
    controller, watcher = table
    cam = Camera()
    watcher._record_play([cam.lay("flower", "S", "3f")])  # flowers laid out while the deal goes on
    first = cam.lay("discard", "E", "9p")
    watcher._record_play([first])
    assert plays(controller) == [("play.flower", {"seat": "S", "tile": "3f"}), ("play.deal_done", {}),
                                 ("play.discard", {"seat": "E", "tile": "9p"})]
    assert controller.state.hand["discards"]["E"][0]["tile"] == "9p"
    s_discard = cam.lay("discard", "S", "5s")
    watcher._record_play([s_discard])
    # W pungs S's 5s: it leaves S's pool and three 5s lie in W's meld area, seen in one step;
    # the meld area is judged once it has settled (the next step)
    watcher._record_play([gone(s_discard)] + [cam.lay("meld", "W", "5s") for _ in range(3)])
    assert plays(controller)[-1][0] == "play.discard"  # the meld area must settle for a step first
    watcher._record_play([])
    assert plays(controller)[-2:] == [("play.discard", {"seat": "S", "tile": "5s"}),
                                      ("play.claim", {"seat": "W", "kind": "pung", "from": "S", "tiles": ["5s"] * 3})]
    hand = controller.state.hand
    assert hand["discards"]["S"][0]["claimed"] and hand["turn"]["seat"] == "W"
    # a hand hides E's pool for a moment: its tile is found again as a new track, nothing is recorded
    watcher._record_play([gone(first)])
    watcher._record_play([cam.lay("discard", "E", "9p")])
    n = len(plays(controller))
    watcher._record_play([cam.lay("discard", "W", "1z")])
    assert len(plays(controller)) == n + 1 and plays(controller)[-1] == ("play.discard", {"seat": "W", "tile": "1z"})
    # the fourth 5s beside W's pung: 补杠; the pung becomes a kong where it lies
    controller.record_play("play.discard", {"seat": "N", "tile": "2m"}, by="operator", source="operator")
    controller.record_play("play.discard", {"seat": "E", "tile": "3m"}, by="operator", source="operator")
    controller.record_play("play.discard", {"seat": "S", "tile": "4m"}, by="operator", source="operator")
    watcher._record_play([cam.lay("meld", "W", "5s")])
    watcher._record_play([])
    assert plays(controller)[-1] == ("play.kong", {"seat": "W", "tiles": ["5s"] * 4, "added": True})
    assert [m["type"] for m in controller.state.hand["melds"]["W"]] == ["kong"]


def test_a_concealed_kong_whose_backs_the_camera_cannot_see_is_recorded_from_its_two_faces(table) -> None:  # type: ignore[no-untyped-def]
    """暗杠 laid with its ends face down on a felt of the backs' colour: the camera finds only the
    two faces. Two alike in the seat's own turn (and not the open discard, which a pung being laid
    would show) are that kong; found by the players' kongs in bench/camera_record.py (twelfth
    session), where such kongs were never recorded."""
    controller, watcher = table
    cam = Camera()
    watcher._record_play([cam.lay("discard", "E", "9p")])
    s_discard = cam.lay("discard", "S", "5s")
    watcher._record_play([s_discard])
    assert controller.state.hand["turn"]["seat"] == "W"
    watcher._record_play([cam.lay("meld", "N", "7z"), cam.lay("meld", "N", "7z")])  # not N's turn
    watcher._record_play([])
    watcher._record_play([cam.lay("meld", "W", "5s"), cam.lay("meld", "W", "5s")])  # S's 5s: a pung being laid
    watcher._record_play([])
    assert plays(controller)[-1] == ("play.discard", {"seat": "S", "tile": "5s"})
    watcher._record_play([gone(s_discard), cam.lay("meld", "W", "5s")])  # the pung laid whole
    watcher._record_play([])
    assert plays(controller)[-1] == ("play.claim", {"seat": "W", "kind": "pung", "from": "S", "tiles": ["5s"] * 3})
    watcher._record_play([cam.lay("meld", "W", "3m"), cam.lay("meld", "W", "3m")])
    watcher._record_play([])
    assert plays(controller)[-1] == ("play.kong", {"seat": "W", "tiles": ["3m"] * 4, "concealed": True})
    assert [m.get("concealed") for m in controller.state.hand["melds"]["W"]] == [False, True]
    assert controller.state.hand["melds"]["N"] == []


def test_a_misread_refused_at_every_turn_is_told_to_the_referee_once_per_reason(table) -> None:  # type: ignore[no-untyped-def]
    """A tile beside W's pung read as a fifth 5s (a 补杠 that cannot be) stays there and is offered
    again at every step: refused as out of turn while others play and as a fifth copy in W's turn.
    The referee is told each reason once, not again at each turn (before: four times a round)."""
    controller, watcher = table
    cam = Camera()
    watcher._record_play([cam.lay("discard", "E", "9p")])
    s_discard = cam.lay("discard", "S", "5s")
    watcher._record_play([s_discard])
    watcher._record_play([gone(s_discard)] + [cam.lay("meld", "W", "5s") for _ in range(3)])
    watcher._record_play([])
    for seat, tile in (("W", "1z"), ("N", "5s"), ("E", "2m")):
        watcher._record_play([cam.lay("discard", seat, tile)])
    assert plays(controller)[-1] == ("play.discard", {"seat": "E", "tile": "2m"})
    watcher._record_play([cam.lay("meld", "W", "5s")])  # misread: four 5s already lie face up
    for seat, tile in (("S", "3m"), ("W", "4m"), ("N", "6m"), ("E", "7m"), ("S", "8m")):
        watcher._record_play([])
        controller.record_play("play.discard", {"seat": seat, "tile": tile}, by="operator", source="operator")
    watcher._record_play([])
    told = [e.data["reason"] for e in controller.store.since(0) if e.type == "camera.play_refused"]
    assert len(told) == 2, told
    assert any("5s" in r for r in told) and any("not W's turn" in r for r in told)
    assert [m["type"] for m in controller.state.hand["melds"]["W"]] == ["pung"]


def test_a_pung_of_a_discard_never_seen_records_that_discard_first(table) -> None:  # type: ignore[no-untyped-def]
    """S discards 5s under a sleeve and W pungs it before the pool is in view again: the camera
    never sees the discard. Three 5s in W's meld area, none open in a pool, and S (whose turn it
    was) showing nothing unread: S discarded 5s and W punged it, both recorded. Before (twelfth
    session) the pung waited for the referee and every play after it was refused as out of turn."""
    controller, watcher = table
    cam = Camera()
    watcher._record_play([cam.lay("discard", "E", "9p")])
    sleeve = (f"discard:{side_of_wind('S', DEALER)}",)  # S's pool covered while S discards
    watcher._record_play([], occluded=sleeve)
    watcher._record_play([cam.lay("meld", "W", "5s") for _ in range(3)], occluded=sleeve)
    watcher._record_play([])
    assert plays(controller)[-2:] == [("play.discard", {"seat": "S", "tile": "5s"}),
                                      ("play.claim", {"seat": "W", "kind": "pung", "from": "S", "tiles": ["5s"] * 3})]
    watcher._record_play([cam.lay("discard", "W", "1z")])  # and play goes on from the camera
    assert plays(controller)[-1] == ("play.discard", {"seat": "W", "tile": "1z"})
    # N's turn, but a tile in N's pool is not read yet: its pung by E is not inferred (it waits)
    unsure = cam.lay("discard", "N", "7m", unsure=True)
    watcher._record_play([unsure], occluded=(f"discard:{side_of_wind('N', DEALER)}",))
    watcher._record_play([cam.lay("meld", "E", "7m") for _ in range(3)])
    watcher._record_play([])
    assert plays(controller)[-1] == ("play.discard", {"seat": "W", "tile": "1z"})
    assert not [e for e in controller.store.since(0) if e.type == "camera.play_refused"]


def test_keyed_play_is_not_recorded_again_and_a_camera_restart_adds_nothing(table) -> None:  # type: ignore[no-untyped-def]
    controller, watcher = table
    controller.record_play("play.deal_done", {}, by="operator", source="operator")
    controller.record_play("play.discard", {"seat": "E", "tile": "7m"}, by="operator", source="operator")
    cam = Camera()
    lying = [cam.lay("discard", "E", "7m")]
    watcher._record_play(lying)
    assert [t for t, _ in plays(controller)] == ["play.deal_done", "play.discard"]  # keyed already
    lying.append(cam.lay("discard", "S", "8m"))
    watcher._record_play(lying[-1:])
    assert plays(controller)[-1] == ("play.discard", {"seat": "S", "tile": "8m"})
    before = len(plays(controller))
    # the service restarts: a new watcher sees every tile lying on the table afresh
    again = CameraWatcher(controller, make_loop=lambda: None)
    again._record_play([{**ev, "track": 100 + i} for i, ev in enumerate(lying)])
    assert len(plays(controller)) == before


def test_an_unsure_tile_holds_its_pool_until_the_referee_rules_and_out_of_turn_is_refused(table) -> None:  # type: ignore[no-untyped-def]
    controller, watcher = table
    cam = Camera()
    watcher._record_play([cam.lay("discard", "E", "2p")])
    unsure = cam.lay("discard", "S", "6m", unsure=True)
    watcher._record_play([unsure])
    assert [d.get("tile") for _, d in plays(controller)] == [None, "2p"]  # deal_done, E's discard
    # the referee rules: it is a 9m; the camera records it as the referee said
    watcher._record_play([{"event": "ruled", "zone": unsure["zone"], "kind": "9m", "track": unsure["track"]}])
    assert plays(controller)[-1] == ("play.discard", {"seat": "S", "tile": "9m"})
    # N lays a tile while W is to play: the record refuses it and the referee is told why
    watcher._record_play([cam.lay("discard", "N", "4p")])
    refused = [e for e in controller.store.since(0) if e.type == "camera.play_refused"]
    assert len(refused) == 1 and refused[0].data["play"] == "play.discard" and "W" in refused[0].data["reason"]
    assert controller.state.hand["turn"]["seat"] == "W"
    assert any("未记入牌谱" in line["text"] for line in controller.state.log)


def test_a_tile_in_a_pool_before_the_dealers_first_discard_waits_for_it(table) -> None:  # type: ignore[no-untyped-def]
    """S's tile seen in its pool before the dealer (东) has discarded, 配牌完成 not pressed: refused (the dealer
    plays first), told once, and recorded after the dealer's discard once that is seen. Before, it went in
    as the hand's first play and the dealer's discard after it was refused as out of turn."""
    controller, watcher = table
    cam = Camera()
    early = cam.lay("discard", "S", "5s")
    watcher._record_play([early])
    watcher._record_play([])
    assert plays(controller) == [] and controller.state.hand["turn"] is None
    refused = [e for e in controller.store.since(0) if e.type == "camera.play_refused"]
    assert len(refused) == 1 and refused[0].data["reason"].startswith("未轮到南家，现在是东家：庄家先出牌")
    watcher._record_play([cam.lay("discard", "E", "9p")])
    assert plays(controller) == [("play.deal_done", {}), ("play.discard", {"seat": "E", "tile": "9p"}),
                                 ("play.discard", {"seat": "S", "tile": "5s"})]
    assert controller.state.hand["turn"]["seat"] == "W"


@pytest.mark.parametrize("table", [False], indirect=True)
def test_tiles_seen_before_the_dice_are_recorded_once_the_wall_is_broken(table) -> None:  # type: ignore[no-untyped-def]
    """Before the dice there is no deal: what the camera sees laid (a stray tile, a player ahead of the table) is
    refused, the referee told once why (尚未开门 … 请先掷骰), and recorded in order once the dice are in. Before,
    it went into the record of a hand with no wall."""
    controller, watcher = table
    cam = Camera()
    watcher._record_play([cam.lay("discard", "E", "9p")])
    watcher._record_play([])  # the next steps offer it again: the referee is not told again
    watcher._record_play([])
    assert plays(controller) == []
    told = [e.data for e in controller.store.since(0) if e.type == "camera.play_refused"]
    assert [d["play"] for d in told] == ["play.deal_done", "play.discard"]
    assert all(d["reason"].startswith("尚未开门，不能录入行牌：请先掷骰（应由东家掷骰") for d in told)
    throw(controller)
    watcher._record_play([])
    assert plays(controller) == [("play.deal_done", {}), ("play.discard", {"seat": "E", "tile": "9p"})]
    watcher._record_play([])
    assert len(plays(controller)) == 2 and controller.state.hand["turn"]["seat"] == "S"


def test_an_opening_flower_seen_with_the_dealers_first_discard_goes_before_it(table) -> None:  # type: ignore[no-untyped-def]
    """S's opening 补花 and E's first discard laid within one camera period (or both waiting for the dice): the
    flower is the opening's, before the dealer's discard (walls.md). Before, the discard went in first and the
    flower after it, as S's in its own turn after a draw."""
    controller, watcher = table
    cam = Camera()
    watcher._record_play([cam.lay("discard", "E", "9p"), cam.lay("flower", "S", "3f")])
    assert plays(controller) == [("play.flower", {"seat": "S", "tile": "3f"}), ("play.deal_done", {}),
                                 ("play.discard", {"seat": "E", "tile": "9p"})]
    hand = controller.state.hand
    assert hand["turn"]["seat"] == "S" and hand.get("live_drawn", 0) == 0 and hand["tail_drawn"] == 1  # S has not drawn
    # in play too a seat's 补花 seen with its discard goes before it: laid after the draw, before the discard
    watcher._record_play([cam.lay("discard", "S", "5s"), cam.lay("flower", "S", "4f")])
    assert plays(controller)[-2:] == [("play.flower", {"seat": "S", "tile": "4f"}),
                                      ("play.discard", {"seat": "S", "tile": "5s"})]


def test_a_flower_and_the_discard_after_it_seen_in_one_step_go_in_as_they_were_made(
        table) -> None:  # type: ignore[no-untyped-def]
    """W's 补花 seen before S's discard (refused then as out of turn), then the discard W made after its replacement
    draw seen with S's: S's discard, W's flower, W's discard, in the order of play (补花在自己摸牌后、出牌前).
    Before, the pools went first: W's discard went in, then the flower after it (the record takes a flower from
    the seat with the newest discard), out of place. A flower the record refuses
    for another reason (a second 4f) holds no discard back."""
    controller, watcher = table
    cam = Camera()
    watcher._record_play([cam.lay("discard", "E", "9p")])
    hidden = cam.lay("discard", "S", "1z")  # the camera has not confirmed it yet: W's flower is out of turn
    watcher._record_play([cam.lay("flower", "W", "8f")])
    watcher._record_play([hidden, cam.lay("discard", "W", "3z")])
    assert plays(controller)[-3:] == [("play.discard", {"seat": "S", "tile": "1z"}),
                                      ("play.flower", {"seat": "W", "tile": "8f"}),
                                      ("play.discard", {"seat": "W", "tile": "3z"})]
    watcher._record_play([cam.lay("discard", "N", "2z")])
    watcher._record_play([cam.lay("discard", "E", "5p")])
    watcher._record_play([cam.lay("flower", "S", "8f"), cam.lay("discard", "S", "6p")])  # a misread: 8f is W's
    assert plays(controller)[-1] == ("play.discard", {"seat": "S", "tile": "6p"})
    assert controller.state.hand["turn"]["seat"] == "W"
    told = [e.data for e in controller.store.since(0) if e.type == "camera.play_refused"]
    assert [(d["play"], d["tile"]) for d in told] == [("play.flower", "8f")] * 2
    assert "未轮到西家补花" in told[0]["reason"] and "第 2 张" in told[1]["reason"]


def test_no_record_without_a_hand_or_when_switched_off(tmp_path: Path) -> None:
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}}, "test")
    store = EventStore(tmp_path / "events.sqlite3")
    controller = Controller(cfg, store, _no_table)
    cam = Camera()
    CameraWatcher(controller, make_loop=lambda: None)._record_play([cam.lay("discard", "E", "2p")])  # no hand
    controller.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": "mcr", "dealer_position": DEALER,
                                                          "prevalent_wind": "E"})
    CameraWatcher(controller, make_loop=lambda: None, record_play=False)._record_play([cam.lay("discard", "E", "2p")])
    assert plays(controller) == []
    store.close()


def test_the_referee_reads_a_win_from_the_hand_the_camera_sees_laid_down(table) -> None:  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from table_controller.web.app import create_app
    from table_controller.web.auth import Credentials

    controller, watcher = table
    controller.camera = watcher
    cam = Camera()
    for seat, tile in (("E", "9s"), ("S", "8s"), ("W", "2p")):
        watcher._record_play([cam.lay("discard", seat, tile)])
    ref = {"Authorization": "Bearer ref-pin-1"}
    with TestClient(create_app(controller, Credentials(referee="ref-pin-1", operator="op-pin-2"))) as http:
        assert http.post("/api/referee/win/camera", json={"seat": "N"}, headers=ref).status_code == 409  # nothing laid
        # N lays the hand face up in front of it: most of it where melds go, the rest by the flowers
        hand = "1m 2m 3m 4m 5m 6m 7m 8m 9m 1p 1p 1p 2p".split()
        unsure = cam.lay("flower", "N", "2p", unsure=True)
        watcher._record_play([cam.lay("meld", "N", t) for t in hand[:9]] + [cam.lay("flower", "N", t) for t in hand[9:12]]
                             + [unsure])
        watcher._record_play([])
        assert [t for t, _ in plays(controller)][-1] == "play.discard"  # thirteen tiles make no meld
        r = http.post("/api/referee/win/camera", json={"seat": "N"}, headers=ref)
        assert r.status_code == 409 and "1" in r.json()["detail"]  # one tile still waits for a ruling
        watcher._record_play([{"event": "ruled", "zone": unsure["zone"], "kind": "2p", "track": unsure["track"]}])
        assert http.post("/api/referee/win/camera", json={"seat": "N", "win": "self_draw"},
                         headers=ref).status_code == 422  # which tile was drawn: the referee must say
        r = http.post("/api/referee/win/camera", json={"seat": "N"}, headers=ref)
        assert r.status_code == 200, r.text
        read = controller.state.actions[-1]
        assert read["type"] == "referee.win_read" and read["seat"] == "N"
        assert sorted(read["hand"]["concealed"]) == sorted(hand) and read["hand"]["win_tile"] == "2p"
        assert read["hand"]["discarder"] == "W" and read["hand"]["visible"] == {"9s": 1, "8s": 1}
        assert read["result"]["valid"] and read["result"]["payments"]["W"] < 0
        public = http.get("/api/state").json()
        assert "1m" not in str(public.get("win")) and "concealed" not in str(public.get("win"))  # never public
        assert http.post("/api/referee/win/confirm", headers=ref).status_code == 200


def test_a_hand_laid_down_tile_by_tile_is_not_taken_for_a_claim(table) -> None:  # type: ignore[no-untyped-def]
    controller, watcher = table
    cam = Camera()
    for seat, tile in (("E", "9s"), ("S", "8s"), ("W", "2p")):
        watcher._record_play([cam.lay("discard", seat, tile)])
    n = len(plays(controller))
    # N lays 1p 2p 3p first (a run with W's 2p!), then the rest of the hand over the next steps
    for group in (["1p", "2p", "3p"], ["4m", "5m", "6m"], ["7m", "8m", "9m", "1z"], ["1z", "1z", "5s"]):
        watcher._record_play([cam.lay("meld", "N", t) for t in group])
    watcher._record_play([])
    assert len(plays(controller)) == n


def test_a_winner_laying_a_concealed_pung_first_is_not_taken_for_a_pung_of_an_unseen_discard(table) -> None:  # type: ignore[no-untyped-def]
    """E wins on W's 2p and lays 1z 1z 1z first, then, after a pause, the rest. The three alike
    looked like a pung of a discard N made unseen (N's turn, nothing unread in N's pool): the
    record took N's "1z" and E's pung. N's pool was in view all along: a discard there would
    have been seen, so nothing is inferred."""
    controller, watcher = table
    cam = Camera()
    for seat, tile in (("E", "9s"), ("S", "8s"), ("W", "2p")):
        watcher._record_play([cam.lay("discard", seat, tile)])
    n = len(plays(controller))
    watcher._record_play([cam.lay("meld", "E", "1z") for _ in range(3)])
    for _ in range(3):
        watcher._record_play([])  # the pause
    watcher._record_play([cam.lay("meld", "E", t) for t in ("4m", "5m", "6m", "7p", "8p", "9p", "3s", "3s", "2p")])
    watcher._record_play([])
    assert len(plays(controller)) == n
    assert not [e for e in controller.store.since(0) if e.type == "camera.play_refused"]


def test_a_pool_covered_long_ago_or_a_camera_blind_a_moment(table) -> None:  # type: ignore[no-untyped-def]
    """The inference needs the discarder's pool unwatched lately: covered more than
    UNWATCHED_STEPS ago is in view since (nothing inferred); a camera blind for a step (unplugged,
    dark) watched no pool, so a pung seen after it may have taken a discard made meanwhile."""
    from table_controller.camera_record import UNWATCHED_STEPS

    controller, watcher = table
    cam = Camera()
    watcher._record_play([cam.lay("discard", "E", "9p")])
    watcher._record_play([], occluded=(f"discard:{side_of_wind('S', DEALER)}",))
    for _ in range(UNWATCHED_STEPS):
        watcher._record_play([])
    n = len(plays(controller))
    watcher._record_play([cam.lay("meld", "W", "5s") for _ in range(3)])
    watcher._record_play([])
    assert len(plays(controller)) == n  # S's pool in view for 20 steps: no discard went unseen there
    watcher._record_play([], blind=True)  # the camera unplugged for a moment
    watcher._record_play([])
    assert plays(controller)[n:] == [("play.discard", {"seat": "S", "tile": "5s"}),
                                     ("play.claim", {"seat": "W", "kind": "pung", "from": "S", "tiles": ["5s"] * 3})]


def test_a_fifth_copy_of_a_tile_is_refused_as_a_misread(table) -> None:  # type: ignore[no-untyped-def]
    controller, watcher = table
    cam = Camera()
    for seat in "ESWN":  # four 3z discarded in a row: all there are
        watcher._record_play([cam.lay("discard", seat, "3z")])
    watcher._record_play([cam.lay("discard", "E", "3z")])  # the camera misreads E's next discard
    refused = [e for e in controller.store.since(0) if e.type == "camera.play_refused"]
    assert len(refused) == 1 and "3z" in refused[0].data["reason"]
    assert sum(d["tile"] == "3z" for pool in controller.state.hand["discards"].values() for d in pool) == 4
    watcher._record_play([cam.lay("flower", "E", "5f")])  # E, in turn, draws a plum
    watcher._record_play([cam.lay("flower", "E", "5f")])  # one plum in a set
    refused = [e.data for e in controller.store.since(0) if e.type == "camera.play_refused"]
    assert [r["play"] for r in refused] == ["play.discard", "play.flower"] and "5f" in refused[1]["reason"]


def test_a_tile_found_again_where_it_was_lost_is_not_a_new_play(table) -> None:  # type: ignore[no-untyped-def]
    """E's 1z is lost from view and found again (a new track) in the very frame E's new discard,
    5z, appears: by where they lie, the camera records the 5z. And a discard taken by a pung leaves
    for good: S's next 3m, laid where the claimed one lay, is a new play."""
    controller, watcher = table
    cam = Camera()

    def at(ev: dict[str, Any], x: float, y: float) -> dict[str, Any]:
        return {**ev, "at": [x, y]}

    e1 = at(cam.lay("discard", "E", "1z"), 100, 500)
    watcher._record_play([e1])
    s1 = at(cam.lay("discard", "S", "3m"), 600, 300)
    watcher._record_play([s1])
    watcher._record_play([gone(s1)] + [at(cam.lay("meld", "W", "3m"), 300 + 30 * k, 60) for k in range(3)])
    watcher._record_play([])  # W pungs S's 3m
    watcher._record_play([at(cam.lay("discard", "W", "9p"), 300, 200)])
    watcher._record_play([at(cam.lay("discard", "N", "8p"), 200, 300)])
    watcher._record_play([gone(e1)])  # a hand over E's pool
    watcher._record_play([at(cam.lay("discard", "E", "5z"), 130, 500), at(cam.lay("discard", "E", "1z"), 101, 501)])
    watcher._record_play([at(cam.lay("discard", "S", "3m"), 600, 301)])  # where the claimed 3m lay
    assert [d for _, d in plays(controller)][-2:] == [{"seat": "E", "tile": "5z"}, {"seat": "S", "tile": "3m"}]
    assert not [e for e in controller.store.since(0) if e.type == "camera.play_refused"]


def test_after_a_claim_the_camera_missed_the_referee_keys_only_the_claim(table) -> None:  # type: ignore[no-untyped-def]
    """N pungs S's 7m where the camera cannot see the meld: N's next discard is refused (W's turn by
    the record) and the referee is told once; the referee keys the pung, and the discard refused
    meanwhile is recorded at the camera's next step without being keyed."""
    controller, watcher = table
    cam = Camera()
    watcher._record_play([cam.lay("discard", "E", "2p")])
    seven = {**cam.lay("discard", "S", "7m"), "at": [400.0, 300.0]}
    watcher._record_play([seven])
    watcher._record_play([gone(seven), cam.lay("discard", "N", "4p")])  # the pung itself is not seen
    for _ in range(3):
        watcher._record_play([])
    refused = [e for e in controller.store.since(0) if e.type == "camera.play_refused"]
    assert len(refused) == 1 and refused[0].data["tile"] == "4p"
    assert controller.state.hand["discards"]["N"] == []
    controller.record_play("play.claim", {"seat": "N", "kind": "pung", "from": "S", "tiles": ["7m"] * 3}, by="referee")
    watcher._record_play([])
    assert plays(controller)[-2:] == [("play.claim", {"seat": "N", "kind": "pung", "from": "S", "tiles": ["7m"] * 3}),
                                      ("play.discard", {"seat": "N", "tile": "4p"})]
    assert controller.state.hand["turn"]["seat"] == "E"
    watcher._record_play([cam.lay("discard", "E", "9s")])  # and play goes on from there
    assert plays(controller)[-1] == ("play.discard", {"seat": "E", "tile": "9s"})
    # S lays another 7m just where the claimed one lay: a new discard, not the old one found again
    watcher._record_play([{**cam.lay("discard", "S", "7m"), "at": [402.0, 301.0]}])
    assert plays(controller)[-1] == ("play.discard", {"seat": "S", "tile": "7m"})
    assert len([e for e in controller.store.since(0) if e.type == "camera.play_refused"]) == 1


def test_plays_refused_in_a_steps_first_pass_and_recorded_in_its_last_are_not_told(table) -> None:  # type: ignore[no-untyped-def]
    """S's pung seen while the pools lay under a sleeve; then, in one step, S's discard, W's, N's and E's 5s, and S's
    1z after its pung. The step's first pass took S's 1p and refused its 1z as out of turn (the pung waits for E's
    5s, not yet in the record), and recorded the 1z in its last pass (AGAIN): in order, and yet the referee was
    told it was refused (bench/camera_record.py with things on the felt: 4 times in 3 hands). Now what lands in the
    same step is not told; what stays refused still is, once."""
    controller, watcher = table
    cam = Camera()
    watcher._record_play([cam.lay("discard", "E", "2p")])
    watcher._record_play([cam.lay("meld", "S", "5s") for _ in range(3)])
    watcher._record_play([cam.lay("discard", "S", "1p"), cam.lay("discard", "W", "2s"), cam.lay("discard", "N", "3s"),
                          cam.lay("discard", "E", "5s"), cam.lay("discard", "S", "1z")])
    assert plays(controller)[-6:] == [
        ("play.discard", {"seat": "S", "tile": "1p"}), ("play.discard", {"seat": "W", "tile": "2s"}),
        ("play.discard", {"seat": "N", "tile": "3s"}), ("play.discard", {"seat": "E", "tile": "5s"}),
        ("play.claim", {"seat": "S", "kind": "pung", "from": "E", "tiles": ["5s"] * 3}),
        ("play.discard", {"seat": "S", "tile": "1z"})]
    assert not [e.data for e in controller.store.since(0) if e.type == "camera.play_refused"]
    watcher._record_play([cam.lay("discard", "N", "7p")])  # out of turn (W's): refused, told once
    watcher._record_play([])
    told = [e.data for e in controller.store.since(0) if e.type == "camera.play_refused"]
    assert [(d["seat"], d["tile"]) for d in told] == [("N", "7p")] and "未轮到北家" in told[0]["reason"]


def test_a_claim_from_the_previous_seat_keyed_after_the_claimers_discard_keeps_the_turn(table) -> None:  # type: ignore[no-untyped-def]
    """S pungs E's 2p out of the camera's view and discards 4p, in turn as far as the record knows;
    the referee keys the pung afterwards: the turn stays with W and the draw S never made is not
    counted."""
    controller, watcher = table
    cam = Camera()
    two = {**cam.lay("discard", "E", "2p"), "at": [300.0, 200.0]}
    watcher._record_play([two])
    watcher._record_play([gone(two), cam.lay("discard", "S", "4p")])
    hand = controller.state.hand
    assert hand["turn"]["seat"] == "W" and hand["live_drawn"] == 1  # the record thinks S drew
    controller.record_play("play.claim", {"seat": "S", "kind": "pung", "from": "E", "tiles": ["2p"] * 3}, by="referee")
    hand = controller.state.hand
    assert hand["turn"]["seat"] == "W" and hand["live_drawn"] == 0
    assert hand["discards"]["E"][-1]["claimed"] and hand["melds"]["S"][0]["tiles"] == ["2p"] * 3
    # the log keeps arrival order and says the pung was keyed after S's discard
    assert controller.state.log[-1]["text"].endswith("（补记：记入时该家已出牌）")
    assert "补记" not in next(x["text"] for x in controller.state.log if x["type"] == "play.discard")
    watcher._record_play([cam.lay("discard", "W", "9s")])
    assert plays(controller)[-1] == ("play.discard", {"seat": "W", "tile": "9s"})
    assert not [e for e in controller.store.since(0) if e.type == "camera.play_refused"]


def test_blood_battle_play_seen_before_the_referee_confirms_a_win_lands_after_it(sichuan_table: Controller) -> None:
    """四川血战: S wins on E's 4p and play goes straight on; W's discard, seen before the referee
    confirms S's win, is refused (S's turn by the record) and lands once the win is confirmed."""
    controller = sichuan_table
    store = controller.store
    watcher = CameraWatcher(controller, make_loop=lambda: None)
    track = iter(range(1, 100))

    def lay(wind: str, kind: str, at: list[float]) -> dict[str, Any]:  # chair 1 deals: sides are winds
        return {"event": "appeared", "zone": f"discard:{wind}", "kind": kind, "track": next(track),
                "confidence": 0.98, "needs_referee": False, "at": at}

    four = lay("E", "4p", [300.0, 200.0])
    watcher._record_play([four])
    watcher._record_play([gone(four), lay("W", "9m", [500.0, 200.0])])  # S took it to win; W plays on
    assert controller.state.hand["discards"]["W"] == []
    win = {"seat_wind": "S", "prevalent_wind": "E", "win": "discard", "discarder": "E", "win_tile": "4p",
           "concealed": "1m 1m 1m 2m 3m 4m 5m 6m 7m 8m 8m 2p 3p".split()}
    controller.referee_action("referee.win_read", {"hand": win}, by="referee")
    controller.referee_action("referee.win_confirm", {}, by="referee")
    watcher._record_play([])
    assert plays(controller)[-1] == ("play.discard", {"seat": "W", "tile": "9m"})
    # S lays its winning hand face up in front of it: not play (S is out), yet there to read
    laid = [{"event": "appeared", "zone": "meld:S", "kind": k, "track": next(track), "confidence": 0.98,
             "needs_referee": False} for k in win["concealed"] + ["4p"]]
    watcher._record_play(laid)
    watcher._record_play([])
    assert watcher.record.laid_down(controller.state.hand, "S")[0] == sorted(win["concealed"] + ["4p"])
    watcher._record_play([lay("N", "1s", [700.0, 200.0])])
    watcher._record_play([lay("E", "4p", [302.0, 201.0])])  # E's next 4p where the won one lay: new
    assert plays(controller)[-2:] == [("play.discard", {"seat": "N", "tile": "1s"}),
                                      ("play.discard", {"seat": "E", "tile": "4p"})]
    assert not [e for e in store.since(0) if e.type == "camera.play_refused" and e.data.get("seat") != "W"]


def test_a_discard_laid_sideways_declares_riichi_where_the_ruleset_has_it(tmp_path: Path) -> None:
    """Riichi: the discard that declares 立直 is laid sideways; the camera records the discard and
    then the declaration. Under MCR (no declarations) a tile lying askew is just a discard."""
    from vision.reader import TileReading
    from vision.tracker import TileTracker

    for ruleset, declared in (("riichi", True), ("mcr", False)):
        cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}, "rules": {"ruleset": ruleset}}, "test")
        store = EventStore(tmp_path / f"{ruleset}.sqlite3")
        controller = Controller(cfg, store, _no_table)
        seats = {w: (i + DEALER - 1) % 4 + 1 for i, w in enumerate("ESWN")}
        controller.accept("operator", "operator.hand_start", {
            "hand_no": 1, "ruleset": ruleset, "dealer_position": DEALER, "prevalent_wind": "E", "seats": seats})
        throw(controller)
        watcher = CameraWatcher(controller, make_loop=lambda: None)
        cam = Camera()
        watcher._record_play([cam.lay("discard", "E", "9p")])
        # S's discard as the tracker announces it after three frames of it lying across S's side
        side = side_of_wind("S", DEALER)
        tracker = TileTracker()
        turned = {"E": 90, "S": 180, "W": 270, "N": 0}[side]  # a quarter round from the side's upright
        reading = TileReading(kind="5s", confidence=0.97, rotation=turned, seat="", zone=f"discard:{side}",
                              quad=[[100, 100], [140, 100], [140, 130], [100, 130]], accepted=True, second="")
        events = [e for _ in range(3) for e in tracker.update([reading])]
        (appeared,) = events
        assert appeared.sideways and appeared.to_json()["sideways"] is True
        watcher._record_play([{**appeared.to_json(), "track": 99}])
        got = plays(controller)[-2:] if declared else plays(controller)[-1:]
        assert got[-1 if not declared else 0] == ("play.discard", {"seat": "S", "tile": "5s"})
        assert (got[-1][0] == "play.riichi") is declared
        assert ("S" in controller.state.hand.get("riichi", {})) is declared
        store.close()


def test_a_discard_turned_sideways_after_it_was_seen_upright_declares_riichi(tmp_path: Path) -> None:
    """A player lays the 立直 discard upright and turns it at once: the tracker announces the turn
    ("turned") and the record takes the declaration after the discard. A tile turned after its seat
    played again declares nothing."""
    from vision.reader import TileReading
    from vision.tracker import TileTracker

    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}, "rules": {"ruleset": "riichi"}}, "test")
    store = EventStore(tmp_path / "riichi.sqlite3")
    controller = Controller(cfg, store, _no_table)
    seats = {w: (i + DEALER - 1) % 4 + 1 for i, w in enumerate("ESWN")}
    controller.accept("operator", "operator.hand_start", {
        "hand_no": 1, "ruleset": "riichi", "dealer_position": DEALER, "prevalent_wind": "E", "seats": seats})
    throw(controller)
    watcher = CameraWatcher(controller, make_loop=lambda: None)
    tracker = TileTracker()
    upright = {"E": 0, "S": 90, "W": 180, "N": 270}

    def reading(wind: str, kind: str, x: float, turned: bool) -> TileReading:
        side = side_of_wind(wind, DEALER)
        return TileReading(kind=kind, confidence=0.97, rotation=(upright[side] + (90 if turned else 0)) % 360,
                           seat="", zone=f"discard:{side}", quad=[[x, 100], [x + 30, 100], [x + 30, 140], [x, 140]],
                           accepted=True, second="")

    def frames(*tiles: TileReading, n: int = 3) -> list[Any]:
        out = [e for _ in range(n) for e in tracker.update(list(tiles))]
        watcher._record_play([e.to_json() for e in out])
        return out

    e1 = reading("E", "9p", 100, False)
    frames(e1)
    s1 = reading("S", "5s", 300, False)
    (appeared,) = frames(e1, s1)
    assert appeared.event == "appeared" and not appeared.sideways
    assert plays(controller)[-1] == ("play.discard", {"seat": "S", "tile": "5s"})
    # S turns it: two frames are not yet enough, the third announces the turn once
    assert frames(e1, reading("S", "5s", 301, True), n=2) == []
    (turn,) = frames(e1, reading("S", "5s", 301, True), n=1)
    assert (turn.event, turn.kind, turn.sideways) == ("turned", "5s", True)
    assert frames(e1, reading("S", "5s", 301, True)) == []
    assert plays(controller)[-1] == ("play.riichi", {"seat": "S"}) and "S" in controller.state.hand["riichi"]
    from table_controller.state import describe
    from table_controller.store import Event

    assert "横放" in describe(Event(1, 0.0, "camera", "camera.tile_turned", turn.to_json()))
    # W discards, and again after its turn came round; turning the older tile says nothing
    w1 = reading("W", "1m", 500, False)
    frames(e1, reading("S", "5s", 301, True), w1)
    frames(e1, reading("S", "5s", 301, True), w1, reading("N", "2p", 700, False))
    frames(e1, reading("E", "3p", 130, False), reading("S", "5s", 301, True), w1, reading("N", "2p", 700, False))
    frames(e1, reading("E", "3p", 130, False), reading("S", "5s", 301, True), w1, reading("N", "2p", 700, False),
           reading("S", "6s", 331, False))
    frames(e1, reading("E", "3p", 130, False), reading("S", "5s", 301, True), w1, reading("N", "2p", 700, False),
           reading("S", "6s", 331, False), reading("W", "7m", 530, False))
    late = frames(e1, reading("E", "3p", 130, False), reading("S", "5s", 301, True), reading("W", "1m", 500, True),
                  reading("N", "2p", 700, False), reading("S", "6s", 331, False), reading("W", "7m", 530, False))
    assert [e.event for e in late] == ["turned"]
    assert "W" not in controller.state.hand["riichi"]
    assert [t for t, _ in plays(controller)].count("play.riichi") == 1
    store.close()


def test_a_tile_square_to_its_seat_is_not_sideways() -> None:
    from vision.reader import TileReading
    from vision.tracker import sideways

    def at(rotation: int, zone: str) -> TileReading:
        return TileReading(kind="5s", confidence=0.9, rotation=rotation, seat="", zone=zone, quad=[[0, 0]] * 4,
                           accepted=True, second="")

    assert [sideways(at(r, "discard:S")) for r in (0, 90, 180, 270)] == [True, False, True, False]
    assert not sideways(at(90, "centre")) and sideways(at(90, "meld:E"))


def test_while_a_hand_lies_on_the_felt_the_record_waits(table) -> None:  # type: ignore[no-untyped-def]
    """Something that is not a tile in a seat's area (`TileReader.occluded`): its tiles cannot be
    counted, and a discard under it may come before those in sight, so nothing is recorded until
    the felt is clear; then the plays land in turn."""
    controller, watcher = table
    cam = Camera()
    watcher._record_play([cam.lay("discard", "E", "9p")])
    hidden = f"discard:{side_of_wind('S', DEALER)}"
    # S discards under a sleeve the camera cannot see through; W's discard is in sight
    watcher._record_play([cam.lay("discard", "W", "1z")], (hidden,))
    watcher._record_play([], (hidden,))
    assert [d["seat"] for _, d in plays(controller) if _ == "play.discard"] == ["E"]  # waits, nothing refused
    watcher._record_play([cam.lay("discard", "S", "5s")])  # the sleeve goes: S's tile is seen
    watcher._record_play([])
    assert [(d["seat"], d["tile"]) for t, d in plays(controller) if t == "play.discard"] == [
        ("E", "9p"), ("S", "5s"), ("W", "1z")]


def test_the_log_and_the_referee_name_the_player_sitting_at_the_side_the_camera_saw(table) -> None:
    """The camera names sides; winds move round with the dealer. A tile at side S in a hand dealt
    by chair 2 is E's: its event carries the wind and the log says 东家 (before: 南家, the side's
    letter, while 南 sat elsewhere). Outside a hand the side is named by its chair."""
    from table_controller.state import describe
    from table_controller.store import Event

    controller, watcher = table
    named = watcher._named({"event": "appeared", "zone": "meld:S", "kind": "5s", "confidence": 0.9, "seat": "S",
                            "track": 1, "needs_referee": True})
    assert named["wind"] == "E" and side_of_wind("E", DEALER) == "S"
    logged = controller.offer("camera", "camera.tile_appeared", named)
    assert logged is not None and controller.state.log[-1]["text"].startswith("摄像头：东家副露区出现 五条")
    assert controller.state.camera_pending[-1]["wind"] == "E"  # the referee's list names the player too
    bare = Event(seq=1, at=0.0, source="camera", type="camera.tile_appeared",
                 data={"zone": "discard:N", "kind": "1m", "confidence": 0.99})
    assert describe(bare).startswith("摄像头：4号位弃牌区出现 一万")


def test_the_cameras_status_is_said_once_in_the_log() -> None:
    """"摄像头：摄像头未连接…" said the camera twice; a message that names it is shown as it is."""
    from table_controller.state import describe
    from table_controller.store import Event
    from vision.health import HealthStatus

    def line(status: dict) -> str:  # type: ignore[type-arg]
        return describe(Event(seq=1, at=0.0, source="camera", type="camera.status", data=status))

    assert line(HealthStatus("unplugged").to_json()) == "摄像头未连接，请手动录入"
    assert line(HealthStatus("dark").to_json()) == "摄像头：光线太暗，无法识牌，请手动录入"
    assert line({**HealthStatus("ok").to_json(), "problem": "markers hidden"}) == "摄像头正常（markers hidden）"


def test_a_ruling_changed_after_its_tile_was_recorded_is_told(table) -> None:  # type: ignore[no-untyped-def]
    """The referee rules an unsure discard 9p, the camera records it, the referee undoes the ruling
    and rules 1m. Before, the record kept 9p and the log said only "裁判确认识牌：一万"; now the
    referee is told, once, that the record still holds 9p."""
    controller, watcher = table
    cam = Camera()
    unsure = cam.lay("discard", "E", "1m", unsure=True)
    watcher._record_play([unsure])
    assert plays(controller) == []  # waits for the ruling
    ruled = {"event": "ruled", "zone": unsure["zone"], "track": unsure["track"]}
    watcher._record_play([{**ruled, "kind": "9p"}])
    assert plays(controller)[-1] == ("play.discard", {"seat": "E", "tile": "9p"})
    watcher._record_play([{**ruled, "kind": "1m"}])  # undone and ruled again
    told = [e.data for e in controller.store.since(0) if e.type == "camera.play_refused"]
    assert len(told) == 1 and "九筒 记入牌谱" in told[0]["reason"] and "改判为 一万" in told[0]["reason"]
    assert plays(controller)[-1] == ("play.discard", {"seat": "E", "tile": "9p"})
    # the referee is told which play to correct, and where; corrected, the camera records nothing more
    seq = controller.state.hand["discards"]["E"][-1]["seq"]
    assert told[0]["target"] == seq and f"（#{seq}）" in told[0]["reason"] and "更正牌谱" in told[0]["reason"]
    controller.referee_action("referee.play_correct", {"target": seq, "tile": "1m", "reason": "按改判"}, by="referee")
    assert [d["tile"] for d in controller.state.hand["discards"]["E"]] == ["1m"]
    # the tracker then announces the tile as ruled: not told again
    watcher._record_play([{**unsure, "kind": "1m", "ruled": True, "needs_referee": False}])
    assert len([e for e in controller.store.since(0) if e.type == "camera.play_refused"]) == 1
    assert len(plays(controller)) == 2  # deal done, the discard: the correction made no second one


def test_a_ruling_changed_on_an_inserted_discard_names_the_correction(table) -> None:  # type: ignore[no-untyped-def]
    """A discard the referee put in (补录) is numbered between two logged events in the fold (19.5)
    and named by its correction's seq; the camera told the referee to correct #19, the play before it."""
    controller, watcher = table
    cam = Camera()
    unsure = cam.lay("discard", "E", "1m", unsure=True)
    watcher._record_play([unsure])
    ruled = {"event": "ruled", "zone": unsure["zone"], "track": unsure["track"]}
    watcher._record_play([{**ruled, "kind": "9p"}])
    seq = controller.state.hand["discards"]["E"][-1]["seq"]
    controller.referee_action("referee.play_correct", {"target": seq, "void": True, "reason": "重复"}, by="referee")
    fix = controller.referee_action("referee.play_correct", {"insert_after": seq, "reason": "补录",
                                                             "play": {"type": "discard", "seat": "E", "tile": "9p"}},
                                    by="referee")
    pool = controller.state.hand["discards"]["E"]
    assert [d["tile"] for d in pool] == ["9p"] and pool[-1]["seq"] != int(pool[-1]["seq"])  # between two events
    watcher._record_play([{**ruled, "kind": "1m"}])  # the ruling undone and made again
    told = [e.data for e in controller.store.since(0) if e.type == "camera.play_refused"]
    assert told and told[-1]["target"] == fix.seq and f"（#{fix.seq}）" in told[-1]["reason"]
    controller.referee_action("referee.play_correct", {"target": told[-1]["target"], "tile": "1m", "reason": "按改判"},
                              by="referee")
    assert [d["tile"] for d in controller.state.hand["discards"]["E"]] == ["1m"]


def test_tiles_first_seen_together_are_told_new_from_recorded_by_their_kind(table) -> None:  # type: ignore[no-untyped-def]
    """The camera unplugged while the operator keys a round, and back as E's next discard lies unkeyed: E's keyed
    5m and the new 2z are first seen in one frame, read in whatever order the frame gives them. The record holds a
    5m there, so the 2z is the new one. Before, the later of the two by reading order was: the 5m was recorded a
    second time and the 2z never. The same after a restart, every tile seen afresh."""
    controller, watcher = table
    cam = Camera()
    watcher._record_play([cam.lay("discard", "E", "9p")])
    watcher._record_play([cam.lay("discard", "S", "1p")])
    watcher._record_play([], blind=True)  # unplugged: the operator keys the plays meanwhile
    for seat, tile in (("W", "3m"), ("N", "4m"), ("E", "5m"), ("S", "6m"), ("W", "7m"), ("N", "8m")):
        controller.record_play("play.discard", {"seat": seat, "tile": tile}, by="operator", source="operator")
    back = [cam.lay("discard", "E", "2z"), cam.lay("discard", "E", "5m"), cam.lay("discard", "W", "7m"),
            cam.lay("discard", "W", "3m"), cam.lay("discard", "N", "4m"), cam.lay("discard", "N", "8m"),
            cam.lay("discard", "S", "6m")]
    watcher._record_play(back)
    assert [d["tile"] for d in controller.state.hand["discards"]["E"]] == ["9p", "5m", "2z"]
    assert not [e for e in controller.store.since(0) if e.type == "camera.play_refused"]
    # S's next discard lies unread when the service restarts: everything on the felt is seen afresh
    lying = [cam.lay("discard", "S", "2s"), cam.lay("discard", "S", "6m"), cam.lay("discard", "S", "1p")]
    again = CameraWatcher(controller, make_loop=lambda: None)
    again._record_play(lying)
    assert [d["tile"] for d in controller.state.hand["discards"]["S"]] == ["1p", "6m", "2s"]


def test_plays_seen_in_one_step_go_in_in_the_order_they_were_made(table) -> None:  # type: ignore[no-untyped-def]
    """Plays of a step go in as they were made, whatever the seats' letters: N's discard and then E's (the turn
    round past N), W's 暗杠 and the discard W made after its replacement, N's pung of S's discard and N's discard.
    Before, the pools went E S W N and before the melds: E's discard, the kong and N's discard were each refused as
    out of turn (the referee told so), E's and N's landing a step late and the kong only at W's next turn."""
    controller, watcher = table
    cam = Camera()
    for seat, tile in (("E", "9p"), ("S", "1p"), ("W", "2p")):
        watcher._record_play([cam.lay("discard", seat, tile)])
    watcher._record_play([cam.lay("discard", "N", "3p"), cam.lay("discard", "E", "4p")])
    assert plays(controller)[-2:] == [("play.discard", {"seat": "N", "tile": "3p"}),
                                      ("play.discard", {"seat": "E", "tile": "4p"})]
    watcher._record_play([cam.lay("discard", "S", "6p")])
    # W lays four 3m face up (暗杠 shown), draws its replacement and discards at once: one step sees all
    watcher._record_play([cam.lay("meld", "W", "3m") for _ in range(4)] + [cam.lay("discard", "W", "1z")])
    watcher._record_play([])
    assert plays(controller)[-2:] == [("play.kong", {"seat": "W", "tiles": ["3m"] * 4}),
                                      ("play.discard", {"seat": "W", "tile": "1z"})]
    # E pungs W's 1z (S passed over) and discards 8s before the camera has settled the meld
    watcher._record_play([cam.lay("meld", "E", "1z") for _ in range(3)] + [cam.lay("discard", "E", "8s")])
    watcher._record_play([])
    assert plays(controller)[-2:] == [("play.claim", {"seat": "E", "kind": "pung", "from": "W", "tiles": ["1z"] * 3}),
                                      ("play.discard", {"seat": "E", "tile": "8s"})]
    assert controller.state.hand["turn"]["seat"] == "S"
    assert not [e.data for e in controller.store.since(0) if e.type == "camera.play_refused"]


def test_a_recorded_tile_that_leaves_its_pool_still_counts_there(table) -> None:  # type: ignore[no-untyped-def]
    """A sleeve pushes S's recorded 1p out of its pool (into S's meld band), unclaimed: the record still holds it
    there, so S's next discard is new. Before, the pool's count took the 5p for the 1p in the record and never
    recorded it: W's discard after it was refused as out of turn and the record stalled. A tile of the record
    hidden long and back, or announced again as its vote changes, is still not a new play."""
    controller, watcher = table
    cam = Camera()

    def at(ev: dict[str, Any], x: float, y: float) -> dict[str, Any]:
        return {**ev, "at": [x, y]}

    watcher._record_play([at(cam.lay("discard", "E", "9p"), 100, 500)])
    s1 = at(cam.lay("discard", "S", "1p"), 600, 300)
    watcher._record_play([s1])
    watcher._record_play([gone(s1), at(cam.lay("meld", "S", "1p"), 660, 300)])  # out of the pool, unclaimed
    for seat, tile in (("W", "2p"), ("N", "3p"), ("E", "4p")):
        watcher._record_play([cam.lay("discard", seat, tile)])
    watcher._record_play([at(cam.lay("discard", "S", "5p"), 600, 330)])
    watcher._record_play([cam.lay("discard", "W", "6p")])
    assert plays(controller)[-2:] == [("play.discard", {"seat": "S", "tile": "5p"}),
                                      ("play.discard", {"seat": "W", "tile": "6p"})]
    # N's 3p hidden by something the camera took for felt, long past LOST_STEPS, and back where it lay
    three = next(t for t, k in watcher.record.lying[("discard", "N")].items() if k == "3p")
    watcher._record_play([{"event": "disappeared", "zone": f"discard:{side_of_wind('N', DEALER)}", "kind": "3p",
                           "track": three, "at": [200.0, 300.0]}])
    for _ in range(30):
        watcher._record_play([])
    back = at(cam.lay("discard", "N", "3p"), 205, 300)
    watcher._record_play([back, at(cam.lay("discard", "N", "7p"), 230, 300)])  # and N's next discard
    assert plays(controller)[-1] == ("play.discard", {"seat": "N", "tile": "7p"})
    # E's 4p announced again as 1p (the tracker's vote changed): the same tile, not a discard
    four = next(t for t, k in watcher.record.lying[("discard", "E")].items() if k == "4p")
    zone = f"discard:{side_of_wind('E', DEALER)}"
    watcher._record_play([{"event": "disappeared", "zone": zone, "kind": "4p", "track": four, "at": [130.0, 500.0]},
                          {"event": "appeared", "zone": zone, "kind": "1p", "track": four, "confidence": 0.9,
                           "needs_referee": False, "at": [130.0, 500.0]}])
    watcher._record_play([])
    watcher._record_play([cam.lay("discard", "E", "8p")])
    assert [d["tile"] for d in controller.state.hand["discards"]["E"]] == ["9p", "4p", "8p"]
    assert not [e for e in controller.store.since(0) if e.type == "camera.play_refused"]


def _asked(controller: Controller, watcher: CameraWatcher, ev: dict[str, Any]) -> int:
    """An unsure reading logged as the watcher logs it (a question in `state.camera_pending`); its seq."""
    return controller.accept("camera", "camera.tile_appeared", watcher._named(ev)).seq


def _step(watcher: CameraWatcher, seen: list[dict[str, Any]] = ()) -> None:  # type: ignore[assignment]
    """One step of the watcher: what the camera saw, then the referee's rulings since the last step."""
    import asyncio

    watcher._record_play([*seen, *asyncio.run(watcher._rulings())])


def test_a_reading_ruled_no_tile_holds_its_pool_back_no_more(table) -> None:  # type: ignore[no-untyped-def]
    """A coin in S's pool read as an unsure 6m held S's discards back for the rest of the hand: the referee could
    only confirm it or name a tile. Ruled no tile (`referee.camera_dismiss`), the record goes on, the coin's
    track is passed over while it lies there, and a tile laid where it lay after it went is a new discard."""
    controller, watcher = table
    cam = Camera()
    _step(watcher, [cam.lay("discard", "E", "2p")])
    coin = {**cam.lay("discard", "S", "6m", unsure=True), "at": [400.0, 300.0]}
    asked = _asked(controller, watcher, coin)
    _step(watcher, [coin, cam.lay("discard", "S", "9m")])  # S's real discard, laid after the coin
    assert [d.get("tile") for _, d in plays(controller)] == [None, "2p"]  # held back by the coin
    controller.referee_action("referee.camera_dismiss", {"seq": asked}, by="referee")
    _step(watcher)
    assert plays(controller)[-1] == ("play.discard", {"seat": "S", "tile": "9m"})
    from table_controller.referee import camera_open

    assert camera_open(controller.state) == []  # the question is answered
    # the coin's vote changes (now read a sure 1z): passed over, not a discard of S out of turn
    _step(watcher, [{**coin, "kind": "1z", "needs_referee": False, "confidence": 0.95}])
    assert len(plays(controller)) == 3 and not [e for e in controller.store.since(0) if e.type == "camera.play_refused"]
    # the coin is picked up; W, N, E play; S lays a 7m where the coin lay: a new tile, recorded
    _step(watcher, [gone(coin)])
    for wind, tile in (("W", "3p"), ("N", "4p"), ("E", "5p")):
        _step(watcher, [cam.lay("discard", wind, tile)])
    _step(watcher, [{**cam.lay("discard", "S", "7m"), "at": [401.0, 300.0]}])
    assert [d["tile"] for d in controller.state.hand["discards"]["S"]] == ["9m", "7m"]


def test_a_no_tile_ruling_undone_brings_the_question_back_and_the_pool_waits_again(table) -> None:  # type: ignore[no-untyped-def]
    controller, watcher = table
    cam = Camera()
    _step(watcher, [cam.lay("discard", "E", "2p")])
    glare = cam.lay("discard", "W", "8s", unsure=True)  # a glare spot in W's pool
    asked = _asked(controller, watcher, glare)
    _step(watcher, [glare])
    ruling = controller.referee_action("referee.camera_dismiss", {"seq": asked}, by="referee")
    _step(watcher)
    from table_controller.referee import camera_open

    assert camera_open(controller.state) == []
    controller.referee_action("referee.undo", {"reason": "看错了，是牌", "target": ruling.seq}, by="referee")
    assert [p["seq"] for p in camera_open(controller.state)] == [asked]  # the question is back
    _step(watcher, [cam.lay("discard", "S", "9m")])
    _step(watcher, [cam.lay("discard", "W", "3p")])  # laid after the glare: waits for its ruling again
    assert [d["tile"] for d in controller.state.hand["discards"]["W"]] == []
    controller.referee_action("referee.camera_dismiss", {"seq": asked}, by="referee")
    _step(watcher)
    assert [d["tile"] for d in controller.state.hand["discards"]["W"]] == ["3p"]


def test_a_reading_recorded_before_it_was_ruled_no_tile_is_told_for_the_referee_to_void(table) -> None:  # type: ignore[no-untyped-def]
    """Confirmed as 1m and recorded, the confirmation undone, then ruled no tile: the record keeps the discard,
    and the referee is told which play to void (as a ruling changed to another tile is told)."""
    controller, watcher = table
    cam = Camera()
    coin = cam.lay("discard", "E", "1m", unsure=True)
    asked = _asked(controller, watcher, coin)
    _step(watcher, [coin])
    confirmed = controller.referee_action("referee.camera_confirm", {"seq": asked}, by="referee")
    _step(watcher)
    assert plays(controller)[-1] == ("play.discard", {"seat": "E", "tile": "1m"})
    controller.referee_action("referee.undo", {"reason": "是硬币", "target": confirmed.seq}, by="referee")
    controller.referee_action("referee.camera_dismiss", {"seq": asked}, by="referee")
    _step(watcher)
    told = [e.data for e in controller.store.since(0) if e.type == "camera.play_refused"]
    seq = controller.state.hand["discards"]["E"][-1]["seq"]
    assert len(told) == 1 and told[0]["target"] == seq, told
    assert f"一万 记入牌谱（#{seq}），裁判判为不是牌" in told[0]["reason"] and "作废" in told[0]["reason"]


def test_a_discard_laid_where_a_claimed_tile_lay_is_new_though_the_camera_follows_it_on_that_tiles_track(
        table) -> None:  # type: ignore[no-untyped-def]
    """S's next discard goes where its claimed discard lay (the row's end), under a hand over the pool: the camera
    still follows the claimed tile's track there (a covered tile has not gone) and, the hand gone, that track reads
    the new tile (its vote changed: retracted, announced again). It is S's discard, not the claimed tile read
    anew, whether the claim went in before (the pung settled) or after (the record waited for a covered area; the
    referee ruled the new tile's kind meanwhile). Before, the discard was never recorded, the referee was told the
    claimed tile's kind had been changed (改判), and every later play was refused as out of turn."""
    controller, watcher = table
    cam = Camera()
    pool_s = f"discard:{side_of_wind('S', DEALER)}"
    watcher._record_play([cam.lay("discard", "E", "9p")])
    five = {**cam.lay("discard", "S", "5s"), "at": [600.0, 300.0]}
    watcher._record_play([five])
    # W pungs it; a hand over S's pool while W lays the meld and discards, N and E discard
    watcher._record_play([cam.lay("meld", "W", "5s") for _ in range(3)], occluded=(pool_s,))
    watcher._record_play([], occluded=(pool_s,))
    watcher._record_play([cam.lay("discard", "W", "1z")], occluded=(pool_s,))
    watcher._record_play([cam.lay("discard", "N", "2z")], occluded=(pool_s,))
    watcher._record_play([cam.lay("discard", "E", "3z")], occluded=(pool_s,))
    assert plays(controller)[-1] == ("play.discard", {"seat": "S", "tile": "5s"})  # the record waits
    watcher._record_play([])  # the hand gone: the 6s lies where the 5s lay, the track's vote still 5s
    assert plays(controller)[-4:] == [("play.claim", {"seat": "W", "kind": "pung", "from": "S", "tiles": ["5s"] * 3}),
                                      ("play.discard", {"seat": "W", "tile": "1z"}),
                                      ("play.discard", {"seat": "N", "tile": "2z"}),
                                      ("play.discard", {"seat": "E", "tile": "3z"})]
    # S's 6s, laid where the 5s lay: the 5s's track now reads 6s
    watcher._record_play([{**five, "event": "disappeared"}, {**five, "kind": "6s"}])
    assert plays(controller)[-1] == ("play.discard", {"seat": "S", "tile": "6s"})
    assert controller.state.hand["turn"]["seat"] == "W"
    # again, the claim recorded after: W's 7p, N pungs it while something lies on W's pool, and the record waits
    pool_w = f"discard:{side_of_wind('W', DEALER)}"
    seven = {**cam.lay("discard", "W", "7p"), "at": [300.0, 100.0]}
    watcher._record_play([seven])
    watcher._record_play([cam.lay("meld", "N", "7p") for _ in range(3)], occluded=(pool_w,))
    for seat, tile in (("N", "4z"), ("E", "5z"), ("S", "6z")):
        watcher._record_play([cam.lay("discard", seat, tile)], occluded=(pool_w,))
    # the thing leaves: W's 8m lies where the 7p lay, unsure, and the referee names it in the same step
    watcher._record_play([{**seven, "event": "disappeared"}, {**seven, "kind": "8m", "needs_referee": True},
                          {"event": "ruled", "zone": pool_w, "kind": "8m", "track": seven["track"]}])
    assert plays(controller)[-5:] == [("play.claim", {"seat": "N", "kind": "pung", "from": "W", "tiles": ["7p"] * 3}),
                                      ("play.discard", {"seat": "N", "tile": "4z"}),
                                      ("play.discard", {"seat": "E", "tile": "5z"}),
                                      ("play.discard", {"seat": "S", "tile": "6z"}),
                                      ("play.discard", {"seat": "W", "tile": "8m"})]
    told = [e.data["reason"] for e in controller.store.since(0) if e.type == "camera.play_refused"]
    assert not [r for r in told if "改判" in r], told
