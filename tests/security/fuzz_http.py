"""Bad requests for any FastAPI service, walked from its own `/openapi.json`, sent over real HTTP.

A `Fuzz` holds a running service's address, its credentials and a `Ledger` (what the service has
accepted: the table's event log, the hub's decisions); `Fuzz.send` sends one `Bad` request and checks
what the referee display promises: never a 5xx, a 4xx says what is wrong in JSON (Chinese first where
the code words it), the service still answers `/api/health`, a refused request leaves every accepted
record as it was, and a request without a credential changes nothing. Used by
tests/security/test_api_fuzz.py (bounded, derandomized) and bench/apifuzz.py (a longer run).
"""

from __future__ import annotations

import functools
import json
import re
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
from hypothesis import strategies as st

#: Numbers no field expects: negative, zero, past 64 bits, fractional, and JSON's non-numbers.
ODD_NUMBERS: list[Any] = [-1, 0, -(2**63), 2**63, 10**30, 1.5, -0.0, 1e308, float("nan"), float("inf"),
                          float("-inf"), True]
#: Strings no field expects: tile codes that are none (0m 10p 8z 9f), full-width and look-alike
#: characters, controls, a lone surrogate, right-to-left marks, a combining accent, path traversal, huge.
ODD_STRINGS: list[str] = [
    "", " ", "0m", "10p", "8z", "9f", "0z", "1x", "m1", "１m", "1M", "E ", "e", "东", "X", "NaN", "-1", "1e9",
    "\x00", "\ud800", "\u202e1m", "e\u0301", "🀄", "\ufeff1m", "../../etc/passwd", "..%2F..%2Fetc%2Fpasswd",
    "<script>alert(1)</script>", "'; DROP TABLE events; --", "x" * 5000, "中" * 100_000,
]
#: Path parameters a route's integer or name does not expect.
ODD_PATH = ["-1", "0", "99999999999999999999999", "1.5", "abc", "1e3", "%20", "１", "..%2F..%2Fetc%2Fpasswd",
            "%2e%2e", "%00", "NaN", "-9223372036854775809", "x" * 3000]
#: Query values likewise (sent as given: httpx encodes them).
ODD_QUERY = ["-1", "0", "1", "99999999999999999999999", "abc", "", "1.5", "true", "xml", "../../etc/passwd",
             "\x00", "NaN", "x" * 3000]
#: Idempotency-Keys: none at all (empty), too long, with a space, and one sent with many different bodies
IDEMPOTENCY_KEYS = ["", "k" * 129, "a b", "same-key", "fz-1"]
CONTENT_TYPES = ["application/json", "text/plain", "application/x-www-form-urlencoded",
                 "multipart/form-data; boundary=zz", "application/json; charset=latin-1", ""]
TEN_MB = 10 * 1024 * 1024
#: a body past this is sent in part (`Fuzz._huge`): the services refuse 1 MB and more unread
HUGE = 2 * 1024 * 1024


@functools.cache
def odd_values() -> st.SearchStrategy[Any]:
    """A JSON value a field does not expect: odd scalars, and lists and objects of them, a few deep."""
    scalar = (st.sampled_from(ODD_NUMBERS) | st.sampled_from(ODD_STRINGS[:-1]) | st.none() | st.booleans()
              | st.integers() | st.text(max_size=12))
    return st.recursive(scalar, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(
        st.text(max_size=6) | st.sampled_from(["seat", "tile", "tiles", "hand", "type", "kind", "options"]), kids,
        max_size=4), max_leaves=10)


def _resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = spec["components"]["schemas"][name]
    return schema


