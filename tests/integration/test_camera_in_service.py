"""The camera in the running service: the simulator's virtual MJPEG camera, opened by OpenCV like an
IP camera, read by the committed model; tile events land in the SQLite log, the camera's health on the
display's API, and an unplugged camera is recorded and shown while the table keeps going."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Callable

import httpx
import pytest

from table_controller.config import parse_config
from table_controller.controller import side_of_wind
import table_controller.demo as demo_module
from table_controller.service import TableService
from tablesim.scenes.camera import VirtualCamera, scene_source
from tablesim.scenes.render import SceneOptions
from vision.tileart import load_style

OPERATOR = "op-cam"


async def _until(check: Callable[[], object], timeout: float, what: str) -> None:
    end = time.monotonic() + timeout
    while not check():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


@pytest.fixture(scope="module")
def faces() -> list:
    return list(load_style("xmahjongg-dorothys"))


@asynccontextmanager
async def _watching(tmp_path: Path, source: Callable[[], Any], fps: float = 10, ruleset: str = "mcr",
                    **camera: Any) -> AsyncIterator[tuple]:
    """A table service (simulated link) watching a virtual camera that serves `source`'s frames:
    (service, controller, camera)."""
    with VirtualCamera(source, fps=fps) as cam:
        config = parse_config({
            "table": {"link": "sim://", "sim_speed": 100.0},
            "rules": {"ruleset": ruleset},
            "camera": {"source": cam.url, "period_s": 0.1, **camera},
            "display": {"port": 0, "operator_token": OPERATOR, "referee_token": "ref-cam"},
        }, source="test")
        service = TableService(config, tmp_path)
        await service.start()
        try:
            assert service.controller is not None
            yield service, service.controller, cam
        finally:
            await service.stop()


@asynccontextmanager
async def _camera_table(tmp_path: Path, faces: list, seed: int, **camera: Any) -> AsyncIterator[tuple]:
    """A table service watching a scene of 12 tiles: (service, controller, camera)."""
    async with _watching(tmp_path, scene_source(faces, seed=seed, opts=SceneOptions(tiles=12), jitter=False),
                         **camera) as table:
        yield table


@asynccontextmanager
async def _felt_table(tmp_path: Path, seed: int, ruleset: str = "mcr", dealer_position: int = 1) -> AsyncIterator[tuple]:
    """A table service watching the demo's felt through a virtual camera, a hand started (dealt
    by `dealer_position`), its dice keyed and its deal done, the camera reporting OK: (felt, controller)."""
    from tablesim.felt import FeltCamera

    felt = FeltCamera(load_style("xmahjongg-dorothys"), seed=seed)
    async with _watching(tmp_path, felt.frame, ruleset=ruleset, period_s=0.1) as (_, ctl, _):
        ctl.accept("operator", "operator.hand_start", {"hand_no": 1, "ruleset": ruleset,
                                                       "dealer_position": dealer_position, "prevalent_wind": "E"})
        while ctl.state.hand["deal"] is None:  # the break first: no play is taken before it
            ctl.record_dice(ctl.state.hand["next_thrower"], [3, 4] if not ctl.state.hand["throws"] else [2, 5],
                            by="operator")
        ctl.record_play("play.deal_done", {}, by="demo", source="demo")
        await _until(lambda: ctl.state.camera and ctl.state.camera["ok"], 60, "the camera")
        yield felt, ctl


async def test_camera_events_health_and_unplug(tmp_path: Path, faces: list) -> None:
    async with _camera_table(tmp_path, faces, seed=4) as (service, ctl, cam):
        types = lambda: [e.type for e in ctl.store.since(0)]  # noqa: E731
        await _until(lambda: ctl.state.camera and ctl.state.camera["ok"], 60, "the camera to report OK")
        await _until(lambda: types().count("camera.tile_appeared") >= 8, 60, "tiles read by the camera")
        appeared = [e for e in ctl.store.since(0) if e.type == "camera.tile_appeared"]
        assert all(e.data["zone"] and 0 <= e.data["confidence"] <= 1 for e in appeared)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
            health = (await http.get("/api/health")).json()["health"]
            assert health["camera"]["ok"] is True and health["link"]["up"] is True

            cam.unplugged = True  # the camera's cable is pulled
            await _until(lambda: ctl.state.camera["code"] == "unplugged", 30, "the unplug to be recorded")
            assert "手动录入" in ctl.state.camera["message"]
            # the table goes on: an operator still starts a hand
            r = await http.post("/api/hand/start", headers={"Authorization": f"Bearer {OPERATOR}"})
            assert r.status_code == 200, r.text
            state = (await http.get("/api/state")).json()
            assert state["camera"]["code"] == "unplugged"
            assert any("摄像头" in line["text"] for line in state["log"])

            cam.unplugged = False
            await _until(lambda: ctl.state.camera["ok"], 30, "the camera to come back")


async def test_the_camera_learns_from_the_referees_rulings(tmp_path: Path, faces: list) -> None:
    """The referee rules on a tile the camera was unsure of; the reader enrolls what it saw as
    the kind the referee named, records that it learnt, and keeps it in the table's enrollment
    file; when the referee undoes the ruling, the reader forgets it."""
    from vision.enroll import Enrollment

    enrollment = tmp_path / "enrolled.npz"
    Enrollment().save(enrollment)  # the table's (empty) enrollment file
    # a threshold no reading reaches: every tile goes to the referee
    async with _camera_table(tmp_path, faces, seed=5, threshold=0.9999, enrollment=str(enrollment)) as (service, ctl, _):
        await _until(lambda: ctl.state.camera_pending, 60, "an unsure tile")
        item = ctl.state.camera_pending[0]
        named = "7f" if item["kind"] != "7f" else "6f"  # the referee corrects it
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
            r = await http.post("/api/referee/camera/confirm", json={"seq": item["seq"], "kind": named},
                                headers={"Authorization": "Bearer ref-cam"})
            assert r.status_code == 200, r.text
        learned = lambda: [e for e in ctl.store.since(0) if e.type == "camera.learned"]  # noqa: E731
        await _until(learned, 30, "the reader to learn the ruling")
        ev = learned()[0]
        assert ev.data["kind"] == named and ev.data["camera_seq"] == item["seq"] and ev.data["corrected"] is True
        assert any("学会" in line["text"] for line in ctl.state.log)
        saved = Enrollment.load(enrollment)
        assert set(saved.kinds) == {named} and saved.template_kinds.count(named) >= 2
        # the camera's own record now says what the referee ruled
        ruled = lambda: [e for e in ctl.store.since(0) if e.type == "camera.tile_appeared"  # noqa: E731
                         and e.data["track"] == item["track"] and e.data.get("ruled")]
        await _until(ruled, 30, "the ruled kind to be announced")
        assert ruled()[0].data["kind"] == named and not ruled()[0].data["needs_referee"]
        # the referee undoes the ruling: the camera forgets what it taught
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
            r = await http.post("/api/referee/undo", json={"reason": "看错了"}, headers={"Authorization": "Bearer ref-cam"})
            assert r.status_code == 200, r.text
        unlearned = lambda: [e for e in ctl.store.since(0) if e.type == "camera.unlearned"]  # noqa: E731
        await _until(unlearned, 30, "the reader to forget the undone ruling")
        assert unlearned()[0].data["kind"] == named and unlearned()[0].data["removed"] >= 12
        assert len(Enrollment.load(enrollment)) == 0 and any("忘掉" in line["text"] for line in ctl.state.log)


async def test_a_reading_ruled_no_tile_teaches_nothing_and_is_asked_no_more(tmp_path: Path, faces: list) -> None:
    """The referee rules an unsure reading no tile (`POST /api/referee/camera/dismiss`): the reader enrolls
    nothing from it (a coin is no kind of tile), the tracker sets its track aside, and the ruling's undo puts
    the question back, whose later ruling as a tile still teaches (the crops were kept)."""
    from vision.enroll import Enrollment

    enrollment = tmp_path / "enrolled.npz"
    Enrollment().save(enrollment)
    async with _camera_table(tmp_path, faces, seed=5, threshold=0.9999, enrollment=str(enrollment)) as (service, ctl, _):
        await _until(lambda: ctl.state.camera_pending, 60, "an unsure tile")
        item = ctl.state.camera_pending[0]
        track = lambda: next((t for t in service.camera.loop.tracker.tracks if t.id == item["track"]), None)  # noqa: E731
        ref = {"Authorization": "Bearer ref-cam"}
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
            r = await http.post("/api/referee/camera/dismiss", json={"seq": item["seq"]}, headers=ref)
            assert r.status_code == 200, r.text
            await _until(lambda: track() is not None and track().dismissed, 30, "the tracker to set the track aside")
            await asyncio.sleep(0.5)  # steps go by: nothing is learnt, nothing asked again of that track
            assert not [e for e in ctl.store.since(0) if e.type == "camera.learned"]
            assert len(Enrollment.load(enrollment)) == 0
            asked = [p["seq"] for p in ctl.state.camera_pending if p["track"] == item["track"]]
            assert asked == [item["seq"]]  # no new question about that track; the ruled one kept for an undo
            from table_controller.referee import camera_open

            assert item["seq"] not in [p["seq"] for p in camera_open(ctl.state)]
            r = await http.post("/api/referee/undo", json={"reason": "是一张牌"}, headers=ref)
            assert r.status_code == 200, r.text
            await _until(lambda: not track().dismissed, 30, "the track to be followed as a tile again")
            assert item["seq"] in [p["seq"] for p in camera_open(ctl.state)]
            r = await http.post("/api/referee/camera/confirm", json={"seq": item["seq"]}, headers=ref)
            assert r.status_code == 200, r.text
        await _until(lambda: any(e.type == "camera.learned" for e in ctl.store.since(0)), 30, "the ruling to be learnt")
        assert set(Enrollment.load(enrollment).kinds) == {item["kind"]}


async def test_without_an_enrollment_file_what_the_camera_learnt_survives_a_restart(tmp_path: Path, faces: list) -> None:
    from table_controller.service import LEARNED_TILES

    async with _camera_table(tmp_path, faces, seed=6, threshold=0.9999) as (service, ctl, _):
        await _until(lambda: ctl.state.camera_pending, 60, "an unsure tile")
        item = ctl.state.camera_pending[0]
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
            r = await http.post("/api/referee/camera/confirm", json={"seq": item["seq"]},  # confirmed as read
                                headers={"Authorization": "Bearer ref-cam"})
            assert r.status_code == 200, r.text
        await _until(lambda: any(e.type == "camera.learned" for e in ctl.store.since(0)), 30, "the ruling to be learnt")
        assert (tmp_path / LEARNED_TILES).exists()  # saved before the event is recorded
    async with _camera_table(tmp_path, faces, seed=6, threshold=0.9999) as (service, ctl, _):
        await _until(lambda: service.camera.loop is not None, 60, "the reader to start again")
        assert service.camera.loop.reader.enrollment.kinds_covered() == {item["kind"]}
        # the ruling made before the restart is not learnt again (its crops and tracks are gone)
        await asyncio.sleep(0.6)
        assert len([e for e in ctl.store.since(0) if e.type == "camera.learned"]) == 1


class LaidTable:
    """A virtual camera's table the test lays tiles on, as players do: each change re-renders the
    frame (same light and camera pose), and every frame carries fresh sensor noise: the simulator's own
    cameras' (`SensorNoise`; drawing 3.7 M Gaussian values a frame here cost ~60 ms of CPU, 10 frames a second)."""

    def __init__(self, faces: list, seed: int) -> None:
        from tablesim.scenes.sensor import SensorNoise

        self.faces, self.seed, self.tiles = faces, seed, []  # type: ignore[var-annotated]
        self._shown: tuple | None = None  # the empty felt is a picture too: rendered at the first frame
        self._image = None
        self._noise = SensorNoise(2.0, seed)

    def lay(self, seat: str, area: str, kind: str, slot: int = 0) -> None:
        """A tile upright to `seat` (a side of the table), in its discard pool or meld area."""
        from vision.geometry import SEAT_ROTATION, TILE_W_MM, PlacedTile, seat_to_plane

        u, v = (300 + slot * TILE_W_MM, 220) if area == "discard" else (560 + slot * TILE_W_MM, 60)
        x, y = seat_to_plane(seat, u, v)
        self.tiles.append(PlacedTile(kind, x, y, SEAT_ROTATION[seat]))

    def __call__(self):  # type: ignore[no-untyped-def]
        from tablesim.scenes.render import render_scene

        if tuple(self.tiles) != self._shown:
            self._shown = tuple(self.tiles)
            self._image = render_scene(self.faces, self.seed, SceneOptions(), tiles=list(self.tiles),
                                       pose_seed=self.seed).image  # the camera stays put as tiles come
        return self._noise(self._image)


