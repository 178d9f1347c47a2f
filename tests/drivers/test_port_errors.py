"""A port that will not open, as the service meets it at boot: the first connect gives up with the
reason the port gave (no permission, not there), in the technician's words first, not "nothing came
back: the cable, the port, the table's power" as if the port had opened and the table were silent."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from drivers.clock import SystemClock
from drivers.errors import TableError
from drivers.table import open_table

ROOT = Path(__file__).resolve().parents[2]


async def test_a_port_that_is_not_there_is_named_so_after_the_connect_timeout(tmp_path: Path) -> None:
    with pytest.raises(TableError) as err:
        await open_table(str(tmp_path / "ttyTABLE"), clock=SystemClock(), connect_timeout=0.8)
    assert err.value.code == "cannot_open"
    text = str(err.value)
    assert text.startswith("找不到串口") and f"cannot open {tmp_path / 'ttyTABLE'}" in text
    assert "nothing came back" not in text


def test_a_port_without_permission_names_the_group_to_join(tmp_path: Path) -> None:
    """A real pseudo-terminal whose link the service's user may not open (chmod 000; as root the
    check runs as nobody, since root opens it anyway). Before, the connect waited 10 s and said the
    table sent nothing back."""
    import pty

    leader, follower = pty.openpty()
    link = tmp_path / "ttyTABLE"
    link.symlink_to(os.ttyname(follower))
    os.chmod(link, 0o000)
    script = textwrap.dedent(f"""
        import asyncio
        from drivers.clock import SystemClock
        from drivers.table import open_table
        async def main():
            try:
                await open_table({str(link)!r}, clock=SystemClock(), connect_timeout=0.8)
            except Exception as exc:
                print(getattr(exc, "code", "?"), exc)
        asyncio.run(main())
    """)
    drop = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] if os.geteuid() == 0 else []
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'hardware-sim'}"}
    try:
        out = subprocess.run([*drop, sys.executable, "-c", script], capture_output=True, text=True, timeout=30,
                             env=env, cwd="/")
    finally:
        os.close(leader)
        os.close(follower)
    assert out.returncode == 0, out.stderr
    code, _, text = out.stdout.strip().partition(" ")
    assert code == "cannot_open", out.stdout
    assert text.startswith("串口无权限") and "group dialout" in text and "Permission denied" in text
    assert "nothing came back" not in text


async def test_a_table_at_another_baud_rate_is_named_so_in_chinese_first() -> None:
    """A UART read at the wrong baud rate gives bytes that are never a frame. The connect said so in English
    only ("no table answered ... (4000 bytes that were no frame: the baud rate, or another device)"), and the
    display showed it as "无法连接牌桌：no table answered ...": the technician's clue was not in Chinese."""
    import asyncio
    import random

    leader, follower = os.openpty()
    os.set_blocking(leader, False)
    rng = random.Random(7)
    loop = asyncio.get_running_loop()

    def noise() -> None:  # what the line carries at the wrong rate: never 0xA5 0x5A
        try:
            os.write(leader, bytes(rng.choice(range(0x00, 0xA5)) for _ in range(200)))
        except OSError:
            return
        timer[0] = loop.call_later(0.02, noise)

    timer = [loop.call_later(0.05, noise)]
    try:
        with pytest.raises(TableError) as err:
            await open_table(os.ttyname(follower), clock=SystemClock(), connect_timeout=0.6)
    finally:
        timer[0].cancel()
        os.close(leader)
        os.close(follower)
    text = str(err.value)
    assert err.value.code == "no_answer"
    assert text.startswith("牌桌无应答：收到") and "字节无法成帧，请检查波特率（或是否接了别的设备）" in text, text
    assert "bytes that were no frame: the baud rate" in text  # the driver's words after the Chinese
