"""A table's Pi installs only what the service runs on (`make pi`: apt-packages-runtime.txt and `pip install -e .`
without extras; `make hub` adds the broker). Every module the service may import (its own, stdlib, or a declared
runtime dependency with what that pulls in) must be there, and nothing for tests, training or benchmarks is.

Before, the only set-up was the tests' (`make setup`: Chromium, texlive, ~20 font packages, tile art), tqdm was a
runtime dependency that only training and the tests' session writer import, and tile art read from GIFs or drawn
from fonts imported Pillow (the tests' and training's) unguarded: a ModuleNotFoundError on a Pi.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
#: The project's own packages, as pyproject.toml installs them.
OWN = {p.rstrip("*") for p in PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"]}
SOURCES = [ROOT / "table_controller", ROOT / "drivers", ROOT / "vision", ROOT / "hardware-sim" / "tablesim"]
#: Modules of the tree that the service never runs, and what runs them (their imports are the extras').
NOT_RUNTIME = {
    "vision/train.py": "tablectl vision train (the train extra)",
    "hardware-sim/tablesim/session.py": "a day's log written fast, for tests and benchmarks",
}
#: What tests, training and benchmarks import: none may reach a table's Pi.
NOT_ON_A_PI = {"pytest", "playwright", "hypothesis", "torch", "onnx", "PIL", "tqdm", "httpx", "mahjong_detector"}


def _runtime_files() -> list[Path]:
    files = [p for src in SOURCES for p in sorted(src.rglob("*.py"))]
    return [p for p in files if _rel(p) not in NOT_RUNTIME]


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _guarded(tree: ast.AST) -> set[int]:
    """Import nodes inside a `try:` that catches ImportError: optional, their absence said in words."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(
                h.type is not None and re.search(r"\b(ImportError|ModuleNotFoundError)\b", ast.unparse(h.type))
                for h in node.handlers):
            out |= {id(n) for stmt in node.body for n in ast.walk(stmt) if isinstance(n, (ast.Import, ast.ImportFrom))}
    return out


@lru_cache(maxsize=None)
def _imports(path: Path) -> dict[str, int]:
    """Top-level names each unguarded absolute import of a file reaches (at module level or in a function)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    guarded, out = _guarded(tree), {}
    for node in ast.walk(tree):
        if id(node) in guarded:
            continue
        if isinstance(node, ast.Import):
            out.update({a.name.split(".")[0]: node.lineno for a in node.names})
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out[node.module.split(".")[0]] = node.lineno
    return out


def _declared() -> list[Requirement]:
    return [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]


def _closure(reqs: list[Requirement]) -> set[str]:
    """The distributions a `pip install .` brings: the declared ones and, recursively, what they require
    (their extras named, markers for this machine)."""
    seen: set[str] = set()
    todo = [(r, frozenset(r.extras)) for r in reqs]
    while todo:
        req, extras = todo.pop()
        name = canonicalize_name(req.name)
        if name in seen:
            continue
        seen.add(name)
        for line in metadata.requires(req.name) or []:
            sub = Requirement(line)
            if sub.marker is None or any(sub.marker.evaluate({"extra": e}) for e in extras | {""}):
                todo.append((sub, frozenset(sub.extras)))
    return seen


@lru_cache(maxsize=1)
def _provided_by() -> dict[str, set[str]]:
    """Top-level module → the distributions (normalised) that install it."""
    return {mod: {canonicalize_name(d) for d in dists} for mod, dists in metadata.packages_distributions().items()}


def test_the_service_imports_only_what_a_pi_installs() -> None:
    installed, provided = _closure(_declared()), _provided_by()
    wrong = []
    for path in _runtime_files():
        for mod, line in _imports(path).items():
            if mod in sys.stdlib_module_names or mod in OWN or mod == "__future__":
                continue
            if mod in NOT_ON_A_PI or not provided.get(mod, set()) & installed:
                wrong.append(f"{_rel(path)}:{line}: {mod} ({', '.join(sorted(provided.get(mod, ()))) or '?'})")
    assert not wrong, "imported but not a runtime dependency (pyproject.toml [project] dependencies):\n" + \
        "\n".join(wrong)


def test_no_runtime_module_imports_one_the_service_never_runs() -> None:
    """A module named in NOT_RUNTIME is imported only where its own command runs it (inside a function)."""
    names = {_rel(ROOT / p).removeprefix("hardware-sim/").removesuffix(".py").replace("/", ".") for p in NOT_RUNTIME}
    wrong = []
    for path in _runtime_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:  # module level only
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
            wrong += [f"{_rel(path)}:{node.lineno}: {m}" for m in mods if m in names]
    assert not wrong, wrong


def test_every_runtime_dependency_is_one_the_service_imports() -> None:
    """A Pi downloads, over a venue's link, nothing the service does not run."""
    used = {mod for path in _runtime_files() for mod in _imports(path)}
    provided = _provided_by()
    unused = [str(r) for r in _declared()
              if not any(canonicalize_name(r.name) in provided.get(mod, set()) for mod in used)]
    assert not unused, f"declared for the Pi but imported only by tests, training or benchmarks: {unused}"


