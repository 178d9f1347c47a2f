"""Roles and credentials: referee and operator tokens, compared in constant time, attempts rate-limited."""

from __future__ import annotations

import hmac
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

ROLES = ("viewer", "operator", "referee")
ROLE_ZH = {"viewer": "观众", "operator": "操作员", "referee": "裁判"}
#: Past this many clients with failures on record, those whose failures have all expired are dropped.
MAX_CLIENTS = 1000

log = logging.getLogger("table_controller.web.auth")


@dataclass
class Credentials:
    """The tokens of one table; an empty token never matches. `referees` maps a named referee's
    token to the name, so that each ruling is logged under the referee who made it."""

    referee: str
    operator: str
    max_failures: int = 5
    window_s: float = 60.0
    clock: Callable[[], float] = time.monotonic
    referees: dict[str, str] = field(default_factory=dict)
    _failures: dict[str, deque[float]] = field(default_factory=dict)

    @classmethod
    def from_display(cls, display: Any, generate: Callable[[], str]) -> "Credentials":
        """From `[display]`: its tokens, a `generate`d one for each left empty (logged at start
        by the caller), and its named referees; with named referees and no `referee_token`,
        no anonymous referee credential at all."""
        named = {r.token: r.name for r in display.referees}
        return cls(referee=display.referee_token or ("" if named else generate()),
                   operator=display.operator_token or generate(), referees=named)

    def generated(self, display: Any) -> dict[str, str]:
        """The credentials made up at start because `[display]` left them empty: the only ones
        ever printed or logged (a configured one stays in the config file, off the console and
        the journal, which more people read than the config)."""
        made: dict[str, str] = {}
        if not display.referee_token and not display.referees:
            made["referee_token"] = self.referee
        if not display.operator_token:
            made["operator_token"] = self.operator
        return made

    def locked_out(self, client: str) -> bool:
        """Too many wrong tokens from this client within the window."""
        now = self.clock()
        q = self._failures.get(client)
        if q is None:
            return False
        while q and now - q[0] > self.window_s:
            q.popleft()
        if not q:
            del self._failures[client]
            return False
        return len(q) >= self.max_failures

    def identify(self, token: str | None, client: str) -> tuple[str, str] | None:
        """(role, name) a token grants (`name` is "" but for a named referee), `("viewer", "")`
        without one, or None for a wrong token (counted against the client)."""
        if not token:
            return ("viewer", "")
        given = token.encode()
        found: tuple[str, str] | None = None
        # Compare against every credential so the timing does not tell which one was close.
        for own, name in self.referees.items():
            if hmac.compare_digest(given, own.encode()):
                found = found or ("referee", name)
        if self.referee and hmac.compare_digest(given, self.referee.encode()):
            found = found or ("referee", "")
        if self.operator and hmac.compare_digest(given, self.operator.encode()):
            found = found or ("operator", "")
        if found is None:
            self._failed(client)
        return found

    def _failed(self, client: str) -> None:
        """Count a wrong credential; the one that locks a client out is logged (its address, never
        what it sent), so the chief referee learns that someone is guessing. Clients whose failures
        are all older than the window are forgotten: the map does not grow with every address seen."""
        now = self.clock()
        if len(self._failures) > MAX_CLIENTS:
            for other in [c for c, q in self._failures.items() if not q or now - q[-1] > self.window_s]:
                del self._failures[other]
        q = self._failures.setdefault(client, deque())
        while q and now - q[0] > self.window_s:
            q.popleft()
        q.append(now)
        if len(q) == self.max_failures:
            log.warning("wrong credentials: client locked out", extra={
                "client": client, "failures": len(q), "window_s": self.window_s,
                "message_zh": f"{client} 多次输入错误凭证，已暂停其登录 {self.window_s:.0f} 秒"})

    def role_of(self, token: str | None, client: str) -> str | None:
        """The role a token grants, `"viewer"` without one, or None for a wrong token (counted)."""
        got = self.identify(token, client)
        return got[0] if got else None


def allows(role: str, needed: str) -> bool:
    """A referee may do what an operator may; an operator what a viewer may."""
    return ROLES.index(role) >= ROLES.index(needed)
