"""The hub's HTTP side: `GET /api/standings` and a standings page for a kiosk (Chinese, English switch).

`HubService` runs the hub's broker loop and this server together, the way `TableService` runs a
table: the `tablectl hub` command and the tests both go through it.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from fastapi import Query, Request, WebSocket

from table_controller.supervise import Supervisor, finish, listening, told_to_exit
from table_controller.tournament.hub import Hub
from table_controller.web.built import OnceBuilt
from table_controller.web.icon import LINK, serve_icon
from table_controller.web.limits import BodyLimit
from table_controller.web.polled import Part, Polled
from table_controller.web.problems import malformed, refused

log = logging.getLogger("table_controller.tournament.web")


#: The page's live channel: a message at least this often (the page fetches then: its "since" minutes move)
LIVE_PING_S = 20.0
#: and no two closer than this: 16 tables' events in a burst make one fetch, not hundreds
LIVE_COALESCE_S = 0.25
#: What a record or a seating is answered as: an unknown one (`?format=xml`) is refused (422) as the table
#: refuses it, where it was answered with JSON
Format = Literal["json", "text"]


def create_hub_app(hub: Hub) -> Any:
    from fastapi import FastAPI, Header, HTTPException
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import HTMLResponse
    from starlette.exceptions import HTTPException as StarletteHTTPException

    app = FastAPI(title=f"赛事排名 {hub.tournament}", docs_url=None, redoc_url=None)
    serve_icon(app)
    archives = OnceBuilt(kept=8)  # the archive and tables' records, once per change of the hub
    app.state.archives = archives
    # what the hall's screens and phones poll: written once per change, gzipped, 304 for a copy still current
    polled = Polled()
    app.state.polled = polled
    app.add_exception_handler(RequestValidationError, malformed)  # the table's words: Chinese first
    app.add_exception_handler(StarletteHTTPException, refused)  # its own English words too
    app.add_middleware(BodyLimit)  # the organiser's seating is a few KB; a huge body must not fill the hub's memory
    # The handlers are async on purpose: they run on the loop that files messages, never beside it
    # in a worker thread, so they read the hub's tables and SQLite files without a lock.

    @app.get("/api/standings")
    async def standings(request: Request, through: int | None = None) -> Any:
        """Players ranked by 标准分 then points, each table's progress, and the hub's own counters;
        `?through=N`: the standings after round N. The players are written when a result changes, the
        tables' rows at each message (`web/polled.py`); `at` is the hub's time of this answer."""
        n = _round(through)
        return polled.answer(request, [
            Part(("standings.players", n, hub.results), lambda: {"players": hub.ranked(n)}),
            Part(("standings.progress", n, hub.version, *hub.health().values()), lambda: hub.progress(n)),
        ], stamp={"at": hub.now()}, name=f"standings {n}")

    @app.websocket("/api/live")
    async def live(ws: WebSocket) -> None:
        """`{"version": n}` at once, at each change (bursts a moment apart come as one) and at least
        every LIVE_PING_S: the page fetches on each, so a jam shows as it happens, not at the next poll."""
        from table_controller.web.app import _until_closed

        await ws.accept()

        async def send() -> None:
            seen = -1
            while True:
                seen = await hub.wait_change(seen, LIVE_PING_S)
                await ws.send_json({"version": seen})
                await asyncio.sleep(LIVE_COALESCE_S)

        await _until_closed(ws, send())

    @app.get("/api/stats")
    async def stats(request: Request) -> Any:
        """Players' statistics (技术统计): hands, wins, 自摸, 点炮, rates, average and biggest win; written
        once per count (`web/polled.py`)."""
        counted = hub.stats()
        return polled.answer(request, [Part(("stats", hub.stats_counted),
                                            lambda: {k: v for k, v in counted.items() if k != "at"})],
                             stamp={"at": counted["at"]}, name="stats")

    @app.get("/api/standings.csv")
    async def standings_csv(through: int | None = None) -> Any:
        """The standings as CSV (UTF-8 with BOM, for spreadsheets): rank, player, number, 标准分, points,
        and each round's 标准分 and points."""
        from fastapi.responses import Response

        body = standings_to_csv(hub.standings(_round(through)))
        name = f"standings-{hub.tournament}" + (f"-round{through}" if through else "") + ".csv"
        return Response(body, media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    def _round(n: int | None) -> int | None:
        if n is not None and not 1 <= n <= 999:
            raise HTTPException(422, "轮次须为 1 至 999 / round must be 1..999")
        return n

    def _fits(n: int, zh: str, en: str) -> int:
        """A number the tables' files can be asked for: past SQLite's integers it was an OverflowError, a 500."""
        from table_controller.store import MAX_INTEGER

        if abs(n) > MAX_INTEGER:
            raise HTTPException(422, f"{zh}超出范围（最大 {MAX_INTEGER}） / {en} out of range (at most {MAX_INTEGER})")
        return n

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        return hub.health()

    @app.get("/api/tables/{table_id}/events")
    async def events(table_id: str, since: int = Query(0, ge=0), limit: int = Query(1000, ge=1)) -> Any:
        """A table's public log as the hub holds it (the audit trail), oldest first; at most 5,000 a read.
        A negative `since` or `limit` is refused as the table refuses it (`?since=-5&limit=-3` was the whole log)."""
        from fastapi.responses import JSONResponse, Response

        from table_controller.tournament.hub import events_from_rows

        table = _table(table_id)
        since = _fits(since, "起始编号", "since")
        contiguous, count = table.contiguous, max(1, min(limit, 5000))

        def build(rows: list[tuple[Any, ...]]) -> bytes:  # 5,000 parsed and written off the loop
            return bytes(JSONResponse({"table_id": table_id, "contiguous": contiguous,
                                       "events": events_from_rows(rows)}).body)

        body = await archives.get(("events", table_id, since, count, hub.version), build,
                                  prepare=lambda: table.event_rows(since, count))
        return Response(body, media_type="application/json")

    @app.get("/api/tables/{table_id}/records")
    async def records(table_id: str, format: Format = "json", round: int | None = None) -> Any:
        """Every hand's public record (牌谱) the table has sent, round by round in hand order (or one
        round's: `?round=N`): the tournament's archive; `?format=text` for a printable page."""
        from fastapi.responses import Response

        table = _table(table_id)
        _round(round)
        text = format == "text"
        name = hub.names.get(table_id) or ""

        def build(kept: list[str]) -> bytes:  # parsed and written off the loop (a table's day: 0.1 s here)
            import json

            from fastapi.responses import JSONResponse

            found = [json.loads(r) for r in kept]
            found = [{**r, "table_name": name} for r in found] if name else found  # as `Hub.records` names them
            if text:
                return "\n".join(printed(r) for r in found).encode()
            return bytes(JSONResponse({"table_id": table_id, "records": found}).body)

        body = await archives.get(("records", table_id, round, text, hub.version), build,
                                  prepare=lambda: table.records_json(round))
        return Response(body, media_type="text/plain; charset=utf-8" if text else "application/json")

    @app.get("/api/archive.zip")
    async def archive() -> Any:
        """The tournament's record in one file, for the organiser to keep: the standings (JSON and
        CSV), the players' statistics, the published seatings, and every table's rounds and hands'
        records (JSON and printable text)."""
        from fastapi.responses import Response

        # zipped off the loop, once per change of the hub for every client that asks (`web/built.py`): built
        # on the loop, 2.2 s at 16 tables' 3 rounds here, four spectators asking again and again held the
        # hub's loop up to 10 s at a time (no page, no message filed, its broker keepalive 10 s)
        body = await archives.get(("archive", hub.version), archive_zip, prepare=lambda: archive_parts(hub))
        return Response(body, media_type="application/zip",
                        headers={"Content-Disposition": f'attachment; filename="{hub.tournament}-archive.zip"'})

    @app.get("/api/tables/{table_id}/hands/{hand_no}/record")
    async def record(table_id: str, hand_no: int, format: Format = "json", round: int | None = None) -> Any:
        """One hand's public record, of round `?round=N` (default: the latest round that has the
        hand); `?format=text` for a printable page."""
        from fastapi.responses import PlainTextResponse

        _table(table_id)
        found = hub.record(table_id, _fits(hand_no, "盘号", "hand number"), _round(round))
        if found is None:
            which = f"第 {round} 轮" if round else ""
            raise HTTPException(404, f"{which}第 {hand_no} 盘的牌谱尚未收到 / no record of hand {hand_no}"
                                     f"{f' in round {round}' if round else ''} from {table_id}")
        return PlainTextResponse(printed(found)) if format == "text" else found

    @app.get("/api/pairings")
    async def pairings(request: Request, round: int | None = None, format: Format = "json",
                       fresh: bool = False) -> Any:
        """The next round's seating (编排) proposed from the standings; `?format=text` to post it. A round
        published before keeps the tables it can (`kept`) unless `?fresh=true` (a new draw)."""
        from fastapi.responses import PlainTextResponse

        _round(round)
        if format != "text":  # the hub keeps it until a result changes (`Hub.results`): written once as well
            return polled.answer(request, [Part(("pairings", round, fresh, hub.results),
                                                lambda: hub.pairings(round, fresh=fresh))], name="pairings")
        return PlainTextResponse(pairings_text(hub.pairings(round, fresh=fresh)))

    from table_controller.web.auth import LOCKOUT_SAYS, Credentials

    # the organiser's credential, checked as the tables check theirs: constant time, and 5 wrong
    # ones from a client within a minute lock it out
    organiser = Credentials(referee=hub.organizer_token, operator="")

    def _organiser(request: Request, authorization: str) -> None:
        """The organiser's credential (`Authorization: Bearer …`), or the HTTP error that says why not."""
        if not hub.organizer_token:
            raise HTTPException(403, "本赛事未设组织者凭证（TABLECTL_HUB_ORGANIZER_TOKEN）/ no organiser credential is set")
        client = request.client.host if request.client else "?"
        given = authorization[7:].strip() if authorization.lower().startswith("bearer ") else ""
        # the lockout's check and a wrong one's count in one step, as the tables' (`Credentials.attempt`)
        held, got = organiser.attempt(given or "\0", client)
        if held:  # when to ask again, as a table's 429 says it
            raise HTTPException(429, LOCKOUT_SAYS[held], headers={"Retry-After": str(organiser.retry_after(client))})
        if got is None or got[0] != "referee":
            raise HTTPException(401, "组织者凭证错误 / wrong organiser credential")

    @app.post("/api/pairings/publish")
    async def publish(request: Request, round: int | None = None, fresh: bool = False,
                      authorization: str = Header("")) -> Any:
        """Publish a round's proposed seating to its tables (the organiser's credential,
        `Authorization: Bearer …`): each table's referee then sees its four players. Published again,
        the tables whose players are all still in keep them, unless `?fresh=true`."""
        from table_controller.tournament.hub import HubError

        _organiser(request, authorization)
        _round(round)
        try:
            return hub.publish_seating(round, fresh=fresh)
        except HubError as exc:
            raise HTTPException(409, str(exc)) from None

    @app.post("/api/organiser")
    async def decide(request: Request, body: dict[str, Any], authorization: str = Header("")) -> Any:
        """One of the organiser's decisions (`organiser.ACTIONS`: a table out of service or back, a
        table's round ended with the scores so far, a player out of the seating or back), with the
        organiser's credential; recorded in the hub's file and shown on the page."""
        from table_controller.tournament.organiser import OrganiserError

        _organiser(request, authorization)
        try:
            return hub.decide(str(body.get("action", "")), body)
        except OrganiserError as exc:
            raise HTTPException(exc.status, str(exc)) from None

    @app.get("/api/organiser")
    async def decisions(request: Request) -> Any:
        """Every decision the organiser took, in order, and the actions there are (with their words)."""
        from table_controller.tournament.organiser import ACTIONS

        return polled.answer(request, [Part(("organiser", hub.version), lambda: {
            "decisions": hub.decisions(), "actions": {k: {"zh": zh, "en": en} for k, (zh, en) in ACTIONS.items()}})],
            name="organiser")

    @app.get("/api/pairings/published")
    async def published(request: Request) -> Any:
        """The latest round's seating as published to the tables (null before any)."""
        return polled.answer(request, [Part(("published", hub.version), hub.published)], name="published")

    def _table(table_id: str) -> Any:
        table = hub.tables.get(table_id)
        if table is None:
            raise HTTPException(404, f"没有这张桌子 / no table {table_id!r} in {hub.tournament}")
        return table

    @app.get("/", response_class=HTMLResponse)
    async def page() -> str:
        import json

        # the title in the page's script as a JSON string: a quote or a backslash in it stays text
        return PAGE.replace("{{title_json}}", json.dumps(hub.title).replace("<", "\\u003c")) \
            .replace("{{title}}", _html(hub.title)).replace("{{icon}}", LINK)

    return app


@dataclass(frozen=True)
class ArchiveParts:
    """What the archive holds, as read from the hub on its loop (its SQLite files are read there only)."""

    standings: dict[str, Any]
    stats: dict[str, Any]
    seatings: list[dict[str, Any]]
    #: per table, by id: (its id, its rounds' standings as counted, the name the organiser gave it, its records
    #: as kept, and the rounds whose standing as the table sent it is not the one counted, by round)
    tables: list[tuple[str, dict[Any, Any], str, list[str], dict[Any, Any]]]
    #: the organiser's decisions, in order (`Hub.decisions`)
    decisions: list[dict[str, Any]] = field(default_factory=list)


def archive_parts(hub: Any) -> ArchiveParts:
    """The archive's contents, read (the records left as JSON text: parsing them is most of the cost). A
    table's rounds are the standings the ranking counts (`Hub.counted_rounds`: a round the organiser ended, as
    ended), with the organiser's decisions: the archive held the table's later standing of such a round and
    no decisions, so the standings in it could not be counted again from it."""
    tables = []
    for table_id, table in sorted(hub.tables.items()):
        counted = hub.counted_rounds(table_id)
        sent = {n: st for n, st in table.states.items() if counted.get(n) is not st}
        tables.append((table_id, counted, hub.names.get(table_id) or "", table.records_json(), sent))
    return ArchiveParts(hub.standings(), hub.stats(), hub.seatings(), tables, hub.decisions())


def archive_zip(parts: ArchiveParts) -> bytes:
    """A ZIP of everything the hub holds that the tournament's record needs (public only); the records
    named as `Hub.records` names them. Pure: built in a worker thread."""
    import io
    import json
    import zipfile

    def dump(x: Any) -> str:
        return json.dumps(x, ensure_ascii=False, indent=1)

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("standings.json", dump(parts.standings))
        z.writestr("standings.csv", standings_to_csv(parts.standings))
        z.writestr("stats.json", dump(parts.stats))
        z.writestr("seatings.json", dump(parts.seatings))
        z.writestr("decisions.json", dump(parts.decisions))
        for table_id, states, name, kept, sent in parts.tables:
            records = [json.loads(r) for r in kept]
            if name:
                records = [{**r, "table_name": name} for r in records]
            z.writestr(f"tables/{table_id}/rounds.json", dump(states))
            if sent:  # a round the organiser ended: what the table sent of it later, kept, not counted
                z.writestr(f"tables/{table_id}/rounds_as_sent.json", dump(sent))
            z.writestr(f"tables/{table_id}/records.json", dump(records))
            z.writestr(f"tables/{table_id}/records.txt", "\n".join(printed(r) for r in records))
    return out.getvalue()


def printed(record: dict[str, Any]) -> str:
    """A hand's record as a printable page (`record.as_text`), or a line saying why it cannot be: a record a table
    of another version sent a field short of what the page prints (a seat without its chair) made the table's
    printable records and the whole archive a 500; the record itself stays in the JSON."""
    from table_controller.record import as_text

    try:
        return as_text(record)
    except Exception as exc:  # whatever field it lacks: this hand's page says so, the others print
        hand = record.get("hand_no")
        return (f"第 {hand} 盘的牌谱无法打印（{type(exc).__name__}: {exc}），原始记录见 JSON / hand {hand}'s record "
                "cannot be printed: see it as JSON\n")


def tournament_archive(hub: Any) -> bytes:
    """A ZIP of everything the hub holds that the tournament's record needs (public only), built at once."""
    return archive_zip(archive_parts(hub))


def standings_to_csv(st: dict[str, Any]) -> str:
    """Rank, player, number, 标准分 and points, then each round's (table, 标准分, points) where played, the
    table marked （暂定） while that round's result is provisional (for a spreadsheet program:
    `spreadsheet.to_csv`, a name from a table is never a formula)."""
    from table_controller.spreadsheet import to_csv
    from table_controller.tournament.hub import sat_note

    rounds = sorted({t["round"] for p in st["players"] for t in p["tables"]})
    rows: list[list[Any]] = [["名次", "选手", "编号", "标准分", "比赛分",
                              *[f"第{r}轮 {k}" for r in rounds for k in ("桌", "标准分", "比赛分")]]]
    for p in st["players"]:
        by_round = {t["round"]: t for t in p["tables"]}
        cells = []
        for r in rounds:
            t = by_round.get(r)
            if t is None:
                cells += ["", "", ""]
                continue
            where = f"{t['table_name']}（{sat_note(t['sat'])}）" if t.get("sat") else t["table_name"]
            # a round still in play (or time called on its last hand) counts as it stands: said, as on the page
            cells += [where if t["final"] else f"{where}（暂定）", t["table_points"], t["points"]]
        rows.append(["陪打" if p.get("stand_in") else p["rank"], p["name"], p["id"], p["table_points"], p["points"],
                     *cells])
    return to_csv(rows)


def pairings_text(p: dict[str, Any]) -> str:
    """The seating as a page to post on the wall (Chinese)."""
    out = [f"{p.get('title') or p['tournament']} · 第 {p['round']} 轮编排（按排名瑞士制）", ""]
    if p.get("unfinished"):
        out[1:1] = [f"注意：{'、'.join(p['unfinished'])} 尚未打完本轮，编排仍会变动"]
    for t in p["tables"]:
        seats = "  ".join(f"{chair}号位 {s['name']}{'（' + s['id'] + '）' if s['id'] else ''}"
                          for chair, s in t["seats"].items())
        note = "" if not t["repeat_meetings"] else f"  · 再次相遇 {t['repeat_meetings']} 对"
        out.append(f"{t['table_name']}：{seats}{note}")
    if p["byes"]:
        out.append("轮空：" + "、".join(b["name"] for b in p["byes"]))
    if not p["tables"]:
        out.append("尚无成绩，无法编排 / no results to seat from yet")
    return "\n".join(out) + "\n"


def _html(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


@dataclass
class HubService:
    """The hub and its HTTP server; `start()` brings both up (the broker may still be away), `stop()` ends them."""

    broker: str
    tournament: str
    data_dir: Path
    host: str = "127.0.0.1"
    port: int = 8090
    prefix: str = "mahjong"
    username: str = ""
    password: str = ""
    client_id: str = ""
    ca_file: str = ""
    organizer_token: str = ""
    registered: list[dict[str, str]] = field(default_factory=list)
    #: the venue's table ids (`Hub.expected`)
    expected: list[str] = field(default_factory=list)
    #: the organiser's names of the tables, by id (`Hub.names`)
    names: dict[str, str] = field(default_factory=dict)
    #: the tournament's name as players read it (`Hub.title`)
    title: str = ""
    #: the page over https (the organiser's credential off the air): certificate and key (PEM)
    tls_cert: str = ""
    tls_key: str = ""
    #: whom a chair's results go to where a substitute (替补) sat part of a round (`hub.SUBSTITUTE_CREDIT`)
    substitute_credit: str = "hands"
    #: connections one address may hold (`web.serve.MAX_PER_CLIENT`, 64): more for a hall whose phones reach
    #: the hub through one NAT'd address (a guest Wi-Fi routed to the hub's wired LAN)
    max_per_address: int | None = None
    hub: Hub | None = None
    bound_port: int | None = None
    _served: Any = None
    _tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    #: the broker link's and the page's ends (`supervise.py`): either is the runner's cue to exit
    supervisor: Supervisor = field(default_factory=lambda: Supervisor("汇总服务", "the hub"))

    async def start(self) -> None:
        from table_controller.web.serve import HUB_MAX_CONNECTIONS, serve

        self.hub = Hub(self.broker, self.tournament, self.data_dir, prefix=self.prefix, username=self.username,
                       password=self.password, client_id=self.client_id, ca_file=self.ca_file,
                       organizer_token=self.organizer_token, registered=self.registered, expected=self.expected,
                       substitute_credit=self.substitute_credit, names=self.names, title=self.title)
        self._tasks.append(asyncio.create_task(self.hub.run(), name="hub-mqtt"))
        tls = {"ssl_certfile": self.tls_cert, "ssl_keyfile": self.tls_key} if self.tls_cert else {}
        self._served = await serve(create_hub_app(self.hub), self.host, self.port, name="hub-http",
                                   what="the hub's page", what_zh="汇总服务页面",
                                   limit_concurrency=HUB_MAX_CONNECTIONS,
                                   per_address=self.max_per_address, **tls)
        self._tasks.append(self._served.task)
        self.bound_port = self._served.port
        server = self._served.server
        self.supervisor.watch(self._tasks[0])
        self.supervisor.watch(self._served.task, serving=lambda: listening(server), stopped=told_to_exit(server))
        log.info("hub serving", extra={"url": self.url, "broker": self.broker})

    @property
    def url(self) -> str:
        return f"{'https' if self.tls_cert else 'http'}://{self.host}:{self.bound_port}/"

    async def stop(self) -> None:
        """Done whole though the caller be cancelled meanwhile (the hub's record left open otherwise), whose
        cancellation is then raised (`supervise.finish`)."""
        await finish(self._stop())

    async def _stop(self) -> None:
        from table_controller.web.serve import stop_tasks

        self.supervisor.stopping = True
        await stop_tasks(self._tasks, self._served)
        if self.hub is not None:
            self.hub.close()

PAGE = """<!doctype html>
<html lang="zh-CN">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{title}} · 排名</title>
{{icon}}
<style>
  body { font-family: "Noto Sans CJK SC", "Noto Sans", sans-serif; margin: 0; background: #10301f; color: #f4f1e6; }
  header { display: flex; justify-content: space-between; align-items: center; padding: 1rem 2rem;
           background: #0b2216; }
  h1 { margin: 0; font-size: 2.2rem; }
  h2 { font-size: 1.5rem; margin: 1.5rem 2rem 0.5rem; }
  table { border-collapse: collapse; margin: 0 2rem; width: calc(100% - 4rem); font-size: 1.6rem; }
  th, td { padding: 0.45rem 0.8rem; text-align: left; border-bottom: 1px solid #2e5a43; }
  th { color: #c9b77a; font-weight: normal; }
  td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
  #tables, #pairs, #stats { font-size: 1.2rem; }
  h2 a { color: inherit; }
  td a { color: #c9b77a; }
  .bad { color: #ff8a7a; } .muted { color: #9fb5a8; }
  button { font-size: 1.1rem; padding: 0.3rem 0.9rem; }
  footer { margin: 1.5rem 2rem; font-size: 1rem; }
  footer a { color: #c9b77a; }
  /* read by a screen reader, not shown (#said: a table needing the chief referee, once) */
  .sr-only { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden;
             clip-path: inset(50%); white-space: nowrap; border: 0; }
  .attention { margin: 1rem 2rem 0; padding: 0.6rem 1rem; background: #7a1f1a; border-radius: 6px; font-size: 1.5rem; }
  td.alerts { color: #ff8a7a; }
  /* the table's name, round, hand and state stay on one line: a long alert wraps in its own cell */
  #tables td:not(.alerts), #tables th { white-space: nowrap; }
  .pair-actions { margin: 0.5rem 2rem; }
  /* the organiser's credential, asked in the page's own dialog (#cred) */
  dialog { background: #0b2216; color: #f4f1e6; border: 2px solid #c9b77a; border-radius: 8px; padding: 1rem 1.5rem;
           font-size: 1.2rem; max-width: min(32rem, calc(100% - 2rem)); }
  dialog::backdrop { background: rgba(0, 0, 0, 0.6); }
  dialog h2 { margin: 0 0 0.6rem; font-size: 1.4rem; } dialog p { margin: 0.5rem 0; }
  dialog label { display: block; margin: 0.4rem 0 0.2rem; }
  dialog input { font-size: 1.2rem; width: 100%; box-sizing: border-box; }
  #org { margin: 1.5rem 2rem; font-size: 1.1rem; } #org select, #org input { font-size: 1.1rem; margin: 0.2rem; }
  #org p { margin: 0.4rem 0; } .out { color: #e8c26a; }
  /* a player's name and number, and each round's entry (第2轮 3号桌 4), never break inside */
  td.who, .rnd, [data-testid=standings] th { white-space: nowrap; }
  /* a phone (390 px): the standings fit the width; the wide tables below scroll in their own box */
  @media (max-width: 700px) {
    header { padding: 0.6rem 0.8rem; }
    h1 { font-size: 1.3rem; }
    h2 { font-size: 1.15rem; margin: 1rem 0.8rem 0.4rem; }
    table { margin: 0 0.5rem; width: calc(100% - 1rem); font-size: 1rem; }
    th, td { padding: 0.35rem 0.4rem; }
    #tables, #pairs, #stats { display: block; overflow-x: auto; font-size: 0.9rem; }
    #stats th, #stats td, #pairs th { white-space: nowrap; }
    td.who small { display: block; }
    html:lang(en) [data-testid=standings] th { white-space: normal; }  /* "Table pts" may take two lines */
    .attention { margin: 0.6rem 0.5rem 0; font-size: 1.05rem; }
    .pair-actions, footer, #org { margin: 0.5rem 0.8rem; }
  }
  /* a tablet held upright (768 px): the wide tables scroll in their own box too (in English the tables' list ran
     past the screen, 807-890 px, and the page scrolled sideways) */
  @media (max-width: 900px) { #tables, #pairs, #stats { display: block; overflow-x: auto; } }
  /* the organiser's controls on a phone or a tablet: 44 CSS px each way, a finger (were 25-39 px tall) */
  @media (max-width: 900px), (pointer: coarse) {
    button, select, input, summary { min-height: 44px; min-width: 44px; }
  }
</style>
</head>
<body>
<header><h1 id="title"></h1><button id="lang" type="button" lang="en"></button></header>
<div id="said" class="sr-only" role="alert" aria-atomic="true" data-testid="said"></div>
<div id="attention" class="attention" data-testid="attention" hidden></div>
<table data-testid="standings"><thead><tr id="head"></tr></thead><tbody id="rows"></tbody></table>
<h2 id="pair-title"></h2>
<p class="pair-actions"><button id="publish" type="button"></button>
<span id="published" class="muted" role="status" aria-atomic="true" data-testid="published"></span></p>
<table id="pairs" data-testid="pairings"><thead><tr id="phead"></tr></thead><tbody id="prows"></tbody></table>
<h2 id="tables-title"></h2>
<table id="tables" data-testid="tables"><thead><tr id="thead"></tr></thead><tbody id="trows"></tbody></table>
<h2 id="stats-title"></h2>
<table id="stats" data-testid="stats"><thead><tr id="shead"></tr></thead><tbody id="srows"></tbody></table>
<details id="org" data-testid="organiser"><summary id="org-title"></summary>
<p><select id="org-table" aria-label="桌"></select> <input id="org-reason" maxlength="200" aria-label="原因（记入记录）">
<span id="org-table-actions"></span></p>
<p><select id="org-player" aria-label="选手"></select> <span id="org-player-actions"></span></p>
<p><input id="org-name" maxlength="40" aria-label="陪打姓名（不在报名名单上）"> <span id="org-stand-in-actions"></span></p>
<p id="org-result" class="muted" role="status" aria-atomic="true" data-testid="organiser-result"></p><ol id="org-log" data-testid="organiser-log"></ol></details>
<dialog id="cred" aria-labelledby="cred-title" aria-describedby="cred-what" data-testid="organiser-credential">
<form id="cred-form" method="dialog" autocomplete="on">
<h2 id="cred-title">组织者凭证</h2>
<p id="cred-what"></p>
<input id="cred-user" type="text" autocomplete="username" value="organiser" hidden>
<label for="cred-token" id="cred-label">组织者凭证</label>
<input id="cred-token" type="password" autocomplete="current-password" autocapitalize="off" spellcheck="false"
  maxlength="200" aria-describedby="cred-error">
<p id="cred-error" class="bad" role="alert" data-testid="organiser-credential-error"></p>
<p><button id="cred-ok" type="submit">确定</button> <button id="cred-cancel" type="button">取消</button></p>
</form></dialog>
<footer><span id="status" class="muted"></span> · <a id="csv" href="/api/standings.csv" download></a>
 · <a id="archive" href="/api/archive.zip" download></a></footer>
<script>
"use strict";
const TOURNAMENT = {{title_json}};
const I18N = {
  zh: { title: "{t} · 排名", lang: "English", head: ["名次", "选手", "标准分", "比赛分", "各轮"], tables: "各桌进度",
        thead: ["桌", "轮", "盘", "状态", "比赛计时", "已收事件", "需处理"], timeUp: "时间到", attention: "需要裁判长处理：", standIn: "陪打", stats: "技术统计",
        shead: ["选手", "盘数", "和牌", "自摸", "点炮", "和牌率", "点炮率", "平均和牌", "最大和牌"], since: "{n} 分钟", noHands: "尚无打完的牌局", final: "最终", round: "第{n}轮", prov: "暂定", filling: "补齐中", none: "暂无成绩",
        csv: "导出排名 CSV", archive: "下载赛事档案（ZIP）", unfinished: "尚未打完本轮：{names}（编排仍会变动）", publish: "发布到各桌（组织者）", ask: "组织者凭证", askPublish: "发布第 {n} 轮编排到各桌",
        credOk: "确定", credCancel: "取消", credEmpty: "请输入组织者凭证", noAnswer: "赛事服务器没有回应，请再试一次",
        refused: "未记录：{e}", sent: "已发布第 {n} 轮编排 · {s}", failed: "发布失败：{e}",
        pair: "第 {n} 轮编排（建议，按排名）", phead: ["桌", "1号位", "2号位", "3号位", "4号位"], again: "再次相遇 {n} 对", bye: "轮空：{names}",
        ok: "已连接赛事服务器", down: "赛事服务器未连接", updated: "更新于 {s}", bad: "异常消息 {n} 条", hand: "第 {n} 盘",
        sep: "、", colon: "：", alertSep: "；", tableSep: "　", provMark: "（{p}）",
        org: "组织者操作（需组织者凭证）", reason: "原因（记入记录）", done: "已记录：{a}", tableOut: "停用：{r}", ended: "组织者按现有成绩结束",
        playerOut: "不参加编排：{r}", outs: "停用的桌：{t}", playersOut: "不参加编排：{names}", standInName: "陪打姓名（不在报名名单上）",
        standIns: "陪打补位：{names}", handsFrom: "第{a}盘起", handsSpan: "第{a}-{b}盘", satIn: "替补 {h}",
        satOut: "{h}；替补：{w}", satSeat: "含替补 {w}" },
  en: { title: "{t} · standings", lang: "中文", head: ["Rank", "Player", "Table pts", "Points", "Rounds"],
        tables: "Tables",
        thead: ["Table", "Round", "Hand", "Phase", "Session clock", "Events", "Needs attention"], timeUp: "time up", attention: "Needs the chief referee: ", standIn: "stand-in", stats: "Player statistics",
        shead: ["Player", "Hands", "Wins", "Self-drawn", "Fed", "Win rate", "Feed rate", "Avg win", "Biggest win"], since: "{n} min", final: "final", round: "R{n}", prov: "provisional", filling: "catching up",
        csv: "Standings as CSV", archive: "The tournament's record (ZIP)", unfinished: "still playing this round: {names} (the seating may change)",
        publish: "Publish to the tables (organiser)", ask: "Organiser credential",
        askPublish: "publish round {n}'s seating to the tables", credOk: "OK", credCancel: "Cancel",
        credEmpty: "type the organiser credential", noAnswer: "the hub did not answer: try again", refused: "not recorded: {e}", sent: "round {n} seating published · {s}",
        failed: "publishing failed: {e}",
        pair: "Round {n} seating (proposed, by rank)", phead: ["Table", "Chair 1", "Chair 2", "Chair 3", "Chair 4"],
        again: "{n} pairs meet again", bye: "sitting out: {names}",
        none: "no results yet", noHands: "no hands played yet", ok: "broker connected", down: "broker not connected", updated: "updated {s}",
        bad: "{n} malformed messages", hand: "hand {n}",
        sep: ", ", colon: ": ", alertSep: "; ", tableSep: " · ", provMark: " ({p})",
        org: "Organiser's decisions (organiser credential)", reason: "reason (kept in the record)", done: "recorded: {a}",
        tableOut: "out of service: {r}", ended: "ended by the organiser with the scores so far",
        playerOut: "out of the seating: {r}", outs: "tables out of service: {t}", playersOut: "out of the seating: {names}",
        standInName: "stand-in's name (not registered)", standIns: "stand-ins filling chairs: {names}",
        handsFrom: "hands {a}-", handsSpan: "hands {a}-{b}", satIn: "substitute, {h}", satOut: "{h}; substitute: {w}",
        satSeat: "with substitute {w}" },
};
// the address's ?lang= (a kiosk set up so), else the button's last choice in this browser: a reload kept neither
const LANGS = ["zh", "en"];
const asked = new URLSearchParams(location.search).get("lang");
let lang = LANGS.includes(asked) ? asked : LANGS.includes(localStorage.getItem("lang")) ? localStorage.getItem("lang") : "zh";
let last = null;
// the hub's `at` in the last standings and this screen's steady clock then (performance.now, ms): a kiosk's clock
// may be hours off, and NTP may step it at any time (an offset to it kept until the next fetch, up to a live ping's
// 20 s, showed every table's clock hours out or 时间到 meanwhile)
let hubAnchor = null;
const hubNow = () => (hubAnchor ? hubAnchor.at + (performance.now() - hubAnchor.mono) / 1000 : Date.now() / 1000);
const $ = (id) => document.getElementById(id);
const ENTITY = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
const esc = (s) => String(s ?? "").replace(/[&<>"]/g, (c) => ENTITY[c]);
function t(key, vars) {
  let s = I18N[lang][key];
  // a function, not the text itself: "$&", "$'" and "$$" in a name or reason are patterns to `replace`
  // (a reason "押金$$" read "押金$", and one with "$&" showed "{r}" in its place)
  for (const [k, v] of Object.entries(vars || {})) s = s.replace("{" + k + "}", () => v);
  return s;
}
function satNote(s) {
  // a substitution (替补) in the round: the hands this player sat, and who else sat the chair
  const w = s.with.join(t("sep"));
  if (s.credit === "seat") return t("satSeat", { w });
  const h = s.spans.map((x) => x.to_hand == null ? t("handsFrom", { a: x.from_hand })
    : t("handsSpan", { a: x.from_hand, b: x.to_hand })).join(t("sep"));
  return s.substitute ? t("satIn", { h }) : t("satOut", { h, w });
}
function playerRow(p) {
  // per round: where the player sat and the 标准分 it brought (R2 t03 4)
  const tables = p.tables.map((x) => `<span class="rnd">${esc(t("round", { n: x.round }))} ${esc(x.table_name)} `
    + `${esc(x.table_points)}</span>`
    + (x.sat ? ` <small class="sat" data-testid="sat">${esc(satNote(x.sat))}</small>` : "")
    + (x.final ? "" : esc(t("provMark", { p: t("prov") })))).join(t("sep"));
  return `<tr data-player="${esc(p.name)}"><td class="num">${p.stand_in ? `<small class="muted">${esc(t("standIn"))}</small>` : p.rank}</td><td class="who">${esc(p.name)}${p.id ? ` <small>${esc(p.id)}</small>` : ""}${
    p.out ? ` <small class="out" data-testid="out">${esc(t("playerOut", { r: p.out.reason || "-" }))}</small>` : ""}</td>`
    + `<td class="num">${p.table_points}</td><td class="num">${p.points}</td><td>${tables}</td></tr>`;
}
function tableRow(x) {
  // the table reports its phase as an id (walls_raised): in English it reads as words
  const phase = esc(lang === "zh" ? x.phase_zh || "" : (x.phase || "").replace(/_/g, " "))
    + (x.final ? " · " + esc(t("final")) : "")
    + ((x.ended || []).includes(x.round) ? ` <small class="out">${esc(t("ended"))}</small>` : "")
    + (x.out ? ` <span class="out" data-testid="out-${esc(x.table_id)}">${esc(t("tableOut", { r: x.out.reason || "-" }))}</span>` : "");
  const events = x.events + (x.complete ? "" : " · " + esc(t("filling")));
  // the table's name links to its hands' records (牌谱) as the hub holds them (none from a table not heard from)
  const name = x.heard === false ? esc(x.table_name)
    : `<a href="/api/tables/${encodeURIComponent(x.table_id)}/records?format=text"`
      + ` data-testid="records-${esc(x.table_id)}">${esc(x.table_name)}</a>`;
  return `<tr data-table="${esc(x.table_id)}"><td>${name}</td>`
    + `<td>${x.round ? esc(t("round", { n: x.round })) : ""}</td>`
    + `<td>${x.hand_no ? esc(t("hand", { n: x.hand_no })) : ""}</td><td>${phase}</td>`
    + `<td class="num" data-testid="clock-${esc(x.table_id)}">${clockText(x.clock)}</td>`
    + `<td class="num ${x.complete ? "" : "bad"}">${events}</td>`
    + `<td class="alerts" data-testid="alerts-${esc(x.table_id)}">${alertText(x)}</td></tr>`;
}
function clockText(c) {
  // the table's session clock: the time left (frozen and marked while the referee has paused it); its end
  // is on the hub's clock (the hub moves each table's onto its own), counted against the hub's now
  if (!c) return "";
  const left = c.paused ? c.left_s : c.ends_at - hubNow();
  if (left <= 0) return `<span class="bad">${esc(t("timeUp"))}</span>`;
  const s = Math.round(left), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const text = (h ? h + ":" + String(m).padStart(2, "0") : String(m)) + ":" + String(r).padStart(2, "0");
  return (c.paused ? "⏸ " : "") + text;
}
function alertText(x) {
  // a table fault, the table's link down, the camera failing: since when (the hub's clock, as `at`)
  return (x.alerts || []).map((a) => esc(lang === "zh" ? a.text_zh : a.text_en) + (a.since == null ? ""
    : ` <small>${esc(t("since", { n: Math.max(0, Math.round((last.at - a.since) / 60)) }))}</small>`)).join(t("alertSep"));
}
let pairs = null;
let published = null;
// why the last publishing was refused (409: no results yet, every table out): shown until the next try, where the
// next fetch's redraw wrote over it within 3 s
let publishRefused = "";
/** A refusal's words: the hub's detail (Chinese first, then English), else its status. */
const detail = (body, status) => (typeof body.detail === "string" && body.detail) || String(status);
/** A live region's words (#published, #org-result): written only when they change, so the redraw at each fetch says
 *  nothing; the same words for a second action (a second table taken out) said again all the same. */
function tell(el, text, again) {
  if (el.textContent !== text) el.textContent = text;
  else if (again && text) { el.textContent = ""; setTimeout(() => { el.textContent = text; }, 150); }
}
// ---- the organiser's credential ------------------------------------------------------------------------------
// Asked in the page's own dialog (#cred: a password field with its label, Chinese first), at each action, and kept
// nowhere: the page is the players' kiosk too, and a credential kept in the tab let anyone at the screen publish a
// seating after the organiser had once. It was `prompt()`: the credential shown as typed on a screen people stand
// around, nothing a password manager could fill, no label for a screen reader. A wrong one (401) or one held (429)
// is said in the dialog, which stays open for another try; Escape or 取消 sends nothing and gives the focus back.
// The field has no name: the form never sends it anywhere itself, so it is in no address and no log.
let asking = null;
let sending = false;
function asOrganiser(what, send) {
  if (asking) return Promise.resolve(null);
  return new Promise((resolve) => {
    asking = { send, resolve, opener: document.activeElement };
    $("cred-what").textContent = what;
    $("cred-error").textContent = "";
    $("cred-token").value = "";
    $("cred").showModal();
    $("cred-token").focus();
  });
}
function credDone(answer) {
  const a = asking;
  if (!a) return;
  asking = null;
  $("cred-token").value = "";
  if ($("cred").open) $("cred").close();
  if (a.opener && a.opener.isConnected) a.opener.focus();
  a.resolve(answer);
}
$("cred").addEventListener("cancel", (e) => { if (sending) e.preventDefault(); });  // its answer is on its way
$("cred").addEventListener("close", () => credDone(null));
$("cred-cancel").onclick = () => { if (!sending) credDone(null); };
$("cred-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const field = $("cred-token"), token = field.value, a = asking;
  if (!a || sending) return;
  if (!token) { $("cred-error").textContent = t("credEmpty"); field.focus(); return; }
  sending = true;
  $("cred-ok").disabled = $("cred-cancel").disabled = true;
  let r = null, body = {};
  try { r = await a.send(token); body = await r.clone().json().catch(() => ({})); } catch (err) { r = null; }
  sending = false;
  $("cred-ok").disabled = $("cred-cancel").disabled = false;
  field.value = "";
  if (r === null || r.status === 401 || r.status === 429) {
    tell($("cred-error"), r === null ? t("noAnswer") : detail(body, r.status), true);
    field.focus();
    return;
  }
  credDone(r);
});
async function publishSeating() {
  if (pairs.unfinished && pairs.unfinished.length && !confirm(t("unfinished", { names: pairs.unfinished.join(t("sep")) }))) return;
  const round = pairs.round;
  const r = await asOrganiser(t("askPublish", { n: round }), (token) =>
    fetch(`/api/pairings/publish?round=${round}`, { method: "POST", headers: { Authorization: "Bearer " + token } }));
  if (!r) return;
  const body = await r.json().catch(() => ({}));
  publishRefused = r.ok ? "" : detail(body, r.status);
  if (r.ok) published = { round: body.round, tables: body.tables };
  renderPairs();
}
function renderPairs() {
  // the next round's seating, proposed from the standings (GET /api/pairings)
  $("phead").innerHTML = I18N[lang].phead.map((h) => `<th>${esc(h)}</th>`).join("");
  $("publish").textContent = t("publish");
  $("publish").hidden = !pairs || !pairs.tables.length;
  tell($("published"), publishRefused ? t("failed", { e: publishRefused })
    : published ? t("sent", { n: published.round, s: published.tables.map((x) => x.table_name).join(t("sep")) })
    : pairs && pairs.unfinished && pairs.unfinished.length ? t("unfinished", { names: pairs.unfinished.join(t("sep")) }) : "");
  if (!pairs || !pairs.tables.length) { $("pair-title").textContent = ""; $("prows").innerHTML = ""; return; }
  $("pair-title").innerHTML = `<a href="/api/pairings?format=text">${esc(t("pair", { n: pairs.round }))}</a>`;
  $("prows").innerHTML = pairs.tables.map((x) => `<tr data-table="${esc(x.table_id)}"><td>${esc(x.table_name)}${
    x.repeat_meetings ? ` <small class="bad">${esc(t("again", { n: x.repeat_meetings }))}</small>` : ""}</td>${
    ["1", "2", "3", "4"].map((c) => `<td>${esc(x.seats[c].name)}${x.seats[c].id ? ` <small>${esc(x.seats[c].id)}</small>` : ""}</td>`).join("")}</tr>`).join("")
    + (pairs.byes.length ? `<tr><td colspan="5" class="muted">${esc(t("bye", { names: pairs.byes.map((b) => b.name).join(t("sep")) }))}</td></tr>` : "")
    + ((pairs.tables_out || []).length ? `<tr><td colspan="5" class="out">${esc(t("outs", { t: pairs.tables_out.map((id) =>
      ((last && last.tables.find((x) => x.table_id === id)) || { table_name: id }).table_name).join(t("sep")) }))}</td></tr>` : "")
    + ((pairs.players_out || []).length ? `<tr><td colspan="5" class="out">${esc(t("playersOut", {
      names: pairs.players_out.map((p) => p.name + (p.reason ? t("provMark", { p: p.reason }) : "")).join(t("sep")) }))}</td></tr>` : "")
    + ((pairs.stand_ins || []).length ? `<tr><td colspan="5" class="out">${esc(t("standIns", { names: pairs.stand_ins.join(t("sep")) }))}</td></tr>` : "");
}
let stats = null;
let org = null;
const TABLE_ACTIONS = ["table_out", "table_back", "round_end", "round_reopen"], PLAYER_ACTIONS = ["player_out", "player_back"];
const STAND_IN_ACTIONS = ["stand_in", "stand_in_end"];
function keep(id, html) {
  // the organiser's choice survives the page's redraws
  const el = $(id), was = el.value;
  el.innerHTML = html;
  if ([...el.options].some((o) => o.value === was)) el.value = was;
}
function renderOrganiser() {
  // the organiser's decisions: a table out of service or back, its round ended with the scores so
  // far, a player out of the seating (withdrew, late) or back; the record of every decision below
  $("org-title").textContent = t("org");
  $("org-reason").placeholder = t("reason");
  // each control named aloud, not by a placeholder alone (which goes once something is typed)
  $("org-reason").setAttribute("aria-label", t("reason"));
  $("org-name").setAttribute("aria-label", t("standInName"));
  $("org-table").setAttribute("aria-label", t("thead")[0]);
  $("org-player").setAttribute("aria-label", t("head")[1]);
  if (!org || !last) return;
  const words = (a) => (org.actions[a] || {})[lang] || a;
  const buttons = (list) => list.map((a) => `<button type="button" data-action="${a}">${esc(words(a))}</button>`).join(" ");
  if (!$("org-table-actions").innerHTML) {
    $("org-table-actions").innerHTML = buttons(TABLE_ACTIONS);
    $("org-player-actions").innerHTML = buttons(PLAYER_ACTIONS);
    $("org-stand-in-actions").innerHTML = buttons(STAND_IN_ACTIONS);
  }
  $("org-name").placeholder = t("standInName");
  keep("org-table", last.tables.map((x) => `<option value="${esc(x.table_id)}">${esc(x.table_name)}</option>`).join(""));
  const people = new Map(last.players.map((p) => [(p.id ? "id:" + p.id : "name:" + p.name), p.name + (p.id ? " " + p.id : "")]));
  for (const p of (pairs && pairs.tables || []).flatMap((x) => Object.values(x.seats)).concat((pairs && pairs.byes) || []))
    if (!people.has(p.id ? "id:" + p.id : "name:" + p.name)) people.set(p.id ? "id:" + p.id : "name:" + p.name, p.name + (p.id ? " " + p.id : ""));
  for (const p of (pairs && pairs.players_out) || [])
    if (!people.has(p.id ? "id:" + p.id : "name:" + p.name)) people.set(p.id ? "id:" + p.id : "name:" + p.name, p.name + (p.id ? " " + p.id : ""));
  keep("org-player", [...people].map(([k, v]) => `<option value="${esc(k)}">${esc(v)}</option>`).join(""));
  $("org-log").innerHTML = org.decisions.map((d) => {
    const when = new Date(d.at * 1000).toLocaleTimeString(lang === "zh" ? "zh-CN" : "en-GB");
    // a table by the name the page shows it by (一号桌), as the organiser picked it: its id (t01) is no one's word
    const row = d.data.table_id && last.tables.find((x) => x.table_id === d.data.table_id);
    const table = d.data.table_id && ((row && row.table_name) || d.data.table_id);
    const what = table ? table + (d.data.round ? " " + t("round", { n: d.data.round }) : "") : d.data.name;
    return `<li>${esc(when)} ${esc(words(d.action))}：${esc(what)}${d.data.reason ? " · " + esc(d.data.reason) : ""}</li>`;
  }).join("");
}
async function decide(action) {
  // the credential asked each time, never kept, as for publishing; the dialog names the decision and whom it is on
  const body = { action, reason: $("org-reason").value };
  const chosen = (id) => { const o = $(id).selectedOptions[0]; return o ? o.textContent : ""; };
  let whom;
  if (TABLE_ACTIONS.includes(action)) { body.table_id = $("org-table").value; whom = chosen("org-table"); }
  else if (STAND_IN_ACTIONS.includes(action)) { body.name = $("org-name").value.trim(); whom = body.name; }
  else { body.player = $("org-player").value; whom = chosen("org-player"); }
  const words = (org.actions[action] || {})[lang] || action;
  const r = await asOrganiser(words + (whom ? t("colon") + whom : ""), (token) => fetch("/api/organiser", {
    method: "POST", headers: { Authorization: "Bearer " + token, "Content-Type": "application/json" }, body: JSON.stringify(body) }));
  if (!r) return;
  const got = await r.json().catch(() => ({}));
  tell($("org-result"), r.ok ? t("done", { a: words }) : t("refused", { e: detail(got, r.status) }), true);
  if (r.ok) { $("org-reason").value = ""; $("org-name").value = ""; poll(); }
}
// the biggest win's fans in the page's language (a hub from before kept only the Chinese names)
const fans = (best) => (lang === "en" && best.fans_en ? best.fans_en : best.fans);
function renderStats() {
  // 技术统计: from the hands' public records the tables sent
  $("stats-title").textContent = t("stats");
  $("shead").innerHTML = I18N[lang].shead.map((h) => `<th>${esc(h)}</th>`).join("");
  const pct = (x) => (x * 100).toFixed(1) + "%";
  $("srows").innerHTML = ((stats && stats.players) || []).map((p) => `<tr data-stats="${esc(p.name)}"><td>${esc(p.name)}${
    p.id ? ` <small>${esc(p.id)}</small>` : ""}</td><td class="num">${p.hands}</td><td class="num">${p.wins}</td>`
    + `<td class="num">${p.self_drawn}</td><td class="num">${p.fed}</td><td class="num">${pct(p.win_rate)}</td>`
    + `<td class="num">${pct(p.feed_rate)}</td><td class="num">${p.average_win ?? ""}</td><td>${p.best ? `${p.best.total} <small>${
      esc(p.best.table_name)} · ${esc(t("round", { n: p.best.round }))} · ${esc(t("hand", { n: p.best.hand_no }))} · ${esc(fans(p.best).join(t("sep")))}</small>` : ""}</td></tr>`).join("")
    || `<tr><td colspan="9" class="muted">${esc(t("noHands"))}</td></tr>`;
}
/** A column of numbers has its heading over the numbers (right), as its first row's cells say. */
function alignHead(id) {
  const head = $(id), row = head && head.closest("table").querySelector("tbody tr");
  if (!row) return;
  [...head.children].forEach((th, i) => th.classList.toggle("num", !!(row.children[i] && row.children[i].classList.contains("num"))));
}
/** The page drawn again with the focus where it was: the tables' and the seating's rows are written anew at each
 *  fetch, and a link or a button focused in them (a table's 牌谱, the seating's page) lost the focus to the page's
 *  body, the next Tab starting at the top. Found again by its id, its data-testid or its address. */
function render() {
  const was = document.activeElement;
  const key = was && was !== document.body && (was.id ? "#" + CSS.escape(was.id)
    : was.dataset.testid ? `[data-testid="${CSS.escape(was.dataset.testid)}"]`
    : was.getAttribute("href") ? `a[href="${CSS.escape(was.getAttribute("href"))}"]` : null);
  draw();
  if (key && !was.isConnected) { const again = document.querySelector(key); if (again) again.focus(); }
}
function draw() {
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  $("title").textContent = t("title", { t: TOURNAMENT });
  document.title = $("title").textContent;
  $("lang").textContent = t("lang");
  $("lang").lang = lang === "zh" ? "en" : "zh-CN";  // English / 中文 read in their own language's voice
  $("head").innerHTML = I18N[lang].head.map((h) => `<th>${esc(h)}</th>`).join("");
  $("thead").innerHTML = I18N[lang].thead.map((h) => `<th>${esc(h)}</th>`).join("");
  $("tables-title").textContent = t("tables");
  $("csv").textContent = t("csv");
  $("archive").textContent = t("archive");
  $("cred-title").textContent = $("cred-label").textContent = t("ask");
  $("cred-ok").textContent = t("credOk");
  $("cred-cancel").textContent = t("credCancel");
  if (!last) return;
  $("rows").innerHTML = last.players.length ? last.players.map(playerRow).join("")
    : `<tr><td colspan="5" class="muted">${esc(t("none"))}</td></tr>`;
  $("trows").innerHTML = last.tables.map(tableRow).join("");
  renderStats();
  for (const id of ["head", "thead", "shead"]) alignHead(id);
  // a table the organiser took out of service is handled: its row still says why, the banner does not
  const needing = last.tables.filter((x) => (x.alerts || []).length && !x.out);
  $("attention").hidden = !needing.length;
  $("attention").innerHTML = esc(t("attention")) + needing.map((x) => `<strong>${esc(x.table_name)}</strong> ${alertText(x)}`).join(t("tableSep"));
  sayAlerts(needing);
  renderPairs();
  renderOrganiser();
  const h = last.hub;
  const when = new Date(last.at * 1000).toLocaleTimeString(lang === "zh" ? "zh-CN" : "en-GB");
  $("status").innerHTML = `<span class="${h.connected ? "" : "bad"}">${esc(t(h.connected ? "ok" : "down"))}</span> · `
    + esc(t("updated", { s: when })) + (h.malformed ? " · " + esc(t("bad", { n: h.malformed })) : "");
}
/** A table's alert said once to a screen reader (#said), in this tab: the banner is redrawn at each fetch and its
 *  minutes since move, so it is no live region itself. An alert gone and come again is said again. */
function sayAlerts(needing) {
  let before = [];
  try { before = JSON.parse(sessionStorage.getItem("hubSaid") || "[]"); } catch (e) { /* said again, no harm */ }
  const now = needing.flatMap((x) => x.alerts.map((a) => [x.table_id + ":" + a.text_zh, x, a]));
  const fresh = now.filter(([k]) => !before.includes(k));
  sessionStorage.setItem("hubSaid", JSON.stringify(now.map(([k]) => k)));
  if (fresh.length) {
    $("said").textContent = t("attention") + fresh.map(([, x, a]) => x.table_name + " " + (lang === "zh" ? a.text_zh : a.text_en))
      .join(t("alertSep"));
  }
}
let polling = false, again = false;
async function poll() {
  // one fetch at a time; a change told while one runs fetches once more after it
  if (polling) { again = true; return; }
  polling = true;
  try {
    // the standings every time (their `at` moves the alerts' "since"); the rest is asked again with the ETag
    // the browser keeps (no-cache), and the hub answers 304, no body, while they are what the page holds
    const r = await fetch("/api/standings", { cache: "no-store" });
    if (r.ok) { last = await r.json(); hubAnchor = { at: last.at, mono: performance.now() }; }
    const q = await fetch("/api/pairings", { cache: "no-cache" });
    if (q.ok) pairs = await q.json();
    const pub = await fetch("/api/pairings/published", { cache: "no-cache" });
    if (pub.ok) {  // a seating published since (from another page, by the API): an earlier refusal is no longer news
      const was = JSON.stringify(published);
      published = await pub.json();
      if (JSON.stringify(published) !== was) publishRefused = "";
    }
    const st = await fetch("/api/stats", { cache: "no-cache" });
    if (st.ok) stats = await st.json();
    const og = await fetch("/api/organiser", { cache: "no-cache" });
    if (og.ok) org = await og.json();
  } catch (e) { /* the hub restarts: keep the last standings on screen */ }
  polling = false;
  render();
  if (again) { again = false; poll(); }
}
// The hub says when something changed (a table's event, a fault, the broker): the page fetches at
// once. Without that channel (a proxy that drops WebSockets, the hub restarting) it polls every 3 s.
let live = null;
function connect() {
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/live");
  ws.onopen = () => { live = ws; };
  ws.onmessage = () => poll();
  ws.onclose = () => { live = null; setTimeout(connect, 3000); };
}
function fallback() { if (!live) poll(); setTimeout(fallback, 3000); }
function clocks() {
  // the session clocks count down between fetches
  for (const x of (last && last.tables) || []) {
    const cell = document.querySelector(`[data-testid="clock-${CSS.escape(x.table_id)}"]`);
    if (cell) cell.innerHTML = clockText(x.clock);
  }
}
// A TV kiosk (?kiosk, or ?kiosk=S for S seconds a screen) has no one to scroll it: a hall's
// standings run past one screen, so it turns the page every S seconds and comes back to the top.
const KIOSK = new URLSearchParams(location.search).get("kiosk");
// The next turn is counted from the end of this one's smooth scroll (`scrollend`), not from its start: a turn
// that came while the last scroll was under way (a short S; a long scroll on a slow TV) found the page short of
// the bottom each time, turned down again, and the page never came back to the top.
if (KIOSK !== null) {
  const every = 1000 * (Number(KIOSK) > 0 ? Number(KIOSK) : 10);
  const turn = () => {
    const bottom = window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2;
    const top = bottom ? 0 : window.scrollY + window.innerHeight - 80;
    if (Math.abs(top - window.scrollY) < 1) { setTimeout(turn, every); return; }  // one screen: nothing to turn
    let fallback = null;
    const ended = () => {
      window.removeEventListener("scrollend", ended);
      clearTimeout(fallback);
      setTimeout(turn, every);
    };
    window.addEventListener("scrollend", ended);
    fallback = setTimeout(ended, 3000);  // a scroll that never said it ended: the kiosk turns on all the same
    window.scrollTo({ top, behavior: "smooth" });
  };
  setTimeout(turn, every);
}
$("lang").onclick = () => {
  lang = lang === "zh" ? "en" : "zh";
  localStorage.setItem("lang", lang);
  const url = new URL(location.href);  // an address's ?lang= would undo the choice at the next reload
  if (url.searchParams.has("lang")) { url.searchParams.set("lang", lang); history.replaceState(null, "", url); }
  render();
};
$("publish").onclick = publishSeating;
$("org").addEventListener("click", (e) => { const a = e.target.closest("button[data-action]"); if (a) decide(a.dataset.action); });
poll();
connect();
setTimeout(fallback, 3000);
setInterval(clocks, 1000);
</script>
</body>
</html>
"""
