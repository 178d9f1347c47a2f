"""Keying a hand on the Table page at a table without a camera, in Debian's Chromium (Playwright): the
operator's keyboard and taps, against the running service (a simulated table on a real pty, real uvicorn
on a loopback port, real SQLite). What is asked of the operator per play: bench/keying.py."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Callable

import pytest
import pytest_asyncio

from table_controller.config import parse_config
from table_controller.service import TableService
from test_browser import OPERATOR, _http, _start_hand, _throw_all, _until

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

FORM = "#play-form"
TILES = f"{FORM} input[name=tiles]"


@pytest_asyncio.fixture(loop_scope="module")
async def service(tmp_path: Path) -> Any:
    config = parse_config({"table": {"link": "sim://", "sim_seed": 11, "sim_speed": 1000.0},
                           "players": [{"position": p, "name": n} for p, n in enumerate("甲乙丙丁", 1)],
                           "display": {"port": 0, "operator_token": OPERATOR}}, source="test")
    svc = TableService(config, tmp_path)
    await svc.start()
    await svc.controller.wait_linked(10)
    yield svc
    await svc.stop()


#: The contexts the test opened, closed after it (`_close_contexts`).
_contexts: list[Any] = []


@pytest_asyncio.fixture(autouse=True, loop_scope="module")
async def _close_contexts() -> Any:
    """Each test's page closed after it: left open, every earlier test's page stayed logged in on the module's
    service, each taking every state it sent and drawing it, and each test after ran slower for it."""
    yield
    while _contexts:
        await _contexts.pop().close()


async def _keying_page(svc: TableService, chromium: Any, viewport: tuple[int, int] = (1280, 800)) -> Any:
    """A hand started and its dice thrown (the table's buttons); the Table page logged in as the
    operator, the play form shown."""
    async with _http(svc) as http:
        await _start_hand(svc, http)
    await _throw_all(svc)
    context = await chromium.new_context(viewport={"width": viewport[0], "height": viewport[1]})
    _contexts.append(context)
    page = await context.new_page()
    await page.goto(f"http://127.0.0.1:{svc.port}/")
    await page.fill("#token", OPERATOR)
    await page.click("#login button[type=submit]")
    await page.wait_for_function("document.body?.dataset.role === 'operator'")
    await page.wait_for_selector(f"{FORM}:not([hidden])")
    return page


async def _deal_done(svc: TableService, chromium: Any) -> tuple[Any, Callable[[], Any]]:
    """The keying page with 配牌完成 pressed and its answer shown; `hand()` reads the hand as it is now."""
    page = await _keying_page(svc, chromium)

    def hand() -> Any:
        return svc.controller.state.hand

    await page.click(f"{FORM} [data-play=deal_done]")
    await _until(lambda: hand()["turn"] is not None)
    await _shown(page, svc)
    return page, hand


async def _shown(page: Any, svc: TableService) -> None:
    """Until the page shows the record as it is now and the answer to the last play keyed (the table's
    own events may come after it)."""
    await page.wait_for_function(f"window.__lastSeq >= {svc.controller.state.seq}")
    play = max(ev.seq for ev in svc.controller.store.since(0) if ev.type.startswith("play."))
    await page.wait_for_function(f"document.querySelector('#action-msg').textContent.includes('#{play}')")


async def _slow_plays(page: Any) -> asyncio.Event:
    """Every play's answer held back, the play taken by the service, until the returned gate is set (a venue's
    Wi-Fi). The test lets them go once every key is pressed, instead of holding each a guessed 0.6 or 0.8 s
    (3 s and 2.4 s a test) and racing the typing against it: it must all land before the first answer."""
    gate = asyncio.Event()

    async def slow(route: Any) -> None:
        response = await route.fetch()
        await gate.wait()
        await route.fulfill(response=response)

    await page.route("**/api/play", slow)
    return gate


def _focus_in_tiles(page: Any) -> Any:
    return page.evaluate(f"document.activeElement === document.querySelector('{TILES}')")


async def test_enter_keys_the_discard_and_the_focus_stays_in_the_tile_field(service: TableService,
                                                                            chromium: Any) -> None:
    """A discard is a tile typed and Enter, the next one typed at once: Enter in 牌 keys 打出 (补花 for a
    flower, which is never discarded) and after any play, pressed by key or by button, the focus is back
    in 牌. Before, Enter did nothing and the focus stayed on the button pressed: every play began with a
    tap on 牌 and ended with one on 打出."""
    page, hand = await _deal_done(service, chromium)
    assert await _focus_in_tiles(page)  # after a button: back in 牌
    await page.keyboard.type("5m")
    await page.keyboard.press("Enter")
    await _until(lambda: [d["tile"] for d in hand()["discards"]["E"]] == ["5m"])
    await _shown(page, service)
    assert await _focus_in_tiles(page) and await page.input_value(TILES) == ""
    assert await page.input_value(f"{FORM} select[name=seat]") == "S"  # the turn moved on
    await page.keyboard.type("5f")  # S draws a flower: laid out, not discarded
    await page.keyboard.press("Enter")
    await _until(lambda: hand()["flowers"]["S"] == ["5f"])
    await _shown(page, service)
    await page.keyboard.type("9p")
    await page.keyboard.press("Enter")
    await _until(lambda: [d["tile"] for d in hand()["discards"]["S"]] == ["9p"])
    await _shown(page, service)
    await page.keyboard.type("9p")  # for N, out of turn: refused, the tile and the focus kept to put it right
    await page.select_option(f"{FORM} select[name=seat]", "N")
    await page.focus(TILES)
    await page.keyboard.press("Enter")
    await page.wait_for_selector("#action-msg.bad")
    assert "未轮到北家" in await page.text_content("#action-msg")
    assert await _focus_in_tiles(page) and await page.input_value(TILES) == "9p"  # kept, to put right
    assert hand()["discards"]["N"] == []


async def test_a_pung_or_exposed_kong_takes_the_claimed_discard_without_typing_it(service: TableService,
                                                                                 chromium: Any) -> None:
    """碰 and 明杠 take the discard of 来自, which lies on the table (the record takes no other tile):
    with 牌 empty they key it. Before, 牌 empty said 请填写牌 and the operator typed the tile again."""
    page, hand = await _deal_done(service, chromium)
    await page.fill(TILES, "5m")
    await page.click(f"{FORM} [data-play=discard]")
    await _until(lambda: bool(hand()["discards"]["E"]))
    await _shown(page, service)
    await page.select_option(f"{FORM} select[name=seat]", "W")
    await page.click(f"{FORM} [data-play=pung]")
    await _until(lambda: bool(hand()["melds"]["W"]))
    meld = hand()["melds"]["W"][0]
    assert (meld["type"], meld["tiles"], meld["from"]) == ("pung", ["5m"] * 3, "E")
    await _shown(page, service)
    await page.fill(TILES, "9p")
    await page.click(f"{FORM} [data-play=discard]")
    await _until(lambda: bool(hand()["discards"]["W"]))
    await _shown(page, service)
    assert await page.input_value(f"{FORM} select[name=from]") == "W"
    await page.select_option(f"{FORM} select[name=seat]", "S")
    await page.click(f"{FORM} [data-play=kong]")
    await _until(lambda: bool(hand()["melds"]["S"]))
    meld = hand()["melds"]["S"][0]
    assert (meld["type"], meld["tiles"], meld["from"]) == ("kong", ["9p"] * 4, "W")
    await _shown(page, service)
    seq = service.controller.state.seq
    await page.select_option(f"{FORM} select[name=from]", "W")  # W's 9p is taken: nothing to pung, asked for the tile
    await page.click(f"{FORM} [data-play=pung]")
    await page.wait_for_function("document.querySelector('#action-msg').textContent.includes('请填写牌')")
    await asyncio.sleep(0.3)
    assert service.controller.state.seq == seq


async def test_a_seats_letter_typed_first_in_the_tile_field_picks_the_seat(service: TableService,
                                                                          chromium: Any) -> None:
    """A claim by a seat not in turn: its letter (e s w n, or 东南西北) typed first in 牌 picks it, the
    select shows it, and the tile goes on after it; a letter after a digit is the tile's suit (5s).
    Before, the letter stayed in 牌 and was read as nothing: the seat took two taps on 座位."""
    page = await _keying_page(service, chromium)
    hand = lambda: service.controller.state.hand  # noqa: E731
    seat = f"{FORM} select[name=seat]"
    await page.click(f"{FORM} [data-play=deal_done]")
    await _until(lambda: hand()["turn"] is not None)
    await _shown(page, service)
    await page.fill(TILES, "5m")
    await page.click(f"{FORM} [data-play=discard]")
    await _until(lambda: bool(hand()["discards"]["E"]))
    await _shown(page, service)
    await page.click(TILES)
    await page.keyboard.type("w")
    assert await page.input_value(seat) == "W" and await page.input_value(TILES) == ""
    await page.keyboard.type("5m")
    await page.click(f"{FORM} [data-play=pung]")
    await _until(lambda: bool(hand()["melds"]["W"]))
    assert hand()["melds"]["W"][0]["tiles"] == ["5m"] * 3
    await _shown(page, service)
    await page.keyboard.type("5s")  # W's discard: the s is the tile's
    assert await page.input_value(seat) == "W" and await page.input_value(TILES) == "5s"
    await page.keyboard.press("Enter")
    await _until(lambda: bool(hand()["discards"]["W"]))
    await _shown(page, service)
    await page.keyboard.type("N5s")
    assert await page.input_value(seat) == "N" and await page.input_value(TILES) == "5s"
    await page.click(f"{FORM} [data-play=pung]")
    await _until(lambda: bool(hand()["melds"]["N"]))
    assert (hand()["melds"]["N"][0]["tiles"], hand()["melds"]["N"][0]["from"]) == (["5s"] * 3, "W")
    await _shown(page, service)
    await page.keyboard.type("东")
    assert await page.input_value(seat) == "E" and await page.input_value(TILES) == ""
    await asyncio.sleep(0.3)  # an update of the state that is no new turn leaves the pick alone
    assert await page.input_value(seat) == "E"


async def test_plays_typed_while_the_last_one_is_on_its_way_are_each_keyed_for_their_seat(service: TableService,
                                                                                           chromium: Any) -> None:
    """An operator catching up types on while the venue's Wi-Fi carries the last play (here the answers
    held until all is pressed): E's 5m, S's 3p, then W's pung of it, typed and pressed one after the other.
    Each is keyed, in order, for its seat: 牌 is cleared when a play is sent, and a play pressed before the
    page shows the operator's last one is sent once it does (the seat having followed the turn). Before, the
    next tile was typed after the one on its way (5m3p, refused: 打出只填一张牌) and its answer then
    cleared 牌: the typing was lost."""
    page, hand = await _deal_done(service, chromium)

    answers = await _slow_plays(page)
    await page.keyboard.type("5m")
    await page.keyboard.press("Enter")
    await page.keyboard.type("3p")
    await page.keyboard.press("Enter")
    await page.keyboard.type("w")
    await page.click(f"{FORM} [data-play=pung]")
    answers.set()
    await _until(lambda: bool(hand()["melds"]["W"]), timeout=15)
    assert [d["tile"] for d in hand()["discards"]["E"]] == ["5m"]
    assert [d["tile"] for d in hand()["discards"]["S"]] == ["3p"]
    meld = hand()["melds"]["W"][0]
    assert (meld["type"], meld["tiles"], meld["from"]) == ("pung", ["3p"] * 3, "S")
    await _shown(page, service)
    assert await page.input_value(TILES) == "" and await _focus_in_tiles(page)


async def _in_view(page: Any, selector: str) -> bool:
    return await page.evaluate("(s) => { const r = document.querySelector(s).getBoundingClientRect();"
                               " return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }", selector)


async def test_each_plays_answer_is_said_in_words_beside_the_form_on_a_tablet(service: TableService,
                                                                             chromium: Any) -> None:
    """On a tablet held upright (768 x 1024) the form is scrolled into view and the message line at the top
    of the page out of it: an accepted or refused play said so only there, out of sight, and the operator
    keyed on after a refusal or a wrong tile without knowing. The form now says each answer with the play in words
    (东家打出 五万 ✓ 已记录 #N; 北家打出 九筒 ✗ 未轮到北家…), where the operator is looking."""
    page = await _keying_page(service, chromium, viewport=(768, 1024))
    hand = lambda: service.controller.state.hand  # noqa: E731
    await page.click(f"{FORM} [data-play=deal_done]")
    await _until(lambda: hand()["turn"] is not None)
    await _shown(page, service)
    await page.keyboard.type("5m")
    await page.keyboard.press("Enter")
    await _until(lambda: bool(hand()["discards"]["E"]))
    await _shown(page, service)
    seq = hand()["discards"]["E"][0]["seq"]
    await page.evaluate(f"document.querySelector('{FORM}').scrollIntoView({{block: 'end'}})")  # its keys in reach
    assert not await _in_view(page, "#action-msg")
    line = "[data-testid=play-msg]"
    assert await page.text_content(line) == f"东家打出 五万 ✓ 已记录 #{seq}"
    assert await _in_view(page, line)
    await page.keyboard.type("n9p")
    await page.keyboard.press("Enter")
    await page.wait_for_selector(f"{line}.bad")
    said = await page.text_content(line)
    assert said.startswith("北家打出 九筒 ✗ 未轮到北家，现在是南家"), said
    assert await _in_view(page, line)
    assert await page.input_value(TILES) == "9p"  # given back, to put right: it is S's
    await page.select_option(f"{FORM} select[name=seat]", "S")
    await page.focus(TILES)
    await page.keyboard.press("Enter")
    await _until(lambda: bool(hand()["discards"]["S"]))
    await page.wait_for_function(f"document.querySelector('{line}').textContent.startsWith('南家打出 九筒 ✓')")


async def test_the_dealers_first_discard_ends_the_deal_when_deal_done_was_not_pressed(service: TableService,
                                                                                     chromium: Any) -> None:
    """配牌完成 forgotten: the dealer's first discard keyed on the page ends the deal first, as the camera
    reads it (play.deal_done, then the discard). Before, the discard went in with no turn (the service
    takes any seat's play then), and 配牌完成 pressed after it put the turn back to the dealer."""
    page = await _keying_page(service, chromium)
    hand = lambda: service.controller.state.hand  # noqa: E731
    seq = service.controller.state.seq
    await page.click(f"{FORM} [data-play=flower]")  # 牌 empty: asked for the tile; the focus is in 牌
    await page.keyboard.type("e5f")
    await page.keyboard.press("Enter")  # the dealer's opening 补花
    await _until(lambda: hand()["flowers"]["E"] == ["5f"])
    await _shown(page, service)
    await page.keyboard.type("e5m")
    await page.keyboard.press("Enter")
    await _until(lambda: bool(hand()["discards"]["E"]))
    plays = [ev.type for ev in service.controller.store.since(seq) if ev.type.startswith("play.")]
    assert plays == ["play.flower", "play.deal_done", "play.discard"]
    assert hand()["turn"]["seat"] == "S"
    await _shown(page, service)
    assert await page.input_value(f"{FORM} select[name=seat]") == "S"


async def test_another_seats_discard_before_the_dealers_first_is_refused_in_words(service: TableService,
                                                                                  chromium: Any) -> None:
    """配牌完成 not pressed and 南 picked for the first discard: the service refuses it (the dealer plays
    first) and the form says so beside itself, the tile given back; 东's is then taken. Before, 南's went in
    as the hand's first play (✓ 已记录) and the dealer's after it was refused as out of turn."""
    page = await _keying_page(service, chromium)
    hand = lambda: service.controller.state.hand  # noqa: E731
    seq = service.controller.state.seq
    await page.focus(TILES)
    await page.keyboard.type("s5m")
    await page.keyboard.press("Enter")
    line = "[data-testid=play-msg]"
    await page.wait_for_selector(f"{line}.bad")
    said = await page.text_content(line)
    assert said.startswith("南家打出 五万 ✗ 未轮到南家，现在是东家：庄家先出牌"), said
    assert await page.input_value(TILES) == "5m"
    assert not [ev for ev in service.controller.store.since(seq) if ev.type.startswith("play.")]
    assert hand()["turn"] is None
    await page.select_option(f"{FORM} select[name=seat]", "E")
    await page.focus(TILES)
    await page.keyboard.press("Enter")
    await _until(lambda: bool(hand()["discards"]["E"]))
    plays = [(ev.type, ev.data.get("seat")) for ev in service.controller.store.since(seq) if ev.type.startswith("play.")]
    assert plays == [("play.deal_done", None), ("play.discard", "E")]


async def test_riichi_pressed_after_the_discard_goes_to_the_seat_that_discarded(tmp_path: Path,
                                                                                chromium: Any) -> None:
    """日本麻将: 立直 is keyed after the discard that declared it, by when 座位 has moved on to the seat in
    turn. Pressed without a pick it is the discarder's; a seat picked is taken as picked. Before, it went
    to the seat in turn (refused, 南家尚未出牌, or recorded for the wrong seat once that seat had discarded)."""
    config = parse_config({"table": {"link": "sim://", "sim_seed": 11, "sim_speed": 1000.0},
                           "rules": {"ruleset": "riichi"}, "display": {"port": 0, "operator_token": OPERATOR}},
                          source="test")
    svc = TableService(config, tmp_path / "riichi")
    await svc.start()
    try:
        await svc.controller.wait_linked(10)
        page = await _keying_page(svc, chromium)
        hand = lambda: svc.controller.state.hand  # noqa: E731
        await page.click(f"{FORM} [data-play=deal_done]")
        await _until(lambda: hand()["turn"] is not None)
        await _shown(page, svc)
        for seat, tile in (("E", "9p"), ("S", "1z")):
            await page.keyboard.type(tile)
            await page.keyboard.press("Enter")
            await _until(lambda: bool(hand()["discards"][seat]))
            await _shown(page, svc)
        assert await page.input_value(f"{FORM} select[name=seat]") == "W"
        await page.click(f"{FORM} [data-play=riichi]")
        await _until(lambda: bool(hand().get("riichi")))
        await _shown(page, svc)
        assert list(hand()["riichi"]) == ["S"]
        await page.keyboard.type("e")  # picked: E's, not the last discarder's
        await page.click(f"{FORM} [data-play=riichi]")
        await _until(lambda: "E" in hand()["riichi"])
    finally:
        await svc.stop()


async def test_a_refused_plays_tiles_come_back_selected_so_typing_replaces_them(service: TableService,
                                                                               chromium: Any) -> None:
    """A refused play's tiles come back to 牌 selected: the operator types the tile right, or a seat's
    letter, over them. Before, what was typed went after them (9pw: no seat picked, 打出只填一张牌 next)."""
    page, hand = await _deal_done(service, chromium)
    await page.keyboard.type("5m")
    await page.keyboard.press("Enter")
    await _until(lambda: bool(hand()["discards"]["E"]))
    await _shown(page, service)
    await page.keyboard.type("w9p")  # W punged E's 5m, and the pung was not keyed: W's discard is refused
    await page.keyboard.press("Enter")
    await page.wait_for_selector("[data-testid=play-msg].bad")
    assert await page.input_value(TILES) == "9p"
    said = await page.text_content("[data-testid=play-msg]")
    assert said.endswith("西家若先吃碰杠了东家的牌，请先录入（打 w 再按吃、碰或明杠），再按回车录入这张"), said
    await page.keyboard.type("w")
    assert await page.input_value(TILES) == "" and await page.input_value(f"{FORM} select[name=seat]") == "W"
    await page.click(f"{FORM} [data-play=pung]")
    await _until(lambda: bool(hand()["melds"]["W"]))
    await _shown(page, service)
    await page.keyboard.type("9p")
    await page.keyboard.press("Enter")
    await _until(lambda: [d["tile"] for d in hand()["discards"]["W"]] == ["9p"])


async def test_a_tile_typed_in_capitals_is_read(service: TableService, chromium: Any) -> None:
    """Caps lock on (or a tablet's keyboard capitalising): 5M is 5m, 5F a flower laid out. Before, the
    capital suit letter was not read: 请填写牌，如 5m."""
    page, hand = await _deal_done(service, chromium)
    await page.keyboard.type("5M")
    await page.keyboard.press("Enter")
    await _until(lambda: bool(hand()["discards"]["E"]))
    await _shown(page, service)
    await page.keyboard.type("5F")
    await page.keyboard.press("Enter")
    await _until(lambda: hand()["flowers"]["S"] == ["5f"])
    assert [d["tile"] for d in hand()["discards"]["E"]] == ["5m"]


async def test_a_seat_picked_with_plays_still_on_their_way_is_the_next_plays(service: TableService,
                                                                            chromium: Any) -> None:
    """Keying on ahead of a slow network (the answers held until all is pressed): E, S and W discard,
    then S pungs W's tile ("s", 碰) and discards, all pressed before the page has the answers. The pick is
    the pung's, whatever turns the plays before it bring. Before, a seat picked that was the turn the page
    showed (S, after E's discard) counted as no pick: the pung went to the seat in turn when it was sent, N,
    and was taken."""
    page, hand = await _deal_done(service, chromium)

    answers = await _slow_plays(page)
    for tile in ("5m", "3p", "2z"):
        await page.keyboard.type(tile)
        await page.keyboard.press("Enter")
    await page.keyboard.type("s")
    await page.click(f"{FORM} [data-play=pung]")
    await page.keyboard.type("7s")
    await page.keyboard.press("Enter")
    answers.set()
    await _until(lambda: bool(hand()["discards"]["S"][1:]) or bool(hand()["melds"]["N"]), timeout=15)
    await asyncio.sleep(0.8)  # nothing more on its way (once let go, each answer comes in a round trip)
    assert [[d["tile"] for d in hand()["discards"][w]] for w in "ESWN"] == [["5m"], ["3p", "7s"], ["2z"], []]
    assert hand()["melds"]["N"] == []
    meld = hand()["melds"]["S"][0]
    assert (meld["type"], meld["tiles"], meld["from"]) == ("pung", ["2z"] * 3, "W")
