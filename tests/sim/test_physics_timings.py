"""Mechanism timings scale for demos and tests, but the link's heartbeat keeps its period."""

import pytest

from tablesim.physics import Timings


def test_scaled_timings_divide_mechanism_times_and_keep_the_heartbeat() -> None:
    base = Timings.default()
    fast = base.scaled(10)
    assert fast.build == {k: v / 10 for k, v in base.build.items()}
    assert (fast.raise_walls, fast.lower_walls, fast.dice_settle) == (
        base.raise_walls / 10, base.lower_walls / 10, base.dice_settle / 10)
    assert fast.heartbeat == base.heartbeat
    assert base.scaled(1) == base


@pytest.mark.parametrize("speed", [0, -2, float("nan"), float("inf")])  # nan made every timing nan
def test_scaled_refuses_a_speed_that_is_not_positive(speed: float) -> None:
    with pytest.raises(ValueError, match="a finite number above 0"):
        Timings.default().scaled(speed)
