"""The pages' two languages, read statically: the referee display's `I18N` (web/static/app.js) and the hub's
(tournament/web.py) have the same keys in Chinese and English with the same `{placeholders}`, every key the
script and index.html name exists in both, and index.html leaves no Chinese name, tooltip or placeholder that
the English page would keep (each has its `data-i18n*` key).

The tables are JavaScript object literals: read here by a small reader of that subset (strings, keys, arrays,
numbers, `+` between strings), no JavaScript engine needed.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP_JS = ROOT / "table_controller" / "web" / "static" / "app.js"
INDEX = ROOT / "table_controller" / "web" / "static" / "index.html"
HUB = ROOT / "table_controller" / "tournament" / "web.py"

CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
TOKEN = re.compile(r'\s+|//[^\n]*|/\*.*?\*/|(?P<str>"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\')|(?P<num>-?\d+(?:\.\d+)?)'
                   r"|(?P<id>[A-Za-z_$][\w$]*)|(?P<p>[{}\[\]:,+])", re.S)


def _tokens(src: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    pos = 0
    while pos < len(src):
        m = TOKEN.match(src, pos)
        assert m, f"cannot read the table at {src[pos:pos + 40]!r}"
        pos = m.end()
        if m.group("str"):
            s = m.group("str")
            out.append(("str", json.loads('"' + s[1:-1].replace('\\"', '"').replace('"', '\\"') + '"')))
        elif m.group("num"):
            out.append(("num", float(m.group("num"))))
        elif m.group("id"):
            out.append(("id", m.group("id")))
        elif m.group("p"):
            out.append(("p", m.group("p")))
    return out


def _literal(src: str, name: str) -> dict[str, Any]:
    """The object literal `const NAME = {...};` in `src`."""
    start = src.index(f"const {name} = {{") + len(f"const {name} = ")
    toks = _tokens(src[start:src.index("\n};", start) + 2])
    i = 0

    def value() -> Any:
        nonlocal i
        kind, v = toks[i]
        i += 1
        if (kind, v) == ("p", "{"):
            obj: dict[str, Any] = {}
            while toks[i] != ("p", "}"):
                key = toks[i][1]
                assert toks[i + 1] == ("p", ":"), toks[i:i + 2]
                i += 2
                obj[str(key)] = value()
                if toks[i] == ("p", ","):
                    i += 1
            i += 1
            return obj
        if (kind, v) == ("p", "["):
            arr = []
            while toks[i] != ("p", "]"):
                arr.append(value())
                if toks[i] == ("p", ","):
                    i += 1
            i += 1
            return arr
        if kind == "str":
            while i < len(toks) and toks[i] == ("p", "+"):  # "…" + "…"
                v += toks[i + 1][1]
                i += 2
            return v
        if kind == "num":
            return v
        raise AssertionError(f"unexpected {kind} {v!r} in the table")

    return value()


def _flat(obj: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in obj.items():
        if isinstance(v, dict):
            out.update(_flat(v, prefix + k + "."))
        else:
            out[prefix + k] = v
    return out


def _holes(s: Any) -> set[str]:
    """A string's `{placeholders}` (an array's, all its items'); `{u}`/`{U}`, the ruleset's unit that `t()` puts
    in every string, as one and optional: "{u}数" is "Value" in English, "{u}" is "{U}" at a column's head."""
    text = " ".join(s) if isinstance(s, list) else str(s)
    return set(re.findall(r"\{([A-Za-z_]+)\}", text)) - {"u", "U"}


def _same_shape(table: dict[str, Any]) -> list[str]:
    zh, en = _flat(table["zh"]), _flat(table["en"])
    wrong = [f"{k}: Chinese only" for k in zh.keys() - en.keys()] + [f"{k}: English only" for k in en.keys() - zh.keys()]
    for k in zh.keys() & en.keys():
        if isinstance(zh[k], list) != isinstance(en[k], list) or (isinstance(zh[k], list) and len(zh[k]) != len(en[k])):
            wrong.append(f"{k}: {zh[k]!r} / {en[k]!r}")
        elif _holes(zh[k]) != _holes(en[k]):
            wrong.append(f"{k}: {zh[k]!r} has {sorted(_holes(zh[k]))}, {en[k]!r} has {sorted(_holes(en[k]))}")
        elif CJK.search(str(en[k]).replace("中文", "")) and not re.search(r"\(.*[\u4e00-\u9fff].*\)", str(en[k])):
            wrong.append(f"{k}: English {en[k]!r} is Chinese")  # a Chinese term beside the English, in brackets: by design
    return sorted(wrong)


def test_the_displays_strings_have_both_languages_with_the_same_placeholders() -> None:
    assert _same_shape(_literal(APP_JS.read_text(encoding="utf-8"), "I18N")) == []


def test_the_hubs_strings_have_both_languages_with_the_same_placeholders() -> None:
    assert _same_shape(_literal(HUB.read_text(encoding="utf-8"), "I18N")) == []


