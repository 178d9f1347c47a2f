"""One module per `tablectl` sub-command; each exposes `register(subparsers)`."""

from __future__ import annotations

import argparse


def tcp_port(text: str) -> int:
    """An argparse `type` for a TCP port to serve on: 0..65535 (0: any free one). Outside it, the
    socket's bind raised OverflowError: a traceback for `sim --tcp 99999`, `hub --port -1`, and a
    hub unit (`install-service --hub`) that failed at every start."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"端口须为 0 至 65535 的整数 / a port is a whole number 0..65535 (0: any free "
                                         f"one), not {text!r}")
    return port


def positive_number(text: str) -> float:
    """An argparse `type` for seconds or a speed factor: a finite number above 0. `probe --timeout -1`
    (or 0, nan) was taken and said "(still, after -1 s)"; `sim --speed nan` ran a table that never moved."""
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"须为大于 0 的数 / a number above 0, not {text!r}")
    return value
