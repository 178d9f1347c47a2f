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
