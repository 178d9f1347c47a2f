"""JSON answers that a hall of screens and phones polls: written once per change of what they say, compressed
once, and not sent again to a client that already holds them.

A national event's hub has 64 tables sending a message a second each, and 200-300 phones and 10 screens
asking for the standings every few seconds. FastAPI made each answer afresh from the hub's dicts (the
standings: 233 KB of JSON at 64 tables' 7 rounds, its players' part changing only at a hand's end), on the
hub's loop, and sent it whole, uncompressed, to every client each time. Here an answer is cut in parts, each
written when its key changes (the players when a result changes, the tables' rows when a message comes);
a gzip stream is kept at the end of each part, so an answer costs a copy of the compressor and the part that
changed; and `ETag` / `If-None-Match` answers 304 to a client whose copy is current. A member "stamped" at
each answer (`at`: the hub's time) is not in the ETag (it is weak: the same standings at another moment).
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

#: Smaller answers go as they are: a gzip header and trailer outweigh what they save.
GZIP_MIN = 1400
#: Parts and compressor states kept (a compressor is ~260 KB of zlib's memory).
KEPT = 32


@dataclass(frozen=True)
class Part:
    """Members of the answer that change together: `key` names what they are made from (it must change when
    they do: the hub's version, its results' count); `make` gives them (a dict of members, or the whole
    answer as any JSON value when it is the only part)."""

    key: Hashable
    make: Callable[[], Any]


def _json(value: Any) -> bytes:
    """As Starlette's JSONResponse writes it."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")).encode("utf-8")


def _accepts_gzip(header: str) -> bool:
    """`Accept-Encoding` names gzip (or `*`) without `q=0`."""
    for item in header.split(","):
        name, _, params = item.partition(";")
        if name.strip().lower() in ("gzip", "*"):
            q = params.strip().lower()
            try:
                return not (q.startswith("q=") and float(q[2:] or 0) == 0)
            except ValueError:  # a weight that is no number: taken as not weighed
                return True
    return False


def _matches(header: str, etag: str) -> bool:
    """`If-None-Match` holds `etag` (compared weakly, as RFC 9110 says for it) or is `*`."""
    bare = etag.removeprefix("W/")
    return any(t.strip() == "*" or t.strip().removeprefix("W/") == bare for t in header.split(","))


class Polled:
    """The answers of one app; `builds` counts the parts made, `answered` the answers by (name, status)."""

    def __init__(self, kept: int = KEPT) -> None:
        self.kept = kept
        self.builds = 0
        self.answered: Counter[tuple[str, int]] = Counter()
        self._parts: OrderedDict[Hashable, tuple[bytes, bytes]] = OrderedDict()  # key → (JSON, its digest)
        self._gz: OrderedDict[tuple[Hashable, ...], tuple[Any, bytes]] = OrderedDict()  # keys → (compressor, out)

    def _keep(self, kept: OrderedDict[Any, Any], key: Any, value: Any) -> None:
        kept[key] = value
        kept.move_to_end(key)
        while len(kept) > self.kept:
            kept.popitem(last=False)

    def _part(self, part: Part, whole: bool) -> tuple[bytes, bytes]:
        key = (part.key, whole)  # the members alone, or the whole answer
        found = self._parts.get(key)
        if found is None:
            value = part.make()
            if whole:
                text = _json(value)
            else:
                if not isinstance(value, dict):
                    raise TypeError(f"a part of an answer must be a dict of members, not {type(value).__name__}")
                text = _json(value)[1:-1]  # the members, without the braces
            self.builds += 1
            found = (text, hashlib.blake2b(text, digest_size=16).digest())
            self._keep(self._parts, key, found)
        else:
            self._parts.move_to_end(key)
        return found

    def answer(self, request: Request, parts: Sequence[Part], stamp: dict[str, Any] | None = None,
               name: str = "") -> Response:
        """The answer made of `parts` (least often changing first: the compressed stream is kept after each)
        and `stamp`'s members as of now; 304 where the client's `If-None-Match` is this answer's ETag.
        `name` tells apart the ETags of answers made of the same parts."""
        whole = len(parts) == 1 and not stamp
        made = [self._part(p, whole) for p in parts]
        etag = 'W/"' + hashlib.blake2b(name.encode() + b"".join(d for _, d in made), digest_size=12).hexdigest() + '"'
        headers = {"ETag": etag, "Cache-Control": "no-cache", "Vary": "Accept-Encoding"}
        if _matches(request.headers.get("if-none-match", ""), etag):
            self.answered[name, 304] += 1
            return Response(status_code=304, headers=headers)
        self.answered[name, 200] += 1
        tail = _json(stamp)[1:-1] if stamp else b""
        if whole:
            opening, pieces, closing = b"", [made[0][0]], b""
        else:
            # a part with no members writes nothing, and no comma: the same keys always write the same pieces
            pieces, any_before = [], False
            for text, _ in made:
                pieces.append((b"," if any_before and text else b"") + text)
                any_before = any_before or bool(text)
            opening, closing = b"{", (b"," if tail and any_before else b"") + tail + b"}"
        size = len(opening) + sum(map(len, pieces)) + len(closing)
        if size < GZIP_MIN or not _accepts_gzip(request.headers.get("accept-encoding", "")):
            return Response(opening + b"".join(pieces) + closing, media_type="application/json", headers=headers)
        return Response(self._gzip(name, [p.key for p in parts], opening, pieces, closing),
                        media_type="application/json", headers={**headers, "Content-Encoding": "gzip"})

    def _gzip(self, name: str, keys: list[Hashable], opening: bytes, pieces: list[bytes], closing: bytes) -> bytes:
        """The answer gzipped: from the compressor kept after the longest run of parts unchanged, so only what
        changed since, and the closing stamp, are compressed now."""
        done, comp, out = 0, None, b""
        for i in range(len(keys), 0, -1):
            kept = self._gz.get((name, *keys[:i]))
            if kept is not None:
                done, (comp, out) = i, kept
                self._gz.move_to_end((name, *keys[:i]))
                break
        if comp is None:
            comp = zlib.compressobj(6, zlib.DEFLATED, 31)  # 31: the gzip format
            out = comp.compress(opening)
        for i in range(done, len(keys)):
            comp = comp.copy()  # the one kept before stays where it was, for answers that differ from here on
            out += comp.compress(pieces[i])
            self._keep(self._gz, (name, *keys[: i + 1]), (comp, out))
        last = comp.copy()
        return out + last.compress(closing) + last.flush()
