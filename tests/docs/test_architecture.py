"""docs/architecture.md is a newcomer's map: every module on it, every name it gives real.

A name the map gives that the code no longer has sends a newcomer to grep for nothing; a module
missing from it is one they cannot place. Read from the files (AST), importing nothing.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
PACKAGES = ("drivers", "table_controller", "vision", "hardware-sim/tablesim")
CODE_DIRS = (*PACKAGES, "bench")
FILE_SUFFIXES = {"py", "js", "md", "toml", "json", "sqlite3", "html", "css", "onnx", "txt", "pem", "csv"}


def _modules() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")
                  if p.name != "__init__.py" and "__pycache__" not in p.parts)


def _section(title: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else len(text)]


def _paragraphs() -> dict[str, set[str]]:
    """The module list's paragraphs by the folder that heads them, each with its backticked words."""
    out: dict[str, set[str]] = {}
    for para in _section("Every module, one line").split("\n\n"):
        head = re.match(r"`([\w/-]+/)`", para.strip())
        if head:
            out[head.group(1)] = set(re.findall(r"`([^`]+)`", para))
    return out


def test_every_module_has_its_line() -> None:
    paras = _paragraphs()
    missing = []
    for path in _modules():
        rel = path.relative_to(ROOT).as_posix()
        folder = next(f for f in sorted(paras, key=len, reverse=True) if rel.startswith(f))
        name = rel[len(folder):]
        words = paras[folder]
        if name in words or (name.startswith("commands/") and path.stem in words):
            continue
        missing.append(rel)
    assert not missing, f"modules with no line in docs/architecture.md 'Every module': {missing}"


def test_the_module_list_names_no_file_that_is_gone() -> None:
    gone = []
    for folder, words in _paragraphs().items():
        for word in words:
            if word.endswith(".py") and "<" not in word and not (ROOT / folder / word).exists():
                gone.append(folder + word)
    assert not gone, gone


@lru_cache(maxsize=1)
def _defined() -> tuple[dict[str, set[str]], dict[str, set[str]], str]:
    """Names defined per module stem and per class, and every string literal of the code."""
    by_module: dict[str, set[str]] = {}
    by_class: dict[str, set[str]] = {}
    strings: list[str] = []
    for d in CODE_DIRS:
        for path in (ROOT / d).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            names: set[str] = set()
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.add(node.name)
                    if isinstance(node, ast.ClassDef):
                        by_class.setdefault(node.name, set()).update(_names_in(node))
                elif isinstance(node, (ast.Import, ast.ImportFrom)):
                    names.update((a.asname or a.name).split(".")[0] for a in node.names)
                elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                    strings.append(node.value)
            names |= _names_in(tree)
            stem = path.parent.name if path.name == "__init__.py" else path.stem
            by_module.setdefault(stem, set()).update(names)
    return by_module, by_class, "\n".join(strings)


def _names_in(node: ast.AST) -> set[str]:
    out: set[str] = set()
    for n in ast.walk(node):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AnnAssign) else []
        for t in targets:
            if isinstance(t, ast.Name):
                out.add(t.id)
            elif isinstance(t, ast.Attribute):
                out.add(t.attr)
    return out


def _unknown_dotted(text: str) -> list[str]:
    """The `module.name` and `Class.name` of `text`'s backticks that the code does not have. An event type
    (`controller.clock_step`), a file (`controller.lock`) or a field of the API's JSON (`state.appeals`,
    `health.mirror`) is a string the code uses."""
    by_module, by_class, strings = _defined()
    keys = set(strings.split("\n"))
    wrong = []
    for quoted in set(re.findall(r"`([^`\n]+)`", text)):
        for dotted in re.findall(r"(?<![\w/.\[])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?![\w/.\]])", quoted):
            owner, name = dotted.split(".")[-2:]
            if name in FILE_SUFFIXES or (ROOT / owner / f"{name}.py").exists():
                continue  # a file name, or a package's module (`drivers.clock`)
            if owner not in by_module and owner not in by_class:
                continue
            if name in by_module.get(owner, set()) | by_class.get(owner, set()):
                continue
            if re.search(rf"\b{re.escape(dotted)}\b", strings) or name in keys:
                continue
            wrong.append(dotted)
    return sorted(set(wrong))


def test_every_dotted_name_the_map_gives_is_in_the_code() -> None:
    wrong = _unknown_dotted(DOC.read_text(encoding="utf-8"))
    assert not wrong, f"names in docs/architecture.md the code does not have: {wrong}"


#: The other pages a newcomer follows from the map: each `module.name` they give must be there too.
PAGES = (*sorted(p for p in (ROOT / "docs").glob("*.md") if p != DOC), ROOT / "README.md",
         ROOT / "hardware-sim" / "README.md")


def test_every_dotted_name_the_other_docs_give_is_in_the_code() -> None:
    """docs/display.md named `app.UNPRINTABLE` (the set is `printable.UNPRINTABLE`) and
    `projection.camera_zone_public` (moved to `camera_public`): a grep for them found nothing."""
    wrong = {p.relative_to(ROOT).as_posix(): w for p in PAGES if (w := _unknown_dotted(p.read_text(encoding="utf-8")))}
    assert not wrong, f"names in the docs the code does not have: {wrong}"