def _wanted(*role: str) -> list[str]:
    """The Debian packages `scripts/bootstrap.sh [ROLE] --list` wants (it installs nothing)."""
    script = (ROOT / "scripts" / "bootstrap.sh").read_text(encoding="utf-8")
    assert "--list) list_only=1" in script, "bootstrap.sh cannot list without installing: not run"
    out = subprocess.run(["bash", str(ROOT / "scripts" / "bootstrap.sh"), *role, "--list"], capture_output=True,
                         text=True, check=True, timeout=30)
    return out.stdout.split()


def test_a_pi_and_a_hub_get_only_the_runtime_debian_packages() -> None:
    pi, hub, dev = set(_wanted("pi")), set(_wanted("hub")), set(_wanted())
    assert {"g++", "python3-dev", "python3-venv"} <= pi, pi  # pymahjonggb builds on a Pi; the venv
    assert pi < hub < dev and hub - pi == {"mosquitto"}, (pi, hub)
    assert not {p for p in pi if re.match(r"chromium|fonts-|texlive|xmahjongg|gnome-|kdegames|systemd$|mosquitto", p)}
    assert "chromium" in dev and "fonts-noto-cjk" in dev  # the tests' set is still whole (`make setup`)


def test_each_runtime_debian_package_says_what_needs_it() -> None:
    """Its comment names a runtime dependency or a file of the repository that needs it."""
    deps = {canonicalize_name(r.name) for r in _declared()}
    wrong = []
    for name in ("apt-packages-runtime.txt", "apt-packages-hub.txt"):
        lines = (ROOT / name).read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            if not line.strip() or line.startswith("#"):
                continue
            above = lines[i - 1] if i else ""
            words = set(re.findall(r"[\w./-]+", above))
            if not above.startswith("#") or not ({canonicalize_name(w) for w in words} & deps or
                                                 any("/" in w and (ROOT / w.rstrip(".")).exists() for w in words)):
                wrong.append(f"{name}:{i + 1}: {line}")
    assert not wrong, "a package without a comment naming what needs it: " + ", ".join(wrong)