async def test_the_camera_keeps_the_play_record_of_a_live_hand(tmp_path: Path, faces: list) -> None:
    """A hand in play; players lay discards and a pung on the felt under the virtual camera: the
    service records them as the hand's play (deal over, discards, claim) with no keying, rules
    unsure tiles through the referee page, and refuses a discard out of turn with the reason."""
    laid = LaidTable(faces, seed=21)
    with VirtualCamera(laid, fps=10) as cam:
        config = parse_config({
            "table": {"link": "sim://", "sim_speed": 100.0},
            "camera": {"source": cam.url, "period_s": 0.1},
            "display": {"port": 0, "operator_token": OPERATOR, "referee_token": "ref-cam"},
        }, source="test")
        service = TableService(config, tmp_path)
        await service.start()
        try:
            ctl = service.controller
            assert ctl is not None
            await ctl.wait_linked(10)
            await _until(lambda: ctl.state.camera and ctl.state.camera["ok"], 60, "the camera to report OK")
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
                r = await http.post("/api/hand/start", headers={"Authorization": f"Bearer {OPERATOR}"})
                assert r.status_code == 200, r.text
                # the walls up, the table's dice (国标: the dealer, then the seat the first throw counts to)
                await _until(lambda: ctl.state.phase == "walls_raised", 30, "the walls")
                while (hand := ctl.state.hand)["deal"] is None:
                    n = len(hand["throws"])
                    service.sim.press_button(seat=side_of_wind(hand["next_thrower"], hand["dealer_position"]),
                                             button="dice")
                    await _until(lambda: len(ctl.state.hand["throws"]) > n or ctl.state.hand["deal"], 30, "a throw")

                async def referee_rules_what_is_unsure() -> bool:
                    for item in list(ctl.state.camera_pending):  # as read: the art is a training style
                        await http.post("/api/referee/camera/confirm", json={"seq": item["seq"]},
                                        headers={"Authorization": "Bearer ref-cam"})
                    return True

                def played() -> list[tuple[str, Any]]:
                    return [(e.type, e.data.get("seat"), e.data.get("tile") or e.data.get("kind"))
                            for e in ctl.store.since(0) if e.type.startswith("play.")]

                async def until_played(n: int, what: str) -> None:
                    end = time.monotonic() + 60
                    while len(played()) < n:
                        assert time.monotonic() < end, f"timed out waiting for {what}: {played()}"
                        await referee_rules_what_is_unsure()
                        await asyncio.sleep(0.1)

                # chair 1 deals (E sits at the E side); E opens with 9p, S follows with 1z
                laid.lay("E", "discard", "9p")
                await until_played(2, "E's discard")
                laid.lay("S", "discard", "1z")
                await until_played(3, "S's discard")
                # W pungs the 1z: it leaves S's pool; three lie in W's meld area
                laid.tiles = [t for t in laid.tiles if t.kind != "1z"]
                for k in range(3):
                    laid.lay("W", "meld", "1z", slot=k)
                await until_played(4, "W's pung")
                assert played() == [("play.deal_done", None, None), ("play.discard", "E", "9p"),
                                    ("play.discard", "S", "1z"), ("play.claim", "W", "pung")]
                hand = (await http.get("/api/state")).json()["hand"]
                assert hand["melds"]["W"][0]["tiles"] == ["1z"] * 3 and hand["turn"]["seat"] == "W"
                # N lays a tile while W is to play: refused, and the log says why
                laid.lay("N", "discard", "5p")
                await _until(lambda: any(e.type == "camera.play_refused" for e in ctl.store.since(0)), 60,
                             "the out-of-turn discard to be refused")
                assert len(played()) == 4
        finally:
            await service.stop()