def test_every_page_function_the_docs_name_is_in_app_js() -> None:
    """A line naming `web/static/app.js` names its functions and constants (`keyPlay`, `SEEN_PATHS`): each is
    defined there, so a rename in the page fails here rather than sending a newcomer to grep for nothing."""
    js = (ROOT / "table_controller" / "web" / "static" / "app.js").read_text(encoding="utf-8")
    defined = set(re.findall(r"(?:function\s+|(?:const|let|var)\s+)([A-Za-z_$][\w$]*)", js))
    defined |= set(re.findall(r"(?:^|,)\s*([A-Za-z_$][\w$]*)\s*=(?!=)", js, flags=re.M))  # `let a = 1, b = 2`
    named, missing = set(), []
    for page in (DOC, *PAGES):
        for line in page.read_text(encoding="utf-8").splitlines():
            if "app.js" not in line:
                continue
            for word in re.findall(r"`([a-z]+[A-Z][A-Za-z0-9]*|[A-Z][A-Z0-9]*_[A-Z0-9_]+)`", line):
                named.add(word)
                if word not in defined:
                    missing.append(f"{page.name}: {word}")
    assert len(named) > 10, f"the docs name only {sorted(named)} of app.js: is the pattern still right?"
    assert not missing, f"names of app.js in the docs that app.js does not define: {sorted(set(missing))}"


def test_every_path_the_map_gives_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    missing = []
    for quoted in set(re.findall(r"`([^`\n]+)`", text)):
        for path in re.findall(r"(?:table_controller|drivers|vision|hardware-sim|bench|config|tests)/[\w./-]+", quoted):
            if "<" not in path and not (ROOT / path).exists():
                missing.append(path)
    assert not missing, missing


def test_the_live_table_does_not_run_the_hand_state_machine() -> None:
    """The map says the fold keeps its own play record and `hand/state.py` is the tests' machine: if a
    module of the service comes to import it, the map (and 'One concept in two places') must change."""
    allowed_modules = {"table_controller.hand.match", "table_controller.hand.rules", "table_controller.hand.errors",
                       "table_controller.hand.abortive"}
    allowed_names = {"match", "rules", "errors", "FlowRules", "IllegalAction", "MatchRules", "MatchState"}
    users = []
    for path in (ROOT / "table_controller").rglob("*.py"):
        if path.parent.name == "hand":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("table_controller.hand"):
                if node.module == "table_controller.hand":
                    if {a.name for a in node.names} - allowed_names:
                        users.append(path.relative_to(ROOT).as_posix())
                elif node.module not in allowed_modules:
                    users.append(path.relative_to(ROOT).as_posix())
    assert not users, f"the service now runs table_controller.hand's machine: update docs/architecture.md ({users})"


#: The glossary's table-and-hand terms (GLOSSARY.md, "Table and hand"), each with the Chinese word the index
#: must carry, and the lookups a newcomer asked for that are not glossary terms.
GLOSSARY_TERMS = ("门风", "定位", "庄家", "下家", "圈风", "盘", "圈", "局", "墩", "牌墙", "开门", "抓牌", "补牌",
                  "海底", "荒牌", "出牌", "吃", "碰", "杠", "听牌", "和牌", "诈和", "番", "罚分", "比赛成绩记录表",
                  "标准分")
LOOKUPS = ("杠后补", "补花", "包付", "换位", "轮次", "轮空", "bye", "credential", "MQTT topic", "zones", "CRC",
           "卡牌", "jam", "Chinese name", "定庄", "连庄", "一炮多响", "抢杠和", "定缺", "牌谱", "heartbeat",
           "相公", "击飞", "买马", "报时", "暂停计时", "复位", "kiosk", "点牌", "lid", "motor")


def _index_rows() -> list[tuple[str, str]]:
    rows = []
    for line in _section("Index: a term").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 2 and cells[0] != "term":
            rows.append((cells[0], cells[1]))
    return rows


def test_every_glossary_term_and_common_lookup_has_an_index_row_naming_code() -> None:
    """`grep -n 开门 docs/architecture.md` lands on a row that names a function, not a folder."""
    rows = _index_rows()
    missing = [t for t in (*GLOSSARY_TERMS, *LOOKUPS) if not any(t in term for term, _ in rows)]
    assert not missing, f"terms with no row in the index of docs/architecture.md: {missing}"
    vague = [term for term, where in rows if not re.search(r"`[\w./]*\w\.\w+`|`\w+/[\w/]*\.py`", where)]
    assert not vague, f"index rows naming no module.function or file: {vague}"


def test_each_package_page_lists_its_modules() -> None:
    """protocol.md §13 names every module of drivers/, hardware-sim/README.md every module of tablesim."""
    pages = {"drivers": (ROOT / "docs" / "protocol.md", "drivers/"), "hardware-sim/tablesim": (
        ROOT / "hardware-sim" / "README.md", "")}
    missing = []
    for pkg, (page, prefix) in pages.items():
        text = page.read_text(encoding="utf-8")
        for path in (ROOT / pkg).rglob("*.py"):
            rel = path.relative_to(ROOT / pkg).as_posix()
            if path.name != "__init__.py" and "__pycache__" not in rel and f"`{prefix}{rel}`" not in text:
                missing.append(f"{page.name}: {prefix}{rel}")
    assert not missing, missing


def test_every_bench_is_on_the_benchmarks_row() -> None:
    row = next(line for line in DOC.read_text(encoding="utf-8").splitlines() if line.startswith("| benchmarks"))
    missing = [p.name for p in sorted((ROOT / "bench").glob("*.py")) if f"`{p.name}`" not in row]
    assert not missing, f"benches missing from docs/architecture.md's benchmarks row: {missing}"
