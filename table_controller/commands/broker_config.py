"""`tablectl broker-config`: a tournament broker's users and access list, one user per table."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "broker-config",
        help="make the tournament broker's password file and access list, and each table's [tournament] section",
        description="Write OUT/mosquitto/{tournament.conf,passwd,acl} for the broker's /etc/mosquitto, "
        "OUT/tables/<table_id>.toml (each table's [tournament] section: its own user and password) and "
        "OUT/hub.env (the hub's password and the organiser's credential). Each table may write only its own "
        "topics; only the hub may post seatings. Run it again to add tables: passwords already given out "
        "are kept. See docs/tournament.md.",
    )
    p.add_argument("--broker", required=True, help="mqtt://HOST:PORT (or mqtts://) as the tables will reach it")
    p.add_argument("--tournament", required=True, help="the tournament's id, as the tables' [tournament].name")
    p.add_argument("--tables", required=True, help='how many tables ("12": t01…t12), or their ids ("t01,t02,final"), '
                   'each optionally with its name as tablectl hub takes it ("t01=一号桌"): passed on in the hub\'s line')
    p.add_argument("--out", type=Path, required=True, help="directory for the files (made if missing)")
    p.add_argument("--topic-prefix", default="mahjong", help="as the tables' [tournament].topic_prefix")
    p.add_argument("--ca-file", default="", help="mqtts://: where each table keeps the tournament's CA (its ca_file)")
    p.add_argument("--tls-dir", default="",
                   help="mqtts:// (needed there): the broker's directory of ca.pem, broker.pem, broker.key")
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
        print(f"tablectl broker-config: {exc}", file=sys.stderr)
        return 2
    added = ", ".join(files.new_users) or "none (every password kept)"
    named = {t: n for t, n in venue if n}
    hub_tables = shlex.quote(",".join(f"{t}={named[t]}" if t in named else t for t in files.tables))
    print(f"赛事 / tournament {args.tournament}: {len(files.tables)} tables; new users: {added}\n"
          f"  broker:  cp {files.out}/mosquitto/tournament.conf /etc/mosquitto/conf.d/ && "
          f"install -m 600 -o mosquitto {files.passwd} {files.acl} {INSTALL_DIR}/ && systemctl restart mosquitto\n"
          f"  tables:  {files.out}/tables/<table_id>.toml is that table's [tournament] section (user = table id)\n"
          f"  hub:     install -m 600 {files.out}/hub.env /etc/mahjong-hub.env; run the hub with --username {HUB_USER} "
          f"--tables {hub_tables}")
    if named:
        listed = ", ".join(f"{t} {n}" for t, n in named.items())
        print(f"  names:   set each table's [table] name as named here ({listed}): the hub flags a table that calls "
              "itself otherwise")
    return 0