def example(spec: dict[str, Any], schema: dict[str, Any], depth: int = 0) -> Any:
    """A plausible value of an OpenAPI schema (its enum's first, a tile for a tile pattern): the
    starting point that the fuzz then spoils one field at a time."""
    schema = _resolve(spec, schema)
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            options = [s for s in schema[key] if _resolve(spec, s).get("type") != "null"] or schema[key]
            return example(spec, options[0], depth)
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][0]
    if "default" in schema and schema["default"] is not None:
        return schema["default"]
    kind = schema.get("type")
    if kind == "string":
        if "pattern" in schema and "mps" in schema["pattern"]:
            return "1m"
        return "x" * max(1, int(schema.get("minLength", 1)))
    if kind == "integer":
        return max(1, int(schema.get("minimum", 1)))
    if kind == "number":
        return 1.0
    if kind == "boolean":
        return False
    if kind == "array":
        n = int(schema.get("minItems", 1))
        return [example(spec, schema.get("items", {}), depth + 1) for _ in range(n)] if depth < 4 else []
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        if not props and isinstance(schema.get("propertyNames"), dict) and "enum" in schema["propertyNames"]:
            props = {k: schema.get("additionalProperties", {}) for k in schema["propertyNames"]["enum"]}
        return {k: example(spec, v, depth + 1) for k, v in props.items()} if depth < 4 else {}
    return "x"


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    #: the body's schema (None: the route takes none)
    body: dict[str, Any] | None
    #: query parameter names
    query: tuple[str, ...]
    #: whether a body is required
    required: bool = False


def routes(spec: dict[str, Any]) -> list[Route]:
    """Every (method, path) of an OpenAPI document, with its body schema and query parameters."""
    found = []
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            query = tuple(p["name"] for p in op.get("parameters", []) if p["in"] == "query")
            found.append(Route(method.upper(), path, body, query, bool(op.get("requestBody", {}).get("required"))))
    return sorted(found, key=lambda r: (r.path, r.method))


@dataclass(frozen=True)
class Bad:
    """One request: its route, the URL's path and query, the credential, the body's bytes and type."""

    route: Route
    url: str
    params: dict[str, str]
    auth: str  # "none", "valid", "wrong", "lower"
    content: bytes | None
    content_type: str
    what: str  # what is odd about it, for the failure message and the counters
    #: an `Idempotency-Key` (web/replays.py) sent with it, or none
    key: str | None = None

    def __repr__(self) -> str:
        body = self.content if self.content is None or len(self.content) < 300 else \
            self.content[:300] + f"... ({len(self.content)} bytes)".encode()
        return f"Bad({self.route.method} {self.url} {self.params} auth={self.auth} {self.what} " \
               f"{self.content_type!r} {body!r})"


def _dumps(value: Any) -> bytes:
    """JSON as a careless client writes it: NaN and Infinity as bare words, a lone surrogate escaped."""
    return json.dumps(value, allow_nan=True).encode()


def deepest(value: Any, leaf: Any) -> Any:
    """`value` with its deepest field (objects before lists before the rest, the last of each) set to `leaf`:
    a NaN where only a field of any kind lets it through (a win read's options)."""
    if isinstance(value, dict) and value:
        nested = [k for k, v in value.items() if isinstance(v, dict) and v] or \
                 [k for k, v in value.items() if isinstance(v, list) and v] or list(value)
        return {**value, nested[-1]: deepest(value[nested[-1]], leaf)}
    if isinstance(value, list) and value:
        return [*value[:-1], deepest(value[-1], leaf)]
    return leaf


def raw_bodies(base: Any) -> list[tuple[str, bytes]]:
    """Bodies that are not the JSON a route wants, whatever the route: fixed, so every route meets each."""
    good = json.dumps(base).encode() if isinstance(base, dict) else b"{}"
    first = next(iter(base), "seat") if isinstance(base, dict) and base else "seat"
    return [
        ("empty", b""),
        ("not json", b"{not json"),
        ("truncated", good[:-1] or b"{"),
        ("null", b"null"),
        ("a list", b"[]"),
        ("a string", b'"E"'),
        ("a number", b"1"),
        ("NaN", good[:-1] + b', "nan": NaN}' if good != b"{}" else b'{"x": NaN}'),
        ("Infinity field", b'{"' + first.encode() + b'": Infinity}'),
        ("NaN deepest", _dumps(deepest(base, float("nan")))),
        ("-Infinity deepest", _dumps(deepest(base, float("-inf")))),
        ("duplicate keys", good[:-1] + b', "' + first.encode() + b'": "X"}' if good != b"{}" else b'{"a": 1, "a": 2}'),
        ("deep 100", b'{"' + first.encode() + b'": ' + b"[" * 100 + b"]" * 100 + b"}"),
        ("deep 5000", b"[" * 5000 + b"]" * 5000),
        ("deep object 3000", b'{"a":' * 3000 + b"1" + b"}" * 3000),
        ("utf-16", json.dumps(base if isinstance(base, dict) else {}).encode("utf-16")),
        ("latin-1 bytes", b'{"note": "\xe9\xff"}'),
        ("bom", b"\xef\xbb\xbf" + good),
        ("huge string", b'{"' + first.encode() + b'": "' + b"x" * 900_000 + b'"}'),
    ]


