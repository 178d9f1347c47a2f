"""docs/referee-guide.zh.md names the pages, their sections, buttons and fields in bold, as the referee
finds them; each must be on the pages, in Debian's Chromium against the running service, and on the page
the guide sends the referee to. A renamed button or a moved form fails here, not at the table.

The guide's convention: a bold name is on a page; an item (a bullet or a numbered step) that names
exactly one page ("在 **罚分** 页") sends the referee there for all its bold names; an item's own lead
("- **诈和**：") is its topic, not a control. "A / B" is one control, else two.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
import pytest_asyncio

from table_controller.config import parse_config
from table_controller.service import TableService

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "referee-guide.zh.md"
REFEREE = "ref-guide-77"
#: the guide's page names → the pages' paths (the nav must carry these names: checked below)
PAGES = {"牌桌": "/", "和牌": "/win", "罚分": "/penalties", "成绩表": "/scoresheet", "公开": "/public", "回放": "/replay"}
BOLD = re.compile(r"\*\*([^*]+)\*\*")
LEAD = re.compile(r"^(?:- |\d+\. )\*\*[^*]+\*\*")

# Every control's text on the page shown at `path` (hidden ones too: a form that opens with the hand,
# 继续计时 while the clock runs), with the shared header and login bar: buttons, links, headings, a
# field's label, a legend, placeholders.
CONTROLS_JS = """(main) => {
  const roots = [document.querySelector('header'), document.getElementById('login-bar'),
                 document.getElementById(main)];
  const out = [];
  for (const root of roots) {
    for (const el of root.querySelectorAll('button, a, h2, h3, legend, summary, label > span')) out.push(el.textContent);
    for (const el of root.querySelectorAll('[placeholder]')) out.push(el.placeholder);
  }
  return out.map((s) => s.replace(/\\s+/g, ' ').trim()).filter(Boolean);
}"""


def guide_items() -> list[str]:
    """The guide's items: each bullet or numbered step with its continuation lines."""
    items: list[str] = []
    for line in GUIDE.read_text(encoding="utf-8").splitlines():
        if re.match(r"^(?:- |\d+\. )", line) or not items or not line.startswith(" "):
            items.append(line)
        else:
            items[-1] += " " + line.strip()
    return [i for i in items if BOLD.search(i)]


def named(item: str) -> tuple[str | None, list[str]]:
    """The page an item sends the referee to (None: no one page) and the bold names it gives, its lead
    left out."""
    pages = {m for m in re.findall(r"\*\*([^*]+)\*\* 页", item) if m in PAGES}
    body = LEAD.sub("", item, count=1)
    return (pages.pop() if len(pages) == 1 else None), [n.strip() for n in BOLD.findall(body)]


def on_page(name: str, controls: list[str]) -> bool:
    """A control says `name`, or `name` and its note in brackets (座位（不改留空）); "A / B" as one, else each."""
    def has(n: str) -> bool:
        return any(c == n or c.startswith(n + "（") for c in controls)
    return has(name) or (" / " in name and all(has(part) for part in name.split(" / ")))


#: What the guide quotes (“…”) and no source says as written: a reason or a name the referee types, the browser's own
#: question, or a line the page composes from the record (its parts are the sources' templates, the numbers examples).
#: A message of the page or the service quoted in the guide is checked as quoted (`test_every_message_the_guide_quotes…`).
NOT_VERBATIM = {
    "不保存": "the browser's offer to keep the credential",
    "中途离场超过10分钟，按自动弃权": "a reason the referee types", "身体不适，无法继续": "a reason the referee types",
    "发送中…（几秒）": "发送中…（{n} 秒）", "定庄：请1号位掷骰……": "定庄：请{who}掷骰…",
    "已判诈和/错和，本盘停和": "已判{r}，本盘停和, r the penalty's name",
    "更正 #编号 · 原记录 → 改正后": "the 裁判记录's line", "补录 #编号 前/后": "the 裁判记录's line",
    "未执行：你的页面显示之后，#21 读牌（裁判 10:31:05）已改变了这一项；请看清现在的状态再操作": "stale.changed_since, a ruling named",
    "申诉 #16 已裁决：支持（…）": "stale.ruled_already", "补录后其后 #12（南家打出 二万）不成立：未轮到南家": "corrections",
    "马牌：一万→西 …（中马 1 张）": "win.horsesRead, the tiles and seats listed",
    "第 1 盘北家的和牌读牌（#12）尚待确认，不能开始新一盘": "referee.win_waiting, the read and the step refused named",
    "上一手已结束（第 2 盘已开始），不能再撤销：#12 是第 1 盘的确认和牌（北家和二筒），那一盘的结果已定":
        "referee.settled_undo, the action named",
}
#: In a quote, what stands for a number, a seat or more text (N, #21, ……, 东), and the colon between a message's parts
QUOTE_GAP = re.compile(r"N|\d+|#|……|…|编号|[东南西北]|：|\s+")


