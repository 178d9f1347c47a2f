"""The running service takes the credentials of its config file as they are now: a PIN changed with
`tablectl pin --config` (or by hand) on the Pi holds at once, and the old one stops, with no restart in
the middle of a match. Only `[display]`'s credentials are taken live; every other key waits for a restart, and
the log names those edited. So does the ruleset's file (`RulesetWatch`): the table plays the file as it was read
at the start, every part of it (`rules.ruleset.in_use`), until the restart."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
from pathlib import Path
from typing import Any

log = logging.getLogger("table_controller.config_watch")

#: How often the config file's stamp (size, modification time, inode) is looked at.
EVERY_S = 1.0
#: The event a changed credential is logged as (`web.app.CREDENTIAL_CHANGED`).
CHANGED = "display.credential_changed"


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino)


#: The keys taken live (`Credentials.reconfigure`); every other waits for a restart.
LIVE = frozenset({"display.referee_token", "display.operator_token", "display.referees"})


def _flat(value: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, inner in value.items():
            out.update(_flat(inner, f"{prefix}.{key}" if prefix else str(key)))
        return out
    return {prefix: value}


def waiting(started: Any, now: Any) -> list[str]:
    """The keys of `now` (a `TableConfig`) that differ from those the service `started` with and are not taken
    live: they wait for a restart (`[rules] ruleset`, `[table] name`, `[display] port` ...)."""
    was, new = _flat(started.model_dump()), _flat(now.model_dump())
    return sorted(k for k in set(was) | set(new)
                  if was.get(k) != new.get(k) and not any(k == live or k.startswith(live + ".") for live in LIVE))


class RulesetWatch:
    """The ruleset file the service plays (and its `extends` chain), looked at with the config file: an edit is
    said once, Chinese first, to wait for the restart, or that it does not read (a restart would stop on it). The
    table goes on with the file as it read it at the start, every part of it: its penalties, timers, flow, scoring
    and deal are read once per process (`rules.ruleset.in_use`); before, each was read when first asked for, so
    an edited `[penalties]` could show on the Penalties page beside the old `[timers]`, and nothing was said."""

    def __init__(self, ruleset_id: str, directory: str | None = None) -> None:
        from table_controller.rules.ruleset import folder, ruleset_files

        self.ruleset = ruleset_id
        self.directory = folder() if directory is None else directory
        self.files = ruleset_files(ruleset_id, self.directory)
        self.stamps = self._stamps()
        self.started = self._digest()
        self.said = self.started

    def _stamps(self) -> tuple[tuple[int, int, int] | None, ...]:
        return tuple(_stamp(p) for p in self.files)

    def _digest(self) -> str | None:
        h = hashlib.sha256()
        for path in self.files:
            try:
                h.update(path.read_bytes())
            except OSError:
                return None
        return h.hexdigest()

    def look(self) -> None:
        """Said when the files' content differs from what was last said (or from the start's): a save that
        changes nothing, or the same edit saved again, is not said twice."""
        from table_controller.rules import RulesError, load_ruleset
        from table_controller.rules.ruleset import ruleset_files

        stamps = self._stamps()
        if stamps == self.stamps:
            return
        # the chain as the files say now: an edit of `extends` puts another base in it, looked at from now on (it was
        # taken once at the start, and the new base's own edits went unsaid)
        self.files = ruleset_files(self.ruleset, self.directory) or self.files[:1]  # gone: its own path still looked at
        self.stamps = self._stamps()
        digest = self._digest()
        if digest == self.said:
            return
        self.said = digest
        files = [str(p) for p in self.files]
        if digest == self.started:
            log.warning("ruleset file back as the service runs it: no restart needed", extra={
                "ruleset": self.ruleset, "files": files, "message_zh": "规则文件已改回运行中的内容，无须重启"})
            return
        try:
            load_ruleset(self.ruleset, self.directory)
        except RulesError as exc:
            log.warning("ruleset file changed but cannot be read: the table plays on as it started; a restart "
                        "would stop on it", extra={
                            "ruleset": self.ruleset, "files": files, "error": str(exc),
                            "message_zh": "规则文件已修改但无法读取：现仍按原规则运行；改正之前重启服务将无法开始"})
            return
        log.warning("ruleset file changed: it takes effect whole at the next restart", extra={
            "ruleset": self.ruleset, "files": files,
            "message_zh": f"规则文件 {'、'.join(p.name for p in self.files)} 已修改：须重启服务后才生效，现仍按原文件运行"
                          "（罚则、计时、流程、计分、配牌均如此）；重启前可用 tablectl check 检查"})


async def watch_credentials(path: Path, credentials: Any, controller: Any, every: float | None = None,
                            started: Any = None) -> None:
    """Each time the file changes, read it; a file that does not read is said once and nothing changes
    (the credentials in use stay), one that does has its changed credentials taken and logged, and the other keys
    changed since `started` (the config the service runs on) said to wait for a restart: an edited `[rules]
    ruleset` was silently not taken, and the technician believed the table played it; so is an edit of that
    ruleset's file (`RulesetWatch`). Looked at
    every `every` seconds, else `EVERY_S` as it is when the watch starts (a default bound at import was not
    reached by a caller or test that set it)."""
    from table_controller.config import ConfigError, load_config
    from table_controller.credential_file import label
    from table_controller.web.auth import weak_credentials

    every = EVERY_S if every is None else every
    seen = _stamp(path)
    said: list[str] = []
    rules = RulesetWatch(started.rules.ruleset) if started is not None else None
    while True:
        await asyncio.sleep(every)
        if rules is not None:
            rules.look()
        now = _stamp(path)
        if now == seen or now is None:
            continue
        seen = now
        try:
            config = await asyncio.to_thread(load_config, path)
        except ConfigError as exc:
            log.warning("config file changed but cannot be used: the credentials in use stay", extra={
                "error": str(exc), "message_zh": "配置文件已修改但无法读取，凭证未更改"})
            continue
        later = waiting(started, config) if started is not None else []
        if later and later != said:
            log.warning("config file changed: these settings take effect at the next restart", extra={
                "keys": later, "message_zh": f"配置文件已修改：{'、'.join(later)} 须重启服务后才生效，现仍按原设置运行"})
        said = later
        for key in credentials.reconfigure(config.display):
            log.warning("display credential changed in the config file", extra={"credential": label(key)})
            try:
                controller.accept("controller", CHANGED, {"credential": label(key), "by": "config file"})
            except Exception:  # the log cannot be written now: the credential is changed all the same
                log.exception("credential change not logged")
        weak = weak_credentials(config.display)
        if weak:
            log.warning("weak display credentials: change them in the config", extra={
                "weak": weak, "message_zh": "裁判/操作员凭证太弱，旁人容易猜中，请在配置中更换"})
