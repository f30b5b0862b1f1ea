"""The dashboard found on the network by name: mDNS/DNS-SD with python-zeroconf.

The service is announced as ``_http._tcp`` with the table's name as the instance name ("Table 1",
what a DNS-SD browser lists) on the host ``<mdns_host>.local`` ("tableref.local" by default, what
a tablet types: ``http://tableref.local:8080/``). Only the addresses the dashboard listens on are
announced, on those interfaces only: a dashboard bound to 127.0.0.1 is announced on loopback
alone, and under ``mdns = "auto"`` (the default) not at all.

A second table with the same host name on the same network would make the name useless, so the
announcer asks first and takes ``<host>-2``, ``-3`` ... when the name already answers with other
addresses (the instance name gets the same treatment from zeroconf itself).
"""

from __future__ import annotations

import ipaddress
import logging
import re
import socket
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

log = logging.getLogger(__name__)

SERVICE_TYPE = "_http._tcp.local."
DEFAULT_HOST = "tableref"
_LABEL = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")


class MdnsError(ValueError):
    pass


def check_host_label(text: str) -> str:
    """A host name label: lower-case letters, digits and inner hyphens, 1-63 characters."""
    if not _LABEL.match(text):
        raise MdnsError(f"{text!r} is not a host name (letters a-z, digits and '-', not at either end, at most 63)")
    return text


def instance_name(table_name: str) -> str:
    """The DNS-SD instance name: the table's name, at most 63 bytes of UTF-8, no dots."""
    name = " ".join(table_name.replace(".", " ").split()) or "tableref"
    while len(name.encode()) > 63:
        name = name[:-1]
    return name


@dataclass(frozen=True, slots=True)
class Announcement:
    """What is announced: ``instance`` on ``host``.local at ``port``, reachable at ``addresses``."""

    instance: str
    host: str
    port: int
    addresses: tuple[str, ...]
    properties: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://{self.host}.local:{self.port}/"


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def interface_addresses() -> list[str]:
    """The machine's IPv4 addresses (ifaddr, which zeroconf uses itself), loopback included."""
    import ifaddr

    out: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and ip.ip not in out:
                out.append(ip.ip)
    return out


def reachable_addresses(bind_host: str, available: list[str]) -> list[str]:
    """The IPv4 addresses a dashboard bound to ``bind_host`` answers on, from ``available``.
    Wildcard binds answer on every non-loopback address (loopback only when there is no other)."""
    if bind_host in ("", "0.0.0.0", "::"):
        outside = [a for a in available if not _is_loopback(a)]
        return outside or [a for a in available if _is_loopback(a)]
    if bind_host == "localhost":
        return ["127.0.0.1"]
    try:
        ip = ipaddress.ip_address(bind_host)
    except ValueError:
        return []
    return [bind_host] if ip.version == 4 else []


def should_announce(mode: bool | str, addresses: list[str]) -> bool:
    """``mode`` true/false, or "auto": only when a tablet can reach the dashboard (not loopback only)."""
    if mode == "auto":
        return any(not _is_loopback(a) for a in addresses)
    return bool(mode) and bool(addresses)


def plan(table_name: str, host: str, port: int, bind_host: str, mode: bool | str = "auto",
         available: list[str] | None = None, properties: dict[str, str] | None = None) -> Announcement | None:
    """The announcement for a dashboard, or None when it is not to be announced."""
    addresses = reachable_addresses(bind_host, interface_addresses() if available is None else available)
    if not should_announce(mode, addresses):
        return None
    return Announcement(instance_name(table_name), check_host_label(host), port, tuple(addresses),
                        dict(properties or {}, path="/"))