async def test_demo_with_a_camera_the_camera_keeps_the_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`tablectl demo --camera STYLE`: the players lay their plays on the simulated felt, the
    virtual camera shows it in that art, the reader reads it, and the camera (not the players)
    records the discards, flowers and melds, in the order laid; the demo rules on unsure tiles."""
    # the felt's wait between hands made long (the test plays one hand): a first hand that waited for it shows
    # far beyond any machine's load (its 4 s against the 2 s asked failed by the load alone: 0.6-1.0 s here
    # without a wait, 2.1 and 3.2 s with two test workers and another process on the two cores)
    monkeypatch.setattr(demo_module, "FELT_CLEAR_S", 30.0)
    config = parse_config({
        "table": {"link": "sim://", "sim_speed": 100.0, "sim_seed": 2},
        # a read every 0.1 s, the demo's camera sending a frame for each (service.demo_camera_fps: 10 a
        # second): a play is recorded after three frames that see it
        "camera": {"period_s": 0.1},
        "display": {"port": 0, "operator_token": OPERATOR, "referee_token": "ref-cam"},
        "demo": {"autoplay": True, "turn_seconds": 0.0, "hand_seconds": 1.0, "camera": "xmahjongg-dorothys"},
    }, source="test")
    service = TableService(config, tmp_path)
    await service.start()
    try:
        ctl = service.controller
        assert ctl is not None and service.felt is not None
        camera_plays = lambda: [e for e in ctl.store.since(0) if e.type.startswith("play.") and e.source == "camera"]  # noqa: E731
        await _until(lambda: len(camera_plays()) >= 10, 120, "ten plays recorded by the camera")

        def apart() -> list[tuple[str, list[str], list[str]]]:
            """Each seat whose record is not what lies on the felt, in the order laid (the newest
            discard may still be on its way to the record)."""
            hand = ctl.state.hand
            assert hand is not None and hand["hand_no"] == 1
            out = []
            for seat in "ESWN":  # the felt is the table's: a wind's pool lies where it sits (定庄 chose the dealer)
                laid = [t.kind for t in service.felt._felt.pools[side_of_wind(seat, hand["dealer_position"])]]
                recorded = [d["tile"] for d in hand["discards"][seat] if not d.get("claimed")]
                if not (recorded == laid[:len(recorded)] and len(laid) - len(recorded) <= 1):
                    out.append((seat, laid, recorded))
            return out

        # the players play on meanwhile: a claim just laid takes its discard off the felt a step
        # before the record has the claim (its meld area settles first), so look until they agree
        end = asyncio.get_running_loop().time() + 15
        while (differ := apart()) and asyncio.get_running_loop().time() < end:
            await asyncio.sleep(0.05)
        assert not differ, differ
        assert not [e for e in ctl.store.since(0) if e.type == "play.discard" and e.source == "demo"]
        # the first hand starts at once: the felt held no tiles for the camera to see go (it waited
        # FELT_CLEAR_S before every hand, the first too: 4 s of every camera demo's start)
        events = ctl.store.since(0)
        start = next(e for e in events if e.type == "operator.hand_start")
        before = [e for e in events if e.seq < start.seq and e.source != "camera"][-1]  # the first dealer's dice
        assert start.at - before.at < demo_module.FELT_CLEAR_S / 2, (before, start.at - before.at)
    finally:
        await service.stop()


async def test_the_demo_camera_sends_a_frame_for_each_read(tmp_path: Path) -> None:
    """The demo's camera sent 4 frames a second whatever `[camera] period_s` said: a service reading every
    0.1 s waited for each frame, and each play laid took 1.1 s to be recorded instead of 0.6 s."""
    from table_controller.service import demo_camera_fps

    assert [demo_camera_fps(p) for p in (0.05, 0.1, 0.2, 0.25, 0.5, 2.0)] == [10.0, 10.0, 5.0, 4.0, 4.0, 4.0]
    config = parse_config({"table": {"link": "sim://", "sim_speed": 100.0}, "camera": {"period_s": 0.1},
                           "display": {"port": 0, "operator_token": OPERATOR, "referee_token": "ref-cam"},
                           "demo": {"autoplay": True, "camera": "xmahjongg-dorothys"}}, source="test")
    service = TableService(config, tmp_path)
    await service.start()
    try:
        assert service._virtual_camera is not None and service._virtual_camera.fps == 10.0
    finally:
        await service.stop()


def test_demo_camera_needs_a_known_style_and_the_demo() -> None:
    from table_controller.config import ConfigError

    with pytest.raises(ConfigError, match="unknown tile style 'felt-tip'"):
        parse_config({"demo": {"autoplay": True, "camera": "felt-tip"}})
    with pytest.raises(ConfigError, match="needs demo.autoplay"):
        parse_config({"demo": {"camera": "xmahjongg-dorothys"}})


async def test_the_referee_sees_the_camera_view_and_each_unsure_tile(tmp_path: Path, faces: list) -> None:
    """The referee's page shows what the camera saw (its last frame with each tile's outline and
    code) and, beside each tile it asks about, that tile as it saw it; both are the referee's
    only: the frame may show more than the public views."""
    import cv2
    import numpy as np

    async with _camera_table(tmp_path, faces, seed=7, threshold=0.9999) as (service, ctl, _):
        await _until(lambda: ctl.state.camera_pending, 60, "an unsure tile")
        item = ctl.state.camera_pending[0]
        ref = {"Authorization": "Bearer ref-cam"}
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
            for path in ("/api/referee/camera/view.jpg", f"/api/referee/camera/tile/{item['seq']}.jpg"):
                assert (await http.get(path)).status_code in (401, 403)  # a viewer
                assert (await http.get(path, headers={"Authorization": f"Bearer {OPERATOR}"})).status_code == 403
            r = await http.get("/api/referee/camera/view.jpg", headers=ref)
            assert r.status_code == 200 and r.headers["content-type"] == "image/jpeg"
            view = cv2.imdecode(np.frombuffer(r.content, np.uint8), cv2.IMREAD_COLOR)
            assert view.shape[1] == 960 and view.shape[0] == 720  # the 1280×960 frame, scaled for the page
            # every tile was unsure at this threshold: outlines drawn in the referee's amber
            amber = np.all(np.abs(view.astype(int) - (0, 170, 255)) < 40, axis=2)
            assert amber.sum() > 500
            r = await http.get(f"/api/referee/camera/tile/{item['seq']}.jpg", headers=ref)
            assert r.status_code == 200
            tile = cv2.imdecode(np.frombuffer(r.content, np.uint8), cv2.IMREAD_COLOR)
            assert tile.shape[:2] == (160, 120)
            r = await http.get("/api/referee/camera/tile/999999.jpg", headers=ref)
            assert r.status_code == 404 and "999999" in r.json()["detail"]


async def test_camera_pictures_without_a_camera_are_a_clear_404(tmp_path: Path) -> None:
    config = parse_config({"table": {"link": "sim://", "sim_speed": 100.0},
                           "display": {"port": 0, "operator_token": OPERATOR, "referee_token": "ref-cam"}}, source="test")
    service = TableService(config, tmp_path)
    await service.start()
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
            r = await http.get("/api/referee/camera/view.jpg", headers={"Authorization": "Bearer ref-cam"})
            assert r.status_code == 404 and "no camera" in r.json()["detail"]
    finally:
        await service.stop()


async def test_the_felt_is_the_tables_the_camera_names_winds_by_the_hands_dealer(tmp_path: Path) -> None:
    """In a hand dealt by chair 2, the wind E sits at the table's side S: the demo lays E's
    discard at that side, and the camera, telling winds from sides by the dealer, records it as
    E's (before the fix, every play after the first hand was laid at the wrong side and refused)."""
    from table_controller.demo import lay_and_watch, win_by_camera
    from tablesim.players import PlayerAction

    async with _felt_table(tmp_path, seed=3, dealer_position=2) as (felt, ctl):
        seen = await lay_and_watch(ctl, felt, PlayerAction("discard", "E", "9m"), set(), wait_s=30)
        assert seen and [d["tile"] for d in ctl.state.hand["discards"]["E"]] == ["9m"]
        assert felt._felt.pools["S"] and not felt._felt.pools["E"]  # laid at the table's side S
        assert not [e for e in ctl.store.since(0) if e.type == "camera.play_refused"]
        # the log and the referee name the player sitting there, not the side's letter
        tile = next(e for e in ctl.store.since(0) if e.type == "camera.tile_appeared")
        assert tile.data["zone"] == "discard:S" and tile.data["wind"] == "E"
        assert any(line["text"].startswith("摄像头：东家弃牌区出现 九万") for line in ctl.state.log)
        # N wins on it: the hand is laid down at N's side, read from the camera, checked, confirmed
        read = {"seat_wind": "N", "concealed": "1m 2m 3m 4m 5m 6m 7m 8m 1p 1p 1p 2p 2p".split(), "win_tile": "9m",
                "win": "discard", "discarder": "E", "melds": [], "flowers": [], "last_tile": False}
        assert await win_by_camera(ctl, felt, PlayerAction("win", "N", "9m", frm="E", hand=read), set(), wait_s=30)
        reads = [e for e in ctl.store.since(0) if e.type == "referee.win_read"]
        assert len(reads) == 1 and reads[0].data["source"] == "camera"
        assert sorted(reads[0].data["hand"]["concealed"]) == sorted(read["concealed"])
        assert ctl.state.hand["winners"] == ["N"]  # confirmed


