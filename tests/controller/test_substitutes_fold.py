"""替补 in the fold (pure, a hand-written log): who sat each hand of a chair, and each sitter's
hands and points as the score sheet credits them."""

from __future__ import annotations

from test_referee_fold import Log  # type: ignore[import-not-found]

from table_controller.scoresheet import compute
from table_controller.substitutes import sitters


def _sub(log: Log, position: str, name: str, reason: str = "身体不适") -> None:
    log.add("referee", "referee.substitute", {"position": position, "name": name, "reason": reason, "by": "referee"})


def _penalty(log: Log, seat: str, victim: str, amount: int) -> None:
    log.add("referee", "referee.penalty", {"seat": seat, "code": "exposed_other", "amount": amount, "victim": victim,
                                           "by": "referee"})


def test_a_player_who_leaves_and_comes_back_and_a_hand_stopped_short() -> None:
    log = Log()
    log.start(1, 1)
    _penalty(log, "S", "E", 10)  # hand 1: 乙 (chair 2, S) pays 10
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    _sub(log, "2", "壬")
    log.start(2, 2)
    log.add("operator", "operator.hand_end", {"hand_no": 2, "result": "abandoned"})  # 中止: dealt again
    log.start(3, 2)
    _penalty(log, "E", "W", 20)  # hand 3: 壬 (chair 2 deals, E) pays 20
    log.add("operator", "operator.hand_end", {"hand_no": 3, "result": "draw"})
    _sub(log, "2", "乙", "回到赛场")
    log.start(4, 3)
    log.add("operator", "operator.hand_end", {"hand_no": 4, "result": "draw"})
    sheet = compute(log.state())
    two = [(s["name"], s["from_hand"], s["to_hand"], s["hands"], s["points"]) for s in sheet["sitters"]["2"]]
    assert two == [("乙", 1, 1, 1, -10), ("壬", 2, 3, 1, -20), ("乙", 4, None, 1, 0)]  # the 中止 counts for no one
    assert [r["sat"]["2"] for r in sheet["rows"]] == ["乙", "壬", "壬", "乙"]
    assert sum(s["points"] for s in sheet["sitters"]["2"]) == sheet["totals"]["2"]


def test_a_substitute_put_back_before_a_hand_leaves_the_chair_as_it_was() -> None:
    log = Log()
    log.start(1, 1)
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    _sub(log, "3", "壬")
    _sub(log, "3", "癸")  # the name put right before hand 2: the later stands
    state = log.state()
    assert [(s["name"], s["from_hand"]) for s in sitters(state.players, state.player_ids, state.actions)["3"]] == [
        ("丙", 1), ("癸", 2)]
    _sub(log, "3", "丙", "误报，选手可以继续")
    state = log.state()
    assert [(s["name"], s["to_hand"]) for s in sitters(state.players, state.player_ids, state.actions)["3"]] == [
        ("丙", None)]
    assert "sitters" not in compute(state) and state.to_json()["sitting"]["3"] == "丙"


def test_an_old_log_folds_to_the_sheet_it_had() -> None:
    """A log with no substitution: the sheet has no `sitters` and no row a `sat` (its CSV as before)."""
    log = Log()
    log.start(1, 1)
    _penalty(log, "S", "E", 10)
    log.add("operator", "operator.hand_end", {"hand_no": 1, "result": "draw"})
    sheet = compute(log.state())
    assert "sitters" not in sheet and all("sat" not in r for r in sheet["rows"])
    assert log.state().to_json()["sitting"] == {"1": "甲", "2": "乙", "3": "丙", "4": "丁"}
