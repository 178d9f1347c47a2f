"""`tablectl sim`: run the simulated table on a pty or a TCP port until interrupted."""

from __future__ import annotations

import argparse

from table_controller.commands import positive_number, tcp_port

EPILOG = """\
示例 / examples:
  tablectl sim --pty                          # prints the pty path: tablectl probe /dev/pts/N
  tablectl sim --tcp 7777 --seed 3 --autopilot
  tablectl sim --tcp 7777 --faults ber=1e-4,drop=0.01,unplug_every=10:0.5
  tablectl sim --pty --dialect remote-control
  tablectl sim --pty --scenario hardware-sim/scenarios/every-fault.txt

--faults SPEC 为 KEY=VALUE,...（链路损伤和掉电） / --faults SPEC is KEY=VALUE,...:
  ber=RATE                bit error rate on every byte, both ways (e.g. 1e-4)
  drop=FRACTION           frames lost;   dup=FRACTION   frames sent twice
  delay=FRACTION[:S]      frames delayed by S seconds (default 0.2), so they arrive late
  garbage=FRACTION        frames preceded by random junk bytes
  unplug_every=S[:D]      pull the cable every S seconds for D seconds (default 0.5)
  stall_every=S[:D]       the firmware stops answering every S seconds for D seconds
  brownout_on=COMMAND     the table reboots (brown-out) when COMMAND arrives (e.g. raise_walls)
  unplug_on=COMMAND       the table runs COMMAND, then the cable is pulled before its reply leaves (once)
  unplug_before=COMMAND   the cable is pulled as COMMAND is sent: the table never gets it (once)

场景文件每行为 `秒数 命令`，命令即协议 `debug` 消息也接受的测试台命令：
A scenario file has lines `SECONDS COMMAND`, commands being the bench commands also accepted
in-band by the protocol's `debug` message:
  fault ID [WHERE]   raise a fault: jam missing_tile extra_tile motor overheat centre_open sensor power dice
  clear ID           the fault's cause is gone
  reset              the attendant presses the board's reset key (复位): clears jam and dice, drops the set
  press SEAT [BUTTON]  a player presses a button (dice, start, raise, lower) on side E/S/W/N
  lose N / add N     N tiles fall off (or foreign tiles get in): the next build's count raises 缺牌 / 多牌
  brownout           the firmware restarts
  unplug [S]         the cable is pulled for S seconds;  stall [S]: the firmware hangs for S seconds
退出码：Ctrl-C 后为 0，选项有误为 2。
Exit status: 0 after Ctrl-C, 2 on wrong options.
"""


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = subparsers.add_parser(
        "sim", help="在伪终端或 TCP 端口上运行模拟麻将机 / run the simulated automatic table on a pty or TCP port",
        description="由模拟器提供牌桌一方的协议：机械（洗牌、码牌、升牌、骰子）、故障和链路损伤，实时运行。\n"
                    "Serve the table's side of the protocol from the simulator: the mechanism "
                    "(shuffle, build, raise, dice), faults and link damage, in real time.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--pty", action="store_true",
                       help="在新的伪终端上提供服务（默认） / serve on a new pseudo-terminal (the default)")
    where.add_argument("--tcp", type=tcp_port, metavar="PORT",
                       help="在 TCP 端口 PORT 上提供服务（0：任一空闲端口） / serve on TCP PORT (0: any free port)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="--tcp 绑定的地址（默认 127.0.0.1） / address to bind with --tcp (default 127.0.0.1)")
    parser.add_argument("--seed", type=int, default=1,
                        help="洗牌、骰子和链路损伤的随机种子 / seed of the shuffles, dice and link damage")
    parser.add_argument("--dialect", choices=("mahjong-link", "remote-control"), default="mahjong-link",
                        help="牌桌使用的通信协议（默认 mahjong-link） / wire protocol the table speaks (default mahjong-link)")
    parser.add_argument("--faults", metavar="SPEC", help="链路损伤和掉电，见下文 / link damage and brown-outs, see below")
    parser.add_argument("--tile-count", type=int, choices=(144, 136, 108), default=144,
                        help="开机时的牌数设置（默认 144） / tile-count setting at power-on (default 144)")
    parser.add_argument("--dice", type=int, choices=(2, 3), default=2, help="骰子个数 / dice in the dice unit")
    parser.add_argument("--autopilot", action="store_true",
                        help="演示玩家：牌墙升起后庄家按骰子键 / demo players: the dealer presses the dice button once the "
                             "walls are up")
    parser.add_argument("--scenario", metavar="FILE",
                        help="播放定时故障和按键的场景文件 / play a scenario file of timed faults and presses")
    parser.add_argument("--speed", type=positive_number, default=1.0,
                        help="机械速度倍数：10 使 60 秒的码牌只需 6 秒（演示用） / mechanism speed factor: 10 makes a 60 s build "
                             "take 6 s (demo)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import asyncio
    import sys

    from table_controller.cli import fail
    from tablesim import FaultPlan, SimError, SimTable, Timings
    from tablesim.sim import parse_scenario

    try:
        plan = FaultPlan.parse(args.faults)
    except ValueError as exc:
        return fail("sim", "--faults 的写法有误（见 --help）", exc)
    scenario = None
    if args.scenario:
        try:
            with open(args.scenario, encoding="utf-8") as fh:
                scenario = fh.read()
        except (OSError, ValueError) as exc:  # ValueError: not UTF-8 text
            return fail("sim", f"场景文件 {args.scenario} 无法读取", f"cannot read {args.scenario}: {getattr(exc, 'strerror', None) or exc}")
        try:
            parse_scenario(scenario)
        except (ValueError, SimError) as exc:
            return fail("sim", f"场景文件 {args.scenario} 有误", exc)
    timings = Timings.default().scaled(args.speed)

    async def main() -> int:
        from table_controller.runner import stop_on_signals

        sim = SimTable(seed=args.seed, dialect=args.dialect, autopilot=args.autopilot,
                       tile_count=args.tile_count, dice=args.dice, faults=plan, timings=timings)
        stop = asyncio.Event()
        stop_on_signals(stop.set)  # Ctrl-C or a service stop closes the port and the pty
        try:
            try:
                if args.tcp is not None:
                    port = await sim.serve_tcp(args.tcp, args.host)
                    print(f"socket://{args.host}:{port}", flush=True)
                else:
                    print(await sim.serve_pty(), flush=True)
            except OSError as exc:  # a port in use, an address not this machine's, a host unknown: was a traceback
                where = f"{args.host}:{args.tcp}" if args.tcp is not None else "a pty"
                print(f"tablectl sim: 无法在 {where} 上服务 / cannot serve on {where}: "
                      f"{exc.strerror or exc}", file=sys.stderr)
                return 2
            if scenario:
                scenario_run = asyncio.ensure_future(sim.run_scenario(scenario))
                await asyncio.wait([scenario_run, asyncio.ensure_future(stop.wait())],
                                   return_when=asyncio.FIRST_COMPLETED)
                if not scenario_run.done():
                    scenario_run.cancel()
                    await asyncio.gather(scenario_run, return_exceptions=True)
                else:
                    scenario_run.result()  # a scenario's error is the command's
            await stop.wait()
        finally:
            await sim.close()
        return 0

    try:
        return asyncio.run(main())
    except KeyboardInterrupt:
        return 0
