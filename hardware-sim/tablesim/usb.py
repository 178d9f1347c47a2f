"""A virtual pyusb backend: the simulated table as a USB vendor-bulk device, for tests without hardware.

pyusb talks to libusb through a backend object; this one answers with the descriptors of
one device (bulk OUT 0x01, bulk IN 0x81 on interface 0) whose endpoints carry the bytes to
and from a `SimTable` connection. "Unplugging" makes it vanish from enumeration and makes
transfers fail with ENODEV, as libusb does when the cable is pulled.
"""

from __future__ import annotations

import asyncio
import errno
import queue
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import usb.backend
import usb.core

from drivers.clock import LEDGER

if TYPE_CHECKING:
    from tablesim.sim import SimTable, _Conn

EP_OUT, EP_IN = 0x01, 0x81
PACKET = 64


class SimUsbBackend(usb.backend.IBackend):  # type: ignore[misc]  # pyusb ships no type hints
    """One virtual device, `vid:pid`, wired to a simulator connection."""

    def __init__(self, sim: SimTable, conn: _Conn, vid: int, pid: int) -> None:
        super().__init__()
        self._sim, self._conn = sim, conn
        self._loop = asyncio.get_running_loop()
        self.vid, self.pid = vid, pid
        self.plugged = True
        self.to_host: queue.Queue[bytes] = queue.Queue()
        self._pending = b""
        self._config = 0
        #: What a real system can put between the host and the board: no udev rule (libusb's
        #: LIBUSB_ERROR_ACCESS on open), a kernel driver bound to interface 0 (cdc_acm, ch341, ftdi_sio:
        #: LIBUSB_ERROR_BUSY until it is detached), another program holding it (busy, and no kernel driver
        #: to detach), an endpoint halted (LIBUSB_ERROR_PIPE until clear_halt).
        self.access_denied = False
        self.kernel_driver = False
        self.other_program = False
        self.stalled: set[int] = set()
        self.claimed = False

    # descriptors
    def enumerate_devices(self) -> Any:
        return iter([self] if self.plugged else [])

    def get_parent(self, dev: Any) -> None:
        return None

    def get_device_descriptor(self, dev: Any) -> Any:
        return SimpleNamespace(
            bLength=18, bDescriptorType=1, bcdUSB=0x0200, bDeviceClass=0xFF, bDeviceSubClass=0,
            bDeviceProtocol=0, bMaxPacketSize0=64, idVendor=self.vid, idProduct=self.pid, bcdDevice=0x0100,
            iManufacturer=0, iProduct=0, iSerialNumber=0, bNumConfigurations=1,
            address=7, bus=1, port_number=1, port_numbers=(1,), speed=2)

    def get_configuration_descriptor(self, dev: Any, config: int) -> Any:
        return SimpleNamespace(bLength=9, bDescriptorType=2, wTotalLength=32, bNumInterfaces=1,
                               bConfigurationValue=1, iConfiguration=0, bmAttributes=0x80, bMaxPower=50,
                               extra_descriptors=[])

    def get_interface_descriptor(self, dev: Any, intf: int, alt: int, config: int) -> Any:
        if intf != 0 or alt != 0:
            raise IndexError("one interface")
        return SimpleNamespace(bLength=9, bDescriptorType=4, bInterfaceNumber=0, bAlternateSetting=0,
                               bNumEndpoints=2, bInterfaceClass=0xFF, bInterfaceSubClass=0,
                               bInterfaceProtocol=0, iInterface=0, extra_descriptors=[])

    def get_endpoint_descriptor(self, dev: Any, ep: int, intf: int, alt: int, config: int) -> Any:
        if ep > 1:
            raise IndexError("two endpoints")
        return SimpleNamespace(bLength=7, bDescriptorType=5, bEndpointAddress=(EP_OUT, EP_IN)[ep],
                               bmAttributes=2, wMaxPacketSize=PACKET, bInterval=0, bRefresh=0,
                               bSynchAddress=0, extra_descriptors=[])

    # handles and transfers
    def _check(self) -> None:
        if not self.plugged:
            raise usb.core.USBError("No such device (it may have been disconnected)", -4, errno.ENODEV)

    def open_device(self, dev: Any) -> Any:
        self._check()
        if self.access_denied:
            raise usb.core.USBError("Access denied (insufficient permissions)", -3, errno.EACCES)
        return self

    def close_device(self, dev_handle: Any) -> None:
        return None

    def _busy(self) -> None:
        if self.kernel_driver or self.other_program:
            raise usb.core.USBError("Resource busy", -6, errno.EBUSY)

    def set_configuration(self, dev_handle: Any, config_value: int) -> None:
        self._check()
        self._busy()  # Linux (usbfs) refuses to set a configuration while a kernel driver holds an interface
        self._config = config_value
        self.stalled.clear()  # as SET_CONFIGURATION clears every endpoint's halt (USB 2.0 §9.4.5)

    def is_kernel_driver_active(self, dev_handle: Any, intf: int) -> bool:
        self._check()
        return self.kernel_driver

    def detach_kernel_driver(self, dev_handle: Any, intf: int) -> None:
        self._check()
        self.kernel_driver = False

    def attach_kernel_driver(self, dev_handle: Any, intf: int) -> None:
        self._check()
        self.kernel_driver = True

    def get_configuration(self, dev_handle: Any) -> int:
        self._check()
        return self._config

    def claim_interface(self, dev_handle: Any, intf: int) -> None:
        self._check()
        self._busy()
        self.claimed = True

    def release_interface(self, dev_handle: Any, intf: int) -> None:
        self.claimed = False

    def _halted(self, ep: int) -> None:
        if ep in self.stalled:
            raise usb.core.USBError("Pipe error", -9, errno.EPIPE)

    def bulk_write(self, dev_handle: Any, ep: int, intf: int, data: Any, timeout: int) -> int:
        self._check()
        self._halted(ep)
        payload = bytes(data)
        LEDGER.read(len(payload))  # the sim has it now (the host's write counted it)
        self._loop.call_soon_threadsafe(self._sim._on_bytes, self._conn, payload)
        return len(payload)

    def bulk_read(self, dev_handle: Any, ep: int, intf: int, buff: Any, timeout: int) -> int:
        self._check()
        self._halted(ep)
        if not self._pending:
            try:
                self._pending = self.to_host.get(timeout=max(timeout, 1) / 1000)
            except queue.Empty:
                raise usb.core.USBTimeoutError("Operation timed out", -7, errno.ETIMEDOUT) from None
            self._check()
        n = min(len(buff), len(self._pending), PACKET)
        memoryview(buff).cast("B")[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

    def send(self, data: bytes) -> None:
        """The table's side writes toward the host."""
        LEDGER.wrote(len(data))
        self.to_host.put(data)

    def clear_halt(self, dev_handle: Any, ep: int) -> None:
        self._check()
        self.stalled.discard(ep)
