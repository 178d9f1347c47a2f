"""MQTT client ids that another broker user cannot guess.

The broker (MQTT 3.1.1, Mosquitto) gives a client id to whoever connects with it last, whatever its
user: "Client hub-cup already connected, closing old connection". With ids anyone could write down
(`hub-<tournament>`, `table-<tournament>-<table id>`), one table's password was enough to throw the
hub off the broker (the standings froze while it came back, and again at each try) or another table
(its will then told the hub it was lost). Each id now ends with a digest of the user's own password:
the same at every start (the hub's persistent session waits under it), and nobody without that
password can make it. Without a password the broker lets anyone be anyone anyway.
"""

from __future__ import annotations

import hashlib
import hmac

#: Hex digits of the digest kept: 48 bits, not to be guessed over a broker's connection rate.
DIGEST_CHARS = 12


def private_client_id(base: str, password: str | None) -> str:
    """`base` followed by a digest of `password` (`base` alone where there is none)."""
    if not password:
        return base
    digest = hmac.new(password.encode(), b"tablectl mqtt client id " + base.encode(), hashlib.sha256).hexdigest()
    return f"{base}-{digest[:DIGEST_CHARS]}"