@dataclass(frozen=True)
class Ledger:
    """What a service has accepted, read from its own files by `read` as named lists of rows."""

    read: Callable[[], dict[str, list[Any]]]
    #: the lists only people's requests add to (the rest the service also fills by itself: the table's events)
    people: Callable[[str, list[Any]], list[Any]]
    #: the lists never rewritten, only added to, whoever asks
    append_only: frozenset[str]


@dataclass
class Fuzz:
    """A running service under bad requests; `sent` counts them by route and by kind."""

    base: str
    spec: dict[str, Any]
    tokens: dict[str, str]  # "valid", "wrong", "lower" -> bearer token ("" for none)
    ledger: Ledger
    alive: Callable[[], bool]
    #: by path parameter, values that name something real (a hand, a table), mixed in with the odd ones
    known: dict[str, str] = field(default_factory=dict)
    #: by (method, path), a body that reaches the route's own checks where its schema says only "an object"
    #: (a win's hand, the organiser's decision): the fuzz spoils it one field at a time
    bodies: dict[tuple[str, str], Any] = field(default_factory=dict)
    #: what shows the accepted record (the states, a hand's record, the standings): read with the credential
    #: after each request accepted, so an odd value logged that no view can show is a failure at once
    views: Callable[[], list[str]] = list
    sent: Counter[str] = field(default_factory=Counter)
    by_route: Counter[tuple[str, str]] = field(default_factory=Counter)
    statuses: Counter[int] = field(default_factory=Counter)
    client: httpx.Client = field(default_factory=lambda: httpx.Client(timeout=30.0))
    #: wrong credentials come from an address of their own (127.0.0.2): five lock their sender out for a
    #: minute (`auth.Credentials`), which must not hold up the rest of the run
    stranger: httpx.Client = field(default_factory=lambda: httpx.Client(
        timeout=30.0, transport=httpx.HTTPTransport(local_address="127.0.0.2")))

    def _huge(self, bad: Bad, headers: dict[str, str]) -> httpx.Response:
        """A body over `HUGE`: its length declared and its first 64 KB sent, then the answer read. The service
        answers 413 before reading it and closes; a client still writing the rest met a reset now and then."""
        import http.client

        assert bad.content is not None
        url = httpx.URL(bad.url, params=bad.params)
        conn = http.client.HTTPConnection(url.host, url.port, timeout=30)
        try:
            conn.putrequest(bad.route.method, url.raw_path.decode())
            for name, value in {**headers, "Content-Length": str(len(bad.content))}.items():
                conn.putheader(name, value)
            conn.endheaders()
            conn.send(bad.content[:65536])
            got = conn.getresponse()
            return httpx.Response(got.status, headers=got.getheaders(), content=got.read())
        finally:
            conn.close()

    def start(self, route: Route) -> Any:
        """The body the fuzz starts from: the route's own (`bodies`), or one made from its schema."""
        own = self.bodies.get((route.method, route.path))
        return own if own is not None else example(self.spec, route.body) if route.body else {}

    def url(self, route: Route, odd: str | None = None) -> str:
        """The route's URL with `odd` for every path parameter, or without it each parameter's known value."""
        return self.base + re.sub(r"\{([^}]+)\}", lambda m: odd if odd is not None else self.known.get(m[1], "1"),
                                  route.path)

    def send(self, bad: Bad) -> httpx.Response:
        """Send `bad` and check every promise; AssertionError names the request that broke one."""
        before = self.ledger.read()
        headers = {"Content-Type": bad.content_type} if bad.content_type else {}
        token = self.tokens.get(bad.auth, "")
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if bad.key is not None:
            headers["Idempotency-Key"] = bad.key
        client = self.stranger if bad.auth == "wrong" else self.client
        if bad.content is not None and len(bad.content) > HUGE:
            r = self._huge(bad, headers)
        else:
            r = client.request(bad.route.method, bad.url, params=bad.params, content=bad.content, headers=headers)
        self.sent[bad.what] += 1
        self.by_route[(bad.route.method, bad.route.path)] += 1
        self.statuses[r.status_code] += 1
        assert r.status_code < 500, f"{r.status_code} for {bad!r}: {r.text[:500]}"
        if 400 <= r.status_code < 500:
            assert r.headers.get("content-type", "").startswith("application/json"), (bad, r.headers, r.text[:300])
            said = message(r.json())
            assert said, f"a {r.status_code} that says nothing for {bad!r}: {r.text[:300]}"
            assert re.search(r"[\u3000-\u9fff\uff00-\uffef]", said.split(" / ")[0]), \
                f"a {r.status_code} not in Chinese first for {bad!r}: {said[:300]}"
        assert self.alive(), f"the service died after {bad!r}"
        health = self.client.get(self.base + "/api/health")
        assert health.status_code == 200, f"/api/health {health.status_code} after {bad!r}: {health.text[:300]}"
        after = self.ledger.read()
        accepted = r.status_code < 400 and bad.auth in ("valid", "lower") and bool(token)
        if accepted and bad.route.method != "GET":
            for view in self.views():
                shown = self.client.get(self.base + view, headers={"Authorization": f"Bearer {self.tokens['valid']}"})
                assert shown.status_code < 500, f"{view} {shown.status_code} after {bad!r}: {shown.text[:300]}"
        for name, rows in before.items():
            if accepted and name not in self.ledger.append_only:
                continue
            # every row kept as it was; compared as rows, not as a prefix: a table's events may reach the hub out of
            # order (a gap filled by its replay files a lower seq after higher ones), under load once in a few runs
            gone = Counter(rows) - Counter(after[name])
            assert not gone, f"accepted {name} changed after {bad!r}: {list(gone)[:3]}"
            if not accepted:
                grew = self.ledger.people(name, list((Counter(after[name]) - Counter(rows)).elements()))
                assert not grew, f"{r.status_code} for {bad!r}, yet {name} grew: {grew}"
        return r


