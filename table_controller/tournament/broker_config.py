"""A tournament broker's credentials and access list: one user per table, each allowed only its
own topics (docs/tournament.md, "Each table its own user").

With one shared user for every table, any table (or anyone holding that password) could publish
another table's results, or a seating to every table. Here each table's user name is its table
id, and Mosquitto's access list lets user `t01` write only `<prefix>/<tournament>/t01/events`,
`state` and `records`, and read only its own `replay` and `seating`; the hub's user reads and
writes the whole tournament. The files are built here as text, so the organiser's laptop needs no
Mosquitto to make them (`tablectl broker-config`), and the tournament demo and the tests run a
real Mosquitto on the same files.
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
import tomllib
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from table_controller.tournament import ORGANIZER_ENV, PASSWORD_ENV
from table_controller.tournament.wire import WireError, check_id, check_prefix, parse_broker, table_order

#: The hub's broker user (tables may not take this id).
HUB_USER = "hub"
#: Mosquitto 2's password hash: PBKDF2-SHA512, 101 rounds (what `mosquitto_passwd` writes).
PBKDF2_ROUNDS = 101
#: What a table writes and reads under its own topics (the hub reads and writes them all).
TABLE_WRITES = ("events", "state", "records", "online")
TABLE_READS = ("replay", "seating")
#: Where the files go on the broker's machine (Debian's Mosquitto reads conf.d/*.conf).
INSTALL_DIR = "/etc/mosquitto"
HUB_ENV = "hub.env"


def password_line(user: str, password: str, salt: bytes | None = None) -> str:
    """One line of a Mosquitto password file, as `mosquitto_passwd -b` writes it."""
    salt = salt if salt is not None else secrets.token_bytes(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, PBKDF2_ROUNDS)
    return f"{user}:$7${PBKDF2_ROUNDS}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def acl(prefix: str, tournament: str, hub_user: str = HUB_USER) -> str:
    """The access list: the hub reads and writes the tournament; every other user (a table, named
    by its table id) only its own topics. Anything not listed is refused."""
    base = f"{check_prefix(prefix)}/{check_id(tournament, 'tournament')}"
    lines = ["# tablectl broker-config: one user per table (its table id), docs/tournament.md",
             f"user {hub_user}", f"topic readwrite {base}/#", "",
             "# every table: only its own topics (%u = the user name = the table id)"]
    lines += [f"pattern write {base}/%u/{kind}" for kind in TABLE_WRITES]
    lines += [f"pattern read {base}/%u/{kind}" for kind in TABLE_READS]
    return "\n".join(lines) + "\n"


#: The largest MQTT packet the broker takes (a hand's record or a round's standing is a few tens of
#: KB): one table's credential must not be able to push hundreds of MB through the broker to the hub.
MAX_PACKET = 1 << 20


def mosquitto_conf(port: int, password_file: str, acl_file: str, tls_dir: str = "", host: str = "0.0.0.0") -> str:
    """The broker's listener: no anonymous clients, the password file and the access list; with
    `tls_dir` (holding ca.pem, broker.pem, broker.key) the listener speaks TLS only."""
    lines = [f"listener {port} {host}", "allow_anonymous false", f"password_file {password_file}",
             f"acl_file {acl_file}", f"max_packet_size {MAX_PACKET}"]
    if tls_dir:
        lines += [f"cafile {tls_dir}/ca.pem", f"certfile {tls_dir}/broker.pem", f"keyfile {tls_dir}/broker.key"]
    return "\n".join(lines) + "\n"


def table_section(broker: str, tournament: str, table_id: str, password: str, prefix: str = "mahjong",
                  ca_file: str = "") -> str:
    """The `[tournament]` section of one table's config (config/table.example.toml)."""
    lines = ["[tournament]", f'broker = "{broker}"', f'name = "{tournament}"', f'table_id = "{table_id}"',
             f'username = "{table_id}"', f'password = "{password}"']
    if prefix != "mahjong":
        lines.append(f'topic_prefix = "{prefix}"')
    if ca_file:
        lines.append(f'ca_file = "{ca_file}"')
    return "\n".join(lines) + "\n"