async def test_the_demo_rules_cha_jiao_from_the_hands_the_camera_sees(tmp_path: Path) -> None:
    """四川 at 荒牌: the seats lay their hands on the felt, the demo reads them from the camera,
    checks them against the table and rules 查叫 with them (source camera)."""
    from table_controller.demo import check_hands

    async with _felt_table(tmp_path, seed=4, ruleset="sichuan") as (felt, ctl):
        ctl.accept("operator", "operator.hand_end", {"hand_no": 1, "result": "draw", "by": "demo"})
        shown = {"E": "1m 1m 2m 3m 4m 6m 6m 6m 7m 8m 7p 8p 9p", "S": "1s 2s 3s 4s 5s 6s 7s 8s 9s 2p 2p 5p 6p",
                 "W": "1p 1p 1p 2p 3p 4p 5p 6p 7s 7s 9m 9m 9m", "N": "1m 3m 5m 7m 9m 2p 4p 6p 8p 1p 3p 5p 9p"}
        await check_hands(ctl, {w: {"concealed": t.split()} for w, t in shown.items()}, felt, set(), wait_s=60)
        rulings = [e for e in ctl.store.since(0) if e.type == "referee.exhaustive"]
        assert len(rulings) == 1 and rulings[0].data.get("source") == "camera"
        assert {w: sorted(h["concealed"]) for w, h in rulings[0].data["hands"].items()} == \
            {w: sorted(t.split()) for w, t in shown.items()}