def message(body: Any) -> str:
    """What a 4xx's JSON says: its `detail` (a string, or a list of strings or pydantic errors), or `error`."""
    if not isinstance(body, dict):
        return ""
    detail = body.get("detail", body.get("error"))
    if isinstance(detail, list) and detail:
        first = detail[0]
        return first if isinstance(first, str) else str(first.get("msg", "")) if isinstance(first, dict) else ""
    return detail if isinstance(detail, str) else ""


def spoil(draw: st.DrawFn, value: Any, kind: str, depth: int = 0) -> tuple[Any, str]:
    """`value` with one of its fields, at any depth, odd ("field"), gone ("missing") or beside an unknown one
    ("extra"); and what was done, for the failure message."""
    if isinstance(value, list) and value:
        i = draw(st.integers(0, len(value) - 1))
        inner, what = spoil(draw, value[i], kind, depth + 1)
        return [*value[:i], inner, *value[i + 1:]], f"[{i}].{what}"
    if not isinstance(value, dict) or not value or depth > 3:
        return draw(odd_values()), "odd value"
    name = draw(st.sampled_from(sorted(value)))
    out = dict(value)
    if isinstance(value[name], (dict, list)) and value[name] and draw(st.booleans()):
        out[name], what = spoil(draw, value[name], kind, depth + 1)
        return out, f"{name}.{what}"
    if kind == "missing":
        del out[name]
        return out, f"without {name}"
    if kind == "extra":
        out[draw(st.text(min_size=1, max_size=8))] = draw(odd_values())
        return out, "an unknown field"
    out[name] = draw(odd_values())
    return out, f"odd {name}"