def table_ids(spec: str) -> list[str]:
    """`"12"` → t01…t12; `"t01,t02,final"` → those ids. Each must be a valid id, distinct, not the hub's."""
    spec = spec.strip()
    if spec.isdigit():
        count = int(spec)
        if not 1 <= count <= 999:
            raise WireError(f"--tables {spec}: 桌数须为 1 至 999 / between 1 and 999 tables")
        return [f"t{k:02d}" for k in range(1, count + 1)]
    ids = [part.strip() for part in spec.split(",") if part.strip()]
    for table_id in ids:  # an organiser's words first: 一号桌 typed as an id was refused in English alone
        try:
            check_id(table_id, "table id")
        except WireError as exc:
            raise WireError(f"--tables {table_id!r}: 桌号须为 1 至 64 个英文字母、数字、_ 或 -（桌名写在等号后："
                            f"t01=一号桌） / {exc}") from None
    if not ids:
        raise WireError("--tables: 请给出桌数，或以逗号分隔的桌号 / a number of tables, or their ids separated by commas")
    twice = sorted({t for t in ids if ids.count(t) > 1})
    if twice:
        raise WireError(f"--tables: 桌号重复：{'、'.join(twice)} / an id is given twice ({spec})")
    if HUB_USER in ids:
        raise WireError(f"--tables: {HUB_USER!r} 是赛事服务器的用户名，不能作桌号 / {HUB_USER!r} is the hub's user name, "
                        "not a table's")
    return ids


#: The longest table name the organiser may give (`venue_tables`): a line of the posted seating.
NAME_MAX = 40
#: What a table's name may not hold: the separators of `--tables`, and the full-width comma typed
#: for "," on a Chinese keyboard ("t01=一号桌，t02=二号桌" would be one table named "一号桌，t02=二号桌").
NAME_FORBIDDEN = ",=，"


def venue_tables(spec: str) -> list[tuple[str, str]]:
    """The hub's `--tables`: as `table_ids`, each id optionally followed by `=NAME`, the name the
    organiser posts on the seating and players look for ("t01=一号桌,t02=二号桌"); (id, name), the name
    "" where none is given. Names are distinct: two tables of one name send players to either."""
    spec = spec.strip()
    if spec.isdigit():
        return [(t, "") for t in table_ids(spec)]
    pairs: list[tuple[str, str]] = []
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        table_id, sep, name = (x.strip() for x in part.partition("="))
        if sep and not name:
            raise WireError(f"--tables {part!r}: 等号后缺少桌名 / no table name after '='")
        bad = [c for c in name if c in NAME_FORBIDDEN or unicodedata.category(c).startswith("C")]
        if bad or len(name) > NAME_MAX:
            raise WireError(f"--tables {part!r}: 桌名须为 1 至 {NAME_MAX} 个字，不含 , = ，及控制字符（各桌之间用半角逗号）"
                            f" / a table name is 1..{NAME_MAX} characters without , = or control characters "
                            "(tables are separated by ASCII commas)")
        pairs.append((table_id, name))
    ids = table_ids(",".join(t for t, _ in pairs))
    names = [n for _, n in pairs if n]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise WireError(f"--tables: 桌名重复：{'、'.join(twice)} / a table name is given twice")
    return [(t, n) for t, (_, n) in zip(ids, pairs)]


@dataclass(frozen=True)
class BrokerFiles:
    """What `write` made: the directory, every table's id and the users added this time."""

    out: Path
    tables: tuple[str, ...]
    new_users: tuple[str, ...]

    @property
    def passwd(self) -> Path:
        return self.out / "mosquitto" / "passwd"

    @property
    def acl(self) -> Path:
        return self.out / "mosquitto" / "acl"

    @property
    def conf(self) -> Path:
        return self.out / "mosquitto" / "tournament.conf"

    def table_config(self, table_id: str) -> Path:
        return self.out / "tables" / f"{table_id}.toml"

    def password(self, user: str) -> str:
        """A user's password as written (the hub's from hub.env, a table's from its section)."""
        return _known_passwords(self.out)[user]


