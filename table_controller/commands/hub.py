"""`tablectl hub`: keep a tournament's standings from every table's events on an MQTT broker."""

from __future__ import annotations

import argparse
import os
import unicodedata
from pathlib import Path

from table_controller.commands import tcp_port
from table_controller.tournament import ORGANIZER_ENV, PASSWORD_ENV  # the package init only: no MQTT, no pydantic

#: The longest tournament title (`--title`): one line of the page's heading and the posted seating.
TITLE_MAX = 60


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "hub",
        help="从 MQTT 赛事服务器汇集各桌数据并提供成绩排名 / collect a tournament's tables from an MQTT broker and "
        "serve the standings",
        description="在赛事服务器上订阅 <prefix>/<tournament>/+/events 和 .../state，把各桌的公开记录保存在 "
        "DIR/<tournament>/tables/<table_id>.sqlite3，并在 / 和 /api/standings 提供成绩排名。赛事服务器密码（如有）"
        f"从 ${PASSWORD_ENV} 读取；组织方向各桌发布座位表的凭证从 ${ORGANIZER_ENV} 读取。见 docs/tournament.md。 / "
        "Subscribe to <prefix>/<tournament>/+/events and .../state on the broker, keep each "
        "table's public log in DIR/<tournament>/tables/<table_id>.sqlite3 and serve the standings at / "
        f"and /api/standings. The broker password, if any, is read from ${PASSWORD_ENV}; the organiser's "
        f"credential for publishing a round's seating to the tables from ${ORGANIZER_ENV}. See docs/tournament.md.",
    )
    p.add_argument("--broker", required=True, help="赛事服务器（Mosquitto）的 mqtt://HOST:PORT，TLS 用 mqtts:// / "
                   "mqtt://HOST:PORT of the tournament's broker (Mosquitto), or mqtts:// for TLS")
    p.add_argument("--tournament", required=True,
                   help="赛事编号，即各桌的 [tournament].name / the tournament's id, as the tables' [tournament].name")
    p.add_argument("--port", type=tcp_port, default=8090,
                   help="成绩页的 HTTP 端口（默认 8090；0 为任一空闲端口） / HTTP port of the standings page (default 8090; 0 = any)")
    p.add_argument("--host", default="127.0.0.1",
                   help='服务地址（局域网上的展示屏用 "0.0.0.0"） / address to serve on ("0.0.0.0" for the kiosk on the LAN)')
    p.add_argument("--data-dir", type=Path, default=Path("hub-data"),
                   help="汇总服务保存 SQLite 文件的目录 / where the hub keeps its SQLite files")
    p.add_argument("--topic-prefix", default="mahjong",
                   help="同各桌的 [tournament].topic_prefix / as the tables' [tournament].topic_prefix")
    p.add_argument("--username", default="",
                   help=f"赛事服务器用户名（密码：${PASSWORD_ENV}） / broker user name (the password: ${PASSWORD_ENV})")
    p.add_argument("--ca-file", default="",
                   help="mqtts:// 服务器须链到的 CA 证书（PEM） / for an mqtts:// broker: the CA certificate (PEM) it must "
                   "chain to")
    p.add_argument("--tls-cert", default="",
                   help="以 https 提供页面：证书（PEM），与 --tls-key 同用 / serve the page over https: its certificate "
                   "(PEM), with --tls-key")
    p.add_argument("--tls-key", default="", help="证书的私钥（PEM） / the certificate's private key (PEM)")
    p.add_argument("--client-id", default="", help="MQTT 客户端编号（默认 hub-<赛事>-<密码摘要>，任何牌桌用户都无法占用；每个汇总服务一个） / "
                   "MQTT client id (default hub-<tournament>-<a digest of the "
                   "hub's password>, which no table's user can take over; one per hub)")
    p.add_argument("--players", type=Path, default=None, metavar="CSV",
                   help="报名名单，UTF-8 编码的 CSV（id,name）：第 1 轮座位由此抽出，尚未入座的选手加入以后各轮 / "
                        "the registration list, UTF-8 CSV id,name: round 1's seating is drawn from it, and "
                        "players not yet seated join later rounds' (see docs/tournament.md)")
    p.add_argument("--tables", default="", metavar="SPEC",
                   help='赛场的牌桌，写法同 broker-config（"12"：t01…t12，或 "t01,t02,final"），可附选手找桌用的桌名'
                        '（"t01=一号桌,t02=二号桌"）：每桌从一开始就在页面上，未收到其消息前标出，并以此名排座和显示 / '
                        'the venue\'s tables, as given to broker-config ("12": t01…t12, or "t01,t02,final"), each '
                        'id optionally with the name players look for ("t01=一号桌,t02=二号桌"): each is on the page '
                        "from the start, flagged until it is heard from, and seated and shown by that name (the hub "
                        "keeps the names; a table sending another is flagged)")
    p.add_argument("--title", default="", metavar="NAME",
                   help="选手看到的赛事名称（\"2026 春季杯\"），在页面和公布的座位表上代替编号；汇总服务保存供以后启动使用 / "
                        "the tournament's name as players read it (\"2026 春季杯\"), on the page and the posted "
                        "seating in place of its id; kept by the hub for later starts")
    p.add_argument("--substitute-credit", choices=("hands", "seat"), default="hands",
                   help="替补坐了一轮中的几盘时：hands = 每盘得分归坐该盘者，该座位的标准分按所坐盘数分摊（默认）；"
                        "seat = 全归本轮的选手（队伍的替补） / "
                        "where a substitute (替补) sat part of a round: hands = each hand's points to who sat it, the "
                        "chair's 标准分 shared by hands sat (default); seat = all to the round's player (a team's "
                        "reserve)")
    p.add_argument("--max-per-address", type=_per_address, default=None, metavar="N",
                   help="同一地址可同时保持的连接数（默认 64）：场馆手机经同一 NAT 地址访问汇总服务时调高（访客 Wi-Fi "
                        "路由到汇总服务的局域网）；最多为汇总服务的 2,000 / "
                        "connections one address may hold at once (default 64): raise it where the hall's phones "
                        "reach the hub through one NAT'd address (a guest Wi-Fi routed to the hub's LAN); "
                        "at most the hub's 2,000")
    p.set_defaults(func=run)