def _make_n(target: str) -> str:
    """What `make TARGET` would run; no "Entering directory" lines when the suite itself runs under make."""
    return subprocess.run(["make", "--no-print-directory", "-n", "-B", target], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout


def test_make_pi_and_hub_set_up_their_roles() -> None:
    for target in ("pi", "hub"):
        out = _make_n(target)
        assert f"bootstrap.sh {target}" in out, out
    out = _make_n("setup")
    assert re.fullmatch(r"BOOTSTRAP_STAMP=\.venv/\.installed-[0-9a-f]{16} \./scripts/bootstrap\.sh", out.strip()), out


def _stamp_run(folder: Path, target: str) -> str:
    return subprocess.run(["make", "--no-print-directory", "-n", target], cwd=folder, capture_output=True,
                          text=True, check=True).stdout


def test_set_up_runs_again_when_its_inputs_change_by_content_not_by_file_times(tmp_path: Path) -> None:
    """A Pi whose clock is behind at `git pull` writes the new files with times older than its stamp: `make pi`
    by file times skipped the new dependencies. The stamp's name is a digest of what set-up reads."""
    for name in ("Makefile", "pyproject.toml", "apt-packages-runtime.txt", "apt-packages-hub.txt",
                 "apt-packages.txt", "scripts/bootstrap.sh"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, tmp_path / name)
    (tmp_path / ".venv").mkdir()
    first = _stamp_run(tmp_path, "pi")
    stamp = re.search(r"BOOTSTRAP_STAMP=(\S+) \./scripts/bootstrap\.sh pi", first)
    assert stamp, first
    (tmp_path / stamp.group(1)).touch()  # set up; then a file touched later, its content the same
    os.utime(tmp_path / "pyproject.toml", (time.time() + 3600, time.time() + 3600))
    assert "bootstrap" not in _stamp_run(tmp_path, "pi")
    # `git pull` on a Pi whose clock is a day behind: a new dependency, the file older than the stamp
    with (tmp_path / "apt-packages-runtime.txt").open("a", encoding="utf-8") as f:
        f.write("# a new library\nlibfoo1\n")
    os.utime(tmp_path / "apt-packages-runtime.txt", (time.time() - 86400, time.time() - 86400))
    again = _stamp_run(tmp_path, "pi")
    assert "bootstrap.sh pi" in again and stamp.group(1) not in again, again


def test_tile_art_without_pillow_says_so() -> None:
    """On a Pi (no Pillow) the demo camera's GIF art is refused in words, not a ModuleNotFoundError."""
    code = ("import sys; sys.modules['PIL'] = None\n"
            "from pathlib import Path\n"
            "from vision import tileart\n"
            "gif = next(tileart.XMAHJONGG_DIR.glob('*.gif'), None)\n"
            "assert gif is not None, 'xmahjongg tile art is not installed'\n"
            "try:\n"
            "    tileart._read_rgb(gif, 'xmahjongg')\n"
            "except tileart.TileArtError as exc:\n"
            "    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env={"PYTHONPATH": f"{ROOT}:{ROOT / 'hardware-sim'}", "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert "Pillow" in out.stdout and "make pi" in out.stdout, out.stdout


def test_a_wheel_carries_the_rulesets(tmp_path: Path) -> None:
    """`pip install .` (not -e) as a table maker may ship it: the service found no ruleset in site-packages and
    answered the display's first /api/state with a 500 (`unknown ruleset 'mcr' ... (none found)`)."""
    src = tmp_path / "src"
    src.mkdir()
    for part in ("pyproject.toml", "README.md", "table_controller", "drivers", "vision", "hardware-sim", "config"):
        if (ROOT / part).is_dir():
            shutil.copytree(ROOT / part, src / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(ROOT / part, src / part)
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp_path / "wheel"), str(src)],
                   check=True, timeout=120, capture_output=True)
    wheel = next((tmp_path / "wheel").glob("*.whl"))
    subprocess.run([*pip, "install", "--no-deps", "--no-compile", "--target", str(tmp_path / "site"), str(wheel)],
                   check=True, timeout=120, capture_output=True)
    code = ("import json; from table_controller.rules import load_ruleset, ruleset_ids\n"
            "import table_controller; load_ruleset('mcr')\n"
            "print(json.dumps([table_controller.__file__, list(ruleset_ids())]))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                         env={"PYTHONPATH": str(tmp_path / "site"), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    where, ids = json.loads(out.stdout)
    assert where.startswith(str(tmp_path / "site")), where  # the installed copy, not this tree
    assert ids == sorted(p.stem for p in (ROOT / "config" / "rulesets").glob("*.toml"))