def test_every_key_the_display_names_is_in_both_languages() -> None:
    src = APP_JS.read_text(encoding="utf-8")
    table = _literal(src, "I18N")
    zh, en = _flat(table["zh"]), _flat(table["en"])
    html = INDEX.read_text(encoding="utf-8")
    used = set(re.findall(r"""\bt\(\s*["'`]([^"'`$]+)["'`]\s*[,)]""", src))
    used |= {k for a, b in re.findall(r"""\bt\(\s*[^,()]*\?\s*"([^"]+)"\s*:\s*"([^"]+)"\s*[,)]""", src) for k in (a, b)}
    used |= set(re.findall(r'data-i18n(?:-placeholder|-title)?="([^"]+)"', html))
    used |= {k for keys in re.findall(r'data-i18n-aria="([^"]+)"', html) for k in keys.split()}
    assert len(used) > 200
    assert sorted(k for k in used if k not in zh or k not in en) == []
    # keys built from a prefix ("seat." + w): the prefix is a group in both languages
    prefixes = set(re.findall(r"""\bt\(\s*"([\w.]+\.)"\s*\+""", src))
    assert {"seat.", "act.", "abortive.", "sheet.res.", "cam.zone."} <= prefixes
    for p in prefixes:
        group = p.rstrip(".").split(".")
        for lang in ("zh", "en"):
            node: Any = table[lang]
            for part in group:
                node = node[part]
            assert isinstance(node, dict), (lang, p)


def test_every_referee_action_and_abortive_draw_has_its_name_in_both_languages() -> None:
    """`actName` falls back to the raw type (referee.xxx) for an action the page has no name for."""
    from table_controller import referee as R
    from table_controller.web.app import EndHand

    table = _literal(APP_JS.read_text(encoding="utf-8"), "I18N")
    actions = {t.removeprefix("referee.") for t in R.ACTION_ZH}
    abortive = set(EndHand.model_fields["abortive"].annotation.__args__[0].__args__)
    for lang in ("zh", "en"):
        assert actions - table[lang]["act"].keys() == set(), lang
        assert abortive - table[lang]["abortive"].keys() == set(), lang


class _Fixed(HTMLParser):
    """index.html's Chinese left without a `data-i18n*` key: text, aria-label, placeholder, title."""

    VOID = {"input", "meta", "link", "br", "img", "hr"}

    def __init__(self) -> None:
        super().__init__()
        self.open: list[tuple[str, dict[str, str | None]]] = []
        self.fixed: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        for name, key in (("aria-label", "data-i18n-aria"), ("placeholder", "data-i18n-placeholder"),
                          ("title", "data-i18n-title")):
            if CJK.search(a.get(name) or "") and key not in a and (a.get("id") or a.get("name")) not in KEPT:
                self.fixed.append(f"line {self.getpos()[0]} <{tag}> {name}={a[name]!r}")
        if tag not in self.VOID:
            self.open.append((tag, a))

    def handle_endtag(self, tag: str) -> None:
        while self.open and self.open.pop()[0] != tag:
            pass

    def handle_data(self, data: str) -> None:
        if CJK.search(data) and self.open:
            tag, a = self.open[-1]
            if "data-i18n" not in a and tag not in ("script", "style") and (a.get("id") or a.get("name")) not in KEPT:
                self.fixed.append(f"line {self.getpos()[0]} <{tag}> {data.strip()!r}")


#: written by the script from the state before anyone reads them (the table's name), or a name typed as such
#: (特殊和牌's example: the scorer takes the ruleset's Chinese name of the hand)
KEPT = {"table-name", "special"}


def test_the_display_page_has_no_chinese_the_english_page_would_keep() -> None:
    """Before: the title, the credential's and the PIN form's names, the wall's, 判诈和's amount, 计分选项 and the
    chairs of the appeal and substitute forms stayed Chinese on the English page (and the links' name, "pages",
    English on the Chinese one)."""
    parser = _Fixed()
    parser.feed(INDEX.read_text(encoding="utf-8"))
    assert parser.fixed == []
    assert re.search(r'<nav id="nav" aria-label="[^"]*" data-i18n-aria=', INDEX.read_text(encoding="utf-8"))


@pytest.mark.parametrize("code", ["silent", "unplugged", "no_ack"])
def test_a_link_down_reason_comes_in_both_languages(code: str) -> None:
    """The link badge said "table link down：牌桌无响应（超过3.5秒未收到数据）" on the English page."""
    from drivers.names import LINK_REASONS
    from table_controller.state import TableState, apply
    from table_controller.store import Event

    s = apply(TableState(), Event(seq=1, at=0.0, source="controller", type="link.down", data={"reason": code}))
    assert (s.link["reason"], s.link["reason_en"]) == LINK_REASONS[code]


def test_no_list_is_joined_with_chinese_punctuation_on_the_english_page() -> None:
    """The English page read "three suits: S、N" (查叫), "0、5、10、20, and so on" (the catalogue), "Player's
    signature：" and "table link down：…": lists and labels are joined in the page's language (`t("list")`,
    `t("colon")`)."""
    src = APP_JS.read_text(encoding="utf-8")
    body = src[src.index("\n};", src.index("const I18N = {")):]
    said = [line.strip() for line in body.splitlines()
            if re.search(r'join\("、"\)|\}：|"：" \+', line) and 'lang === "zh" ?' not in line]  # a Chinese branch: its own
    assert said == []