def _per_address(text: str) -> int:
    """`--max-per-address`: 1..HUB_MAX_CONNECTIONS (above it, the whole hub's cap decides first)."""
    from table_controller.web.serve import HUB_MAX_CONNECTIONS

    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= HUB_MAX_CONNECTIONS:
        raise argparse.ArgumentTypeError(f"须为 1 至 {HUB_MAX_CONNECTIONS} 的整数 / an integer from 1 to "
                                         f"{HUB_MAX_CONNECTIONS}, not {text!r}")
    return n


def check(args: argparse.Namespace) -> None:
    """What the hub's arguments must be before it starts (also `tablectl install-service --hub`);
    raises `WireError` naming the problem."""
    from table_controller.tournament.wire import WireError, check_ca_file, check_id, check_prefix, parse_broker

    parse_broker(args.broker)
    check_ca_file(args.broker, args.ca_file)
    if getattr(args, "players", None) is not None:
        from table_controller.tournament.pairing import registered

        try:
            registered(args.players)
        except ValueError as exc:
            raise WireError(str(exc)) from None
    check_id(args.tournament, "tournament")
    title = getattr(args, "title", "").strip()
    if len(title) > TITLE_MAX or any(unicodedata.category(c).startswith("C") for c in title):
        raise WireError(f"--title: 赛事名称须为 1 至 {TITLE_MAX} 个字，不含控制字符 / the title is 1..{TITLE_MAX} "
                        "characters without control characters")
    check_prefix(args.topic_prefix)
    if getattr(args, "tables", ""):
        from table_controller.tournament.broker_config import venue_tables

        venue_tables(args.tables)
    tls_cert, tls_key = getattr(args, "tls_cert", ""), getattr(args, "tls_key", "")
    if bool(tls_cert) != bool(tls_key):
        raise WireError("--tls-cert 与 --tls-key 须同时给出（https），或都不给 / --tls-cert and --tls-key go together: give "
                        "both for https, or neither")
    if tls_cert:
        import ssl

        try:
            ssl.create_default_context(ssl.Purpose.CLIENT_AUTH).load_cert_chain(tls_cert, tls_key)
        except (OSError, ssl.SSLError) as exc:
            raise WireError(f"--tls-cert、--tls-key（{tls_cert}，{tls_key}）无法加载 / --tls-cert, --tls-key ({tls_cert}, "
                            f"{tls_key}) do not load: {exc}") from None


def parse(argv: list[str]) -> argparse.Namespace:
    """The hub's command line on its own (for the unit that runs it); SystemExit(2) when it is wrong."""
    from table_controller.cli import Parser

    parser = Parser(prog="tablectl")
    register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["hub", *argv])


def run(args: argparse.Namespace) -> int:
    import asyncio

    from table_controller.logs import setup_logging
    from table_controller.notify import hub_status
    from table_controller.runner import serve_until_signalled
    from table_controller.tournament.hub import HubError
    from table_controller.tournament.web import HubService
    from table_controller.tournament.wire import WireError
    from table_controller.web.auth import weakness

    try:
        check(args)
    except WireError as exc:
        from table_controller.cli import fail

        return fail("hub", "参数有误", exc)
    setup_logging("info", args.verbose)

    from table_controller.tournament.pairing import registered

    listed = registered(args.players) if args.players is not None else []
    from table_controller.tournament.broker_config import venue_tables

    venue = venue_tables(args.tables) if args.tables else []
    expected, names = [t for t, _ in venue], {t: n for t, n in venue if n}

    async def main() -> int:
        service = HubService(args.broker, args.tournament, args.data_dir, host=args.host, port=args.port,
                             prefix=args.topic_prefix, username=args.username,
                             password=os.environ.get(PASSWORD_ENV, ""), client_id=args.client_id,
                             ca_file=args.ca_file, organizer_token=os.environ.get(ORGANIZER_ENV, ""),
                             registered=listed, expected=expected, tls_cert=args.tls_cert, tls_key=args.tls_key,
                             substitute_credit=args.substitute_credit, names=names, title=args.title,
                             max_per_address=args.max_per_address)

        def started() -> None:
            weak = weakness(service.organizer_token)  # said, never shown: who guesses it publishes the seating
            if weak:
                print(f"凭证太弱 / weak credential: {ORGANIZER_ENV}: {weak}; 请更换 / change it", flush=True)
            print(f"排名 / standings: {service.url}   "
                  f"数据 / data: {args.data_dir / args.tournament}", flush=True)

        def status() -> str:
            if service.hub is None:
                return "正在启动 / starting"
            return hub_status(service.hub.health(), len(service.hub.tables))

        return await serve_until_signalled(service, started, (OSError, HubError), name="tablectl hub", status=status)

    return asyncio.run(main())
