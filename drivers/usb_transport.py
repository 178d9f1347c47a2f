"""The USB vendor-bulk transport: find the table by VID:PID with pyusb, move bytes on two bulk endpoints."""

from __future__ import annotations

import asyncio
import errno
import logging
import re
from typing import Any

from drivers.errors import TransportError
from drivers.transport import ThreadTransport, Transport

log = logging.getLogger(__name__)

#: How long one bulk read waits; bounds how fast close() can stop the reader thread.
READ_TIMEOUT_MS = 50
WRITE_TIMEOUT_MS = 1000

_URL = re.compile(r"^usb://([0-9a-fA-F]{4}):([0-9a-fA-F]{4})(?:/(\d+))?$")


def parse_usb_url(url: str) -> tuple[int, int, int]:
    """`usb://1a86:7523[/INDEX]` → (vid, pid, index among matching devices)."""
    m = _URL.match(url)
    if not m:
        raise TransportError(f"USB 地址有误 / bad USB URL {url!r}: expected usb://VID:PID with 4 hex digits each "
                             "(as lsusb prints them, e.g. usb://1a86:7523), optionally /N for the N-th such device "
                             "(usb://1a86:7523/1)", "bad_url")
    return int(m.group(1), 16), int(m.group(2), 16), int(m.group(3) or 0)


NO_BACKEND = ("找不到 libusb，请安装 Debian 软件包 libusb-1.0-0（sudo apt install libusb-1.0-0；make pi 会安装）/ "
              "pyusb found no libusb backend: install the Debian package libusb-1.0-0: ")
NO_PERMISSION = ("USB 设备无权限：请用 tablectl install-service 安装它写的 udev 规则，并把服务的用户加入 plugdev 组 / "
                 "no permission on the USB device: install the udev rule `tablectl install-service` writes "
                 "(/etc/udev/rules.d/60-mahjong-table.rules; then udevadm control --reload && udevadm trigger, "
                 "and replug) and add the service's user to group plugdev (sudo usermod -aG plugdev USER): ")
CLAIMED = ("USB 设备被内核驱动或其他程序占用 / interface 0 is held by a kernel driver that could not be detached "
           "or by another program (a second controller, tablectl probe/conform); a board the kernel takes as a "
           "serial port (cdc_acm, ch341, cp210x, ftdi_sio: it appears as /dev/ttyACM* or /dev/ttyUSB*) is "
           "linked by its /dev/serial/by-id/ path, not usb://: ")


def _usb_hint(exc: BaseException) -> str:
    """The words a technician acts on, before libusb's own."""
    code = getattr(exc, "errno", None)
    if code == errno.EACCES:
        return NO_PERMISSION
    if code == errno.EBUSY:
        return CLAIMED
    return ""


def _open_blocking(url: str, backend: Any) -> tuple[Any, Any, Any]:
    import usb.core
    import usb.util

    vid, pid, index = parse_usb_url(url)
    try:
        devices = list(usb.core.find(find_all=True, idVendor=vid, idProduct=pid, backend=backend))
    except usb.core.NoBackendError:
        raise TransportError(f"{NO_BACKEND}cannot open {url}", "cannot_open") from None
    except usb.core.USBError as exc:
        raise TransportError(f"{_usb_hint(exc)}cannot open {url}: {exc}", "cannot_open") from None
    if len(devices) <= index:
        raise TransportError(f"找不到 USB 设备 {vid:04x}:{pid:04x}，请检查连接线和电源 / cannot open {url}: "
                             f"no USB device {vid:04x}:{pid:04x} plugged in"
                             + (f" (found {len(devices)})" if devices else " (lsusb lists those that are)"),
                             "cannot_open")
    dev = devices[index]
    try:
        _detach_kernel_driver(dev)
        dev.set_configuration()
        intf = dev.get_active_configuration()[(0, 0)]
        usb.util.claim_interface(dev, 0)  # here, not at the first transfer: a refusal is said at once
    except (usb.core.USBError, KeyError) as exc:
        usb.util.dispose_resources(dev)
        code = "port_busy" if getattr(exc, "errno", None) == errno.EBUSY else "cannot_open"
        raise TransportError(f"{_usb_hint(exc)}cannot open {url}: {exc}", code) from None

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


def _detach_kernel_driver(dev: Any) -> None:
    """A kernel driver bound to interface 0 (cdc_acm, ch341, ftdi_sio take boards whose class or ids they
    know) holds it: Linux refuses our configuration and claim with EBUSY. It is detached for as long as
    we hold the device; after a replug the kernel binds it again, so each open does this."""
    try:
        active = dev.is_kernel_driver_active(0)
    except NotImplementedError:  # a backend or a system without kernel drivers to detach (Windows, macOS)
        return
    if active:
        dev.detach_kernel_driver(0)
        log.warning("%04x:%04x: detached the kernel driver from interface 0 to speak vendor bulk; if the table "
                    "then does not answer, the board is a serial port (cdc_acm, ch341, cp210x, ftdi_sio): link it by "
                    "its /dev/serial/by-id/ path / 已断开内核驱动；若牌桌无应答，请改用串口路径", dev.idVendor, dev.idProduct)


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
            if exc.errno == errno.EPIPE:  # the board halted the endpoint: clear it; the link resends what was lost
                ep_in.clear_halt()
                return b""
            raise

    def write(data: bytes) -> None:
        try:
            ep_out.write(data, timeout=WRITE_TIMEOUT_MS)
        except usb.core.USBError as exc:
            if exc.errno != errno.EPIPE:
                raise
            ep_out.clear_halt()  # a halted OUT endpoint stays halted, reconnect or not, until it is cleared
            ep_out.write(data, timeout=WRITE_TIMEOUT_MS)

    def close() -> None:
        usb.util.dispose_resources(dev)

    return ThreadTransport(url, read, write, close, name="usb")
