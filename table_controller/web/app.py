"""The display's app factory: REST for state and actions, a numbered WebSocket stream, the pages.

Live messages (JSON), on `/ws` (public) and `/ws/referee` (authenticated by its first message):
- `{"type": "snapshot", "seq": N, "state": {...}, "now": T}`: the whole view at N;
- `{"type": "event", "seq": N, "event": {...}, "state": {...}?, "kept": [...]?, "now": T}`: one accepted
  event; live events and the last of a catch-up carry the state after them, less the parts named in
  `kept` (`BIG`: the score sheet, the ended hands) where they are as in the last state this socket
  sent. `now` is the server's clock, so a page counts turn timers down without trusting its own clock.
A client that reconnects with `?since=N` receives exactly the events after N, or one snapshot when
more than `REPLAY_LIMIT` were missed. `/ws?delay=S` is the broadcast feed, S seconds behind.
What the public sees is `projection.public_view` / `public_event`, never the raw state.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, HTTPException, Path as PathParam, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError
from starlette.exceptions import HTTPException as StarletteHTTPException

from table_controller import __version__, chatter
from table_controller.controller import PAST_WINDOW_S, ActionError, Controller
from table_controller.penalties import catalogue
from table_controller.printable import first_unprintable
from table_controller.projection import public_actions, public_event, public_view, referee_view
from table_controller.referee import visible_tiles
from table_controller.scoresheet import to_csv
from table_controller.state import apply
from table_controller.store import MAX_INTEGER, Event, StoreError
from table_controller.web.apidocs import api_page
from table_controller.web.icon import serve_icon
from table_controller.config_watch import CHANGED
from table_controller.credential_file import REFEREE, CredentialFileError, label, named, write_credential
from table_controller.web.auth import LOCKOUT_SAYS, ROLE_ZH, Credentials, allows, weakness
from table_controller.web.built import OnceBuilt
from table_controller.web.limits import BodyLimit
from table_controller.web.private import NoStore
from table_controller.web.problems import malformed, refused
from table_controller.web.recovering import PROGRESS_EVERY_S, WhileRecovering
from table_controller.web.replays import Replays
from table_controller.web.schemas import EventOut, HealthOut, StateOut

log = logging.getLogger("table_controller.web")
STATIC = Path(__file__).parent / "static"
#: Beyond this many missed events a reconnecting client gets one snapshot instead.
REPLAY_LIMIT = 500
#: A quiet socket still gets the link's health this often (seconds).
HEALTH_EVERY_S = 2.0


Seat = Literal["E", "S", "W", "N"]
TILE_PATTERN = r"^(?:(?:10|[1-9])[mps]|[1-7]z|[1-8]f)$"
Tile = Annotated[str, Field(pattern=TILE_PATTERN, description="tile code (GLOSSARY.md): 1m, 9p, 5z, 3f ...")]
#: a hand's number as a record's address gives it: one past SQLite's integers (/api/hands/99999999999999999999/record)
#: raised OverflowError reading the log, a 500 to anyone on the venue's Wi-Fi
HandNo = Annotated[int, PathParam(ge=1, le=MAX_INTEGER, description="the hand (盘) of the round, from 1")]


def _not_finite(value: Any) -> bool:
    """Whether a NaN or an Infinity lies anywhere in a parsed body."""
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(_not_finite(v) for v in value.values())
    if isinstance(value, list):
        return any(_not_finite(v) for v in value)
    return False


def _printable(value: str) -> str:
    """A player's name or number as the sheet, the records and the hub show it (`printable`): one pasted with a
    zero-width space looked like another's ("甲\u200b" beside "甲": two players to the hub, 同一选手不能占两个号位
    passed), a line break split the text record's line, U+202E turned the rest of its line (the scores) round."""
    found = first_unprintable(value)
    if found is not None:
        raise PydanticCustomError("unprintable", "an invisible or control character (character {at}, {code})",
                                  {"at": found[0], "code": found[1]})
    return value


def _lines(value: str) -> str:
    """A written appeal or a decision's reasons: `_printable`, but its line breaks are the writer's."""
    found = first_unprintable(value, allowed="\n")
    if found is not None:
        raise PydanticCustomError("unprintable", "an invisible or control character (character {at}, {code})",
                                  {"at": found[0], "code": found[1]})
    return value


