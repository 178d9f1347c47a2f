"""`tablectl probe`: connect to a table, run the handshake and print who it is and what it can do."""

from __future__ import annotations

import argparse

from table_controller.commands import positive_number

EPILOG = """\
示例 / examples:
  tablectl probe /dev/ttyUSB0
  tablectl probe /dev/serial/by-id/usb-1a86_USB_Serial-if00-port0 --json
  tablectl probe socket://127.0.0.1:7777 --json
  tablectl probe usb://1a86:7523
  tablectl probe /dev/pts/5 --dialect remote-control

退出码：牌桌应答为 0，无应答为 1（信息说明原因），选项有误为 2。
Exit status: 0 if the table answered, 1 if it did not (the message says why), 2 on wrong options.
"""


#: The board's capabilities (docs/protocol.md §7 identity) as the technician reads them.
FEATURES_ZH = {"machine_dealt": "机器配牌", "seat_buttons": "座位按键", "seat_lights": "座位灯", "buzzer": "蜂鸣器",
               "tile_counter": "点牌计数"}


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "probe", help="与牌桌握手，显示其身份和功能 / handshake with a table and print its identity and capabilities",
        description="打开 URL，执行 RESET 和 identify（docs/protocol.md §5），查询状态，\n"
                    "显示协议和固件版本、序列号及功能。\n"
                    "Open URL, run RESET and identify (docs/protocol.md §5), ask its status, and "
                    "print the protocol and firmware versions, serial number and capabilities.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url", metavar="URL",
                        help="设备路径、socket://HOST:PORT、rfc2217://HOST:PORT、loop:// 或 usb://VID:PID / device "
                             "path, socket://HOST:PORT, rfc2217://HOST:PORT, loop:// or usb://VID:PID")
    parser.add_argument("--json", action="store_true", help="输出一个 JSON 对象 / print one JSON object")
    parser.add_argument("--dialect", choices=("mahjong-link", "remote-control"), default="mahjong-link",
                        help="牌桌使用的通信协议（默认 mahjong-link） / wire protocol the table speaks (default "
                             "mahjong-link)")
    parser.add_argument("--timeout", type=positive_number, default=5.0,
                        help="等待应答的秒数（默认 5） / seconds to wait for an answer (default 5)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import asyncio
    import json
    from typing import Any

    from drivers.errors import TableError, gist_zh
    from drivers.table import open_table
    from table_controller.cli import fail

    async def probe() -> dict[str, Any]:
        table = await open_table(args.url, dialect=args.dialect, reconnect=False, connect_timeout=args.timeout,
                                 command_timeout=args.timeout)
        try:
            out: dict[str, Any] = table.info.as_dict()
            try:
                st = await table.status()
                out["status"] = {"phase": st.phase, "tile_count": st.tile_count,
                                 "next_tile_count": st.next_tile_count, "set_ready": st.set_ready,
                                 "dealer": st.dealer, "faults": list(st.faults), "uptime_ms": st.uptime_ms}
            except TableError as exc:
                out["status"] = {"error": str(exc), "code": exc.code}
            out["rtt_ms"] = None if table.health.rtt is None else round(table.health.rtt * 1000, 2)
            return out
        finally:
            await table.close()

    try:
        out = asyncio.run(probe())
    except TableError as exc:
        if args.json:
            print(json.dumps({"ok": False, "url": args.url, "error": str(exc), "code": exc.code}))
        else:
            fail("probe", gist_zh(exc), exc)
        return 1
    if args.json:
        print(json.dumps({"ok": True, **out}, ensure_ascii=False))
        return 0
    caps = out["capabilities"]
    firmware, serial = out["firmware"] or "-", out["serial"] or "-"
    print(f"牌桌 {out['url']}：{out['dialect']} 协议 {out['protocol_version']}，固件 {firmware}，序列号 {serial} / "
          f"table at {out['url']}: {out['dialect']} protocol {out['protocol_version']}, firmware {firmware}, "
          f"serial {serial}")
    counts, dice = caps["tile_counts"], caps["dice"]
    print(f"  牌数 {counts or '未报告'}；{f'骰子 {dice} 颗' if dice else '无骰子'} / tile counts {counts or 'not reported'}; "
          f"dice {dice or 'none'}")
    for count, lengths in caps["wall_lengths"].items():
        stacks = " ".join(map(str, lengths))
        print(f"  {count} 张：东南西北牌墙各 {stacks} 墩 / {count} tiles: walls E S W N of {stacks} stacks")
    feats = [k for k in FEATURES_ZH if caps[k]]
    print(f"  功能：{'、'.join(FEATURES_ZH[k] for k in feats) or '无'} / features: {', '.join(feats) or 'none'}")
    if "status" in out:  # the table's own fields, as --json gives them
        print(f"  状态 / status: {json.dumps(out['status'], ensure_ascii=False)}")
    return 0
