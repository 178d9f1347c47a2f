"""A Mosquitto broker run as a child process on a free loopback port: the tournament demo's, and
the tests'. Its URL stays the same across `stop()` and `start()` (a broker restarted under the
tables); with `tls` (the CA, certificate and key files of a tournament's own CA) it listens for
mqtts:// only; with `auth` (`broker_config.write`'s files) it takes only the users of its password
file, each to the topics its access list allows."""

from __future__ import annotations

import random
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from table_controller.tournament.broker_config import MAX_PACKET

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


class BrokerError(RuntimeError):
    """Mosquitto is not installed, or did not start; the text says what to do."""


#: The kernel's range for the ports it picks itself (a connection's own end, a bind to port 0), when it cannot be read
EPHEMERAL = (32768, 60999)
#: The lowest port `free_port` hands out: above the well-known and most registered services' ports
FIXED_LOW = 20000


def ephemeral_range(path: Path = Path("/proc/sys/net/ipv4/ip_local_port_range")) -> tuple[int, int]:
    """The kernel's ephemeral ports (Linux's `ip_local_port_range`), `EPHEMERAL` where it cannot be read."""
    try:
        low, high = (int(x) for x in path.read_text().split())
    except (OSError, ValueError):
        return EPHEMERAL
    return low, high


def free_port(host: str = "127.0.0.1") -> int:
    """A port nothing listens on now, for a server started next (the broker, a test's service). Taken below the
    kernel's ephemeral range: a port bound at 0 and let go was the kernel's again, and any process's next
    connection could take it as its own end before the server bound it ("address already in use": the hub of a
    test run on a busy machine did not start). Here only another `free_port` could pick it, one in ~12,000."""
    low, high = ephemeral_range()
    span = range(FIXED_LOW, low) if low - FIXED_LOW >= 1000 else range(max(high + 1, FIXED_LOW), 65536)
    pick = random.SystemRandom()  # not the `random` a test seeds (hypothesis): two processes, two sequences
    for _ in range(200):
        port = pick.choice(span)
        with socket.socket() as s:
            try:
                s.bind((host, port))
            except OSError:
                continue  # in use (or held by a connection)
            return port
    with socket.socket() as s:  # all taken: the kernel's own choice, as before
        s.bind((host, 0))
        return int(s.getsockname()[1])


class LocalBroker:
    """`mosquitto -c FILE` with its config and log in `workdir`; no persistence (a restart loses
    retained and queued messages: the hardest case for the hub)."""

    def __init__(self, workdir: Path, tls: Any = None, auth: Any = None, port: int = 0,
                 own_group: bool = False) -> None:
        self.port = port or free_port()
        self.own_group = own_group
        self.url = f"{'mqtts' if tls else 'mqtt'}://127.0.0.1:{self.port}"
        workdir.mkdir(parents=True, exist_ok=True)
        self.conf = workdir / "mosquitto.conf"
        self.log = workdir / "mosquitto.log"
        conf = f"listener {self.port} 127.0.0.1\npersistence false\nmax_packet_size {MAX_PACKET}\n"
        conf += (f"allow_anonymous false\npassword_file {auth.passwd}\nacl_file {auth.acl}\n" if auth
                 else "allow_anonymous true\n")
        if tls:
            conf += f"cafile {tls.ca}\ncertfile {tls.cert}\nkeyfile {tls.key}\n"
        if tls or auth:  # started as root it would read these as `mosquitto`, who cannot enter a 0700 tmp
            conf += "user root\n"
        self.conf.write_text(conf)
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        if not Path(MOSQUITTO).exists():
            raise BrokerError("需要 Mosquitto / needs the MQTT broker: apt-get install -y mosquitto")
        with self.log.open("ab") as out:
            # `own_group` (the demo's): a process group of its own, so that a terminal's Ctrl-C to `tablectl demo
            # --tables N` does not kill it with the demo, before the tables and the hub have stopped (each logged
            # the broker lost); the demo stops it last. The tests' brokers die with an interrupted run, as before
            self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)], stdout=out, stderr=subprocess.STDOUT,
                                         process_group=0 if self.own_group else None)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BrokerError(f"mosquitto exited: {self.log.read_text(errors='replace')[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise BrokerError("mosquitto did not listen within 10 s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None
