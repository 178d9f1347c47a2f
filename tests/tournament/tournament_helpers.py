"""Test helpers: a real Mosquitto on a free loopback port (stoppable, restartable), a raw wire tap, polling."""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiomqtt

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Broker:
    """`mosquitto -c FILE` as a child process; `url` stays the same across stop() and start().
    With `tls` (a `ThrowawayCA`'s server files) it listens for mqtts:// only."""

    def __init__(self, workdir: Path, tls: "ThrowawayCA | None" = None) -> None:
        self.port = free_port()
        self.url = f"{'mqtts' if tls else 'mqtt'}://127.0.0.1:{self.port}"
        self.conf = workdir / "mosquitto.conf"
        self.log = workdir / "mosquitto.log"
        # No persistence: a restart loses retained and queued messages, the hardest case for the hub.
        conf = f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
        if tls:  # started as root it would read these as `mosquitto`, who cannot enter pytest's 0700 tmp
            conf += f"cafile {tls.ca}\ncertfile {tls.cert}\nkeyfile {tls.key}\nuser root\n"
        self.conf.write_text(conf)
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)], stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited: {self.log.read_text(errors='replace')[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("mosquitto did not listen within 10 s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None


class Wire:
    """A raw MQTT client subscribed to everything: what actually went over the broker."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, bytes, bool]] = []
        self.client: aiomqtt.Client | None = None


async def until(predicate: Callable[[], Any], timeout: float = 10.0, what: str = "") -> Any:
    """Poll `predicate` until it is truthy; fail with `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what or predicate}")
        await asyncio.sleep(0.05)


class ThrowawayCA:
    """A throwaway certificate authority (openssl) and a broker certificate it signed for
    127.0.0.1, as a tournament would make for its own broker."""

    def __init__(self, workdir: Path, name: str = "ca") -> None:
        workdir.mkdir(parents=True, exist_ok=True)
        self.ca, self.cert, self.key = workdir / f"{name}.pem", workdir / f"{name}-server.pem", workdir / f"{name}-server.key"
        ca_key, csr, ext = workdir / f"{name}.key", workdir / f"{name}.csr", workdir / f"{name}.ext"
        ext.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
        ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for cmd in (["req", "-x509", *ec, "-keyout", ca_key, "-out", self.ca, "-days", "2", "-subj", f"/CN=Test {name}"],
                    ["req", *ec, "-keyout", self.key, "-out", csr, "-subj", "/CN=127.0.0.1"],
                    ["x509", "-req", "-in", csr, "-CA", self.ca, "-CAkey", ca_key, "-CAcreateserial", "-out", self.cert,
                     "-days", "2", "-extfile", ext]):
            subprocess.run(["openssl", *map(str, cmd)], check=True, capture_output=True)
