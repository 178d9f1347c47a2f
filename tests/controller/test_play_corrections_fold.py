"""A play corrected in the fold (`referee.play_correct`, `corrections.py`): what the record derives from
the play follows the correction (a kong's payment, the hand's row on the score sheet after its end), a
snapshot taken mid-hand goes on as the whole log folds, and an undo puts the play back."""

from __future__ import annotations

import pickle
import time

from table_controller.scoresheet import compute
from table_controller.state import apply, fold

from test_referee_fold import Log  # type: ignore[import-not-found]


def _kong_hand() -> tuple[Log, int]:
    """四川: a concealed kong keyed for S that W made; returns the log and the kong's seq."""
    log = Log("sichuan")
    log.start(hand_no=1, dealer=1)
    log.add("table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]})
    log.add("operator", "play.deal_done", {})
    log.add("operator", "play.discard", {"seat": "E", "tile": "1m"})
    log.add("operator", "play.discard", {"seat": "S", "tile": "2m"})
    kong = log.add("operator", "play.kong", {"seat": "S", "tiles": ["7s"] * 4, "concealed": True})
    return log, kong.seq


def test_a_kongs_payment_follows_the_seat_corrected_after_the_hand_ended() -> None:
    log, kong = _kong_hand()
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    before = fold(log.events)
    (paid,) = before.hands[-1]["kong_payments"]
    assert paid["seat"] == "S" and paid["by_wind"]["S"] > 0
    log.ref("referee.play_correct", target=kong, seat="W", reason="是西家暗杠")
    after = log.state()
    (paid,) = after.hands[-1]["kong_payments"]
    assert paid["seat"] == "W" and paid["by_wind"]["W"] > 0 and "S" not in [w for w, v in paid["by_wind"].items()
                                                                           if v > 0]
    assert after.hand["melds"]["W"][0]["tiles"] == ["7s"] * 4 and after.hand["melds"]["S"] == []
    # the score sheet's kong points move with it: chair 3 (W) is paid, chair 2 (S) pays like the others
    assert compute(before)["rows"][-1]["kong_points"] == {"1": -2, "2": 6, "3": -2, "4": -2}
    assert compute(after)["rows"][-1]["kong_points"] == {"1": -2, "2": -2, "3": 6, "4": -2}
    log.ref("referee.undo", reason="原来没错")
    back = log.state()
    assert back.hands[-1]["kong_payments"] == before.hands[-1]["kong_payments"]
    assert [e.type for e in log.events[-2:]] == ["referee.play_correct", "referee.undo"]


def test_a_snapshot_taken_after_a_correction_goes_on_as_the_whole_log() -> None:
    log, kong = _kong_hand()
    log.ref("referee.play_correct", target=kong, seat="W", reason="是西家暗杠")
    mid = pickle.loads(pickle.dumps(fold(log.events), protocol=5))  # as `snapshot.save` keeps it
    first = log.add("operator", "play.discard", {"seat": "W", "tile": "9p"})
    log.ref("referee.play_correct", target=first.seq, tile="8p", reason="看错")
    goes_on = apply(apply(mid, log.events[-2]), log.events[-1])
    whole = fold(log.events)
    assert goes_on.hand == whole.hand and goes_on.log == whole.log and goes_on.actions == whole.actions
    assert [d["tile"] for d in whole.hand["discards"]["W"]] == ["8p"] and whole.hand["melds"]["W"]


def test_a_correction_early_in_a_long_hand_folds_it_again_in_well_under_a_second() -> None:
    """88 discards and 4 camera sightings each (445 events): about 6 ms here to fold the hand again."""
    log = Log("mcr")
    log.start(hand_no=1, dealer=1)
    log.add("table", "table.dice", {"seat": "E", "wind": "E", "dice": [3, 4]})
    log.add("table", "table.dice", {"seat": "W", "wind": "W", "dice": [2, 5]})
    log.add("demo", "play.deal_done", {})
    tiles = [f"{r}{s}" for s in "mps" for r in range(1, 10)] + [f"{r}z" for r in range(1, 8)]
    plays = []
    for i in range(88):
        seat = "ESWN"[i % 4]
        for k in range(4):
            log.add("camera", "camera.tile_appeared", {"event": "appeared", "zone": f"discard:{seat}",
                                                       "kind": tiles[i % 34], "confidence": 0.9, "wind": seat,
                                                       "track": i * 10 + k})
        plays.append(log.add("demo", "play.discard", {"seat": seat, "tile": tiles[i % 34]}).seq)
    state = fold(log.events)
    fix = log.ref("referee.play_correct", target=plays[0], tile="9s", reason="看错")
    began = time.perf_counter()
    after = apply(state, fix)
    took = time.perf_counter() - began
    assert after.hand["discards"]["E"][0]["tile"] == "9s" and after.hand["tiles_left"] == state.hand["tiles_left"]
    assert took < 1.0, took


def test_a_concealed_kongs_faces_put_right_stay_hidden_from_the_public() -> None:
    """The correction names the kong's tiles; the public state, its actions and the event as the public
    socket sends it show none of them (the kong face down), the referee's view has them."""
    import json

    from table_controller.projection import public_event, public_view, referee_view

    log, kong = _kong_hand()
    fix = log.ref("referee.play_correct", target=kong, tiles=["8s"] * 4, reason="是八条")
    state = log.state()
    assert state.hand["melds"]["S"][0]["tiles"] == ["8s"] * 4
    assert "8s" in json.dumps(referee_view(state))
    shown = json.dumps(public_view(state), ensure_ascii=False) + json.dumps(public_event(fix.to_json()))
    assert "8s" not in shown and "7s" not in shown, shown
    assert "裁判更正 #" in shown and "南家暗杠" in shown


def test_an_undo_sent_without_its_target_names_it_in_the_log() -> None:
    """`POST /api/referee/undo` may leave out `target` (the last action is meant): the log line said
    "裁判撤销 #：…" with no number; it names the action undone."""
    log, kong = _kong_hand()
    fix = log.ref("referee.play_correct", target=kong, seat="W", reason="是西家暗杠")
    log.ref("referee.undo", reason="原来没错")
    assert log.state().log[-1]["text"] == f"裁判撤销 #{fix.seq}：原来没错"
