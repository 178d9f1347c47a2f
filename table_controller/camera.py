"""The camera above the table, watched for the controller: tile events into the log, health on the display.

The reader (`vision/`) is blocking OpenCV work, so each step runs in a worker thread; the watcher
itself never raises: a camera that unplugs, freezes or goes dark is recorded once as a
`camera.status` event and shown, and the game goes on with manual entry.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

log = logging.getLogger("table_controller.camera")

#: Unsure readings whose tile the referee's page can still show (the reader keeps as many views).
ASKED_KEPT = 64


class Accepting(Protocol):
    def accept(self, source: str, type: str, data: dict[str, Any]) -> Any: ...

    def record_play(self, type: str, data: dict[str, Any], by: str, source: str = "referee") -> Any: ...

    @property
    def state(self) -> Any: ...


class CameraWatcher:
    """Steps a `vision.service.VisionLoop` every `period_s` and forwards what it saw."""

    def __init__(self, controller: Accepting, make_loop: Callable[[], Any], period_s: float = 0.5,
                 learn: bool = True, record_play: bool = True) -> None:
        from table_controller.camera_record import CameraRecord

        self._controller = controller
        self._make_loop = make_loop
        self.period_s = period_s
        self.learn = learn
        #: None: the camera's tiles stay camera events and never become play (`[camera] record_play`)
        self.record = CameraRecord() if record_play else None
        # rulings already in the record when the camera started name tracks of an earlier run
        self._since = controller.state.seq
        #: the newest referee action already read (by seq: a new round empties the state's list of
        #: actions, and undoing its start puts the closed round's back in front)
        self._action_seq = controller.state.seq
        # ruling's seq -> (what it said, whether the reader learnt from it), for an undo; the newest
        # ASKED_KEPT (before, every ruling of the day)
        self._ruled: dict[int, tuple[dict[str, Any], bool]] = {}
        self.status: dict[str, Any] = {"ok": False, "code": "starting", "message": "摄像头启动中",
                                       "message_en": "camera starting", "problem": ""}
        self._loop: Any = None
        #: the seq of each unsure reading this run logged -> its track (the referee's page shows the tile)
        self._asked: dict[int, int] = {}
        #: a ruling that the reading is no tile's seq -> that reading, for an undo (the newest ASKED_KEPT)
        self._dismissed: dict[int, dict[str, Any]] = {}

    def view_jpeg(self) -> bytes | None:
        """The camera's last frame with what it read, for the referee (None: no frame yet)."""
        return self._loop.view_jpeg() if self._loop is not None else None

    def tile_jpeg(self, seq: int) -> bytes | None:
        """The unsure tile the camera asked about in event `seq`, as it saw it (None: not from
        this run, or no longer kept)."""
        track = self._asked.get(seq)
        return self._loop.tile_jpeg(track) if self._loop is not None and track is not None else None

    def win_read(self, seat: str, win: str = "discard", win_tile: str | None = None) -> dict[str, Any]:
        """The win of `seat` as the camera sees its hand laid down (melds, flowers and the discard
        won on from the record), for `referee.win_read`; ActionError says why not."""
        from table_controller.camera_record import WinReadError, win_hand
        from table_controller.controller import ActionError

        hand = self._live_record(ended=False)
        laid = self._laid(hand, seat)
        try:
            return win_hand(hand, seat, laid, win, win_tile)
        except WinReadError as exc:
            raise ActionError(str(exc), status=422) from None

    def exhaustive_hands(self) -> dict[str, dict[str, Any]]:
        """The hands the seats still playing have laid down at 荒牌, for `referee.exhaustive` (查叫)."""
        from table_controller.state import SEATS

        hand = self._live_record(ended=True)
        return {seat: {"concealed": self._laid(hand, seat)} for seat in SEATS if seat not in (hand.get("out") or [])}

    def _live_record(self, ended: bool) -> dict[str, Any]:
        from table_controller.controller import ActionError

        hand = self._controller.state.hand
        if self.record is None:
            raise ActionError("没有记录牌局的摄像头 / no camera keeping the play record")
        if ended and (hand is None or not hand.get("ended")):
            raise ActionError("查叫在荒牌结束本盘之后 / 查叫 comes after the hand ends in a draw")
        if not ended and (hand is None or hand.get("ended")):
            raise ActionError("没有进行中的牌局 / no hand in play")
        return hand

    def _laid(self, hand: dict[str, Any], seat: str) -> list[str]:
        from table_controller.controller import ActionError

        assert self.record is not None
        laid, unsure = self.record.laid_down(hand, seat)
        if unsure:
            raise ActionError(f"摄像头还有 {unsure} 张牌未确认，请先确认 / "
                              f"{unsure} laid tiles wait for the referee's ruling first")
        if not laid:
            raise ActionError(f"摄像头未见{seat}家摊开的手牌 / the camera sees no hand laid down by {seat}")
        return laid

    @property
    def loop(self) -> Any:
        """The `vision.service.VisionLoop` once started (None before, or when the reader failed)."""
        return self._loop

    def health(self) -> dict[str, Any]:
        """For the display's health panel (not logged: it refreshes every step)."""
        return dict(self.status)

    async def run(self) -> None:
        try:
            self._loop = await asyncio.to_thread(self._make_loop)  # loads the model once
        except Exception as exc:  # a missing or broken model: say so, keep the table running
            log.error("camera reader unavailable", extra={"error": str(exc)})
            self.status = {"ok": False, "code": "reader_error", "message": f"识牌模型不可用：{exc}",
                           "message_en": f"tile reader unavailable: {exc}", "problem": str(exc)}
            self._controller.offer("camera", "camera.status", self.status)
            return
        last_code: str | None = None
        last_problem = ""
        try:
            while True:
                try:
                    result = await asyncio.to_thread(self._loop.step)
                except Exception as exc:  # the reader promises not to raise; if it does, it is news
                    log.exception("camera step failed")
                    result = None
                    status = {"ok": False, "code": "reader_error", "message": f"识牌出错：{exc}",
                              "message_en": f"tile reader error: {exc}", "problem": str(exc)}
                else:
                    status = {**result.status.to_json(), "problem": result.problem}
                self.status = status
                if status["code"] != last_code or status["problem"] != last_problem:
                    self._controller.offer("camera", "camera.status", status)
                    last_code, last_problem = status["code"], status["problem"]
                seen: list[dict[str, Any]] = []
                if result is not None and result.recalibrated:  # bumped, and put right from the felt's edges
                    self._controller.offer("camera", "camera.recalibrated", dict(result.recalibrated))
                if result is not None:
                    for ev in result.events:
                        # held in order while the log cannot be written (None then: not asked yet)
                        logged = self._controller.offer("camera", f"camera.tile_{ev.event}", self._named(ev.to_json()))
                        if ev.needs_referee and getattr(logged, "seq", None) is not None:
                            self._asked[logged.seq] = ev.track
                            while len(self._asked) > ASKED_KEPT:
                                del self._asked[next(iter(self._asked))]
                        seen.append(ev.to_json())
                seen += await self._rulings()
                try:
                    self._record_play(seen, result.occluded if result is not None else (), blind=not status["ok"])
                except Exception:  # the record is a help: a bug in it must not stop the camera
                    log.exception("camera could not update the play record")
                await asyncio.sleep(self.period_s)
        finally:
            camera = getattr(self._loop, "camera", None)
            if camera is not None:
                camera.close()

    def _named(self, event: dict[str, Any]) -> dict[str, Any]:
        """A tile event with the wind sitting this hand at the side of the table its zone is on
        (`wind`): the camera names sides (E at the bottom of the picture), the referee and the
        log name players by their wind, which moves round the table with the dealer. Before, the
        log said "北家副露区" for a pung 南 had just laid at the N side."""
        from table_controller.controller import wind_of_side
        from table_controller.state import SEATS

        hand = self._controller.state.hand  # an ended hand too: its hands are laid down at 荒牌
        side = str(event.get("zone", "")).partition(":")[2]
        if hand is not None and side in SEATS:
            return {**event, "wind": wind_of_side(side, int(hand.get("dealer_position", 1)))}
        return event

    def _record_play(self, seen: list[dict[str, Any]], occluded: tuple[str, ...] = (), blind: bool = False) -> None:
        """What the camera saw laid down becomes play (`table_controller.camera_record`); a play
        the record refuses (out of turn, say) is logged once as `camera.play_refused` for the
        referee and offered again each step, so it lands once the referee keys what was missed."""
        from table_controller.camera_record import areas
        from table_controller.controller import ActionError

        if self.record is None:
            return
        self.record.see(self._controller.state.hand, seen, occluded, blind)
        news: list[tuple[list[int], dict[str, Any]]] = []
        for area in areas(self._controller.state.hand):  # the state moves with each play: a claim needs its discard
            for i, (type_, data) in enumerate(self.record.plays(self._controller.state.hand, area)):
                try:
                    self._controller.record_play(type_, data, by="camera", source="camera")
                except ActionError as exc:
                    tracks = list(self.record.proposed[i][0])
                    if self.record.refused(i, str(exc)):  # offered again next step; told once
                        news.append((tracks, {"play": type_, **data, "reason": str(exc)}))
        for tracks, refusal in news:
            # told after the step's passes: a play refused in the first pass and recorded in a later one (AGAIN,
            # after the meld it waited for) is no refusal; before, the referee was told of it as one
            if not self.record.taken(tracks):
                self._controller.accept("camera", "camera.play_refused", refusal)
        self._tell_overruled()  # after the step's plays: a claim may show the "ruling" was a new tile on its track

    def _tell_overruled(self) -> None:
        """A ruling that names a tile otherwise than the camera already recorded it (the referee
        undid a ruling and made another, or ruled it no tile): the record cannot be changed from here, so the
        referee is told, once. Before, the record kept the first kind and the log said only the new ruling."""
        from table_controller.tiles import SEAT_NAMES
        from table_controller.tiles import tile_name

        assert self.record is not None
        for area, wind, was, ruled in self.record.overruled:
            what = "打出" if area == "discard" else "补花"
            seq = self._recorded_seq(area, wind, was)
            at = f"（#{seq}）" if seq else ""
            now_zh, now_en = ((f"改判为 {tile_name(ruled)}", f"changed it to {ruled}") if ruled
                              else ("判为不是牌", "ruled it no tile"))
            fix_zh, fix_en = ("改正", "correct it") if ruled else ("作废该记录", "void it")
            self._controller.accept("camera", "camera.play_refused", {
                "play": "play.discard" if area == "discard" else "play.flower", "seat": wind, "tile": ruled or was,
                **({"target": seq} if seq else {}),
                "reason": f"{SEAT_NAMES[wind]}家{what}已按 {tile_name(was)} 记入牌谱{at}，裁判{now_zh}，"
                          f"牌谱未改：请核对，需要时在罚分页“更正牌谱”{fix_zh} / {wind}'s {area} was recorded as {was} "
                          f"before the ruling {now_en}: the record is unchanged, check it and {fix_en} "
                          "on the Penalties page if need be"})
        self.record.overruled = []

    def _recorded_seq(self, area: str, wind: str, tile: str) -> int | None:
        """The seq of the play that holds `tile` in `wind`'s `area` (the newest such), for the referee
        to correct (`referee.play_correct`); None where the record cannot say (a flower keeps no seq)."""
        hand = self._controller.state.hand
        if hand is None or area != "discard":
            return None
        # a discard a correction put in is named by the correction (its `seq` lies between two events)
        return next((int(d.get("inserted") or d["seq"]) for d in reversed(hand["discards"].get(wind, []))
                     if d.get("tile") == tile), None)

    async def _rulings(self) -> list[dict[str, Any]]:
        """The referee's rulings on unsure tiles seen since the camera started (the step before),
        as `ruled` events for the play record. With `learn`, each also teaches the reader that tile's art
        (`VisionLoop.learn`), recorded as `camera.learned`; a ruling the referee undoes is
        forgotten again (`VisionLoop.unlearn`), recorded as `camera.unlearned`. A reading ruled no tile
        (`referee.camera_dismiss`) is a `dismissed` event: the record lets go of it, the tracker announces it no
        more (`VisionLoop.dismiss`), nothing is learnt; its undo is `undismissed`, the question back."""
        from table_controller.referee import CAMERA_RULINGS

        state = self._controller.state
        actions = _actions_after(state.actions, self._action_seq)
        if actions:
            self._action_seq = int(actions[-1]["seq"])
        ruled: list[dict[str, Any]] = []
        for a in actions:
            if a.get("error") or a.get("undone"):
                continue
            item = None
            if a.get("type") in CAMERA_RULINGS:
                item = next((p for p in state.camera_pending if p["seq"] == a.get("camera_seq")), None)
                if item is not None and item["seq"] <= self._since:
                    item = None  # a ruling on a tile of an earlier run: its track is gone
            if item is not None and a["type"] == "referee.camera_dismiss":
                if item.get("event") == "appeared" and isinstance(item.get("track"), int):
                    ruled.append({"event": "dismissed", "zone": item.get("zone"), "track": item["track"]})
                    self._dismissed[a["seq"]] = item
                    while len(self._dismissed) > ASKED_KEPT:
                        del self._dismissed[next(iter(self._dismissed))]
                    await self._dismiss(item["track"], True)
                continue  # no tile: nothing to learn
            if a.get("type") == "referee.undo" and a.get("target") in self._dismissed:
                item = self._dismissed.pop(a["target"])
                ruled.append({"event": "undismissed", "zone": item.get("zone"), "track": item["track"]})
                await self._dismiss(item["track"], False)
                continue
            if item is not None and item.get("event") == "appeared":
                ruled.append({"event": "ruled", "zone": item.get("zone"), "kind": a.get("kind"),
                              "track": item.get("track")})
            if not self.learn:
                continue
            try:
                if item is not None:
                    await self._learn(item, a)
                elif a.get("type") == "referee.undo" and a.get("target") in self._ruled:
                    item, learnt = self._ruled.pop(a["target"])
                    gone = await asyncio.to_thread(self._loop.unlearn, f"ruling:{a['target']}", int(item["track"]))
                    if learnt:
                        self._controller.accept("camera", "camera.unlearned",
                                                {**item, "removed": gone, "undo_seq": a["seq"]})
            except Exception as exc:  # learning is a bonus: the rulings themselves already stand
                log.warning("camera could not learn from a ruling", extra={"error": str(exc)})
        return ruled

    async def _dismiss(self, track: int, dismissed: bool) -> None:
        """The tracker told that `track` is no tile (or, undone, that it may be one again)."""
        if self._loop is None:
            return
        try:
            await asyncio.to_thread(self._loop.dismiss, int(track), dismissed)
        except Exception as exc:  # the record lets go of it anyway; the tracker may ask about it again
            log.warning("camera could not set a reading aside", extra={"error": str(exc)})

    async def _learn(self, item: dict[str, Any], a: dict[str, Any]) -> None:
        """Teach the reader the art of the tile `item` (a pending reading) as ruling `a` named it."""
        if "track" not in item:
            return
        outcome = await asyncio.to_thread(self._loop.learn, int(item["track"]), a["kind"], bool(a.get("corrected")),
                                          f"ruling:{a['seq']}")
        ruling = {"kind": a["kind"], "camera_seq": item["seq"], "track": item["track"],
                  "corrected": bool(a.get("corrected")), "zone": item.get("zone")}
        self._ruled[a["seq"]] = (ruling, outcome == "learnt")
        while len(self._ruled) > ASKED_KEPT:  # a day's rulings: only the newest can still be undone
            del self._ruled[next(iter(self._ruled))]
        if outcome == "learnt":
            self._controller.accept("camera", "camera.learned", ruling)


