"""The hands laid down at 荒牌 for 查叫, read by the camera, stay the referee's: the public sees who is 花猪,
ready and not ready, and the payments, never the tiles (docs/display.md "查叫 at 荒牌").

Before, the projection kept the 查叫 ruling's hands to the referee, but the camera's own events named each tile it
saw laid down (`camera.tile_appeared` kind 1m in meld:W, its questions in `camera_pending`, the referee's rulings on
them and what the camera learnt from them), and so did the log's lines ("摄像头：西家副露区出现 一万"): on the
public socket, `/api/events`, `/api/state`, the public records, every MQTT message and the hub's archive, whoever
watched could write down each hand laid down, before the referee had settled it. A discard is still named: it lies
face up in its pool."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient

from table_controller.camera import CameraWatcher
from table_controller.controller import Controller
from table_controller.tiles import tile_name
from table_controller.web.app import create_app
from table_controller.web.auth import Credentials

REFEREE, OPERATOR = "ref-laid-5521", "op-laid-5522"
#: 四川's hands laid down at 荒牌 (test_exhaustive_camera): E ready, S 花猪, W not ready, N ready
HANDS = {"E": "1m 1m 2m 3m 4m 6m 6m 6m 7m 8m 7p 8p 9p",
         "S": "1m 2m 4m 5p 6p 8p 9p 1s 1s 2s 3s 5s 7s",
         "W": "1m 3m 5m 7m 9m 2p 4p 6p 8p 1p 3p 5p 9p",
         "N": "2s 3s 4s 5s 6s 7s 2p 2p 2p 6p 7p 9s 9s"}
#: the dealer's first discard: a tile of no hand above, seen by the camera in E's pool (named in public)
DISCARD = "8s"


def _laid(ctl: Controller, watcher: CameraWatcher) -> int:
    """Each tile laid down as the camera's watcher logs and records it (`CameraWatcher.run`); W's first one
    unsure. The seq of the unsure one's event."""
    track, unsure = 100, 0
    for seat, tiles in HANDS.items():
        seen = []
        for i, tile in enumerate(tiles.split()):
            track += 1
            doubt = seat == "W" and i == 0
            ev = {"event": "appeared", "zone": f"meld:{seat}", "kind": tile, "confidence": 0.5 if doubt else 0.97,
                  "seat": seat, "track": track, "needs_referee": doubt}
            logged = ctl.offer("camera", "camera.tile_appeared", watcher._named(ev))
            unsure = logged.seq if doubt else unsure
            seen.append(ev)
        watcher._record_play(seen)
    return unsure


def _tile_words(text: str) -> list[str]:
    """The laid tiles' names a text holds (the log's words: 一万, 九筒 ...), none of which the hand's public lines
    may name: the hand has no play that names any of them."""
    names = {tile_name(t) for h in HANDS.values() for t in h.split()}
    return sorted(n for n in names if n in text)


def _named_kinds(payload: Any) -> list[str]:
    """Where a public payload names a tile the camera saw outside a discard pool."""
    found: list[str] = []

    def walk(x: Any, at: str) -> None:
        if isinstance(x, dict):
            zone = str(x.get("zone") or "")
            if ("kind" in x or "read_as" in x) and not zone.startswith("discard") and (
                    zone or x.get("type") in ("referee.camera_confirm", "camera.learned", "camera.unlearned")):
                found.append(f"{at}: {x}")
            if isinstance(x.get("data"), dict) and x.get("type", "").startswith(("camera.tile", "camera.learned",
                                                                                  "camera.unlearned", "referee.camera")):
                d = x["data"]
                if "kind" in d and not str(d.get("zone") or "").startswith("discard"):
                    found.append(f"{at}: {x}")
            for k, v in x.items():
                walk(v, f"{at}.{k}")
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, f"{at}[{i}]")

    walk(payload, "$")
    return found


