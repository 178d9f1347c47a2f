"""`tablectl check --config FILE`: is this Pi ready to run its table? (开赛前检查)"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check",
        help="开赛前检查：配置、事件记录、凭证、牌桌控制板、摄像头、赛事服务器、端口、时钟 / before the match: check the "
        "config, the log, the credentials, the table's board, the camera, the broker, the port, the clock",
        description="按服务运行时的方式检查本桌配置所涉及的一切：事件记录及其备份（只读打开，不写入）、凭证（易猜的 PIN，"
        "其他用户可读的配置文件或 TLS 密钥）、牌桌控制板（只握手，不动机器）、摄像头（取一帧画面）、赛事服务器（本桌的用户）、"
        "显示端口和系统时钟；并重放事件记录，列出按现行规则和计分程序会算得不同的已确认和牌，以及查叫、罚分、杠分、追牌的结算"
        "（记分仍按当时记录）。每项一行，未通过时说明如何处理。退出码：全部通过（允许警告）为 0，有未通过项为 1，配置有误为 2。 / "
        "Check, as the service will use them, everything the table's config names: the event log "
        "and its mirror (opened, never written), the credentials (a PIN easy to guess, the config or the TLS key "
        "readable by other users), the table's board (handshake only: nothing moves), the camera "
        "(one picture), the tournament broker (this table's user), the display's port and the system clock; and, "
        "the log folded, the confirmed wins, and the 查叫 rulings, penalties, kong and 追牌 payments, today's "
        "rulesets and scorer would settle otherwise (the record keeps the figures of when each was taken). "
        "One line each, with what to do when it fails. Exit status 0 when nothing failed (warnings allowed), "
        "1 when something did, 2 when the config is wrong.",
    )
    p.add_argument("--config", type=Path, required=True, help="本桌的 TOML 配置文件 / the table's TOML file")
    p.add_argument("--json", action="store_true", help="输出一个 JSON 对象 / print one JSON object")
    p.add_argument("--no-table", action="store_true", help="不与牌桌控制板握手 / skip the handshake with the table's board")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json

    from table_controller.config import ConfigError, load_config
    from table_controller.preflight import run_checks

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        if args.json:
            print(json.dumps({"ok": False, "findings": [{"what": "配置 / config", "level": "fail", "detail": str(exc)}]},
                             ensure_ascii=False))
        else:
            print(f"✗ 配置 / config: {exc}", file=sys.stderr)
        return 2
    findings = run_checks(config, probe_table=not args.no_table)
    failed = [f for f in findings if f.level == "fail"]
    if args.json:
        print(json.dumps({"ok": not failed, "findings": [f.to_json() for f in findings]}, ensure_ascii=False))
    else:
        mark = {"ok": "✓", "warn": "!", "fail": "✗"}
        for f in findings:
            print(f"{mark[f.level]} {f.what}: {f.detail}")
        print("可以开赛 / ready" if not failed else f"未就绪：{len(failed)} 项需处理 / not ready: {len(failed)} to put right")
    return 1 if failed else 0
