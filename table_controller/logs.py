"""Structured logging to stdout: one JSON object per line, which journald and humans both read."""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

LEVELS: dict[str, int] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}

# Attributes every LogRecord has; anything else passed via `extra=` is a structured field.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "taskName"}


class JsonFormatter(logging.Formatter):
    """Render a record as `{"ts", "level", "logger", "msg", ...extra fields}`."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key not in _STANDARD and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False, default=str)


def setup_logging(level: str = "info", verbose: int = 0) -> None:
    """Configure the root logger once; `-v`/`-vv` on the command line win over the config."""
    if verbose >= 2:
        level = "debug"
    elif verbose == 1 and level not in ("debug",):
        level = "info"
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(LEVELS.get(level, logging.INFO))
    # uvicorn's access log is noise on a kiosk; its errors still come through.
    logging.getLogger("uvicorn.access").setLevel(logging.WARNING)