def test_every_message_the_guide_quotes_is_the_pages_or_the_services() -> None:
    """A referee looks for the words the guide quotes (“凭证错误”, “备份盘未插入”); each must be what the page or the
    service says, part by part around the numbers and seats. Without a browser: a message reworded in app.js or a
    module and not in the guide (“重复的操作, 未再记录” once) fails here."""
    sources = [ROOT / "table_controller" / "web" / "static" / name for name in ("app.js", "index.html")]
    said = "\n".join(p.read_text(encoding="utf-8") for p in [*sources, *(ROOT / "table_controller").rglob("*.py")])
    quotes = set(re.findall(r"“([^”]+)”", GUIDE.read_text(encoding="utf-8")))
    assert len(quotes) > 40
    assert not set(NOT_VERBATIM) - quotes, "no longer quoted: " + ", ".join(sorted(set(NOT_VERBATIM) - quotes))
    unsaid = [q for q in sorted(quotes - set(NOT_VERBATIM))
              if any(part not in said for part in QUOTE_GAP.split(q) if len(part) >= 2)]
    assert not unsaid, unsaid


def test_the_guide_names_pages_and_controls_in_bold() -> None:
    """The convention the check below reads: without bold names there is nothing to check."""
    items = guide_items()
    assert len(items) > 20
    assert sum(len(named(i)[1]) for i in items) > 60


@pytest_asyncio.fixture(loop_scope="module")
async def service(tmp_path: Path) -> Any:
    config = parse_config({"table": {"link": "sim://", "sim_seed": 3, "sim_speed": 100.0},
                           "display": {"port": 0, "operator_token": "op-guide", "referee_token": REFEREE}},
                          source="test")
    svc = TableService(config, tmp_path)
    await svc.start()
    await svc.controller.wait_linked(10)
    yield svc
    await svc.stop()


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="module")
async def test_every_control_the_guide_names_is_on_the_page_it_names(service: TableService, chromium: Any) -> None:
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{service.port}") as http:
        # an appeal waiting for the committee: its 支持 / 驳回 are drawn beside it
        r = await http.post("/api/referee/appeal", json={"position": 1, "text": "对判罚有异议"},
                            headers={"Authorization": f"Bearer {REFEREE}"})
        assert r.status_code == 200, r.text
    context = await chromium.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    controls: dict[str, list[str]] = {}
    try:
        for name, path in PAGES.items():
            await page.goto(f"http://127.0.0.1:{service.port}{path}")
            # the page logs in by itself with the tab's credential: awaited, not raced by a PIN typed meanwhile
            await page.wait_for_function("document.body?.dataset.role")
            if path != "/public" and await page.evaluate("document.body.dataset.role") != "referee":
                await page.fill("#token", REFEREE)
                await page.click("#login button[type=submit]")
                await page.wait_for_function("document.body?.dataset.role === 'referee'")
            await page.wait_for_function(f"window.__lastSeq >= {service.controller.state.seq}")
            main = "page-table" if path == "/public" else "page-" + ("table" if path == "/" else path[1:])
            controls[name] = await page.evaluate(CONTROLS_JS, main)
            # the guide's page names are the nav's
            assert name in await page.locator("#nav a").all_inner_texts()
    finally:
        await context.close()
    everywhere = sorted({c for cs in controls.values() for c in cs})
    missing = []
    for item in guide_items():
        where, names = named(item)
        for n in names:
            if n in PAGES:
                continue
            if not on_page(n, controls[where] if where else everywhere):
                missing.append(f"{n} (on {where or 'any page'}): {item[:60]}")
    assert not missing, "\n".join(missing)
