"""A session of hands played by the simulator's players, written straight into an event log.

For benchmarks and tests that need a long, real log (a restart's fold, snapshots) without running
the table: dice, every play as the camera would record it, wins read and confirmed by the referee.
"""

from __future__ import annotations

import random
import sys

from tqdm import tqdm

from table_controller.demo import win_judge
from table_controller.rules import deal_plan, load_ruleset, next_thrower, physical_wall
from table_controller.store import EventStore
from tablesim.players import play_hand


def write_session(store: EventStore, ruleset: str, hands: int, seed: int) -> int:
    """Log `hands` hands of the simulator's players; returns the events written."""
    rs = load_ruleset(ruleset)
    judge = win_judge(ruleset, "E")
    rng = random.Random(seed)
    at = 1_800_000_000.0
    n = 0

    def add(source: str, type_: str, data: dict) -> None:
        nonlocal at, n
        at += 1.5
        n += 1
        store.append(source, type_, data, at=at)

    add("controller", "controller.configured", {"table_name": "bench", "ruleset": ruleset,
                                                "players": {str(i): f"p{i}" for i in range(1, 5)}})
    for hand_no in tqdm(range(1, hands + 1), desc="hands logged", unit="hand", file=sys.stderr):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        dice2 = (rng.randint(1, 6), rng.randint(1, 6)) if rs.throws == 2 else None
        plan = deal_plan(rs, dice, dice2)
        add("operator", "operator.hand_start", {"hand_no": hand_no, "ruleset": ruleset, "dealer_position": 1})
        add("table", "table.dice", {"seat": "E", "wind": "E", "dice": list(dice)})
        if dice2 is not None:  # the seat the first throw counts to throws again (walls.md)
            second = next_thrower(rs, [dice])
            add("table", "table.dice", {"seat": second, "wind": second, "dice": list(dice2)})
        result = "draw"
        for action in play_hand(plan, physical_wall(rs, None, rng), rng, judge):
            if action.type == "win":
                add("referee", "referee.win_read", {"hand": {**action.hand, "prevalent_wind": "E"}, "by": "bench"})
                add("referee", "referee.win_confirm", {"by": "bench"})
                result = "win"
                break
            if action.type == "reveal":
                break
            type_, data = action.event()
            add("camera", type_, {**data, "by": "camera"})
        add("operator", "operator.hand_end", {"hand_no": hand_no, "result": result})
    return n