def _known_passwords(out: Path) -> dict[str, str]:
    """The passwords already given out in `out` (kept when the files are made again)."""
    known: dict[str, str] = {}
    for path in sorted((out / "tables").glob("*.toml")):
        try:
            section = tomllib.loads(path.read_text(encoding="utf-8"))["tournament"]
            known[str(section["table_id"])] = str(section["password"])
        except (OSError, tomllib.TOMLDecodeError, KeyError) as exc:
            raise WireError(f"{path}: cannot read its password ({exc}); fix or remove the file") from None
    env = out / HUB_ENV
    if env.exists():
        for line in env.read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition("=")
            if key.strip() == PASSWORD_ENV and value.strip():
                known[HUB_USER] = value.strip()
    return known


def _private(path: Path, text: str) -> None:
    """Write `text` readable by the owner only (the file holds passwords or their hashes)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, 0o600)


def write(out: Path, broker: str, tournament: str, tables: list[str], prefix: str = "mahjong", ca_file: str = "",
          tls_dir: str = "", install_dir: str = INSTALL_DIR, host: str = "0.0.0.0") -> BrokerFiles:
    """Make (or make again) the broker's files and each table's `[tournament]` section in `out`.

    Passwords already given out in `out` are kept, so a table added later leaves the others'
    configs as they are; the password file is written again with fresh salts. `install_dir` is
    where the conf says the password file and access list lie on the broker's machine."""
    address = parse_broker(broker)
    check_id(tournament, "tournament")
    check_prefix(prefix)
    if ca_file and not address.tls:
        raise WireError("a CA file is for an mqtts:// broker; the broker given is mqtt://")
    if tls_dir and not address.tls:
        raise WireError("--tls-dir is for an mqtts:// broker; the broker given is mqtt://")
    if address.tls and not tls_dir:  # the conf would have the broker speak plain MQTT where every table speaks TLS
        raise WireError("an mqtts:// broker needs --tls-dir, the broker's directory of ca.pem, broker.pem and "
                        "broker.key, for its TLS listener (docs/tournament.md, Over TLS)")
    for table_id in tables:
        check_id(table_id, "table id")
        if table_id == HUB_USER:
            raise WireError(f"{HUB_USER!r} is the hub's user name, not a table's")
    known = _known_passwords(out) if out.exists() else {}
    users = [HUB_USER, *tables]
    passwords = {user: known.get(user) or secrets.token_urlsafe(15) for user in users}
    (out / "mosquitto").mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(exist_ok=True)
    # the hub first, then every table (of this run and earlier ones) by its number: the hub's --tables
    # printed below is the order it seats round 1's groups in (as text, t10 came before t2)
    every = [HUB_USER, *table_order(set(known) - {HUB_USER} | set(tables), [])]
    all_passwords = {**known, **passwords}
    _private(out / "mosquitto" / "passwd", "".join(password_line(u, all_passwords[u]) + "\n" for u in every))
    (out / "mosquitto" / "acl").write_text(acl(prefix, tournament), encoding="utf-8")
    (out / "mosquitto" / "tournament.conf").write_text(
        mosquitto_conf(address.port, f"{install_dir}/passwd", f"{install_dir}/acl", tls_dir, host), encoding="utf-8")
    for table_id in tables:
        _private(out / "tables" / f"{table_id}.toml",
                 table_section(broker, tournament, table_id, passwords[table_id], prefix, ca_file))
    env = dict(line.split("=", 1) for line in _env_lines(out / HUB_ENV) if "=" in line)
    env[PASSWORD_ENV] = passwords[HUB_USER]
    env.setdefault(ORGANIZER_ENV, secrets.token_urlsafe(18))
    _private(out / HUB_ENV, "".join(f"{key}={value}\n" for key, value in env.items()))
    every_table = tuple(u for u in every if u != HUB_USER)
    return BrokerFiles(out, every_table, tuple(u for u in users if u not in known))


def _env_lines(path: Path) -> list[str]:
    """The lines of an existing hub.env (the organiser's token and anything added by hand are kept)."""
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []
