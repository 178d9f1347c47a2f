"""Roles and credentials: referee and operator tokens, compared in constant time, attempts rate-limited.

A configured credential is the token itself or its scrypt hash (`web.hashed`); whether a token matches a
hash is remembered under an HMAC (a key of this process) of the pair, so no request pays for scrypt twice."""

from __future__ import annotations

import hashlib
import hmac
import logging
import math
import secrets
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

from table_controller.web import hashed

ROLES = ("viewer", "operator", "referee")
ROLE_ZH = {"viewer": "观众", "operator": "操作员", "referee": "裁判"}
#: Past this many clients with failures on record, those whose failures have all expired are dropped.
MAX_CLIENTS = 1000
#: Wrong credentials from all addresses together within the window, as a multiple of one address's
#: `max_failures`, past which only addresses that logged in lately are checked (`Credentials.lockout`).
TABLE_FACTOR = 4
#: How long an address that gave a right credential stays one that logged in lately (a day's session).
TRUSTED_S = 12 * 3600.0
#: The Pi's own browser (the kiosk): never held by the table's budget, only by its own address's.
OWN_SCREEN = frozenset({"127.0.0.1", "::1"})
#: What a refused client is told, by the lockout's kind (the pages show it as it comes).
LOCKOUT_SAYS = {
    "client": "尝试次数过多，请稍后再试 / too many failed attempts",
    "table": "多个地址连续输入错误凭证，本桌暂停新设备登录，请稍后再试；已登录过的设备不受影响 / wrong credentials "
             "from many addresses: a device that has not logged in here lately waits a minute (those that have "
             "are not held up)",
}

#: Token and hashed-credential pairs remembered (`Credentials._checked`) before they are all forgotten.
MAX_CHECKED = 4096
#: A credential shorter than this is guessed too soon (the referee guide asks 6+; named referees must: config.Referee).
MIN_CREDENTIAL = 6
#: PINs and words tried first by anyone guessing (common-password lists, and this trade's own words); a run
#: (123456, abcdef), one character (000000) and a repeated unit (121212, 123123) are caught by `weakness` itself.
COMMON = frozenset({
    "password", "password1", "passw0rd", "qwerty", "qwerty123", "qwertyuiop", "asdfgh", "asdfghjkl", "zxcvbn",
    "1q2w3e", "1q2w3e4r", "q1w2e3r4", "abc123", "abc12345", "a123456", "123456a", "admin", "admin123", "iloveyou",
    "112233", "123321", "147258", "147258369", "159357", "159753", "5201314", "520520", "woaini", "woaini1314",
    "mahjong", "majiang", "referee", "caipan", "operator", "changeme", "secret", "letmein",
})

log = logging.getLogger("table_controller.web.auth")


def _is_run(value: str) -> bool:
    """Each character one after the other, up or down (123456, 654321, abcdef, 345678)."""
    steps = {ord(b) - ord(a) for a, b in zip(value, value[1:])}
    return len(value) > 1 and (steps == {1} or steps == {-1})


def weakness(value: str) -> str | None:
    """Why a referee's or operator's credential is guessed soon ("" counts as none: one is made up at start),
    Chinese first, never quoting it; None for one that is not. A whole tournament's guessing budget
    (`TABLE_FACTOR` x 5 a minute) takes hours for a random 6-digit PIN and one try for 123456."""
    if not value or hashed.is_hashed(value):  # a hash says nothing of the PIN (`tablectl pin` refused a weak one)
        return None
    if len(value) < MIN_CREDENTIAL:
        return f"只有 {len(value)} 个字符，易被猜中 / {len(value)} characters: use at least {MIN_CREDENTIAL}"
    low = value.lower()
    if low in COMMON or _is_run(low):
        return "常见密码或连续字符，一猜即中 / a common PIN or a run of characters: guessed at once"
    for unit in range(1, len(low) // 2 + 1):
        if len(low) % unit == 0 and low == low[:unit] * (len(low) // unit):
            return "重复的字符，一猜即中 / one character or group repeated: guessed at once"
    return None


def weak_credentials(display: Any) -> list[str]:
    """Each configured credential of `[display]` that `weakness` names: its key and why (never its value)."""
    found = [(f"[display] {key}", getattr(display, key)) for key in ("referee_token", "operator_token")]
    found += [(f"[[display.referees]] {r.name}", r.token) for r in display.referees]
    return [f"{where}: {why}" for where, value in found if (why := weakness(value))]


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
    #: wrong credentials from all addresses together within the window before only addresses that
    #: logged in lately are checked; default `TABLE_FACTOR` times `max_failures`
    max_table_failures: int = 0
    _failures: dict[str, deque[float]] = field(default_factory=dict)
    #: every wrong credential within the window, whichever the address
    _table: deque[float] = field(default_factory=deque)
    #: address → when it last gave a right credential
    _trusted: dict[str, float] = field(default_factory=dict)
    #: HMAC (under `_key`) of a token and a hashed credential → whether they match: scrypt once per pair, so
    #: neither the referee whose hash it is nor one whose hash it is not (the operator, another referee) pays
    #: for it on every request
    _checked: dict[bytes, bool] = field(default_factory=dict)
    _key: bytes = field(default_factory=lambda: secrets.token_bytes(32))
    #: held from a guess's lockout check to its failure counted (`attempt`)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    #: told the keys of credentials that changed (`replace`, `reconfigure`): the display ends their sessions
    listeners: list[Callable[[list[tuple[str, str]]], None]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.max_table_failures <= 0:
            self.max_table_failures = TABLE_FACTOR * self.max_failures

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
        """This client's credential is not checked now (`lockout`)."""
        return self.lockout(client) is not None

    def lockout(self, client: str) -> str | None:
        """Why this client's credential is not checked now, a key of `LOCKOUT_SAYS`, or None.

        `"client"`: too many wrong ones from it within the window. `"table"`: too many from all
        addresses together, and it gave no right one lately. One address alone made guessing slow,
        but a laptop on the venue's Wi-Fi takes as many addresses as it likes (200 aliases guessed
        1,000 times a minute here, a 6-digit PIN in hours); the real referee's tablet, logged in
        before, goes on while a stranger's addresses wait."""
        now = self.clock()
        while self._table and now - self._table[0] > self.window_s:
            self._table.popleft()
        q = self._failures.get(client)
        if q is not None:
            while q and now - q[0] > self.window_s:
                q.popleft()
            if not q:
                del self._failures[client]
            elif len(q) >= self.max_failures:
                return "client"
        if len(self._table) >= self.max_table_failures and not self._trusted_now(client, now):
            return "table"
        return None

    def retry_after(self, client: str) -> int:
        """Whole seconds (at least 1) until this client's credential is checked again, as the lockout stands now:
        a 429's `Retry-After`, so the referee's page asks again when it can (a held page kept its PIN)."""
        now = self.clock()
        ends = [now]
        q = self._failures.get(client)
        if q is not None and len(q) >= self.max_failures:
            ends.append(q[-self.max_failures] + self.window_s)
        if len(self._table) >= self.max_table_failures and not self._trusted_now(client, now):
            ends.append(self._table[-self.max_table_failures] + self.window_s)
        return max(1, math.ceil(max(ends) - now))

    def _trusted_now(self, client: str, now: float) -> bool:
        """Logged in lately, or the Pi's own screen (behind a reverse proxy every client is 127.0.0.1,
        and all of them share one address's 5 a minute, tighter than the table's)."""
        at = self._trusted.get(client)
        return client in OWN_SCREEN or at is not None and now - at <= TRUSTED_S

    def _succeeded(self, client: str) -> None:
        """Remember an address that gave a right credential; the map keeps the latest `MAX_CLIENTS`."""
        self._trusted.pop(client, None)
        self._trusted[client] = self.clock()
        while len(self._trusted) > MAX_CLIENTS:
            del self._trusted[next(iter(self._trusted))]

    def attempt(self, token: str | None, client: str) -> tuple[str | None, tuple[str, str] | None]:
        """(why this client is held, a key of `LOCKOUT_SAYS`, or None; what `identify` gives the token, or None
        where a held client's token was not checked). The check and the count of a wrong one are one step: a
        hashed credential's check is scrypt's 50-100 ms, and guesses sent together all passed the lockout
        check before the first was counted (20 at once from one address were 20 checked, not 5)."""
        with self._lock:
            held = self.lockout(client)
            if held is not None and token:
                return held, None
            return held, self.identify(token, client)

    def identify(self, token: str | None, client: str) -> tuple[str, str] | None:
        """(role, name) a token grants (`name` is "" but for a named referee), `("viewer", "")`
        without one, or None for a wrong token (counted against the client)."""
        if not token:
            return ("viewer", "")
        found = self.find(token)
        if found is None:
            self._failed(client)
        else:
            self._succeeded(client)
        return found

    def find(self, token: str) -> tuple[str, str] | None:
        """(role, name) of the credential `token` is, or None; nothing counted (`identify` counts)."""
        found: tuple[str, str] | None = None
        # Compare against every credential so the timing does not tell which one was close.
        for own, name in list(self.referees.items()):
            if self._matches(token, own):
                found = found or ("referee", name)
        if self.referee and self._matches(token, self.referee):
            found = found or ("referee", "")
        if self.operator and self._matches(token, self.operator):
            found = found or ("operator", "")
        return found

    def replace(self, key: tuple[str, str], stored: str) -> None:
        """Put `stored` (a token or its hash) in place of the credential at `key` (`credential_file.Key`):
        the old one stops matching at once, on every request and socket check from now on; listeners are
        told so they can end what the old one opened."""
        if key[0] == "token":
            self.referees = {**{t: n for t, n in self.referees.items() if n != key[1]}, stored: key[1]}
        elif key[0] == "referee_token":
            self.referee = stored
        else:
            self.operator = stored
        self._checked.clear()  # the old hash's pairs (a new hash makes new pairs anyway)
        for listener in list(self.listeners):
            listener([key])

    def reconfigure(self, display: Any) -> list[tuple[str, str]]:
        """Take `[display]`'s credentials as the file now sets them (edited, or `tablectl pin --config`);
        one the file leaves empty keeps what it is (made up at start). The keys that changed."""
        changed: list[tuple[str, str]] = []
        by_name = {n: t for t, n in self.referees.items()}
        wanted = {r.name: r.token for r in display.referees}
        for name in set(by_name) - set(wanted):
            self.referees = {t: n for t, n in self.referees.items() if n != name}
            changed.append(("token", name))
        for name, token in wanted.items():
            if by_name.get(name) != token:
                self.referees = {**{t: n for t, n in self.referees.items() if n != name}, token: name}
                changed.append(("token", name))
        for key in ("referee_token", "operator_token"):
            now = getattr(display, key)
            held = self.referee if key == "referee_token" else self.operator
            if now and now != held:
                setattr(self, "referee" if key == "referee_token" else "operator", now)
                changed.append((key, ""))
        if changed:
            self._checked.clear()
            for listener in list(self.listeners):
                listener(changed)
        return changed

    def _matches(self, token: str, own: str) -> bool:
        """`token` is the configured credential `own`: the same text (compared in constant time), or
        the text its hash was made from (scrypt the first time, then the remembered HMAC)."""
        if not hashed.is_hashed(own):
            return hmac.compare_digest(token.encode(), own.encode())
        mark = hmac.new(self._key, token.encode() + b"\0" + own.encode(), hashlib.sha256).digest()
        known = self._checked.get(mark)
        if known is not None:
            return known
        found = hashed.matches(token, own)
        if len(self._checked) >= MAX_CHECKED:
            self._checked.clear()
        self._checked[mark] = found
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
        while self._table and now - self._table[0] > self.window_s:
            self._table.popleft()
        self._table.append(now)
        if len(self._table) == self.max_table_failures:
            log.warning("wrong credentials from many addresses: only those logged in lately are checked", extra={
                "client": client, "addresses": len(self._failures), "failures": len(self._table),
                "window_s": self.window_s,
                "message_zh": f"{self.window_s:.0f} 秒内 {len(self._failures)} 个地址输入错误凭证 {len(self._table)} 次，"
                              "已暂停新设备登录；已登录过的设备不受影响"})
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
