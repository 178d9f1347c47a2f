"""A referee hands the tablet to a player mid-session: 退出 leaves nothing of the referee's in the tab.

Real Chromium on a real service. Before, the login field was a password field (a shared tablet's password
manager offered to keep the PIN, and gave it to whoever tapped the field next) that kept the PIN after
login, and 退出 only dropped the credential: the Win page's form still held the hand as read (concealed
tiles) in the document, and Back to the Win page brought it back filled (the tab's history keeps forms).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from table_controller.config import parse_config
from table_controller.controller import side_of_wind
from table_controller.service import TableService

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

REFEREE = "ref-tablet-4827"
#: the hand as read (北 wins on 东's discard): secret until the public sees the result
CONCEALED = ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "1p", "1p", "1p", "2p"]
SECRET = "7m 8m 9m"  # a run of the read hand, as the Win form shows it


@pytest_asyncio.fixture(loop_scope="module")
async def service(tmp_path: Path) -> AsyncIterator[TableService]:
    """The table on the built-in simulator, in the browser's loop."""
    svc = TableService(parse_config({"table": {"link": "sim://", "sim_seed": 11, "sim_speed": 1000.0},
                                     "display": {"port": 0, "operator_token": "op-tablet-5531",
                                                 "referee_token": REFEREE}}, source="test"), tmp_path)
    await svc.start()
    try:
        yield svc
    finally:
        await svc.stop()


async def _until(check: Any, timeout: float = 15.0) -> None:
    end = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < end, "condition not reached in time"
        await asyncio.sleep(0.02)


async def _win_read(svc: TableService) -> None:
    """A hand started, its dice thrown, and a win read by the referee (not yet confirmed)."""
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{svc.port}") as http:
        await svc.controller.wait_linked(10)
        assert (await http.post("/api/hand/start", headers={"Authorization": "Bearer op-tablet-5531"})).status_code == 200
        await _until(lambda: svc.controller.state.phase == "walls_raised")
        while (hand := svc.controller.state.hand)["deal"] is None and hand["next_thrower"]:
            n = len(hand["throws"])
            svc.sim.press_button(seat=side_of_wind(hand["next_thrower"], hand["dealer_position"]), button="dice")
            await _until(lambda: len(svc.controller.state.hand["throws"]) > n)
        r = await http.post("/api/referee/win", headers={"Authorization": f"Bearer {REFEREE}"}, json={"hand": {
            "seat_wind": "N", "win": "discard", "discarder": "E", "concealed": CONCEALED, "win_tile": "2p"}})
        assert r.status_code == 200, r.text


async def _log_in(page: Any, svc: TableService) -> None:
    await page.fill("#token", REFEREE)
    await page.click("#login button[type=submit]")
    await page.wait_for_function("document.body?.dataset.role === 'referee'")
    await page.wait_for_function(f"window.__lastSeq >= {svc.controller.state.seq}")


async def _secret_in_document(page: Any) -> bool:
    """The read hand anywhere in the page: shown as tiles, or in a field, hidden or not."""
    return bool(await page.evaluate(f"""() => !!document.querySelector('[data-tile="9m"]')
        || [...document.querySelectorAll('input, textarea')].some((e) => e.value.includes({SECRET!r}))"""))


async def test_the_login_field_is_masked_but_no_password_field_and_keeps_no_pin(service: TableService,
                                                                               chromium: Any) -> None:
    context = await chromium.new_context()
    try:
        page = await context.new_page()
        await page.goto(f"http://127.0.0.1:{service.port}/")
        # a password manager keeps what is typed into a password field, whatever autocomplete says
        assert await page.locator("input[type=password]").count() == 0
        assert await page.get_attribute("#token", "autocomplete") == "off"
        masked = await page.eval_on_selector("#token", "e => getComputedStyle(e).webkitTextSecurity")
        assert masked == "disc"  # still dots on the screen, for whoever looks over the referee's shoulder
        await _log_in(page, service)
        assert await page.input_value("#token") == ""  # taken, not left for the next hand on the tablet
    finally:
        await context.close()