def test_the_hands_the_camera_sees_laid_down_are_not_named_in_public(sichuan_table: Controller) -> None:
    ctl = sichuan_table
    watcher = CameraWatcher(ctl, make_loop=lambda: None, learn=False)
    ctl.camera = watcher
    c = TestClient(create_app(ctl, Credentials(referee=REFEREE, operator=OPERATOR)))
    ref = {"Authorization": f"Bearer {REFEREE}"}
    with c:
        pool = {"event": "appeared", "zone": "discard:E", "kind": DISCARD, "confidence": 0.97, "seat": "E",
                "track": 1, "needs_referee": False}
        ctl.offer("camera", "camera.tile_appeared", watcher._named(pool))
        watcher._record_play([pool])
        assert ctl.state.hand["discards"]["E"][-1]["tile"] == DISCARD  # the camera's discard is the play
        assert c.post("/api/hand/end", json={"result": "draw"},
                      headers={"Authorization": f"Bearer {OPERATOR}"}).status_code == 200
        unsure = _laid(ctl, watcher)
        # what the public holds while the referee has not ruled: the camera's question among it
        public_before = c.get("/api/state").json()
        assert any(p["seq"] == unsure for p in public_before["camera_pending"])
        r = c.post("/api/referee/camera/confirm", json={"seq": unsure, "kind": "1m"}, headers=ref)
        assert r.status_code == 200, r.text
        ctl.accept("camera", "camera.learned", {"kind": "1m", "camera_seq": unsure, "track": 107, "corrected": False,
                                                "zone": "meld:W"})  # as `CameraWatcher._learn` logs it
        watcher.record.see(ctl.state.hand, [{"event": "ruled", "zone": "meld:W", "kind": "1m", "track": 101 + 26}])
        r = c.post("/api/referee/exhaustive/camera", headers=ref)
        assert r.status_code == 200, r.text
        assert sorted(ctl.state.actions[-1]["hands"]["W"]["concealed"]) == sorted(HANDS["W"].split())

        seen: list[tuple[str, Any]] = [("GET /api/state (before the ruling)", public_before)]
        for path in ("/api/state", "/api/events?since=0&limit=5000", "/api/actions", "/api/hands/1/record",
                     "/api/records?all=true"):
            seen.append((f"GET {path}", c.get(path).json()))
        for path in ("/api/hands/1/record?format=text", "/api/records?all=true&format=text"):
            seen.append((f"GET {path}", c.get(path).text))
        with c.websocket_connect("/ws?since=0") as ws:
            for _ in range(ctl.state.seq):
                message = json.loads(ws.receive_text())
                seen.append(("ws", message))
                if message.get("seq") == ctl.state.seq:
                    break
        control = c.get("/api/referee/state", headers=ref).json()  # the referee's view names them: the check sees it
        assert _named_kinds(control) and _tile_words(" ".join(line["text"] for line in control["log"]))

    leaks = []
    for where, payload in seen:
        if isinstance(payload, str):
            leaks += [f"{where}: {w}" for w in _tile_words(payload)]
            continue
        leaks += [f"{where} {x}" for x in _named_kinds(payload)]
        texts = []

        def lines(x: Any) -> None:
            if isinstance(x, dict):
                texts.extend(str(v) for k, v in x.items() if k in ("text", "refused") and isinstance(v, str))
                for v in x.values():
                    lines(v)
            elif isinstance(x, list):
                for v in x:
                    lines(v)

        lines(payload)
        leaks += [f"{where}: {w} in {t!r}" for t in texts for w in _tile_words(t)]
    assert not leaks, "\n".join(leaks[:15])
    # the discard is still named in public: its camera event, and its line in the public log then
    events = next(p for w, p in seen if w.startswith("GET /api/events"))
    assert [e["data"].get("kind") for e in events if e["type"] == "camera.tile_appeared"][0] == DISCARD
    state = next(p for w, p in seen if w == "GET /api/state")
    assert state["exhaustive"]["flower_pigs"] == ["S"] and state["exhaustive"]["not_ready"] == ["W"]


def test_a_refused_claim_the_camera_saw_names_no_tile_in_public(sichuan_table: Controller) -> None:
    """A winner lays the hand down in the meld area before the referee reads the win: the camera takes three alike
    there for a pung and the record refuses it (`camera.play_refused`, with its tiles and the record's reason,
    which names them too). That went to the public log, feed and records whole. The public now reads who, not which
    tiles; the referee keeps all; a refused discard or flower, face up in the hall, is still named."""
    ctl = sichuan_table
    c = TestClient(create_app(ctl, Credentials(referee=REFEREE, operator=OPERATOR)))
    claim = {"play": "play.claim", "seat": "W", "kind": "pung", "from": "E", "tiles": ["7p", "7p", "7p"],
             "reason": "西家碰 七筒 不成立：东家没有打出 七筒"}
    ctl.accept("camera", "camera.play_refused", claim)
    ctl.accept("camera", "camera.play_refused", {"play": "play.discard", "seat": "E", "tile": "2z",
                                                  "reason": "未轮到东家 打出 南"})
    with c:
        public = c.get("/api/state").json()
        events = c.get("/api/events").json()
        referee = c.get("/api/referee/state", headers={"Authorization": f"Bearer {REFEREE}"}).json()
    said = json.dumps([public, events], ensure_ascii=False)
    assert "七筒" not in said and "7p" not in said
    assert "摄像头所见西家的牌未记入牌谱，请裁判核对" in said
    assert "未轮到东家 打出 南" in said  # a discard lies face up: named
    assert "西家碰 七筒 不成立" in json.dumps(referee, ensure_ascii=False)