#: a player's name, and a registration number, as a request gives them
PlayerName = Annotated[str, Field(min_length=1, max_length=40), AfterValidator(_printable)]
PlayerId = Annotated[str, Field(max_length=40), AfterValidator(_printable)]
#: a referee's reason kept in the record (an undo, a correction, a substitute), one line: a control character went
#: into the record, its CSV and text lines as it came (a line break split the record's line, U+202E turned it round)
Reason = Annotated[str, Field(min_length=1, max_length=200), AfterValidator(_printable)]
#: a short note that may be left empty (a penalty's, a pause's reason)
Note = Annotated[str, Field(max_length=200), AfterValidator(_printable)]
#: what a player or the committee writes, lines and all (an appeal, its decision)
Writing = Annotated[str, Field(min_length=1, max_length=500), AfterValidator(_lines)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _finite(cls, data: Any) -> Any:
        """JSON has no NaN or Infinity, but Python's parser takes them: one in a field of any kind (a win's
        `options`) was logged, and the referee's record of that hand answered 500 ever after."""
        if _not_finite(data):
            raise PydanticCustomError("not_finite", "NaN or Infinity is not a JSON number")
        return data


class StartHand(_Body):
    pass


class _Seen(_Body):
    """An action on what the referee's page shows: `seen` lets the service refuse it when another
    page changed that since (`stale.py`); without it (a script, an older page) nothing is checked."""
    seen: int | None = Field(None, ge=0, description="the log position (the state's `seq`) of the page's view: "
                                                      "409 when another action changed this since")
    mine: list[Annotated[int, Field(ge=1)]] | None = Field(
        None, max_length=64, description="the page's own actions answered after `seen` whose events its socket has "
                                         "not brought yet: not changes it never saw (a confirmation pressed right "
                                         "after its own read was refused as stale)")

    def view(self) -> dict[str, Any]:
        """`seen` and `mine` as the action's data carries them to `Controller.referee_action` (not logged)."""
        return {"seen": self.seen, "mine": self.mine}


class ConfirmIn(_Seen):
    pass


class EndHand(_Body):
    result: Literal["draw", "win", "abandoned", "abortive"] = Field(
        "draw", description="荒牌 (draw), 和牌 (win), abandoned, or abortive (途中流局, where the ruleset has them)")
    abortive: Literal["nine_terminals", "four_winds", "four_riichi", "four_kongs", "three_rons"] | None = Field(
        None, description="with result abortive: 九种九牌, 四风连打, 四家立直, 四杠散了 or 三家和")
    seat: Seat | None = Field(None, description="九种九牌: the seat that declares it")
    tiles: list[Tile] | None = Field(None, max_length=14, description="九种九牌: the 14 tiles shown (checked if given)")


class PenaltyIn(_Seen):
    seat: Seat = Field(description="the offender, wind of this hand")
    code: str = Field(min_length=1, max_length=40, description="an entry of GET /api/penalties")
    amount: int | None = Field(None, ge=0, le=1000, description="only for entries with min/max (the referee chooses)")
    victim: Seat | None = Field(None, description="the harmed seat, for entries that pay a victim")
    fan: int | None = Field(None, ge=0, le=100, description="诈和 where the scorer pays it (entries with "
                                                            "from_scoring, 四川): the 番 the seat declared")
    note: Note = Field("", description="the referee's note, kept with the penalty")


class AppealIn(_Body):
    position: int = Field(ge=1, le=4, description="the appellant's chair (抽签号位) 1..4")
    target: int | None = Field(None, ge=1, description="the referee action appealed against (its #); none: 相关事宜")
    text: Writing = Field(description="the appeal as the player wrote it")


class AppealRulingIn(_Body):
    appeal: int = Field(ge=1, description="the appeal's #")
    upheld: bool = Field(description="the committee supports the appeal (true) or dismisses it (false)")
    note: Writing = Field(description="the decision's reasons")


class PauseIn(_Body):
    reason: Note = Field("", description="why the clock stands still (牌桌故障, 选手不适 …)")


#: what a 403 tells the person at the page to do (it said only "需要裁判权限", with the form still in front of them)
LOG_IN_AS = {"referee": "请在页面上方用裁判员凭证登录 / needs the referee role: log in with the referee's credential",
             "operator": "请在页面上方用操作员或裁判员凭证登录 / needs the operator role: log in with the operator's or "
                         "the referee's credential"}



class WinIn(_Seen):
    hand: dict[str, Any] = Field(description="the winning hand as read, in the `tablectl score` schema (docs/scoring.md)")


class WinCameraIn(_Seen):
    seat: Seat = Field(description="the winner, whose hand lies face up in front of them")
    win: Literal["discard", "self_draw", "rob_kong", "kong_replacement", "flower_replacement"] = "discard"
    win_tile: Tile | None = Field(None, description="the winning tile; needed unless won on the last discard")
    options: dict[str, Any] | None = Field(None, description="scoring options the camera cannot see, e.g. "
                                           "{\"points\": 8} where the referee scores (裁判计分)")


class ShownHand(_Body):
    concealed: list[Tile] | str = Field(description="the concealed tiles shown (13 less 3 per meld), a list or `123m 45p`")
    melds: list[dict[str, Any]] | None = Field(None, description="default: the seat's melds as recorded")
    options: dict[str, Any] | None = Field(None, description="e.g. {\"missing_suit\": \"m\"} (定缺)")


class ExhaustiveIn(_Seen):
    hands: dict[Seat, ShownHand] = Field(description="查叫: each seat still playing, its hand as shown at 荒牌")


class UndoIn(_Seen):
    reason: Reason = Field(description="why the last referee action is undone")
    target: int | None = Field(None, ge=1, description="seq of the action to undo; must be the last one")


class CredentialIn(_Body):
    old: str = Field(min_length=1, max_length=128, description="the referee's PIN now, typed again")
    new: str = Field(min_length=6, max_length=128, description="the new PIN (6+ characters, not one guessed soon)")


class _PlayFields(_Body):
    """A play's fields, each optional: what a correction replaces, or what an inserted play names."""
    seat: Seat | None = None
    tile: Tile | None = None
    tiles: list[Tile] | None = Field(None, min_length=3, max_length=4)
    from_: Seat | None = Field(None, alias="from")
    kind: Literal["chow", "pung", "kong"] | None = None
    concealed: bool | None = None
    added: bool | None = None
    suit: Literal["m", "p", "s"] | None = None


class InsertedPlay(_PlayFields):
    """A play never keyed, as `POST /api/play` takes it; checked by the fold (`corrections.check`)."""
    type: Literal["discard", "claim", "kong", "flower", "missing", "riichi"]
    seat: Seat


class PlayCorrectIn(_PlayFields, _Seen):
    """A play in the record put right (`referee.play_correct`): the fields given replace the play's, or `void`;
    or a play never keyed inserted (`play` with `insert_before` / `insert_after`, or with `target`: in its place)."""
    target: int | None = Field(None, ge=1, description="seq of the play in the hand's record (its 牌谱 line)")
    reason: Reason = Field(description="why: kept in the record with the correction")
    void: bool = Field(False, description="the play never happened (keyed twice, seen where none was)")
    play: InsertedPlay | None = Field(None, description="a play never keyed, put in the record (补录)")
    insert_before: int | None = Field(None, ge=1, description="the play the inserted one goes right before")
    insert_after: int | None = Field(None, ge=1, description="the play the inserted one goes right after")


class CameraConfirmIn(_Body):
    seq: int = Field(ge=1, description="seq of the camera's unsure reading (state.camera_pending)")
    kind: str | None = Field(None, min_length=2, max_length=4,
                             description="the tile it really is (glossary code); none: the camera read it right")


class CameraDismissIn(_Body):
    """The camera's unsure reading is of no tile (a coin, a phone, a glare spot, a sleeve): `referee.camera_dismiss`."""
    seq: int = Field(ge=1, description="seq of the camera's unsure reading (state.camera_pending)")


class SessionIn(_Body):
    minutes: float | None = Field(None, gt=0, le=24 * 60, description="default: the ruleset's [timers] session_minutes")


Chair = Literal["1", "2", "3", "4"]


class RoundIn(_Seen):
    round: int = Field(ge=1, le=999, description="the round (轮次) starting: the next one, or this one again "
                                              "before its first hand to correct its players")
    players: dict[Chair, PlayerName] = Field(
        description="the round's four players by chair (1号位 … 4号位; chair 1 is E in the first hand)")
    player_ids: dict[Chair, PlayerId] = Field(
        default_factory=dict, description="registration numbers by chair (the hub adds players up by them)")


class SubstituteIn(_Seen):
    position: Chair = Field(description="the chair (抽签号位 1..4) whose player is replaced")
    name: PlayerName = Field(description="the substitute (替补) coming in from the next hand")
    player_id: PlayerId = Field("", description="the substitute's registration number, if they have one")
    reason: Reason = Field(description="why: 伤病, 中途离场弃权, 取消比赛资格 …")


class PlayIn(_Body):
    type: Literal["deal_done", "discard", "claim", "kong", "flower", "missing", "riichi"]
    seat: Seat | None = None
    tile: Tile | None = None
    tiles: list[Tile] = Field(default_factory=list, max_length=4)
    kind: Literal["chow", "pung", "kong"] | None = None
    from_: Seat | None = Field(None, alias="from")
    concealed: bool = False
    #: a kong: the fourth tile added to the seat's pung (补杠)
    added: bool = False
    #: 定缺 (四川): the suit the seat gives up
    suit: Literal["m", "p", "s"] | None = None

    @model_validator(mode="after")
    def _complete(self) -> "PlayIn":
        need = {"discard": ("seat", "tile"), "flower": ("seat", "tile"), "claim": ("seat", "kind", "from_"),
                "kong": ("seat",), "deal_done": (), "missing": ("seat", "suit"), "riichi": ("seat",)}[self.type]
        missing = [n.rstrip("_") for n in need if getattr(self, n) is None]
        if missing:
            raise ValueError(f"{self.type} needs {', '.join(missing)}")
        if self.type in ("claim", "kong") and len(self.tiles) < 3:
            raise ValueError(f"{self.type} needs the meld's tiles (3 or 4)")
        if self.type == "kong" and self.tile is not None:  # it went into the public record of a face-down kong
            raise PydanticCustomError("kong_tile", "a kong's tiles go in `tiles`, not `tile`")
        return self


class DiceIn(_Seen):
    seat: Seat
    dice: list[Annotated[int, Field(ge=1, le=6)]] = Field(min_length=1, max_length=3)


class ActionResult(BaseModel):
    seq: int
    type: str


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


def create_app(controller: Controller, credentials: Credentials | None = None) -> FastAPI:
    """Build the app around a running controller; tests pass their own credentials."""
    cfg = controller.config
    creds = credentials or Credentials.from_display(cfg.display, lambda: secrets.token_urlsafe(12))
    app = FastAPI(title="自动麻将机 裁判显示 / Mahjong table display", version=__version__,
                  description="Referee display and control API. Roles: viewer (no token), operator, referee "
                              "(`Authorization: Bearer <token>`). Live events: WebSocket `/ws?since=N` (public) and "
                              "`/ws/referee?since=N` (first message `{\"token\": ...}`). See docs/display.md.",
                  docs_url=None, redoc_url=None)  # theirs load from CDNs: a venue without internet saw blank pages
    app.state.credentials = creds
    #: each open referee socket: the event that ends it and the credential (`credential_file.Key`) it opened with
    sessions: dict[asyncio.Event, tuple[str, str]] = {}

    def end_sessions(keys: list[tuple[str, str]]) -> None:
        """A credential changed: every referee socket opened with it ends (`CHANGED_SAYS`), on every device."""
        for ended, key in list(sessions.items()):
            if key in keys:
                ended.set()

    creds.listeners.append(end_sessions)
    app.state.controller = controller
    views = ViewCache(controller)
    app.state.views = views
    built = OnceBuilt()  # the records: built once per log position, the public's one at a time
    app.state.built = built
    delayed = DelayedViews()
    # a double tap or a retry after a lost answer acts once, after a restart too
    app.add_middleware(Replays, recorded=controller.store.request_done)
    app.add_middleware(BodyLimit)  # before anything reads a body: a huge one must not fill the Pi's memory
    app.add_middleware(NoStore)  # a referee's answer (concealed tiles) never kept by a shared tablet's browser
    app.add_middleware(WhileRecovering, controller=controller)  # 503 until the log is folded at start
    if cfg.display.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(cfg.display.cors_origins),
                           allow_methods=["GET", "POST"], allow_headers=["Authorization", "Content-Type", "Idempotency-Key"])

    @app.exception_handler(StoreError)
    async def _log_unwritable(request: Request, exc: StoreError) -> JSONResponse:
        # The action was not done (its event is not in the log); everything accepted before stays.
        return JSONResponse(status_code=503, content={
            "detail": f"事件记录无法写入（存储已满或只读？），本操作未执行，请清理存储后重试 / the event log cannot be "
                      f"written (storage full or read-only?); nothing was done: {exc}"})

    app.add_exception_handler(RequestValidationError, malformed)
    app.add_exception_handler(StarletteHTTPException, refused)  # its own English words too

    def role(needed: str):
        def check(request: Request) -> str:
            client = _client(request)
            header = request.headers.get("authorization", "")
            token = header[7:].strip() if header.lower().startswith("bearer ") else None
            held, got = creds.attempt(token, client)  # checked and counted as one step (a hash takes 50 ms)
            if held == "client" or held and token:  # a stranger's guesses never hold up a viewer's read
                raise HTTPException(429, detail=LOCKOUT_SAYS[held],
                                    headers={"Retry-After": str(creds.retry_after(client))})
            if got is None:
                raise HTTPException(401, detail="凭证错误 / wrong credential")
            if not allows(got[0], needed):
                raise HTTPException(403, detail=f"需要{ROLE_ZH[needed]}权限：{LOG_IN_AS[needed]}")
            request.state.by_name = got[1]  # a named referee: logged with each ruling
            return got[0]
        return check

    def done(ev: Any) -> ActionResult:
        return ActionResult(seq=ev.seq, type=ev.type)

    def referee_act(type: str, data: dict[str, Any], who: str, request: Request) -> ActionResult:
        try:
            return done(controller.referee_action(type, data, by=who, client=_client(request),
                                                  by_name=getattr(request.state, "by_name", "")))
        except ActionError as exc:
            raise HTTPException(exc.status, detail=str(exc)) from None

    @app.get("/api/health", response_model=HealthOut, summary="Is the service up; the link's and camera's health")
    async def health() -> dict[str, Any]:
        return {"ok": controller.log_error is None, "version": __version__, "seq": controller.state.seq,
                "link": controller.state.link, "health": controller.health_report(),
                "recovering": controller.recovering}

    @app.get("/api/state", response_model=StateOut, summary="The public state (no concealed tile)")
    async def state() -> dict[str, Any]:
        return {**views.public(), "now": controller.now()}

    @app.get("/api/referee/state", response_model=StateOut, summary="The referee's state, with the win as read")
    async def referee_state(who: str = Depends(role("referee"))) -> dict[str, Any]:
        return {**views.referee(), "now": controller.now()}

    @app.get("/api/events", response_model=list[EventOut], summary="Public events after `since`")
    async def events(since: int = Query(0, ge=0, le=MAX_INTEGER), limit: int = Query(500, ge=1, le=5000)) -> Response:
        head = controller.state.seq

        def build() -> bytes:  # 5,000 events read, copied and written: 0.15-0.3 s here, once off the loop
            return bytes(JSONResponse([public_event(ev.to_json()) for ev in controller.store.since(since, limit)
                                       if ev.seq <= head]).body)

        return Response(await built.get(("events", since, limit, head), build), media_type="application/json")

    @app.get("/api/actions", summary="Every referee action of the session: who, when, what, undone and why")
    async def actions() -> list[dict[str, Any]]:
        return public_actions(controller.state)

    @app.get("/api/penalties", summary="The ruleset's penalty catalogue (罚则) with amounts")
    async def penalties() -> dict[str, Any]:
        return catalogue(controller.state.ruleset).to_json()

    @app.get("/api/fans", summary="The ruleset's fan table (番种表): each fan's value and rule, and the payment rules")
    async def fans() -> dict[str, Any]:
        from table_controller.rules.ruleset import in_use
        from table_controller.scoring.catalog import fan_table

        ruleset = controller.state.ruleset
        rs = in_use(ruleset)  # the service started with it: it loads, as the fan table does (not the file as edited since)
        return {"ruleset": ruleset, "name_zh": rs.name_zh, "name_en": rs.name_en, "rows": fan_table(ruleset)}

    RoundQuery = Query(None, ge=1, description="a round (轮次) of this table; default: the one being played")

    def _sheet(round_no: int | None) -> dict[str, Any]:
        from table_controller.rounds import RoundError, sheet

        if round_no is None or round_no == controller.state.round:
            return views.public()["scoresheet"]
        try:
            return sheet(controller.state, round_no)
        except RoundError as exc:
            raise HTTPException(404, detail=str(exc)) from None

    @app.get("/api/scoresheet", summary="The round's score sheet with running totals and 标准分")
    async def scoresheet_json(round: int | None = RoundQuery) -> dict[str, Any]:
        return _sheet(round)

    @app.get("/api/scoresheet.csv", summary="The score sheet as CSV")
    async def scoresheet_csv(round: int | None = RoundQuery) -> Response:
        sheet = _sheet(round)
        several = controller.state.round != 1 or controller.state.rounds  # name the round once there are two
        name = f"scoresheet-round{sheet['round']}.csv" if several else "scoresheet.csv"
        return Response(to_csv(sheet), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    @app.get("/api/rounds", summary="The rounds (轮次) played at this table: players, totals and 标准分")
    async def rounds_json() -> list[dict[str, Any]]:
        return views.public()["rounds"]

    @app.get("/api/hands/{hand_no}/record", summary="The hand record (牌谱): plays, wins, score; no concealed tile")
    async def hand_record_public(hand_no: HandNo, format: Literal["json", "text"] = "json",
                                 round: int | None = RoundQuery) -> Response:
        return await _record(hand_no, referee=False, fmt=format, round_no=round)

    @app.get("/api/referee/hands/{hand_no}/record", summary="The hand record with the hands as read (referee only)")
    async def hand_record_referee(hand_no: HandNo, format: Literal["json", "text"] = "json",
                                  round: int | None = RoundQuery,
                                  who: str = Depends(role("referee"))) -> Response:
        return await _record(hand_no, referee=True, fmt=format, round_no=round)

    @app.get("/api/records", summary="Every hand's record of a round (its 牌谱), or of all rounds; no concealed tile")
    async def session_records_public(format: Literal["json", "text"] = "json", round: int | None = RoundQuery,
                                     all_rounds: bool = Query(False, alias="all", description="every round's")) -> Response:
        from table_controller.record import all_records, as_text, session_records
        from table_controller.rounds import RoundError

        state = controller.state  # (never changed once made: the worker thread reads it as it is now)

        def build() -> bytes:
            events = _upto(state.seq)
            records = all_records(events, state=state) if all_rounds else \
                session_records(events, state=state, round_no=round)
            return _body(records, format, lambda: "\n".join(as_text(r) for r in records))

        try:  # a long day's log read and its records built: off the loop (400 hands: 0.5 s here, a Pi 5-8x),
            # once per log position for every client that asks (`web/built.py`)
            body = await built.get(("records", all_rounds, round, format, state.seq), build)
        except RoundError as exc:
            raise HTTPException(404, detail=str(exc)) from None
        return Response(body, media_type=MEDIA[format])

    def _upto(seq: int) -> list[Any]:
        """The log up to `seq` (the state the request was answered from), not what was written since."""
        events = controller.store.since(0)
        return events if not events or events[-1].seq <= seq else [e for e in events if e.seq <= seq]

    def _of_hand(hand_no: int, round_no: int | None, state: Any) -> list[Any]:
        """The log a hand's record needs: from the hand's last start in the round being played to `state`'s
        event. The Penalties page asks for the hand in play's record at every play (更正牌谱's list); reading
        the whole day's log for it cost 1-1.4 s at 19,000 events here (a Pi 5-8x), growing all day. A hand
        of a closed round, or one the round does not hold (its 404 names the hands), reads the whole log."""
        if round_no is None or round_no == state.round:
            first = controller.store.hand_start(hand_no, state.round_start_seq)
            if first is not None and first <= state.seq:
                events = controller.store.since(first - 1)
                return events if not events or events[-1].seq <= state.seq else [e for e in events
                                                                                  if e.seq <= state.seq]
        return _upto(state.seq)

    async def _record(hand_no: int, referee: bool, fmt: str, round_no: int | None) -> Response:
        from table_controller.record import RecordError, as_text, hand_record
        from table_controller.rounds import RoundError

        state = controller.state

        def build() -> bytes:  # the controller's own folded state: the log is read, not folded again
            record = hand_record(_of_hand(hand_no, round_no, state), hand_no, referee=referee, state=state,
                                 round_no=round_no)
            return _body(record, fmt, lambda: as_text(record))

        try:  # the referee's never waits behind the public's
            body = await built.get(("hand", referee, hand_no, round_no, fmt, state.seq), build, queued=not referee)
        except (RecordError, RoundError) as exc:
            raise HTTPException(404, detail=str(exc)) from None
        return Response(body, media_type=MEDIA[fmt])

    @app.get("/api/whoami")
    async def whoami(request: Request, who: str = Depends(role("viewer"))) -> dict[str, str]:
        return {"role": who, "role_zh": ROLE_ZH[who], "name": getattr(request.state, "by_name", "")}

    @app.post("/api/hand/start", response_model=ActionResult)
    async def start_hand(body: StartHand | None = None, who: str = Depends(role("operator"))) -> ActionResult:
        try:
            return done(await controller.start_hand(by=who))
        except ActionError as exc:
            raise HTTPException(exc.status, detail=str(exc)) from None

    @app.post("/api/hand/end", response_model=ActionResult)
    async def end_hand(body: EndHand | None = None, who: str = Depends(role("operator"))) -> ActionResult:
        try:
            b = body or EndHand()
            return done(await controller.end_hand(by=who, result=b.result, abortive=b.abortive, seat=b.seat,
                                                  tiles=b.tiles))
        except ActionError as exc:
            raise HTTPException(exc.status, detail=str(exc)) from None

    @app.post("/api/play", response_model=ActionResult, summary="Key in what happened on the table")
    async def play(body: PlayIn, who: str = Depends(role("operator"))) -> ActionResult:
        data = body.model_dump(by_alias=True, exclude={"type"}, exclude_none=True)
        try:
            return done(controller.record_play("play." + body.type, data, by=who, source=who))
        except ActionError as exc:
            raise HTTPException(exc.status, detail=str(exc)) from None

    @app.post("/api/dice", response_model=ActionResult,
              summary="Key the dice thrown by hand (a table that reports no dice, or fewer than the ruleset's)")
    async def dice(body: DiceIn, who: str = Depends(role("operator"))) -> ActionResult:
        try:
            return done(controller.record_dice(body.seat, body.dice, by=who, source=who, **body.view()))
        except ActionError as exc:
            raise HTTPException(exc.status, detail=str(exc)) from None

    @app.post("/api/referee/penalty", response_model=ActionResult, summary="Rule a penalty (罚分)")
    async def penalty(body: PenaltyIn, request: Request, who: str = Depends(role("referee"))) -> ActionResult:
        return referee_act("referee.penalty", body.model_dump(exclude_none=True), who, request)

    @app.post("/api/referee/win", response_model=ActionResult, summary="Record the win as read, or correct it")
    async def win_read(body: WinIn, request: Request, who: str = Depends(role("referee"))) -> ActionResult:
        from table_controller.scoring import ScoringError
        from table_controller.scoring.errors import chinese_first
        from table_controller.scoring.hand import HandInput, check_keyed

        try:
            check_keyed(body.hand)
        except ScoringError as exc:  # its words are Chinese first already
            raise HTTPException(422, detail=chinese_first(exc, "hand.")) from None
        try:
            HandInput.from_json(body.hand)
        except ScoringError as exc:  # the referee reads Chinese first: the scorer's words are mostly English
            raise HTTPException(422, detail=chinese_first(exc, "hand.")) from None
        hand = dict(body.hand)
        if "visible" not in hand:  # 绝张 from what the table shows, unless the referee says otherwise
            hand["visible"] = visible_tiles(controller.state.hand, hand)
        return referee_act("referee.win_read", {"hand": hand, **body.view()}, who, request)

    @app.post("/api/referee/win/camera", response_model=ActionResult,
              summary="Read the win from the hand the camera sees laid down (then check, correct, confirm)")
    async def win_from_camera(body: WinCameraIn, request: Request,
                              who: str = Depends(role("referee"))) -> ActionResult:
        if controller.camera is None:
            raise HTTPException(409, detail="没有记录牌局的摄像头 / no camera keeping the play record")
        try:
            read = controller.camera.win_read(body.seat, body.win, body.win_tile)
        except ActionError as exc:
            raise HTTPException(exc.status, detail=str(exc)) from None
        if body.options:
            read = {**read, "options": {**(read.get("options") or {}), **body.options}}
        return referee_act("referee.win_read", {"hand": read, "source": "camera", **body.view()}, who, request)

    @app.post("/api/referee/exhaustive", response_model=ActionResult,
              summary="查叫 at 荒牌: settle 查花猪, 查大叫, 退税 among the seats still playing")
    async def exhaustive(body: ExhaustiveIn, request: Request, who: str = Depends(role("referee"))) -> ActionResult:
        hands = {seat: h.model_dump(exclude_none=True) for seat, h in body.hands.items()}
        return referee_act("referee.exhaustive", {"hands": hands, **body.view()}, who, request)

    @app.post("/api/referee/exhaustive/camera", response_model=ActionResult,
              summary="查叫 from the hands the camera sees laid down at 荒牌")
    async def exhaustive_from_camera(request: Request, body: ConfirmIn | None = None,
                                     who: str = Depends(role("referee"))) -> ActionResult:
        if controller.camera is None:
            raise HTTPException(409, detail="没有记录牌局的摄像头 / no camera keeping the play record")
        try:
            hands = controller.camera.exhaustive_hands()
        except ActionError as exc:
            raise HTTPException(exc.status, detail=str(exc)) from None
        return referee_act("referee.exhaustive", {"hands": hands, "source": "camera", **(body or ConfirmIn()).view()},
                           who, request)

    @app.post("/api/referee/win/confirm", response_model=ActionResult, summary="Confirm the win as read")
    async def win_confirm(request: Request, body: ConfirmIn | None = None,
                          who: str = Depends(role("referee"))) -> ActionResult:
        return referee_act("referee.win_confirm", (body or ConfirmIn()).view(), who, request)

    @app.post("/api/referee/undo", response_model=ActionResult, summary="Undo the last referee action, with a reason")
    async def undo(body: UndoIn, request: Request, who: str = Depends(role("referee"))) -> ActionResult:
        return referee_act("referee.undo", body.model_dump(exclude_none=True), who, request)

    @app.post("/api/referee/play/correct", response_model=ActionResult,
              summary="Correct a play in the hand's record (a tile, seat or meld), void it, insert a play never "
                      "keyed, or put a play of another kind in its place; undo takes it back")
    async def play_correct(body: PlayCorrectIn, request: Request, who: str = Depends(role("referee"))) -> ActionResult:
        data = body.model_dump(by_alias=True, exclude_none=True)
        if not data.get("void"):
            data.pop("void", None)
        return referee_act("referee.play_correct", data, who, request)

    @app.post("/api/referee/camera/confirm", response_model=ActionResult,
              summary="Confirm or correct a tile the camera was unsure of")
    async def camera_confirm(body: CameraConfirmIn, request: Request, who: str = Depends(role("referee"))) -> ActionResult:
        return referee_act("referee.camera_confirm", body.model_dump(exclude_none=True), who, request)

    @app.post("/api/referee/camera/dismiss", response_model=ActionResult,
              summary="Rule that what the camera was unsure of is no tile (a coin, a phone, a glare spot): the "
                      "play record stops waiting on it, nothing is learnt; undo brings the question back")
    async def camera_dismiss(body: CameraDismissIn, request: Request,
                             who: str = Depends(role("referee"))) -> ActionResult:
        return referee_act("referee.camera_dismiss", body.model_dump(exclude_none=True), who, request)

    async def camera_jpeg(make: Callable[[Any], bytes | None], missing: str) -> Response:
        camera = controller.camera
        if camera is None:
            raise HTTPException(404, detail="本桌没有摄像头 / this table has no camera")
        jpg = await asyncio.to_thread(make, camera)  # OpenCV drawing and encoding: off the event loop
        if jpg is None:
            raise HTTPException(404, detail=missing)
        return Response(jpg, media_type="image/jpeg", headers={"Cache-Control": "no-store"})

    @app.get("/api/referee/camera/view.jpg", summary="The camera's last frame with what it read (referee only)",
             response_class=Response)
    async def camera_view(who: str = Depends(role("referee"))) -> Response:
        return await camera_jpeg(lambda cam: cam.view_jpeg(), "摄像头尚无画面 / no frame from the camera yet")

    @app.get("/api/referee/camera/tile/{seq}.jpg", summary="An unsure tile as the camera saw it (referee only)",
             response_class=Response)
    async def camera_tile(seq: int, who: str = Depends(role("referee"))) -> Response:
        return await camera_jpeg(lambda cam: cam.tile_jpeg(seq),
                                 f"#{seq} 的画面已不在（更早或重启之前）/ no picture kept for #{seq}")

    @app.post("/api/referee/round", response_model=ActionResult,
              summary="Start the next round (轮次) with its four players; the round played is closed, final")
    async def round_start(body: RoundIn, request: Request, who: str = Depends(role("referee"))) -> ActionResult:
        return referee_act("referee.round_start", body.model_dump(), who, request)

    @app.post("/api/referee/substitute", response_model=ActionResult,
              summary="Seat a substitute (替补) in a chair from the next hand; 409 while a hand is in play")
    async def substitute(body: SubstituteIn, request: Request, who: str = Depends(role("referee"))) -> ActionResult:
        return referee_act("referee.substitute", body.model_dump(), who, request)

    @app.post("/api/referee/session/start", response_model=ActionResult, summary="Start the session clock")
    async def session_start(request: Request, body: SessionIn | None = None,
                            who: str = Depends(role("referee"))) -> ActionResult:
        return referee_act("referee.session_start", (body or SessionIn()).model_dump(exclude_none=True), who, request)

    @app.post("/api/referee/session/end", response_model=ActionResult, summary="End the session (标准分 final)")
    async def session_end(request: Request, body: StartHand | None = None,
                          who: str = Depends(role("referee"))) -> ActionResult:
        return referee_act("referee.session_end", {}, who, request)

    @app.post("/api/referee/appeal", response_model=ActionResult,
              summary="Record a player's written appeal (申诉) against a ruling; 409 after the window closes")
    async def appeal(body: AppealIn, request: Request, who: str = Depends(role("referee"))) -> ActionResult:
        return referee_act("referee.appeal", body.model_dump(exclude_none=True), who, request)

    @app.post("/api/referee/appeal/ruling", response_model=ActionResult,
              summary="Record the arbitration committee's decision on an appeal (upheld or dismissed, with reasons)")
    async def appeal_ruling(body: AppealRulingIn, request: Request,
                            who: str = Depends(role("referee"))) -> ActionResult:
        return referee_act("referee.appeal_ruling", body.model_dump(), who, request)

    @app.post("/api/referee/session/pause", response_model=ActionResult,
              summary="Stop the session clock (a table jam, a player taken ill); 409 when it is not running")
    async def clock_pause(request: Request, body: PauseIn | None = None,
                          who: str = Depends(role("referee"))) -> ActionResult:
        return referee_act("referee.clock_pause", (body or PauseIn()).model_dump(), who, request)

    @app.post("/api/referee/session/resume", response_model=ActionResult,
              summary="Restart the session clock; the time it stood still is added to the session")
    async def clock_resume(request: Request, who: str = Depends(role("referee"))) -> ActionResult:
        return referee_act("referee.clock_resume", {}, who, request)

    @app.post("/api/referee/credential", response_model=ActionResult,
              summary="Change the referee's own PIN: the old one stops working at once, everywhere")
    async def change_credential(body: CredentialIn, request: Request,
                                who: str = Depends(role("referee"))) -> ActionResult:
        """The PIN a player saw typed is changed mid-match: written (hashed) to the config file the service
        reads at start, then in use; every socket opened with the old one is ended and the change is logged
        (who, from where; never the PIN)."""
        name = getattr(request.state, "by_name", "")
        client = _client(request)
        held, got = await asyncio.to_thread(creds.attempt, body.old, client)
        if held:
            raise HTTPException(429, detail=LOCKOUT_SAYS[held], headers={"Retry-After": str(creds.retry_after(client))})
        if got != ("referee", name):
            raise HTTPException(403, detail="原凭证不对，凭证未更改 / the current PIN is wrong; nothing changed")
        why = weakness(body.new)
        if why:
            raise HTTPException(422, detail=f"新凭证太弱，凭证未更改：{why}")
        if await asyncio.to_thread(creds.find, body.new) is not None:
            raise HTTPException(409, detail="新凭证与现有凭证相同（须与原凭证及其他凭证都不同），凭证未更改 / the new PIN "
                                            "is one in use (the old one or another's); nothing changed")
        if not Path(cfg.source).is_file():
            raise HTTPException(409, detail="本桌没有配置文件（演示），新凭证无法保存，凭证未更改 / this table runs without "
                                            "a config file (the demo): a new PIN could not be kept; nothing changed")
        key = named(name) if name else REFEREE
        from table_controller.web.hashed import hash_credential

        stored = await asyncio.to_thread(hash_credential, body.new)
        try:
            await asyncio.to_thread(write_credential, cfg.source, key, stored)
        except CredentialFileError as exc:
            raise HTTPException(503, detail=str(exc)) from None
        creds.replace(key, stored)  # the old PIN stops here, and its sockets end
        data = {"credential": label(key), "by": who, "client": client, **({"by_name": name} if name else {})}
        try:
            return done(controller.accept("referee", CREDENTIAL_CHANGED, data))
        except (StoreError, ActionError) as exc:
            raise HTTPException(503, detail=f"凭证已更改（新凭证已生效并写入配置文件），但事件记录无法写入 / the "
                                            f"PIN was changed (in use and in the config file), not logged: {exc}") from None

    @app.websocket("/ws")
    async def stream(ws: WebSocket, since: str | None = None, delay: str | None = None,
                     log: str | None = None) -> None:
        await ws.accept()
        try:
            after, behind = feed_query(since, delay)
        except ValueError as exc:
            await _close(ws, 4422, str(exc))
            return
        if behind > 0:
            await _delayed(ws, controller, delayed, behind)
            return
        await _stream(ws, controller, views, after, private=False, log=log)

    @app.websocket("/ws/referee")
    async def referee_stream(ws: WebSocket, since: str | None = None, log: str | None = None) -> None:
        """The authenticated channel: the first message is `{"token": "..."}` (kept out of URLs and logs)."""
        await ws.accept()
        client = ws.client.host if ws.client else "?"
        try:
            after, _ = feed_query(since, None)
        except ValueError as exc:
            await _close(ws, 4422, str(exc))
            return
        try:
            first = await asyncio.wait_for(ws.receive(), AUTH_TIMEOUT_S)
        except (asyncio.TimeoutError, WebSocketDisconnect, RuntimeError):
            await _close(ws, 4401, TOKEN_MISSING)
            return
        if first.get("type") == "websocket.disconnect":
            return
        token = _token(first)
        if token is None:  # not JSON, a binary frame (a KeyError in the log before), no token, not a string
            await _close(ws, 4401, TOKEN_MISSING)
            return
        # off the loop: a hashed credential's first check is scrypt's 50-100 ms
        held, got = await asyncio.to_thread(creds.attempt, token, client)
        if held:
            await _close(ws, 4429, LOCKOUT_SAYS[held])
            return
        if got is None:
            await _close(ws, 4401, "凭证错误 / wrong credential")
            return
        if got[0] != "referee":
            await _close(ws, 4403, "需要裁判权限 / needs the referee role")
            return
        ended = asyncio.Event()
        sessions[ended] = named(got[1]) if got[1] else REFEREE
        streaming = asyncio.create_task(_stream(ws, controller, views, after, private=True, log=log))
        waiting = asyncio.create_task(ended.wait())
        try:
            await asyncio.wait({streaming, waiting}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            sessions.pop(ended, None)
            for task in (streaming, waiting):
                task.cancel()
            # not gather: a child's own CancelledError raised here looked like this task's (see _until_closed)
            await asyncio.wait({streaming, waiting})
            if not streaming.cancelled() and streaming.exception() is not None:
                log.debug("referee feed ended", exc_info=streaming.exception())
        if ended.is_set():
            await _close(ws, 4401, CHANGED_SAYS, why="credential_changed")

    serve_icon(app)

    @app.get("/docs", include_in_schema=False)
    async def api_docs() -> HTMLResponse:
        return HTMLResponse(api_page(app.openapi()), headers={"Cache-Control": "no-cache"})

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> RedirectResponse:
        return RedirectResponse("/docs")

    for path in PAGES:
        app.add_api_route(path, _page, methods=["GET"], include_in_schema=False)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


#: A record's media type by `format`.
MEDIA = {"json": "application/json", "text": "text/plain; charset=utf-8"}


def _body(value: Any, fmt: str, text: Callable[[], str]) -> bytes:
    """A record's body as its route answers it: JSON as `JSONResponse` writes it, or the text."""
    return text().encode() if fmt == "text" else bytes(JSONResponse(value).body)


#: The pages the service serves; one document, the script draws the page its path names.
PAGES = ("/", "/win", "/penalties", "/scoresheet", "/public", "/replay", "/overlay")
MAX_DELAY_S = PAST_WINDOW_S  # the controller keeps states that far back (`state_at`)
#: A referee socket's first message without a credential in it (not JSON, binary, no `token` string).
TOKEN_MISSING = "凭证缺失：首条消息须为文本 {\"token\": \"…\"} / send {\"token\": \"...\"} first, as text"


def feed_query(since: str | None, delay: str | None) -> tuple[int | None, float]:
    """A socket's `since` and `delay` read here, not by FastAPI: its refusal of `?since=abc` or `?delay=30s`
    (an OBS source typed by hand) was the handshake's bare 403, no reason, and the page retried it forever.
    ValueError says what is wrong (close 4422). A `since` past the log's head is a reconnect from another
    log: it gets a snapshot."""
    after: int | None = None
    if since is not None:
        try:
            after = int(since)
        except ValueError:
            after = -1
        if after < 0:
            raise ValueError(f"since 须为不小于 0 的整数（事件编号）/ since must be a whole number >= 0: {since[:40]!r}")
    behind = 0.0
    if delay is not None:
        try:
            behind = float(delay)
        except ValueError:
            behind = math.nan
        if not 0 <= behind <= MAX_DELAY_S:  # NaN too
            raise ValueError(f"delay 须为 0 至 {MAX_DELAY_S:.0f} 秒 / delay must be 0..{MAX_DELAY_S:.0f} s: {delay[:40]!r}")
    return after, behind


def _token(message: Any) -> str | None:
    """The credential in a referee socket's first message, or None where there is none to check."""
    text = message.get("text")
    if text is None:
        return None
    try:
        first = json.loads(text)
    except (ValueError, RecursionError):
        return None
    token = first.get("token") if isinstance(first, dict) else None
    return token if isinstance(token, str) and token else None
#: How long a referee socket may take to send its credential after it was accepted. The page sends it on
#: opening, one round trip after the accept: 5 s was exactly that round trip on a crowded hall's Wi-Fi
#: (2.5 s each way), and the socket was closed 凭证缺失 and the referee logged out; a socket that never
#: sends one still ends, in 30 s.
AUTH_TIMEOUT_S = 30.0
#: The event a changed credential is logged as (which one, by whom, from where; never the PIN).
CREDENTIAL_CHANGED = CHANGED
#: What a referee's page whose PIN was changed elsewhere is told, as it is logged out.
CHANGED_SAYS = ("裁判凭证已更改，本页已退出：请用新凭证重新登录 / the referee's PIN was changed: this page was logged "
                "out; log in with the new PIN")


async def _page() -> FileResponse:
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


async def _close(ws: WebSocket, code: int, reason: str, why: str = "") -> None:
    try:
        await ws.send_json({"type": "error", "code": code, "detail": reason, **({"why": why} if why else {})})
        # a close frame's reason is at most 123 bytes (a Chinese character is 3): the message above has it all
        await ws.close(code=code, reason=reason.encode()[:123].decode(errors="ignore"))
    except (WebSocketDisconnect, RuntimeError):
        pass


#: Parts of a view that grow with the day and change only now and then (a hand ends, a ruling):
#: left out of a socket's event message when that socket already holds them as they are (`kept`).
BIG = ("scoresheet", "hands")


class ViewCache:
    """The public and referee views and their messages, computed once per sequence number for all clients.

    Each view's `BIG` parts carry a version, raised when they change; a socket that holds the current
    version gets the event's state without them and `"kept": [...]` (the page keeps its own). At 400
    hands they were 440 KB of each 475 KB message, compressed again for every socket on every event
    (permessage-deflate, as browsers ask): 50 sockets cost the loop more than the event itself."""

    def __init__(self, controller: Controller) -> None:
        self.controller = controller
        self._cache: dict[tuple[Any, ...], Any] = {}
        #: per kind, the last view computed and its `BIG` parts' version
        self._last: dict[str, tuple[int, dict[str, Any]]] = {}

    def _get(self, kind: str, make: Any) -> Any:
        seq = self.controller.state.seq
        key = (kind, seq)
        if key not in self._cache:
            if len(self._cache) > 64:
                self._cache.clear()
            view = make()
            version, before = self._last.get(kind, (0, {}))
            if any(view.get(k) != before.get(k) for k in BIG):
                version += 1
            self._last[kind] = (version, view)
            self._cache[key] = view
            self._cache[("version", kind, seq)] = version
        return self._cache[key]

    def public(self) -> dict[str, Any]:
        return self._get("public", lambda: public_view(self.controller.state))  # type: ignore[no-any-return]

    def referee(self) -> dict[str, Any]:
        return self._get("referee", lambda: referee_view(self.controller.state))  # type: ignore[no-any-return]

    def version(self, private: bool) -> int:
        """The version of the current view's `BIG` parts (a socket sent the whole view holds it)."""
        kind = "referee" if private else "public"
        self.referee() if private else self.public()
        return int(self._cache[("version", kind, self.controller.state.seq)])

    def message(self, ev: Any, private: bool, with_state: bool, held: int | None = None) -> tuple[str, int | None]:
        """One serialized socket message (the same text goes to every client of the channel that holds
        the same), and the `BIG` parts' version the client holds after it. `held`: the version the
        client holds (None: none yet); where it is the current one, `BIG` is left out (`kept`)."""
        version = self.version(private) if with_state else held
        lean = with_state and held is not None and held == version
        kind = ("ref" if private else "pub") + ("+s" if with_state else "") + ("-kept" if lean else "")
        key = (kind, ev.seq)
        if key in self._cache:
            return self._cache[key], version  # type: ignore[no-any-return]
        event = ev.to_json() if private else public_event(ev.to_json())
        state = None
        if with_state:
            state = self.referee() if private else self.public()
        message: dict[str, Any] = {"type": "event", "seq": ev.seq, "event": event, "state": state,
                                   "now": self.controller.now()}
        if lean and state is not None:
            message["state"] = {k: v for k, v in state.items() if k not in BIG}
            message["kept"] = list(BIG)
        text = json.dumps(message, ensure_ascii=False)
        if ev.seq == self.controller.state.seq:
            self._cache[key] = text
        return text, version

    def snapshot(self, private: bool) -> str:
        state = self.referee() if private else self.public()
        return json.dumps({"type": "snapshot", "seq": state["seq"], "log": self.controller.store.log_id(),
                           "state": state, "now": self.controller.now()}, ensure_ascii=False)


async def _while_recovering(ws: WebSocket, controller: Controller) -> None:
    """Until the log is folded at start, the page hears how far (a health message: 正在恢复记录)."""
    while controller.recovering is not None:
        await ws.send_text(_health_message(controller))
        try:
            await asyncio.wait_for(controller.recovered.wait(), PROGRESS_EVERY_S)
        except asyncio.TimeoutError:
            continue


async def _stream(ws: WebSocket, controller: Controller, views: ViewCache, since: int | None, private: bool,
                  log: str | None = None) -> None:
    await _until_closed(ws, _while_recovering(ws, controller))
    if controller.recovering is not None:
        return  # the page went away first
    queue = controller.subscribe()  # before the catch-up read, so nothing falls in between

    async def send() -> None:
        nonlocal queue
        last, held = await _catch_up(ws, controller, views, since, private, log)
        await ws.send_text(_health_message(controller))
        # a chattering button's reports (`chatter.muted`): one sent a `MUTED_EVERY_S` at most, with the state (the
        # notice's count); the page skips the numbers between. Each was a message of the whole state (13 KB).
        muted: Event | None = None  # the last such report not sent yet
        muted_due = 0.0
        loop = asyncio.get_running_loop()
        while True:
            if queue.empty() and controller.dropped(queue):
                # fell a queue's length behind and was dropped: what it held is sent; the rest is in the log
                controller.unsubscribe(queue)
                queue = controller.subscribe()
                last, held = await _catch_up(ws, controller, views, last, private, log)
                muted = None
                continue
            wait = HEALTH_EVERY_S if muted is None else max(0.0, muted_due - loop.time())
            try:
                ev = await asyncio.wait_for(queue.get(), wait)
            except asyncio.TimeoutError:
                if muted is not None:  # the chattering stopped for now: its last report, so the count is right
                    ev, muted = muted, None
                    muted_due = loop.time() + chatter.MUTED_EVERY_S
                else:  # quiet table: the link's health still refreshes
                    await ws.send_text(_health_message(controller))
                    continue
            else:
                if ev.seq <= last:
                    continue
                if chatter.muted(ev.type, ev.data, ev.seq, controller.state.buttons):
                    if loop.time() < muted_due or not queue.empty():
                        muted = ev
                        continue
                    muted_due = loop.time() + chatter.MUTED_EVERY_S
                muted = None
            if ev.seq <= last:
                continue
            last = ev.seq
            text, held = views.message(ev, private, with_state=queue.empty(), held=held)
            await ws.send_text(text)

    try:
        await _until_closed(ws, send())
    finally:
        controller.unsubscribe(queue)


def _health_message(controller: Controller) -> str:
    """The link's reading; `every` tells the page how often one comes, so it can tell a silent link from a
    quiet table (a Wi-Fi that drops without a TCP close leaves the socket open and still)."""
    return json.dumps({"type": "health", "health": controller.health_report(), "now": controller.now(),
                       "every": HEALTH_EVERY_S}, ensure_ascii=False)


async def _until_closed(ws: WebSocket, sending: Any) -> None:
    """Run the sender until the client goes away: a closed page (or a server shutdown) ends it at once
    instead of when the next event fails to send."""
    sender = asyncio.create_task(sending)
    try:
        while not sender.done():
            receiver = asyncio.ensure_future(ws.receive())
            finished, _ = await asyncio.wait({sender, receiver}, return_when=asyncio.FIRST_COMPLETED)
            if receiver in finished:
                if receiver.result().get("type") == "websocket.disconnect":
                    break
            else:
                receiver.cancel()
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        # A cancellation of this task (the server stopping, the referee socket's session ending) goes
        # on up as it came: swallowed here, the ASGI server's cancel scope (anyio's, which knows its
        # own by the message) got back a bare CancelledError from a waiter later and let it escape.
        sender.cancel()
        await asyncio.wait([sender])
        ended = None if sender.cancelled() else sender.exception()
        if ended is not None and not isinstance(ended, (WebSocketDisconnect, RuntimeError, OSError)):
            # a send to a dead socket: the client resyncs by sequence number
            log.debug("socket sender ended", exc_info=ended)


async def _catch_up(ws: WebSocket, controller: Controller, views: ViewCache, since: int | None,
                    private: bool, log: str | None = None) -> tuple[int, int | None]:
    """Send what a (re)connecting client lacks; return the last sequence number it now has, and the
    version of the `BIG` parts it holds (None where it was sent no whole state)."""
    head = controller.state.seq
    other = log is not None and log != controller.store.log_id()  # its numbers are another log's
    if since is None or since > head or head - since > REPLAY_LIMIT or other:
        text, held = views.snapshot(private), views.version(private)
        await ws.send_text(text)
        return head, held
    missed = controller.store.since(since)
    held = None
    for i, ev in enumerate(missed):
        final = i == len(missed) - 1
        event = ev.to_json() if private else public_event(ev.to_json())
        state = (views.referee() if private else views.public()) if final else None
        if final:
            held = views.version(private)
        await ws.send_text(json.dumps({"type": "event", "seq": ev.seq, "event": event, "state": state,
                                       "now": controller.now()}, ensure_ascii=False))
    return (missed[-1].seq if missed else since), held


class DelayedViews:
    """The broadcast feed's states and their messages, computed once per event for all its viewers.

    Every viewer's state before an event is the fold of the log up to it, whatever its delay, so the state
    after it, its public view and the message's text are the same for all; only `now` differs. Before,
    each viewer folded, viewed and serialized every event itself, with a score sheet of its own (the sheets
    kept are found by the very lists they were computed from): 100 viewers cost the loop 233 ms per event
    at 10,000 events here against 73 live, it stalled up to 8.8 s and the feed fell a minute behind."""

    #: states and views kept (each shares what did not change with the next: the sheet, the ended hands)
    KEPT = 256
    #: the messages' texts kept, in characters (at 400 hands a whole view is 475 KB, one without `BIG` 35 KB)
    TEXTS_KEPT = 8_000_000

    def __init__(self) -> None:
        #: seq -> (the state after that event, its public view)
        self._after: OrderedDict[int, tuple[Any, dict[str, Any]]] = OrderedDict()
        #: (seq, "snapshot" | "lean" | "whole") -> the message's text without its `now` and `delay`
        self._texts: OrderedDict[tuple[int, str], str] = OrderedDict()
        self._chars = 0

    def _keep(self, state: Any) -> tuple[Any, dict[str, Any]]:
        got = self._after.get(state.seq)
        if got is None:
            got = self._after[state.seq] = (state, public_view(state))
            while len(self._after) > self.KEPT:
                self._after.popitem(last=False)
        return got

    def _text(self, key: tuple[int, str], make: Callable[[], dict[str, Any]]) -> str:
        text = self._texts.get(key)
        if text is None:
            text = self._texts[key] = json.dumps(make(), ensure_ascii=False)
            self._chars += len(text)
            while self._chars > self.TEXTS_KEPT and len(self._texts) > 1:
                self._chars -= len(self._texts.popitem(last=False)[1])
        return text[:-1]

    def snapshot(self, shown: Any, now: float, delay: float) -> tuple[Any, dict[str, Any], str]:
        """The viewer's first message: the public view of `shown` (the state `delay` seconds ago)."""
        state, view = self._keep(shown)
        text = self._text((state.seq, "snapshot"), lambda: {"type": "snapshot", "seq": state.seq, "state": view})
        return state, view, (f'{text}, "now": {json.dumps(now)}, "delay": {json.dumps(delay)}, '
                             f'"every": {json.dumps(HEALTH_EVERY_S)}}}')

    def after(self, shown: Any, ev: Any, held: list[Any], now: float, delay: float) -> tuple[Any, dict[str, Any], str]:
        """The state after `ev` (`shown`: the state before it), its view, and the message for a viewer that
        holds `held` of its `BIG` parts (left out where unchanged: `kept`)."""
        known = self._after.get(ev.seq)
        state, view = known if known is not None else self._keep(apply(shown, ev))
        lean = all(view.get(k) is h or view.get(k) == h for k, h in zip(BIG, held))

        def make() -> dict[str, Any]:
            message: dict[str, Any] = {"type": "event", "seq": ev.seq, "event": public_event(ev.to_json()),
                                       "state": view}
            if lean:
                message["state"] = {k: v for k, v in view.items() if k not in BIG}
                message["kept"] = list(BIG)
            return message

        text = self._text((ev.seq, "lean" if lean else "whole"), make)
        return state, view, f'{text}, "now": {json.dumps(now)}, "delay": {json.dumps(delay)}}}'


async def _delayed(ws: WebSocket, controller: Controller, delayed: DelayedViews, delay: float) -> None:
    """The broadcast feed: the public view as it was `delay` seconds ago, replayed event by event."""
    await _until_closed(ws, _while_recovering(ws, controller))
    if controller.recovering is not None:
        return
    queue = controller.subscribe()

    async def send() -> None:
        nonlocal queue
        cutoff = controller.now() - delay
        shown, pending = await controller.state_before(cutoff)
        shown, view, text = delayed.snapshot(shown, cutoff, delay)
        await ws.send_text(text)
        held = [view.get(k) for k in BIG]  # what the viewer holds of the parts left out when unchanged
        last = pending[-1].seq if pending else shown.seq
        sent = time.monotonic()
        muted_due = 0.0
        while True:
            if queue.empty() and controller.dropped(queue):  # fell behind (as the live feed): the rest from the log
                controller.unsubscribe(queue)
                queue = controller.subscribe()
                missed = controller.store.since(last)
                pending.extend(missed)
                last = missed[-1].seq if missed else last
                continue
            due = pending[0].at + delay - controller.now() if pending else HEALTH_EVERY_S
            if pending and chatter.muted(pending[0].type, pending[0].data, pending[0].seq, shown.buttons):
                if len(pending) > 1:  # a chattering button's report with more after it: folded, not sent
                    shown = apply(shown, pending.pop(0))
                    continue
                due = max(due, muted_due - time.monotonic())  # the last: sent a `MUTED_EVERY_S` after the one before
            if due > 0:
                try:
                    ev = await asyncio.wait_for(queue.get(), min(due, HEALTH_EVERY_S))
                except asyncio.TimeoutError:
                    # held back or quiet, the feed still says it is alive (the page's watchdog: `alive`)
                    if time.monotonic() - sent >= HEALTH_EVERY_S:
                        await ws.send_text(json.dumps({"type": "alive", "every": HEALTH_EVERY_S}))
                        sent = time.monotonic()
                    continue
                if ev.seq > last:
                    last = ev.seq
                    pending.append(ev)
                continue
            ev = pending.pop(0)
            if chatter.muted(ev.type, ev.data, ev.seq, shown.buttons):  # (as on the live feed)
                muted_due = time.monotonic() + chatter.MUTED_EVERY_S
            shown, view, text = delayed.after(shown, ev, held, controller.now() - delay, delay)
            held = [view.get(k) for k in BIG]
            await ws.send_text(text)
            sent = time.monotonic()

    try:
        await _until_closed(ws, send())
    finally:
        controller.unsubscribe(queue)