class HeldWhoami:
    """The first `/api/whoami` the page asks after `arm()` held until `release` is set: the page's own login
    (its stored credential, sent again on each page) answering late on a slow link."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.armed = self.held = False

    def arm(self) -> None:
        self.armed, self.held = True, False
        self.release.clear()

    async def route(self, route: Any) -> None:
        if self.armed:
            self.armed, self.held = False, True
            await self.release.wait()
        await route.continue_()


async def test_a_pin_typed_while_the_page_logs_in_by_itself_is_not_lost_nor_an_empty_login_a_logout(
        service: TableService, chromium: Any) -> None:
    """A referee going to another page (the stored credential sent again) types the PIN before that answer
    comes: the answer took the field's PIN with it, and 登录 pressed on the empty field logged the referee
    out, without 退出's question about unanswered actions (the referee guide's check failed so, ~1 run in 15).
    Now 登录 on an empty field says so and changes nothing; another credential typed meanwhile is kept."""
    context = await chromium.new_context()
    whoami = HeldWhoami()

    async def go_while_held(path: str, typed: str) -> None:
        whoami.arm()
        await page.goto(f"http://127.0.0.1:{service.port}{path}")  # logs in by itself with the stored credential
        await _until(lambda: whoami.held)
        await page.fill("#token", typed)
        whoami.release.set()
        await page.wait_for_function("document.getElementById('role').textContent.startsWith('裁判')")

    try:
        page = await context.new_page()
        await page.goto(f"http://127.0.0.1:{service.port}/")
        await _log_in(page, service)
        await page.route("**/api/whoami", whoami.route)
        await go_while_held("/win", REFEREE)
        assert await page.input_value("#token") == ""  # the same PIN: taken by the page's own login
        await page.click("#login button[type=submit]")
        assert await page.text_content("#role") == "请先输入凭证"
        await asyncio.sleep(0.3)  # a login would have asked whoami and drawn the role again by now
        assert await page.evaluate("[document.body.dataset.role, sessionStorage.getItem('token')]") == [
            "referee", REFEREE]
        await go_while_held("/penalties", "op-tablet-5531")  # another credential: kept for its own 登录
        assert await page.input_value("#token") == "op-tablet-5531"
        await page.click("#login button[type=submit]")
        await page.wait_for_function("document.body?.dataset.role === 'operator'")
        assert await page.input_value("#token") == ""
    finally:
        whoami.release.set()
        await context.close()


async def test_a_login_pressed_while_the_pages_own_login_answers_is_not_undone_by_that_late_answer(
        service: TableService, chromium: Any) -> None:
    """The referee's tablet goes to the Table page on a slow link and is handed to the operator, who types the
    operator's PIN and presses 登录 before the page's own login (the referee's stored credential) has its
    answer. That answer came last and made the page the referee's again, whose socket then sent the operator's
    PIN and was refused: the operator logged in, the page said 凭证错误 and held no credential. The answer of
    a login asked before the last one is dropped."""
    context = await chromium.new_context()
    whoami = HeldWhoami()
    try:
        page = await context.new_page()
        # how many whoami answers the page has read: its code after `await res.json()` has run by the next poll
        await page.add_init_script("""(() => { const json = Response.prototype.json; window.__whoami = 0;
            Response.prototype.json = function () { return json.call(this).then((v) => {
                if (this.url.endsWith('/api/whoami')) window.__whoami++; return v; }); }; })()""")
        await page.goto(f"http://127.0.0.1:{service.port}/penalties")
        await _log_in(page, service)
        await page.route("**/api/whoami", whoami.route)
        whoami.arm()
        await page.goto(f"http://127.0.0.1:{service.port}/")  # logs in by itself with the referee's credential
        await _until(lambda: whoami.held)
        await page.fill("#token", "op-tablet-5531")
        await page.click("#login button[type=submit]")
        await page.wait_for_function("document.body?.dataset.role === 'operator'")
        assert await page.evaluate("window.__whoami") == 1  # the operator's
        whoami.release.set()  # the page's own login answers now, after the operator's
        await page.wait_for_function("window.__whoami === 2")  # read (before: the page made the referee's)
        await page.wait_for_function(f"window.__lastSeq >= {service.controller.state.seq}")
        assert await page.evaluate("[document.body.dataset.role, sessionStorage.getItem('token')]") == [
            "operator", "op-tablet-5531"]  # before: ["viewer", None], the referee's socket refused the PIN
        assert await page.text_content("#role") == "操作员"
    finally:
        whoami.release.set()
        await context.close()


async def test_logging_out_leaves_no_read_hand_in_the_tab_nor_in_its_history(service: TableService,
                                                                           chromium: Any) -> None:
    await _win_read(service)
    base = f"http://127.0.0.1:{service.port}"
    context = await chromium.new_context()
    try:
        page = await context.new_page()
        await page.goto(base + "/win")
        await _log_in(page, service)
        await page.wait_for_selector('[data-tile="9m"]')
        assert await page.input_value("#win-form input[name=concealed]") == " ".join(CONCEALED)  # filled in
        # 退出 on the Win page itself: the page is the public one, and says so
        await page.click("#logout")
        await page.wait_for_function("document.body?.dataset.role === 'viewer' && window.__lastSeq > 0")
        assert not await _secret_in_document(page)
        assert "已退出" in await page.inner_text("#action-msg")
        assert await page.evaluate("sessionStorage.getItem('token')") is None
        # the referee goes on to the score sheet, logs out there and hands the tablet over: Back to the Win page
        await _log_in(page, service)
        await page.wait_for_selector('[data-tile="9m"]')
        await page.goto(base + "/scoresheet")
        await page.wait_for_function("document.body?.dataset.role === 'referee'")
        await page.click("#logout")
        await page.wait_for_function("document.body?.dataset.role === 'viewer'")
        await page.go_back()
        await page.wait_for_function("location.pathname === '/win' && window.__lastSeq > 0")
        await page.wait_for_timeout(300)  # renders after the snapshot
        assert await page.evaluate("document.body.dataset.role") == "viewer"
        assert not await _secret_in_document(page)
    finally:
        await context.close()


async def test_an_action_without_an_answer_is_asked_about_before_the_credential_goes(service: TableService,
                                                                                    chromium: Any) -> None:
    """A penalty recorded whose answer the Wi-Fi lost, the network down for the page's asking, then 退出: before,
    the page asked without the credential (a key is the credential's), heard 404 and told the player handed the
    tablet 没有记录 of a penalty that was recorded. Now the referee is asked first, and told what is unanswered."""
    def penalties() -> list[dict[str, Any]]:
        return [a for a in service.controller.state.actions if a["type"] == "referee.penalty"]

    await service.controller.wait_linked(10)
    context = await chromium.new_context()
    try:
        page = await context.new_page()
        await page.goto(f"http://127.0.0.1:{service.port}/penalties")
        await _log_in(page, service)
        lost: list[Any] = []

        async def lose_the_answer(route: Any) -> None:  # it reaches the service; the answer never comes back
            lost.append(await route.fetch())
            await route.abort("connectionreset")

        async def no_network(route: Any) -> None:
            await route.abort("internetdisconnected")

        await page.route("**/api/referee/penalty", lose_the_answer)
        await page.route("**/api/requests/**", no_network)
        await page.select_option("#penalty-form select[name=seat]", "W")
        await page.select_option("#penalty-code", "late_5")
        await page.click("#penalty-submit")
        await page.wait_for_selector("#unanswered li[data-phase=offline]", timeout=20000)
        assert len(penalties()) == 1 and lost and lost[0].status == 200  # recorded; the page does not know
        asked: list[str] = []
        dismissed = asyncio.Event()

        async def answer(dialog: Any) -> None:
            asked.append(dialog.message)
            await (dialog.dismiss() if len(asked) == 1 else dialog.accept())
            dismissed.set()

        page.on("dialog", answer)
        await page.click("#logout")  # the referee is asked, and stays
        await asyncio.wait_for(dismissed.wait(), 5)  # was a fixed 0.5 s; the 退出 handler returns on the answer
        assert len(asked) == 1 and "还有操作没有得到回应" in asked[0] and "罚分" in asked[0], asked
        assert await page.evaluate("document.body.dataset.role") == "referee"
        await page.click("#logout")  # logs out anyway
        await page.wait_for_function("document.body?.dataset.role === 'viewer' && window.__lastSeq > 0")
        # Nothing is left in the tab to ask about (the list the page asks from every ASK_EVERY_MS, kept in
        # sessionStorage over the reload): a 没有记录 could only come from asking about one, so none can come
        # later. Before, the list went over the reload and a page without the credential asked from it: this
        # fails at once, where waiting 3 s past the page's asking interval saw the 没有记录 it then said.
        assert await page.evaluate("JSON.parse(sessionStorage.getItem('pending-actions') || '[]')") == []
        await page.unroute("**/api/requests/**")  # the network is back
        said = await page.inner_text("#action-msg") + await page.inner_text("#unanswered")
        assert "没有记录" not in said and "已退出" in said, said
    finally:
        await context.close()


async def test_a_page_reloaded_while_its_address_is_held_keeps_the_pin_and_logs_in_when_it_may(
        service: TableService, chromium: Any) -> None:
    """Five wrong credentials from the tablet's address (a player trying PINs on it, or a device behind the same
    address), then the referee's page reloads: its login was answered 429 and the page dropped the stored PIN,
    so the referee had to type it again in front of the players once the minute was over. Now the page says
    why, stays public meanwhile (no concealed tile), keeps the PIN, and logs in by itself when the service's
    `Retry-After` says it may."""
    base = f"http://127.0.0.1:{service.port}"
    context = await chromium.new_context()
    creds = service.credentials
    assert creds is not None
    try:
        page = await context.new_page()
        await page.goto(base + "/penalties")
        await _log_in(page, service)
        async with httpx.AsyncClient(base_url=base) as http:  # the same address as the page's (127.0.0.1)
            for i in range(5):
                r = await http.get("/api/whoami", headers={"Authorization": f"Bearer guess-{i}"})
                assert r.status_code == 401
            held = await http.get("/api/whoami", headers={"Authorization": f"Bearer {REFEREE}"})
            assert held.status_code == 429 and 55 <= int(held.headers["retry-after"]) <= 60, held.headers
        real = creds.clock
        creds.clock = lambda: real() + 58.5  # the guesses 58.5 s old: the address is held 1.5 s more
        started = time.monotonic()
        await page.reload()
        await page.wait_for_function("document.getElementById('role').textContent.startsWith('尝试次数过多')")
        assert await page.evaluate("[document.body.dataset.role, sessionStorage.getItem('token')]") == [
            "viewer", REFEREE]  # before: ["viewer", null]
        await page.wait_for_function("document.body?.dataset.role === 'referee'", timeout=8000)
        assert time.monotonic() - started < 5  # asked again after its Retry-After (2 s), not after a minute
        assert await page.text_content("#role") == "裁判"
    finally:
        await context.close()