def bad_requests(fz: Fuzz) -> st.SearchStrategy[Bad]:
    """One bad request to any of the service's routes: a spoilt body, an odd path or query, any credential."""
    every = routes(fz.spec)
    bases = {(r.method, r.path): fz.start(r) for r in every}
    raws = {key: raw_bodies(base) for key, base in bases.items()}  # made once: the 900 KB one cost a draw 25 ms

    @st.composite
    def make(draw: st.DrawFn) -> Bad:
        route = draw(st.sampled_from(every))
        auth = draw(st.sampled_from(["valid", "valid", "none", "wrong", "lower"]))
        path_value = draw(st.none() | st.sampled_from(ODD_PATH))
        params = {q: draw(st.sampled_from(ODD_QUERY)) for q in route.query if draw(st.booleans())}
        if draw(st.integers(0, 5)) == 0:
            params[draw(st.text(min_size=1, max_size=5))] = draw(st.sampled_from(ODD_QUERY))
        base = bases[(route.method, route.path)]
        kind = draw(st.sampled_from(["field", "field", "missing", "extra", "raw", "type", "whole"]))
        content_type = "application/json"
        if kind == "raw":
            what, content = draw(st.sampled_from(raws[(route.method, route.path)]))
        elif kind == "type":
            content_type = draw(st.sampled_from(CONTENT_TYPES[1:]))
            what, content = f"content-type {content_type or 'none'}", json.dumps(base).encode()
        elif kind == "whole":
            what, content = "odd value as the body", _dumps(draw(odd_values()))
        elif isinstance(base, dict) and base:
            spoilt, what = spoil(draw, base, kind)
            content = _dumps(spoilt)
        else:
            what, content = "odd value as the body", _dumps(draw(odd_values()))
        if route.method == "GET" and draw(st.booleans()):
            content, what = None, "no body"
        key = draw(st.none() | st.sampled_from(IDEMPOTENCY_KEYS)) if route.method == "POST" else None
        return Bad(route, fz.url(route, path_value), params, auth, content, content_type, what, key)

    return make()


def every_route_every_way(fz: Fuzz) -> list[Bad]:
    """The fixed sweep: each route with each raw body and a credential, an odd path value or a known one
    in turn; with no credential, an empty body, a broken one and the route's own; a 10 MB body to each
    route that takes one."""
    found = []
    for route in routes(fz.spec):
        base = fz.start(route)
        bodies = raw_bodies(base) + [(f"content-type {t}", json.dumps(base).encode()) for t in CONTENT_TYPES[1:3]]
        for i, (what, content) in enumerate(bodies):
            value = ODD_PATH[i % len(ODD_PATH)] if i % 2 else None
            ctype = what.removeprefix("content-type ") if what.startswith("content-type") else "application/json"
            found.append(Bad(route, fz.url(route, value), {q: ODD_QUERY[i % len(ODD_QUERY)] for q in route.query},
                             "valid", content, ctype, what))
        own = json.dumps(base).encode()
        for what, content in [("empty", b""), ("not json", b"{not json"), ("the route's own", own)]:
            found.append(Bad(route, fz.url(route), {}, "none", content, "application/json", what))
        if route.method == "POST":
            found.append(Bad(route, fz.url(route), {}, "valid", b'{"x": "' + b"x" * TEN_MB + b'"}',
                             "application/json", "10 MB body"))
    return found


def wait_for(url: str, proc: subprocess.Popen[bytes], ready: Callable[[Any], bool] = lambda body: True,
             timeout: float = 60.0) -> None:
    """Until `url` answers 200 with a body `ready` takes (the service started), or fail."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the service exited ({proc.returncode})")
        try:
            r = httpx.get(url, timeout=1.0)
            if r.status_code == 200 and ready(r.json()):
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s")
