"""`tablectl broker-config`: a tournament broker's users and access list, one user per table."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "broker-config",
        help="生成赛事服务器的密码文件和访问控制表，以及各桌的 [tournament] 段 / make the tournament broker's password "
        "file and access list, and each table's [tournament] section",
        description="为赛事服务器的 /etc/mosquitto 写出 OUT/mosquitto/{tournament.conf,passwd,acl}，写出 "
        "OUT/tables/<table_id>.toml（各桌的 [tournament] 段：本桌自己的用户和密码）和 OUT/hub.env（汇总服务的密码和"
        "组织方凭证）。每桌只能写自己的主题；只有汇总服务能发布座位表。再次运行可增加牌桌：已发出的密码保持不变。"
        "见 docs/tournament.md。 / "
        "Write OUT/mosquitto/{tournament.conf,passwd,acl} for the broker's /etc/mosquitto, "
        "OUT/tables/<table_id>.toml (each table's [tournament] section: its own user and password) and "
        "OUT/hub.env (the hub's password and the organiser's credential). Each table may write only its own "
        "topics; only the hub may post seatings. Run it again to add tables: passwords already given out "
        "are kept. See docs/tournament.md.",
    )
    p.add_argument("--broker", required=True,
                   help="牌桌连接赛事服务器所用的 mqtt://HOST:PORT（或 mqtts://） / mqtt://HOST:PORT (or mqtts://) as the "
                   "tables will reach it")
    p.add_argument("--tournament", required=True,
                   help="赛事编号，即各桌的 [tournament].name / the tournament's id, as the tables' [tournament].name")
    p.add_argument("--tables", required=True,
                   help='牌桌数（"12"：t01…t12）或各桌编号（"t01,t02,final"），可附桌名（"t01=一号桌"），原样写入汇总服务的命令行 / '
                   'how many tables ("12": t01…t12), or their ids ("t01,t02,final"), '
                   'each optionally with its name as tablectl hub takes it ("t01=一号桌"): passed on in the hub\'s line')
    p.add_argument("--out", type=Path, required=True, help="输出目录（不存在则创建） / directory for the files (made if missing)")
    p.add_argument("--topic-prefix", default="mahjong",
                   help="同各桌的 [tournament].topic_prefix / as the tables' [tournament].topic_prefix")
    p.add_argument("--ca-file", default="",
                   help="mqtts:// 时：各桌存放赛事 CA 证书的位置（其 ca_file） / mqtts://: where each table keeps the "
                   "tournament's CA (its ca_file)")
    p.add_argument("--tls-dir", default="",
                   help="mqtts:// 时必需：赛事服务器存放 ca.pem、broker.pem、broker.key 的目录 / mqtts:// (needed there): "
                        "the broker's directory of ca.pem, broker.pem, broker.key")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import shlex

    from table_controller.tournament.broker_config import HUB_USER, INSTALL_DIR, venue_tables, write
    from table_controller.tournament.wire import WireError

    try:
        # the hub's form ("t01=一号桌,t02=二号桌") too: the names are the hub's, passed on in its line below
        venue = venue_tables(args.tables)
        files = write(args.out, args.broker, args.tournament, [t for t, _ in venue], prefix=args.topic_prefix,
                      ca_file=args.ca_file, tls_dir=args.tls_dir)
    except (WireError, OSError) as exc:
        from table_controller.cli import fail

        return fail("broker-config", "无法生成", exc)
    added_zh = "、".join(files.new_users) or "无（密码全部保留）"
    added = ", ".join(files.new_users) or "none (every password kept)"
    named = {t: n for t, n in venue if n}
    hub_tables = shlex.quote(",".join(f"{t}={named[t]}" if t in named else t for t in files.tables))
    n = len(files.tables)
    print(f"赛事 {args.tournament}：{n} 桌；新用户：{added_zh} / tournament {args.tournament}: {n} tables; new users: "
          f"{added}\n"
          f"  赛事服务器 / broker:  cp {files.out}/mosquitto/tournament.conf /etc/mosquitto/conf.d/ && "
          f"install -m 600 -o mosquitto {files.passwd} {files.acl} {INSTALL_DIR}/ && systemctl restart mosquitto\n"
          f"  各桌：{files.out}/tables/<桌号>.toml 即该桌的 [tournament] 段（用户名即桌号） / tables: "
          f"{files.out}/tables/<table_id>.toml is that table's [tournament] section (user = table id)\n"
          f"  汇总服务：install -m 600 {files.out}/hub.env /etc/mahjong-hub.env，运行时加 --username {HUB_USER} "
          f"--tables {hub_tables} / hub: the same, and run it with these options")
    if named:
        listed_zh = "、".join(f"{t} {n}" for t, n in named.items())
        listed = ", ".join(f"{t} {n}" for t, n in named.items())
        print(f"  桌名：请把各桌 [table] name 设为这里的名字（{listed_zh}）：桌名不同的牌桌会被汇总服务标出 / names: set "
              f"each table's [table] name as named here ({listed}): the hub flags a table that calls itself otherwise")
    return 0
