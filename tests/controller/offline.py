"""A controller whose table never answers (its link refused): the record, the referee's actions and the
score sheet alone, on a real SQLite log. Shared by the test files that key a session by hand."""

from __future__ import annotations

from pathlib import Path

from table_controller.config import parse_config
from table_controller.controller import Controller
from table_controller.store import EventStore


async def no_table(url: str) -> None:
    raise ConnectionRefusedError(url)


def offline_controller(tmp_path: Path, ruleset: str = "mcr", players: dict[str, str] | None = None) -> Controller:
    """A controller on `tmp_path / "e.sqlite3"`, configured with `ruleset` and `players` (chair → name);
    its store is `c.store`, for the caller to close."""
    cfg = parse_config({"table": {"link": "socket://127.0.0.1:9"}, "rules": {"ruleset": ruleset}}, "test")
    c = Controller(cfg, EventStore(tmp_path / "e.sqlite3"), no_table)
    c.accept("controller", "controller.configured", {"table_name": "T", "ruleset": ruleset, "players": players or {}})
    return c
