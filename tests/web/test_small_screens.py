"""Every page on a phone (360×740, touch) and a small tablet (768×1024, touch), and for everyone, in Debian's
Chromium against a running table (simulated on a real pty, real uvicorn, real SQLite) and a tournament hub (real
Mosquitto): the Table page as a viewer, the operator and the referee, Win, Penalties, Score sheet, Replay, Public,
the overlay and the hub's standings with the organiser's controls.

Each page is walked once per size (a module fixture) and measured in the page: the width against the screen, each
control's box (on the screen, not under another, a finger's size), its name (a label or aria-label), the contrast
of every text against what lies under it, words broken over two lines. The tests below read those measures.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from table_controller.config import parse_config
from table_controller.service import TableService
from table_controller.tournament.broker import LocalBroker
from table_controller.tournament.web import HubService
from test_browser import OPERATOR, REFEREE, WIN_HAND, _auth, _http, _populate, _start_hand, _throw_all, _until

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

#: (name, browser context): a phone and a small tablet held upright, both touch screens; the desktop (a mouse)
SIZES = {"phone": {"viewport": {"width": 360, "height": 740}, "has_touch": True, "is_mobile": True},
         "tablet": {"viewport": {"width": 768, "height": 1024}, "has_touch": True, "is_mobile": True},
         "desktop": {"viewport": {"width": 1280, "height": 800}}}
#: the pages each role opens, in the order walked (one tab per role: it logs in once)
PAGES = {"viewer": ["/", "/win", "/penalties", "/scoresheet", "/replay?hand=1", "/public", "/overlay"],
         "operator": ["/"], "referee": ["/", "/win", "/penalties", "/scoresheet"]}
#: a control a finger presses: at least this many CSS px each way (WCAG 2.5.5 asks 44; the brief ~40)
FINGER = 40
#: the touch rule's own minimum (style.css, `@media (max-width: 900px), (pointer: coarse)`)
TOUCH_MIN = 44

# The measure, in the page. A text's ground is every background under it composited from the page's up; its colour
# is faded by the opacity between it and the nearest ground. Large text (24 px, or 18.66 px bold) needs 3:1, the rest
# 4.5:1. A checkbox is pressed through its label, so the label's box is its size.
MEASURE = """() => {
  const doc = document.documentElement, vw = doc.clientWidth;
  const shown = (el) => el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })
    && el.getBoundingClientRect().width > 0;
  const name = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.name ? `[name=${el.name}]` : "")
    + ` "${(el.textContent || el.placeholder || "").trim().slice(0, 12)}"`;
  const out = { lang: doc.lang, width: doc.scrollWidth, screen: vw, offscreen: [], small: [], covered: [],
                unnamed: [], contrast: [], broken: [] };
  const controls = [...document.querySelectorAll(
    "button, input:not([type=hidden]), select, textarea, a.button, nav a, summary")].filter(shown);
  const y = window.scrollY;
  for (const el of controls) {
    const box = (el.type === "checkbox" && el.closest("label")) || el;
    box.scrollIntoView({ block: "center", inline: "nearest" });
    const r = box.getBoundingClientRect();
    if (r.left < -0.5 || r.right > vw + 0.5) out.offscreen.push([name(el), Math.round(r.left), Math.round(r.right)]);
    if (r.width < OPTS.finger - 0.5 || r.height < OPTS.finger - 0.5) {
      out.small.push([name(el), Math.round(r.width), Math.round(r.height)]);
    }
    const hit = document.elementFromPoint(Math.min(Math.max(r.left + r.width / 2, 0), vw - 1), r.top + r.height / 2);
    if (hit && !box.contains(hit) && !hit.contains(box) && hit !== el.closest("label")) {
      out.covered.push([name(el), name(hit)]);
    }
    if (["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName)) {
      const named = (el.getAttribute("aria-label") || "").trim()
        || [...(el.labels || [])].some((l) => l.textContent.trim());
      if (!named) out.unnamed.push(name(el));
    } else if (!((el.getAttribute("aria-label") || "").trim() || el.textContent.trim())) out.unnamed.push(name(el));
  }
  window.scrollTo(0, y);
  const rgb = (s) => { const m = s.match(/[\\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const lum = (c) => c.slice(0, 3)
    .map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((s, v, k) => s + v * [0.2126, 0.7152, 0.0722][k], 0);
  const mix = (fg, bg, a) => [0, 1, 2].map((k) => fg[k] * a + bg[k] * (1 - a));
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || seen.has(el) || !shown(el) || el.closest("option, script, style")) continue;
    seen.add(el);
    const cs = getComputedStyle(el), chain = [];
    for (let e = el; e; e = e.parentElement) chain.push(e);
    let alpha = rgb(cs.color)[3];
    for (const e of chain) {
      const s = getComputedStyle(e);
      alpha *= +s.opacity;
      if (rgb(s.backgroundColor)[3] > 0) break;
    }
    let ground = [255, 255, 255];
    for (const e of chain.slice().reverse()) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) ground = mix(c, ground, c[3]);
    }
    const [hi, lo] = [lum(mix(rgb(cs.color), ground, alpha)), lum(ground)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05), px = parseFloat(cs.fontSize);
    const need = px >= 24 || (+cs.fontWeight >= 700 && px >= 18.66) ? 3 : 4.5;
    if (ratio < need && cs.animationName === "none") {  // (an overdue timer blinks to half for its first 3 s)
      out.contrast.push([name(el), n.textContent.trim().slice(0, 16), +ratio.toFixed(2), need]);
    }
  }
  // a name broken inside a word over two lines (between two Han characters; at a bracket or a space it may):
  // the role beside 退出, a catalogue's names and headers
  for (const el of document.querySelectorAll("#role, .catalogue th, .catalogue td:not(.rule)")) {
    const node = el.firstChild;
    if (!shown(el) || !node || node.nodeType !== Node.TEXT_NODE) continue;
    const text = node.textContent, range = document.createRange(), tops = [];
    for (let i = 0; i < text.length; i++) {
      range.setStart(node, i); range.setEnd(node, i + 1);
      tops.push(Math.round(range.getBoundingClientRect().top));
    }
    for (let i = 1; i < text.length; i++) {
      if (tops[i] > tops[i - 1] && /\\p{Script=Han}/u.test(text[i - 1]) && /\\p{Script=Han}/u.test(text[i])) {
        out.broken.push([name(el), text.slice(0, i) + "|" + text.slice(i)]);
        break;
      }
    }
  }
  return out;
}"""


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def places(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[dict[str, Any]]:
    """A table in its second hand (a confirmed win on the sheet, a read waiting, a penalty, an appeal, a jam at
    2号位) publishing to a hub over a real Mosquitto; the table's and the hub's addresses."""
    async with venue(tmp_path_factory.mktemp("small")) as (svc, hub):
        async with _http(svc) as http:
            await _populate(svc, http)
            ref, op = _auth(REFEREE), _auth(OPERATOR)
            assert (await http.post("/api/referee/win/confirm", headers=ref)).status_code == 200
            assert (await http.post("/api/hand/end", json={"result": "win"}, headers=op)).status_code == 200
            await _start_hand(svc, http)
            await _throw_all(svc)
            assert (await http.post("/api/play", json={"type": "deal_done"}, headers=op)).status_code == 200
            r = await http.post("/api/referee/appeal", json={"position": 2, "text": "我没有亮牌"}, headers=ref)
            assert r.status_code == 200, r.text
            assert (await http.post("/api/referee/win", json={"hand": WIN_HAND}, headers=ref)).status_code == 200
        svc.sim.raise_fault("jam", where="S")
        await _until(lambda: bool(svc.controller.state.faults))
        await _until(lambda: "t1" in hub.hub.tables and hub.hub.tables["t1"].state is not None)
        yield {"table": f"http://127.0.0.1:{svc.port}", "hub": f"http://127.0.0.1:{hub.bound_port}", "svc": svc}


@contextlib.asynccontextmanager
async def venue(base: Path, organizer_token: str = "",
                **service: Any) -> AsyncIterator[tuple[TableService, HubService]]:
    """1号桌 on the simulator (张伟 李娜 王芳 陈杰), linked, publishing as t1 to a hub of "cup" over a real Mosquitto
    (with `organizer_token`, the organiser's credential); `service`: more of TableService's arguments (a wall clock)."""
    broker = LocalBroker(base / "broker")
    broker.start()
    hub = HubService(broker.url, "cup", base / "hub", port=0, organizer_token=organizer_token)
    await hub.start()
    svc = TableService(parse_config({
        "table": {"link": "sim://", "sim_seed": 11, "sim_speed": 1000.0, "name": "1号桌"},
        "players": [{"position": i + 1, "name": n} for i, n in enumerate(["张伟", "李娜", "王芳", "陈杰"])],
        "display": {"port": 0, "operator_token": OPERATOR, "referee_token": REFEREE},
        "tournament": {"broker": broker.url, "name": "cup", "table_id": "t1"},
    }, source="test"), base / "table", **service)
    await svc.start()
    try:
        await svc.controller.wait_linked(10)
        yield svc, hub
    finally:
        await svc.stop()
        await hub.stop()
        broker.stop()


@contextlib.asynccontextmanager
async def _tab(chromium: Any, size: str) -> AsyncIterator[Any]:
    context = await chromium.new_context(**SIZES[size])
    try:
        yield await context.new_page()
    finally:
        await context.close()


async def _measure(page: Any) -> dict[str, Any]:
    await page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    await page.wait_for_timeout(150)
    return await page.evaluate(MEASURE.replace("OPTS.finger", str(FINGER)))


async def _walk(chromium: Any, places: dict[str, Any], size: str) -> dict[str, dict[str, Any]]:
    """Every page of every role at `size`: the measures by "role path"; and the hub's ("organiser /hub")."""
    seq = places["svc"].controller.state.seq
    found: dict[str, dict[str, Any]] = {}
    for role, paths in PAGES.items():
        async with _tab(chromium, size) as page:
            for path in paths:
                await page.goto(places["table"] + path)
                # the page's own login with the tab's credential answered first: read at once, its role was not
                # there yet, and the PIN typed then raced it (登录 on the field it emptied: 请先输入凭证 beside 退出)
                await page.wait_for_function("document.body?.dataset.role")
                if role != "viewer" and not await page.evaluate("document.body.dataset.role === " + repr(role)):
                    await page.fill("#token", OPERATOR if role == "operator" else REFEREE)
                    await page.click("#login button[type=submit]")
                    await page.wait_for_function(f"document.body?.dataset.role === {role!r}")
                await page.wait_for_function(f"window.__lastSeq >= {seq}")
                if path == "/penalties" and role == "viewer":  # a refusal's message (✗ 需要裁判权限) is main text too
                    await page.click("#penalty-submit")
                    await page.wait_for_selector("#action-msg.bad")
                found[f"{role} {path}"] = await _measure(page)
    async with _tab(chromium, size) as page:
        await page.goto(places["hub"] + "/")
        await page.wait_for_selector('[data-player="王芳"]')
        found["organiser /hub"] = await _measure(page)
    return found


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def walked(chromium: Any, places: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    """The measures of every page on the phone and the tablet (walked once for the module's tests, the two sizes
    side by side: each in its own browser contexts, reading the same table)."""
    sizes = ("phone", "tablet")
    return dict(zip(sizes, await asyncio.gather(*(_walk(chromium, places, size) for size in sizes))))


def _each(walked: dict[str, Any], key: str, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    return {f"{size} {page}": m[key] for size, pages in walked.items() for page, m in pages.items()
            if m[key] and page not in skip}


async def test_no_page_scrolls_sideways_and_every_control_is_on_the_screen_and_not_under_another(
        walked: dict[str, Any]) -> None:
    """The overlay is OBS's 1920×1080 browser source, not a phone's page: left out of the width."""
    for size, pages in walked.items():
        for page, m in pages.items():
            if page != "viewer /overlay":
                assert m["width"] <= m["screen"], (size, page, m["width"], m["screen"])
    assert not _each(walked, "offscreen")
    assert not _each(walked, "covered")


async def test_every_control_a_referee_or_a_player_presses_takes_a_finger(walked: dict[str, Any]) -> None:
    """Before: the page links 33 px tall, buttons 39, selects and inputs 30-39, the credential 32, 海底's checkbox
    30, the replay's slider 16, an appeal's reasons 25, the hub's organiser's 25-31; now 44 on a touch screen."""
    assert not _each(walked, "small")


async def test_every_input_and_button_is_named_and_the_pages_are_chinese(walked: dict[str, Any]) -> None:
    """Before: 暂停原因, an appeal's 裁决理由, each 编号 beside a name (the label names only its first input) and the
    hub's organiser's table, reason, player and stand-in were named by nothing but a placeholder, gone once typed."""
    assert not _each(walked, "unnamed")
    assert {m["lang"] for pages in walked.values() for m in pages.values()} == {"zh-CN"}


async def test_main_text_reads_at_4_5_to_1(walked: dict[str, Any]) -> None:
    """Before: 庄 (3.5:1), a table fault's line (故障：卡牌, 3.2), a refusal's ✗ line (4.2), 撤销 and 判诈和 (3.9)."""
    assert not _each(walked, "contrast")


async def test_no_name_is_broken_over_two_lines_on_a_phone(walked: dict[str, Any]) -> None:
    """Before: 裁判 beside 退出 (裁 at the line's end, 判 on the next), and the fan book's and the penalty
    catalogue's names and headers (番种 as 番 over 种, 起和 as 起 over 和: the rule's text took the row; now it
    goes under the name and the amount, the screen's width)."""
    assert not _each(walked, "broken")


async def test_names_stay_in_english_too(chromium: Any, places: dict[str, Any]) -> None:
    """The names given to unlabelled controls follow the page's language (the English page said 编号 aloud)."""
    async with _tab(chromium, "phone") as page:
        await page.goto(places["table"] + "/scoresheet")
        await page.fill("#token", REFEREE)
        await page.click("#login button[type=submit]")
        await page.wait_for_function("document.body?.dataset.role === 'referee'")
        await page.click("#lang")
        assert await page.get_attribute("#round-form input[name=id2]", "aria-label") == "chair 2 reg. no. (optional)"
        assert await page.get_attribute("#clock-reason", "aria-label") == "why (a table jam …)"
        await page.goto(places["table"] + "/replay?hand=1")
        assert await page.get_attribute("#replay-prev", "aria-label") == "Previous step"
        m = await _measure(page)
        assert m["lang"] == "en" and not m["unnamed"]


async def test_a_phone_keys_a_discard_and_a_penalty_by_tapping(chromium: Any, places: dict[str, Any]) -> None:
    """The forms by touch alone: the operator taps the tile box, types, taps 打出; the referee taps 判罚."""
    svc = places["svc"]
    async with _tab(chromium, "phone") as page:
        await page.goto(places["table"] + "/")
        await page.fill("#token", REFEREE)
        await page.tap("#login button[type=submit]")
        await page.wait_for_function("document.body?.dataset.role === 'referee'")
        discards = lambda: sum(map(len, svc.controller.state.hand["discards"].values()))  # noqa: E731
        before = discards()
        await page.tap("#play-form input[name=tiles]")
        await page.keyboard.type("9p")
        await page.tap('#play-form button[data-play="discard"]')
        await _until(lambda: discards() == before + 1, 5)
        await page.goto(places["table"] + "/penalties")
        penalties = len(svc.controller.state.actions)
        # the penalties' list is fetched by the page: 判罚 tapped before it came sent no 罚则, and was refused
        await page.wait_for_function("document.querySelector('#penalty-code').options.length > 0")
        await page.select_option("#penalty-form select[name=seat]", "W")
        await page.tap("#penalty-submit")
        await page.wait_for_selector("#action-msg.good")
        assert len(svc.controller.state.actions) == penalties + 1


async def test_the_desktop_keeps_its_sizes(chromium: Any, places: dict[str, Any]) -> None:
    """The touch sizes are for phones and tablets: on the 1280×800 desktop (a mouse) the touch rule's 44 px
    minimum is not applied, and the page links and buttons keep the heights their text gives them (37 and
    38-40 px: a pixel's rounding of the font's line differs between Chromium's builds), so nothing on the
    referee's desktop moved."""
    async with _tab(chromium, "desktop") as page:
        await page.goto(places["table"] + "/penalties")
        sizes = await page.evaluate("""() => ['#nav a', '#penalty-submit', '#lang'].map((s) => {
            const e = document.querySelector(s);
            return [e.getBoundingClientRect().height, getComputedStyle(e).minHeight]; })""")
        assert all(h < TOUCH_MIN and minimum != f"{TOUCH_MIN}px" for h, minimum in sizes), sizes
        assert await page.evaluate("document.documentElement.scrollWidth") <= 1280


async def test_the_walk_covers_every_page(walked: dict[str, Any]) -> None:
    """Each role's pages and the hub, on both sizes (a page dropped from the walk would pass unmeasured)."""
    expected = {f"{role} {p}" for role, paths in PAGES.items() for p in paths} | {"organiser /hub"}
    assert {size: set(pages) for size, pages in walked.items()} == {"phone": expected, "tablet": expected}