class Announcer:
    """Registers one announcement on a background thread (probing takes ~1.5 s) and withdraws it
    on ``close`` (goodbye packets, so browsers forget it at once)."""

    def __init__(self, announcement: Announcement, *, check_host: bool = True, max_suffix: int = 9,
                 on_done: Callable[["Announcer"], None] | None = None) -> None:
        self.announcement = announcement
        self.on_done = on_done
        self.check_host = check_host
        self.max_suffix = max_suffix
        self.state = "starting"
        self.host = announcement.host
        self.instance = announcement.instance
        self.error: str | None = None
        self._zc: Any = None
        self._info: Any = None
        self._lock = threading.Lock()
        self._closed = False
        self._done = threading.Event()
        self._withdrawn = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}.local:{self.announcement.port}/"

    def start(self) -> "Announcer":
        self._thread = threading.Thread(target=self._register, name="mdns", daemon=True)
        self._thread.start()
        return self

    def wait(self, timeout: float) -> bool:
        """True once registered (or failed: see ``state``) within ``timeout``."""
        return self._done.wait(timeout)

    def _register(self) -> None:
        try:
            from zeroconf import IPVersion, ServiceInfo, Zeroconf

            a = self.announcement
            zc = Zeroconf(interfaces=list(a.addresses), ip_version=IPVersion.V4Only)
            with self._lock:
                if self._closed:
                    zc.close()
                    return
                self._zc = zc
            self.host = self._free_host(zc, a) if self.check_host else a.host
            info = ServiceInfo(SERVICE_TYPE, f"{a.instance}.{SERVICE_TYPE}", port=a.port, server=f"{self.host}.local.",
                               addresses=[socket.inet_aton(x) for x in a.addresses], properties=a.properties)
            zc.register_service(info, allow_name_change=True)
            with self._lock:
                self._info = info
                self.instance = info.name[: -len(SERVICE_TYPE) - 1]
                self.state = "announced" if not self._closed else "closed"
            log.info("mDNS: %r announced at %s", self.instance, self.url)
        except Exception as exc:  # no multicast on this network, a bad address ... the dashboard still serves
            self.state, self.error = "error", str(exc)
            log.warning("mDNS announcement failed: %s", exc)
        finally:
            self._done.set()
            if self.on_done is not None:
                self.on_done(self)

    def _free_host(self, zc: Any, a: Announcement) -> str:
        """``a.host``, or the first ``host-N`` that no other machine answers for."""
        from zeroconf import AddressResolverIPv4

        ours = set(a.addresses)
        for n in range(1, self.max_suffix + 1):
            candidate = a.host if n == 1 else f"{a.host[:60]}-{n}"
            resolver = AddressResolverIPv4(f"{candidate}.local.")
            if not resolver.request(zc, 1500):
                return candidate
            theirs = set(resolver.parsed_addresses())
            if theirs <= ours:
                return candidate  # ourselves, from a previous run a moment ago
            log.warning("mDNS: %s.local is taken by %s; trying another name", candidate, ", ".join(sorted(theirs)))
        raise MdnsError(f"{a.host}.local and {a.host}-2 ... -{self.max_suffix} are all taken")

    def status(self) -> dict[str, Any]:
        return {"state": self.state, "instance": self.instance, "url": self.url, "error": self.error}

    def describe(self) -> str:
        """One terminal line about the announcement."""
        if self.state == "error":
            return f"mDNS: not announced ({self.error}); the dashboard still answers at its address"
        return f"mDNS: {self.instance!r} announced as {self.url}"

    def begin_close(self) -> None:
        """Start withdrawing the announcement (goodbye packets) on a thread; the rest of a stop goes on meanwhile."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            zc, info = self._zc, self._info
        if zc is None:
            self._withdrawn.set()
            return

        def withdraw() -> None:
            try:
                if info is not None:
                    zc.unregister_service(info)
                zc.close()
            except Exception as exc:
                log.warning("mDNS: could not withdraw the announcement: %s", exc)
            finally:
                self.state = "closed"
                self._withdrawn.set()

        threading.Thread(target=withdraw, name="mdns-close", daemon=True).start()

    def close(self, timeout: float = 1.5) -> bool:
        """Withdraw the announcement and wait for it at most ``timeout`` seconds (True when done). Idempotent."""
        self.begin_close()
        return self._withdrawn.wait(timeout)
