"""`tablectl demo`: the embedded default — simulator, controller and display, no hardware or config."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

#: The config key each option sets: a wrong value is named by the option typed, not by a key of a
#: config file the user never wrote ("tablectl demo: tablectl demo: key 'demo.camera': ...").
OPTION_OF_KEY = {"table.sim_seed": "--seed", "table.sim_speed": "--speed", "rules.ruleset": "--ruleset",
                 "display.host": "--host", "display.port": "--port", "demo.hand_seconds": "--hand-seconds",
                 "demo.turn_seconds": "--turn-seconds", "demo.camera": "--camera"}
#: The same for a setting named in a refusal to start (a port in use: "change [display].port").
OPTION_OF_SETTING = {"[display].host = ": "--host ", "[display].host": "--host", "[display].port": "--port"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo",
        help="运行一张模拟牌桌及其控制程序和显示（无需硬件） / run a simulated table with the controller and its "
        "display (no hardware needed)",
        description="在伪终端上启动内置的模拟麻将机，以及控制程序和 http://127.0.0.1:8080/ 上的显示；每盘自动开始，"
        "四名模拟玩家打牌（出牌、补花、碰，直到和牌（由演示程序以裁判身份确认）或荒牌），按 Ctrl-C 停止。 / "
        "Start the built-in table simulator on a pseudo-terminal, the controller and the "
        "display on http://127.0.0.1:8080/; hands start on their own and four simulated players play "
        "them (discards, flowers, pungs, to a win the demo confirms as the referee, or to 荒牌) until "
        "stopped (Ctrl-C).",
    )
    p.add_argument("--data-dir", type=Path, default=Path("data"),
                   help="SQLite 事件记录所在目录（默认 ./data） / where the SQLite event log lives (default: ./data)")
    p.add_argument("--port", type=int, default=8080, help="显示端口（默认 8080） / display port (default: 8080)")
    p.add_argument("--host", default="127.0.0.1", help="显示地址（默认 127.0.0.1） / display address (default: 127.0.0.1)")
    p.add_argument("--ruleset", default="mcr", help="规则编号（默认 mcr） / ruleset id (default: mcr)")
    p.add_argument("--seed", type=int, default=1, help="模拟洗牌的随机种子 / simulator shuffle seed")
    p.add_argument("--hand-seconds", type=float, default=20.0,
                   help="一盘结束后在显示上停留的秒数 / how long a finished hand stays on the display")
    p.add_argument("--turn-seconds", type=float, default=1.0,
                   help="模拟玩家两次动作之间的秒数 / seconds between the simulated players' actions")
    p.add_argument("--speed", type=float, default=6.0,
                   help="模拟机械比真牌桌快的倍数（默认 6） / simulated mechanisms run this many times faster than a real "
                        "table (default: 6)")
    p.add_argument("--camera", metavar="STYLE", default="",
                   help="玩家把牌摆在模拟台面上，由虚拟摄像头以此牌面风格拍摄（如 xmahjongg-dorothys；不认识的名称会列出"
                        "可选项）；摄像头记录牌谱，演示程序对其没把握的牌做裁判 / "
                        "the players lay their plays on a simulated felt that a virtual camera shows in this tile "
                        "art (e.g. xmahjongg-dorothys; a name it does not know lists them); the camera keeps "
                        "the play record and the demo rules on the tiles it is unsure of")
    p.add_argument("--tables", type=int, default=1, metavar="N",
                   help="N ≥ 2：在本机运行整场比赛（Mosquitto 服务器、--port 上的汇总成绩、N 张牌桌逐轮比赛、"
                        "演示组织方在轮间发布座位）；需要 mosquitto 软件包 / "
                        "N ≥ 2: a whole tournament on this machine (a Mosquitto broker, the hub's standings on "
                        "--port, N tables playing round after round, the seating between rounds published by the "
                        "demo's organiser); needs the mosquitto package")
    p.add_argument("--no-browser", action="store_true", help="不打开浏览器 / do not open a browser")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from table_controller.config import ConfigError, parse_config
    from table_controller.runner import run_service

    if args.tables < 1:
        print("tablectl demo: --tables 须为 1 或更多 / --tables must be 1 or more", file=sys.stderr)
        return 2
    if args.tables > 1 and args.camera:
        print("tablectl demo: --camera 只显示一张牌桌的台面，请去掉 --tables / --camera shows one table's felt; run it "
              "without --tables", file=sys.stderr)
        return 2
    try:  # checked before anything starts, a tournament's broker and hub included
        config = parse_config({
            "table": {"link": "sim://", "sim_seed": args.seed, "sim_speed": args.speed},
            "rules": {"ruleset": args.ruleset},
            "display": {"host": args.host, "port": args.port},
            "demo": {"autoplay": True, "hand_seconds": args.hand_seconds, "turn_seconds": args.turn_seconds,
                     "camera": args.camera},
        }, source="tablectl demo")
    except ConfigError as exc:
        from table_controller.cli import fail

        message = str(exc).removeprefix("tablectl demo: ")
        for key, option in OPTION_OF_KEY.items():
            message = message.replace(f"key {key!r}", option)
        option = message.split(":", 1)[0] if message.startswith("--") else ""
        return fail("demo", f"参数 {option} 有误" if option else "参数有误", message)
    if args.tables > 1:
        return _tournament(args)
    return run_service(config, args.data_dir.resolve(), verbose=args.verbose, open_browser=not args.no_browser,
                       name="tablectl demo", settings=OPTION_OF_SETTING)


def _tournament(args: argparse.Namespace) -> int:
    """`--tables N`: the broker, the hub and N tables, until Ctrl-C."""
    import asyncio
    import webbrowser

    from table_controller.logs import setup_logging
    from table_controller.runner import serve_until_signalled
    from table_controller.tournament.demo import TournamentDemo, TournamentDemoError

    setup_logging("info", args.verbose)
    demo = TournamentDemo(args.tables, args.data_dir.resolve(), host=args.host, port=args.port, ruleset=args.ruleset,
                          seed=args.seed, speed=args.speed, turn_seconds=args.turn_seconds,
                          hand_seconds=args.hand_seconds)

    def started() -> None:
        hub, *tables = demo.urls
        print(f"排名 / standings: {hub}   组织者凭证 / organiser token: {demo.organizer_token}", flush=True)
        for url, service in zip(tables, demo.services):
            print(f"  {service.config.table.name}: {url}", flush=True)
        if not args.no_browser:
            try:
                webbrowser.open(hub)
            except webbrowser.Error:
                pass

    return asyncio.run(serve_until_signalled(demo, started, (OSError, TournamentDemoError), name="tablectl demo",
                                             settings=OPTION_OF_SETTING))