async def test_riichi_declared_by_a_sideways_discard_is_recorded_by_the_camera(tmp_path: Path) -> None:
    """Riichi: E opens, then S lays its 立直 discard sideways on the felt. Through the virtual
    camera, the reader and the tracker, the service records S's discard and then S's 立直, with
    no keying (source camera); the demo's wait for it returns at once."""
    from table_controller.demo import lay_and_watch, riichi_by_camera
    from tablesim.players import PlayerAction

    async with _felt_table(tmp_path, seed=5, ruleset="riichi") as (felt, ctl):
        assert await lay_and_watch(ctl, felt, PlayerAction("discard", "E", "9m"), set(), wait_s=30)
        assert await lay_and_watch(ctl, felt, PlayerAction("discard", "S", "1z"), set(), wait_s=30, sideways=True)
        assert await riichi_by_camera(ctl, "S", wait_s=30)
        got = [(e.type, e.data.get("seat"), e.source) for e in ctl.store.since(0) if e.type.startswith("play.")]
        assert got[-2:] == [("play.discard", "S", "camera"), ("play.riichi", "S", "camera")]
        assert "S" in ctl.state.hand["riichi"] and "E" not in ctl.state.hand["riichi"]
        appeared = [e.data for e in ctl.store.since(0) if e.type == "camera.tile_appeared" and e.data["kind"] == "1z"]
        assert appeared and appeared[-1].get("sideways") is True


