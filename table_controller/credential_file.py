"""One credential's line in table.toml rewritten where the service reads it, the rest of the file as it was.

A PIN changed mid-match (a player saw it typed) must hold after a restart too. The file is edited as
text, not re-serialised, so the venue's comments and layout stay; the result is read back and must be the
same config but for that one credential, or nothing is written. The new file replaces the old in one
rename (a power cut leaves one or the other, never half), with the old file's mode."""

from __future__ import annotations

import contextlib
import os
import re
import threading
import tomllib
from pathlib import Path
from typing import Any

#: ("referee_token", "") and ("operator_token", "") in [display], or ("token", NAME) of a named referee
Key = tuple[str, str]
REFEREE: Key = ("referee_token", "")
OPERATOR: Key = ("operator_token", "")
_LOCK = threading.Lock()  # two changes at once each read the file the other is writing
_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\"' -]+?)\s*\]\]?\s*(#.*)?$")


class CredentialFileError(ValueError):
    """The credential could not be written (Chinese first); the file, and the credential in use, are as they were."""


def named(name: str) -> Key:
    return ("token", name)


def label(key: Key) -> str:
    """Where a credential is set, as the config file names it (never its value)."""
    return f"[[display.referees]] {key[1]}" if key[0] == "token" else f"[display] {key[0]}"


def _blocks(lines: list[str]) -> list[tuple[str, int, int]]:
    """(table header, first line, end line) of each table of the file; "" for the top level's."""
    found: list[tuple[str, int, int]] = []
    name, start = "", 0
    for i, line in enumerate(lines):
        m = _HEADER.match(line)
        if m and not line.lstrip().startswith("#"):
            found.append((name, start, i))
            name, start = m.group(2).replace(" ", ""), i
    found.append((name, start, len(lines)))
    return found


def _line_of(lines: list[str], start: int, end: int, key: str) -> int | None:
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    return next((i for i in range(start + 1, end) if pattern.match(lines[i])), None)


def with_credential(text: str, key: Key, value: str) -> str:
    """The file's text with the credential at `key` set to `value`: its line replaced, or added to
    [display] for a credential the file left empty (made up at start). `CredentialFileError` where the
    file does not write it on a line of its own (an inline table, a dotted key)."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    new = f'{key[0]} = "{value}"\n'
    blocks = _blocks(lines)
    if key[0] == "token":
        for header, start, end in blocks:
            if header != "display.referees":
                continue
            at = _line_of(lines, start, end, "name")
            try:
                name = tomllib.loads(lines[at]).get("name") if at is not None else None
            except tomllib.TOMLDecodeError:
                name = None
            if name == key[1]:
                at = _line_of(lines, start, end, "token")
                if at is None:
                    break
                lines[at] = re.match(r"^\s*", lines[at]).group(0) + new  # type: ignore[union-attr]
                return "".join(lines)
        raise CredentialFileError(f"配置文件中找不到裁判 {key[1]} 的 token 行，凭证未更改 / no `token` line of the "
                                  f"[[display.referees]] entry named {key[1]} in the config file; nothing changed")
    display = [(start, end) for header, start, end in blocks if header == "display"]
    if not display:
        return "".join(lines) + f"\n[display]\n{new}"
    start, end = display[0]
    at = _line_of(lines, start, end, key[0])
    if at is None:
        lines.insert(start + 1, new)
    else:
        lines[at] = re.match(r"^\s*", lines[at]).group(0) + new  # type: ignore[union-attr]
    return "".join(lines)


def _credential(config: Any, key: Key) -> str | None:
    if key[0] == "token":
        return next((r.token for r in config.display.referees if r.name == key[1]), None)
    return str(getattr(config.display, key[0]))


def _without(config: Any, key: Key) -> dict[str, Any]:
    """The whole config as data, the credential at `key` blanked: what must not change."""
    data = config.model_dump()
    if key[0] == "token":
        for r in data["display"]["referees"]:
            if r["name"] == key[1]:
                r["token"] = ""
    else:
        data["display"][key[0]] = ""
    return data


def write_credential(path: str | Path, key: Key, value: str) -> None:
    """Set one credential in the config file at `path` (atomically), or raise `CredentialFileError`
    with the file untouched: unreadable, unwritable, or laid out so that the edit is not that one key."""
    from table_controller.config import ConfigError, config_text, load_config, parse_config

    file = Path(path).resolve()  # a linked config: the file it names is replaced, the link stays
    with _LOCK:
        try:
            before = load_config(file)
            text = config_text(file.read_bytes())  # read as the service reads it (a BOM skipped)
        except (ConfigError, OSError) as exc:
            raise CredentialFileError(f"配置文件无法读取，凭证未更改 / cannot read the config file: {exc}") from None
        edited = with_credential(text, key, value)
        try:
            after = parse_config(tomllib.loads(edited), source=str(file))
        except (ConfigError, tomllib.TOMLDecodeError) as exc:
            after, why = None, str(exc)
        else:
            why = "the edit changed more than that credential"
        if after is None or _credential(after, key) != value or _without(after, key) != _without(before, key):
            raise CredentialFileError(f"配置文件的写法无法自动修改，凭证未更改；请用 tablectl pin 打印的行手动替换 / "
                                      f"the config file could not be edited safely ({why}); nothing changed")
        temp = file.with_name(f".{file.name}.{os.getpid()}.tmp")
        try:
            mode = file.stat().st_mode & 0o7777
            with open(temp, "w", encoding="utf-8") as out:
                out.write(edited)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(temp, mode)
            os.replace(temp, file)
            folder = os.open(file.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
        except OSError as exc:
            with contextlib.suppress(OSError):
                temp.unlink(missing_ok=True)
            raise CredentialFileError(f"配置文件无法写入（{exc.strerror}），凭证未更改 / cannot write the config file "
                                      f"{file}: {exc.strerror}; the credential is unchanged") from None
