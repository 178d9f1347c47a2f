"""A credential kept in the config as a scrypt hash, not as itself: `scrypt$N$r$p$SALT$HASH`.

A table.toml is copied (USB sticks, support tickets, the venue's shared drive) far more than a PIN is
typed; a hash there gives a reader nothing to log in with. scrypt, not SHA-256: a 6-digit PIN has a
million values, which SHA-256 runs through in a second; scrypt (16 MiB, about 50 ms a try here) makes
that days, on top of the table's own lockout for guesses over the network."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

PREFIX = "scrypt$"
#: scrypt's cost: 2**14 blocks of 128 * 8 bytes (16 MiB), as Python's docs and OWASP's minimum suggest
N, R, P = 2**14, 8, 1
SALT_BYTES, HASH_BYTES = 16, 32


class HashError(ValueError):
    """A value that starts like a hashed credential but is not one (a line pasted short)."""


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def is_hashed(value: str) -> bool:
    """Whether a configured credential is the hashed form (anything else is the credential itself)."""
    return value.startswith(PREFIX)


def hash_credential(plain: str, salt: bytes | None = None) -> str:
    """The hashed form of a credential, to put in the config instead of it."""
    salt = salt if salt is not None else secrets.token_bytes(SALT_BYTES)
    digest = hashlib.scrypt(plain.encode(), salt=salt, n=N, r=R, p=P, dklen=HASH_BYTES, maxmem=64 * 1024 * 1024)
    return f"{PREFIX}{N}${R}${P}${_b64(salt)}${_b64(digest)}"


def parse(value: str) -> tuple[int, int, int, bytes, bytes]:
    """(n, r, p, salt, hash) of a hashed credential; `HashError` naming what is wrong (never the value)."""
    parts = value[len(PREFIX):].split("$")
    if len(parts) != 5:
        raise HashError("a hashed credential is scrypt$N$r$p$SALT$HASH, as `tablectl pin` prints it")
    try:
        n, r, p = (int(x) for x in parts[:3])
        salt, digest = _unb64(parts[3]), _unb64(parts[4])
    except ValueError:
        raise HashError("a hashed credential's N, r, p are numbers and SALT, HASH base64: paste the whole line "
                        "`tablectl pin` printed") from None
    if n < 2 or n & (n - 1) or not 1 <= r <= 64 or not 1 <= p <= 16 or n * r * 128 > 256 * 1024 * 1024:
        raise HashError("a hashed credential's N must be a power of 2 and N, r, p within scrypt's usual range")
    if len(salt) < SALT_BYTES or len(digest) != HASH_BYTES:
        raise HashError("a hashed credential's SALT or HASH is cut short: paste the whole line `tablectl pin` printed")
    return n, r, p, salt, digest


def matches(plain: str, stored: str) -> bool:
    """Whether `plain` is the credential `stored` (hashed) was made from; the hash compared in constant time."""
    n, r, p, salt, digest = parse(stored)
    got = hashlib.scrypt(plain.encode(), salt=salt, n=n, r=r, p=p, dklen=len(digest), maxmem=512 * 1024 * 1024)
    return hmac.compare_digest(got, digest)