async def test_the_camera_records_each_kind_of_kong_the_players_lay(tmp_path: Path) -> None:
    """The demo's players kong now (twelfth session), and lay each kong as players do: 明杠 the
    claimed discard with three alike, 暗杠 four with the ends face down, 补杠 the fourth beside a
    pung. Through the virtual camera, the reader and the tracker each is recorded as that kong
    (source camera)."""
    from table_controller.demo import lay_and_watch
    from tablesim.players import PlayerAction

    async with _felt_table(tmp_path, seed=3) as (felt, ctl):
        plays = [PlayerAction("discard", "E", "5p"), PlayerAction("claim", "S", "5p", frm="E", kind="kong"),
                 PlayerAction("discard", "S", "9m"), PlayerAction("claim", "N", "9m", frm="S", kind="pung"),
                 PlayerAction("kong", "N", "2z", kind="concealed"), PlayerAction("kong", "N", "9m", kind="added")]
        for play in plays:
            assert await lay_and_watch(ctl, felt, play, set(), wait_s=30), play
        got = [(e.type, e.source, e.data.get("kind"), bool(e.data.get("concealed")), bool(e.data.get("added")))
               for e in ctl.store.since(0) if e.type in ("play.claim", "play.kong")]
        assert got == [("play.claim", "camera", "kong", False, False), ("play.claim", "camera", "pung", False, False),
                       ("play.kong", "camera", None, True, False), ("play.kong", "camera", None, False, True)]
        melds = ctl.state.hand["melds"]
        assert [(m["type"], m["tiles"]) for m in melds["S"]] == [("kong", ["5p"] * 4)]
        assert [(m["type"], m["tiles"], m["concealed"]) for m in melds["N"]] == \
            [("kong", ["9m"] * 4, False), ("kong", ["2z"] * 4, True)]
        assert not [e for e in ctl.store.since(0) if e.type == "camera.play_refused"]


