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
    import sys
    from typing import Any

    from drivers.errors import TableError
    from drivers.table import open_table

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
            print(f"tablectl probe: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps({"ok": True, **out}, ensure_ascii=False))
        return 0
    caps = out["capabilities"]
    print(f"table at {out['url']}: {out['dialect']} protocol {out['protocol_version']}, "
          f"firmware {out['firmware'] or '-'}, serial {out['serial'] or '-'}")
    print(f"  tile counts {caps['tile_counts'] or 'not reported'}; dice {caps['dice'] or 'none'}")
    for count, lengths in caps["wall_lengths"].items():
        print(f"  {count} tiles: walls E S W N of {' '.join(map(str, lengths))} stacks")
    feats = [k for k in ("machine_dealt", "seat_buttons", "seat_lights", "buzzer", "tile_counter") if caps[k]]
    print(f"  features: {', '.join(feats) or 'none'}")
    if "status" in out:
        print(f"  status: {out['status']}")
    return 0