def _actions_after(actions: list[dict[str, Any]], seq: int) -> list[dict[str, Any]]:
    """The actions logged after `seq` (the list is in log order). Before, the watcher read the
    actions past the count it had read: a new round (轮次) empties the list, so a ruling made before
    the watcher's next step was never read (its tile held back the play record, and was not learnt),
    and undoing the round's start put the closed round's actions back in front, read again."""
    i = len(actions)
    while i > 0 and int(actions[i - 1].get("seq", 0)) > seq:
        i -= 1
    return actions[i:]


def vision_loop_factory(source: str, corners: Any, enrollment: str | None, threshold: float | None,
                        model: str = "", learn: bool = True, learned_file: Path | None = None,
                        corners_size: tuple[int, int] | None = None) -> Callable[[], Any]:
    """Build the reader as configured in `[camera]` (imports OpenCV and the model only when a
    camera is set). What the referee's rulings teach is kept in the table's enrollment file, or,
    when it has none, in `learned_file` (read back at the next start)."""

    def make() -> Any:
        from vision.camera import CameraStream
        from vision.config import VisionConfig
        from vision.enroll import Enrollment, EnrollmentError
        from vision.service import VisionLoop

        cfg = VisionConfig.from_camera_section(source, corners, model, enrollment or "", threshold, corners_size)
        reader = cfg.reader()
        keep = cfg.enrollment or learned_file
        if learn and cfg.enrollment is None and learned_file is not None and learned_file.exists():
            try:
                reader.enrollment = Enrollment.load(learned_file)
            except EnrollmentError as exc:  # learning starts afresh; the next ruling rewrites the file
                log.warning("learned tiles not loaded", extra={"error": str(exc)})
        return VisionLoop(CameraStream(cfg.camera), reader, save_enrollment=keep if learn else None)

    return make