async def test_a_knocked_camera_is_put_right_or_shown_on_the_display(tmp_path: Path) -> None:
    """A table without markers (corners stored in `[camera]`): the camera knocked a little is
    calibrated again from the felt's edges and the log says so; knocked so far that an edge leaves
    the picture, the display shows what to do until the camera is set back (vision/bump.py)."""
    import cv2
    import numpy as np

    from tablesim.felt import FeltCamera
    from vision.geometry import TABLE_MM

    felt = FeltCamera(load_style("xmahjongg-dorothys"), seed=11, opts=SceneOptions(markers=False))
    for seat, tile in (("E", "1m"), ("S", "5p"), ("W", "9s"), ("N", "2z")):
        felt.lay("discard", seat, tile)
    square = np.float64([[[0, 0], [TABLE_MM, 0], [TABLE_MM, TABLE_MM], [0, TABLE_MM]]])
    corners = [[float(x), float(y)] for x, y in cv2.perspectiveTransform(square, felt.scene().plane_to_image)[0]]
    async with _watching(tmp_path, felt.frame, period_s=0.1, corners=corners,
                         corners_size=[1280, 960]) as (service, ctl, _):
        logged = lambda t: [e for e in ctl.store.since(0) if e.type == t]  # noqa: E731
        await _until(lambda: len(logged("camera.tile_appeared")) == 4, 60, "the four discards")
        felt.bump((18.0, 8.0), 1.0)
        await _until(lambda: logged("camera.recalibrated"), 30, "the knock put right")
        assert 12 < logged("camera.recalibrated")[0].data["moved_mm"] < 40
        assert any("摄像头被碰动" in line["text"] and "重新校准" in line["text"] for line in ctl.state.log)
        felt.lay("discard", "E", "7s")
        await _until(lambda: len(logged("camera.tile_appeared")) == 5, 30, "a discard after the knock")
        assert not logged("camera.tile_disappeared")  # the four tiles stayed where they were
        felt.bump((0.0, 170.0))  # E's edge out of the picture
        await _until(lambda: "重新标定四角" in ctl.state.camera.get("problem", ""), 30, "the problem shown")
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
            shown = (await http.get("/api/state")).json()["camera"]
            assert "store the corners again" in shown["problem"]
        felt.bump()
        await _until(lambda: not ctl.state.camera.get("problem"), 30, "the camera set back")
        assert not logged("camera.tile_disappeared") and len(logged("camera.tile_appeared")) == 5


