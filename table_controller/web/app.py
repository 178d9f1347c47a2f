"""The display's app factory: REST for state and actions, a numbered WebSocket stream, the pages.

Live messages (JSON):
- `{"type": "snapshot", "seq": N, "state": {...}}`: the whole public state at N;
- `{"type": "event", "seq": N, "event": {...}, "state": {...}?}`: one accepted event; live events and
  the last of a catch-up carry the state after them.
A client that reconnects with `?since=N` receives exactly the events after N, or one snapshot when
more than `REPLAY_LIMIT` were missed.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from pathlib import Path
from typing import Any, Literal

from fastapi import Depends, FastAPI, HTTPException, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field

from table_controller import __version__
from table_controller.controller import ActionError, Controller
from table_controller.web.auth import ROLE_ZH, Credentials, allows

log = logging.getLogger("table_controller.web")
STATIC = Path(__file__).parent / "static"
#: Beyond this many missed events a reconnecting client gets one snapshot instead.
REPLAY_LIMIT = 500


class StartHand(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EndHand(BaseModel):
    model_config = ConfigDict(extra="forbid")
    result: Literal["draw", "win", "abandoned"] = Field("draw", description="荒牌 (draw), 和牌 (win) or abandoned")


class ActionResult(BaseModel):
    seq: int
    type: str


def _client(request: Request) -> str:
    return request.client.host if request.client else "?"


def create_app(controller: Controller, credentials: Credentials | None = None) -> FastAPI:
    """Build the app around a running controller; tests pass their own credentials."""
    cfg = controller.config
    creds = credentials or Credentials(
        referee=cfg.display.referee_token or secrets.token_urlsafe(12),
        operator=cfg.display.operator_token or secrets.token_urlsafe(12),
    )
    app = FastAPI(title="自动麻将机 裁判显示 / Mahjong table display", version=__version__)
    app.state.credentials = creds
    app.state.controller = controller
    if cfg.display.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(cfg.display.cors_origins),
                           allow_methods=["GET", "POST"], allow_headers=["Authorization", "Content-Type"])

    @app.exception_handler(RequestValidationError)
    async def _bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
        return JSONResponse(status_code=422, content={"error": "请求格式错误 / malformed request", "detail": problems})

    def role(needed: str):
        def check(request: Request) -> str:
            client = _client(request)
            if creds.locked_out(client):
                raise HTTPException(429, detail="尝试次数过多，请稍后再试 / too many failed attempts")
            header = request.headers.get("authorization", "")
            token = header[7:].strip() if header.lower().startswith("bearer ") else None
            got = creds.role_of(token, client)
            if got is None:
                raise HTTPException(401, detail="凭证错误 / wrong credential")
            if not allows(got, needed):
                raise HTTPException(403, detail=f"需要{ROLE_ZH[needed]}权限 / needs the {needed} role")
            return got
        return check

    @app.get("/api/health")
    async def health() -> dict[str, Any]:
        return {"ok": True, "version": __version__, "seq": controller.state.seq,
                "link": controller.state.link, "link_health": controller.health}

    @app.get("/api/state")
    async def state() -> dict[str, Any]:
        return controller.state.to_json()

    @app.get("/api/events")
    async def events(since: int = Query(0, ge=0), limit: int = Query(500, ge=1, le=5000)) -> list[dict[str, Any]]:
        return [ev.to_json() for ev in controller.store.since(since, limit)]

    @app.get("/api/whoami")
    async def whoami(who: str = Depends(role("viewer"))) -> dict[str, str]:
        return {"role": who, "role_zh": ROLE_ZH[who]}

    @app.post("/api/hand/start", response_model=ActionResult)
    async def start_hand(body: StartHand | None = None, who: str = Depends(role("operator"))) -> ActionResult:
        try:
            ev = await controller.start_hand(by=who)
        except ActionError as exc:
            raise HTTPException(409, detail=str(exc)) from None
        return ActionResult(seq=ev.seq, type=ev.type)

    @app.post("/api/hand/end", response_model=ActionResult)
    async def end_hand(body: EndHand | None = None, who: str = Depends(role("operator"))) -> ActionResult:
        try:
            ev = await controller.end_hand(by=who, result=(body or EndHand()).result)
        except ActionError as exc:
            raise HTTPException(409, detail=str(exc)) from None
        return ActionResult(seq=ev.seq, type=ev.type)

    @app.websocket("/ws")
    async def stream(ws: WebSocket, since: int | None = None) -> None:
        await ws.accept()
        queue = controller.subscribe()  # before the catch-up read, so nothing falls in between
        try:
            last = await _catch_up(ws, controller, since)
            while True:
                ev = await queue.get()
                if ev.seq <= last:
                    continue
                last = ev.seq
                await ws.send_json({"type": "event", "seq": ev.seq, "event": ev.to_json(),
                                    "state": controller.state.to_json() if queue.empty() else None})
        except (WebSocketDisconnect, RuntimeError, asyncio.CancelledError):
            pass
        finally:
            controller.unsubscribe(queue)

    @app.get("/")
    async def table_page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/public")
    async def public_page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


async def _catch_up(ws: WebSocket, controller: Controller, since: int | None) -> int:
    """Send what a (re)connecting client lacks; return the last sequence number it now has."""
    head = controller.state.seq
    if since is None or since > head or head - since > REPLAY_LIMIT:
        await ws.send_json({"type": "snapshot", "seq": head, "state": controller.state.to_json()})
        return head
    missed = controller.store.since(since)
    for i, ev in enumerate(missed):
        final = i == len(missed) - 1
        await ws.send_json({"type": "event", "seq": ev.seq, "event": ev.to_json(),
                            "state": controller.state.to_json() if final else None})
    return missed[-1].seq if missed else since
