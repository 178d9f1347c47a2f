"""`tablectl conform`: check a table's firmware against docs/protocol.md, rule by rule."""

from __future__ import annotations

import argparse

EPILOG = """\
示例 / examples:
  tablectl conform /dev/ttyUSB0
  tablectl conform socket://192.168.1.50:7777 --json
  tablectl conform /dev/pts/5 --only bad_crc,duplicate

只扮演主机一方逐字节收发：状态、ping 和应被拒绝的参数，不发任何使电机动作的命令。
退出码：全部通过为 0，有一项不符或牌桌不应答 RESET 为 1，选项有误为 2。
It plays the host's side byte by byte: status, ping and refused arguments only, nothing that moves
a motor. Exit status: 0 if every check passed, 1 if one failed or the table does not answer RESET,
2 on wrong options.
"""


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "conform", help="逐条检查牌桌固件是否符合通信协议（供牌桌厂家使用） / check a table's firmware against the "
                        "link protocol, rule by rule (for table makers)",
        description="打开 URL，在字节层面逐条检查固件须遵守的 docs/protocol.md 规则：RESET、identify 和事件重放、\n"
                    "心跳、应答和结果码、NAK、重复抑制、请求缓存、重新同步、拆分和合并的帧、窗口及牌桌自身的重传。\n"
                    "Open URL and check, at the byte level, each rule of docs/protocol.md that a firmware "
                    "must keep: RESET, identify and the event replay, heartbeats, replies and result codes, "
                    "NAK, duplicate suppression, the request cache, resynchronisation, split and packed "
                    "frames, the window and the table's own retransmission.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url", metavar="URL",
                        help="设备路径、socket://HOST:PORT、rfc2217://HOST:PORT 或 usb://VID:PID / device path, "
                             "socket://HOST:PORT, rfc2217://HOST:PORT or usb://VID:PID")
    parser.add_argument("--json", action="store_true", help="输出一个 JSON 对象 / print one JSON object")
    parser.add_argument("--only", default="", metavar="IDS",
                        help="只运行这些检查（逗号分隔的编号） / run only these checks (comma-separated ids)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import asyncio
    import json

    from drivers.conformance import CHECKS, RULE_ZH, CheckResult, ConformanceError, run_checks
    from table_controller.cli import fail
    from drivers.errors import TransportError
    from drivers.transport import open_transport

    known = [c[0] for c in CHECKS]
    only = [x.strip() for x in args.only.split(",") if x.strip()]
    unknown = [x for x in only if x not in known]
    if unknown:
        return fail("conform", f"没有这个检查项：{'、'.join(unknown)}（可选的编号见后）",
                    f"unknown check {', '.join(unknown)}; known: {', '.join(known)}")
    total, shown = len(only or known), []

    def show(r: CheckResult) -> None:
        shown.append(r)
        if not args.json:  # one line per check as it finishes: the run takes several seconds
            # the rule in Chinese, what was seen after it (numbers, frames, SEQs: the protocol's own words)
            mark = "✓ 通过" if r.ok else "✗ 不符"
            print(f"[{len(shown):2}/{total}] {mark}  {r.id:<17} {r.section:<8} {RULE_ZH[r.id]} / {r.detail}", flush=True)

    async def conform() -> list[CheckResult]:
        transport = await open_transport(args.url)
        try:
            return await run_checks(transport, only or None, progress=show)
        finally:
            await transport.close()

    try:
        results = asyncio.run(conform())
    except (ConformanceError, TransportError, OSError) as exc:
        if args.json:
            print(json.dumps({"ok": False, "url": args.url, "error": str(exc)}, ensure_ascii=False))
        else:
            fail("conform", "无法检查：端口打不开或牌桌不应答 RESET", exc)
        return 1
    failed = [r for r in results if not r.ok]
    if args.json:
        print(json.dumps({"ok": not failed, "url": args.url, "passed": len(results) - len(failed),
                          "failed": [r.id for r in failed], "checks": [r.to_json() for r in results]},
                         ensure_ascii=False))
    else:
        passed = f"{len(results) - len(failed)}/{len(results)}"
        ids = ", ".join(r.id for r in failed)
        print(f"{passed} 通过" + (f"；不符：{ids}" if failed else "") + f" / {passed} passed"
              + (f"; failed: {ids}" if failed else ""))
        for r in failed:
            print(f"  {r.id} ({r.section}): {RULE_ZH[r.id]} / {r.rule}")
    return 1 if failed else 0