async def test_a_camera_that_cannot_locate_the_felt_is_not_shown_as_ok(tmp_path: Path, faces: list) -> None:
    """A camera over a felt without markers, no corners stored (or markers covered by a tile box at
    start): nothing is read, and the display said "摄像头正常 · 只看到 0 个台角标记…" in green, the
    hub the same, the play record taking the pools as watched. Now the status is not OK
    (`not_reading`: 摄像头未能定位台面，暂不识牌，请手动录入), the problem beside it; it is OK again
    once the felt is located (corners stored)."""
    source = scene_source(faces, seed=4, opts=SceneOptions(tiles=12, markers=False), jitter=False)
    async with _watching(tmp_path, source) as (service, ctl, _):
        await _until(lambda: ctl.state.camera and ctl.state.camera.get("problem"), 60, "the camera's problem")
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
            shown = (await http.get("/api/health")).json()["health"]["camera"]
        assert shown["ok"] is False and shown["code"] == "not_reading", shown
        assert shown["message"] == "摄像头未能定位台面，暂不识牌，请手动录入" and "台角标记" in shown["problem"]
        assert any(line["text"].startswith("摄像头未能定位台面") for line in ctl.state.log)
        assert not [e for e in ctl.store.since(0) if e.type == "camera.tile_appeared"]
