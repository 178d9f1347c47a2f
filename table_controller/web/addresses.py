"""Where phones on the venue's LAN reach a display, and why an address cannot be served on.

`host = "0.0.0.0"` serves every interface; the service then printed `http://0.0.0.0:8080/`, which
no phone can open, and `tablectl check` answered every failure to bind with "another service
there? change the port", also when the address is not the Pi's (its LAN address before DHCP, a
typo) or a port under 1024 needs a capability. Linux only (the Pi); elsewhere no addresses.
"""

from __future__ import annotations

import errno
import socket
import struct

#: Hosts that mean every interface.
WILDCARD = ("0.0.0.0", "::", "")
_SIOCGIFADDR = 0x8915


def lan_addresses() -> list[str]:
    """The IPv4 addresses of this machine's interfaces other than loopback, in interface order."""
    import fcntl

    found = []
    try:
        names = [name for _, name in socket.if_nameindex()]
    except OSError:
        return []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for name in names:
            try:
                raw = fcntl.ioctl(s.fileno(), _SIOCGIFADDR, struct.pack("256s", name.encode()[:15]))
            except OSError:  # an interface without an IPv4 address (down, IPv6 only)
                continue
            addr = socket.inet_ntoa(raw[20:24])
            if not addr.startswith("127."):
                found.append(addr)
    return list(dict.fromkeys(found))


def phone_urls(host: str, port: int, scheme: str = "http") -> list[str]:
    """The addresses a phone on the LAN opens: the Pi's own for a wildcard host, none for loopback."""
    if host in WILDCARD:
        return [f"{scheme}://{a}:{port}/" for a in lan_addresses()]
    if host in ("127.0.0.1", "localhost", "::1"):
        return []
    return [f"{scheme}://{host}:{port}/"]


def bind_advice_parts(host: str, port: int, code: int | None) -> tuple[str, str]:
    """What to do when host:port cannot be listened on: (Chinese, English). The Chinese said only
    端口被占用 where the port was taken, what to do in English alone."""
    if code == errno.EADDRNOTAVAIL:
        return (f"本机没有地址 {host}（网络未连上或地址已变）：要让手机在所有网卡上访问，设 [display].host = \"0.0.0.0\"",
                f"this Pi has no address {host} (the network not up yet, or it got another address): "
                "set [display].host = \"0.0.0.0\" to serve phones on every interface")
    if code == errno.EACCES and port < 1024:
        return (f"端口 {port} 需要权限：用 `tablectl install-service` 装的服务有此权限，手动启动请用 1024 以上的端口（8080）",
                f"port {port} needs a privilege: the unit of `tablectl install-service` has it "
                "(CAP_NET_BIND_SERVICE); by hand, use a port of 1024 or more (8080)")
    if code == errno.EADDRINUSE:
        return (f"端口 {port} 已被占用（另一个服务或另一个演示正在使用）：先停止它，或换一个端口 [display].port",
                "another service there? stop it or change [display].port")
    return "请检查 [display].host 和 [display].port", "check [display].host and [display].port"


def bind_advice(host: str, port: int, code: int | None) -> str:
    """What to do when host:port cannot be listened on, Chinese first."""
    return " / ".join(bind_advice_parts(host, port, code))
