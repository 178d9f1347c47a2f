"""The USB vendor-bulk transport: find the table by VID:PID with pyusb, move bytes on two bulk endpoints."""

from __future__ import annotations

import asyncio
import errno
import re
from typing import Any

from drivers.errors import TransportError
from drivers.transport import ThreadTransport, Transport

#: How long one bulk read waits; bounds how fast close() can stop the reader thread.
READ_TIMEOUT_MS = 50
WRITE_TIMEOUT_MS = 1000

_URL = re.compile(r"^usb://([0-9a-fA-F]{4}):([0-9a-fA-F]{4})(?:/(\d+))?$")


def parse_usb_url(url: str) -> tuple[int, int, int]:
    """`usb://1a86:7523[/INDEX]` → (vid, pid, index among matching devices)."""
    m = _URL.match(url)
    if not m:
        raise TransportError(f"bad USB URL {url!r}: expected usb://VID:PID with 4 hex digits each, "
                             "optionally /N for the N-th such device", "bad_url")
    return int(m.group(1), 16), int(m.group(2), 16), int(m.group(3) or 0)


def _open_blocking(url: str, backend: Any) -> tuple[Any, Any, Any]:
    import usb.core
    import usb.util

    vid, pid, index = parse_usb_url(url)
    try:
        devices = list(usb.core.find(find_all=True, idVendor=vid, idProduct=pid, backend=backend))
    except usb.core.NoBackendError:
        raise TransportError(f"cannot open {url}: no libusb backend installed", "cannot_open") from None
    if len(devices) <= index:
        raise TransportError(f"cannot open {url}: no USB device {vid:04x}:{pid:04x} plugged in"
                             + (f" (found {len(devices)})" if devices else ""), "cannot_open")
    dev = devices[index]
    try:
        dev.set_configuration()
        intf = dev.get_active_configuration()[(0, 0)]
    except (usb.core.USBError, KeyError) as exc:
        raise TransportError(f"cannot open {url}: {exc}", "cannot_open") from None

    def bulk(direction: int) -> Any:
        return usb.util.find_descriptor(
            intf, custom_match=lambda e: usb.util.endpoint_direction(e.bEndpointAddress) == direction
            and usb.util.endpoint_type(e.bmAttributes) == usb.util.ENDPOINT_TYPE_BULK)

    ep_in, ep_out = bulk(usb.util.ENDPOINT_IN), bulk(usb.util.ENDPOINT_OUT)
    if ep_in is None or ep_out is None:
        usb.util.dispose_resources(dev)
        raise TransportError(f"cannot open {url}: interface 0 lacks a bulk IN and a bulk OUT endpoint",
                             "cannot_open")
    return dev, ep_in, ep_out


async def open_usb(url: str, backend: Any = None) -> Transport:
    import usb.core
    import usb.util

    dev, ep_in, ep_out = await asyncio.to_thread(_open_blocking, url, backend)
    size = max(64, int(ep_in.wMaxPacketSize))

    def read() -> bytes:
        try:
            return bytes(ep_in.read(size, timeout=READ_TIMEOUT_MS))
        except usb.core.USBTimeoutError:
            return b""
        except usb.core.USBError as exc:
            if exc.errno == errno.ETIMEDOUT:
                return b""
            raise

    def write(data: bytes) -> None:
        ep_out.write(data, timeout=WRITE_TIMEOUT_MS)

    def close() -> None:
        usb.util.dispose_resources(dev)

    return ThreadTransport(url, read, write, close, name="usb")
