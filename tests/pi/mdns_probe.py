"""Run inside a fresh network namespace (only loopback, multicast on): start the real ``tableref run``
with mDNS on, find it with a zeroconf browser as a tablet would, and print what was found as JSON.

    python mdns_probe.py CONFIG [--squatter]

``--squatter`` first lets another machine (another zeroconf instance at 127.0.0.2) claim
``tableref.local``, so the table must pick another host name.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from zeroconf import AddressResolverIPv4, IPVersion, ServiceBrowser, ServiceInfo, ServiceStateChange, Zeroconf

ROOT = Path(__file__).resolve().parents[2]
TYPE = "_http._tcp.local."


def main(config: str, squatter: bool) -> dict:
    result: dict = {"events": []}
    other = None
    if squatter:
        other = Zeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
        other.register_service(ServiceInfo(TYPE, f"Printer.{TYPE}", port=631, server="tableref.local.",
                                           addresses=[socket.inet_aton("127.0.0.2")]))
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "tableref", "run", "--config", config, "--lang", "en"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    lines: list[str] = []
    threading.Thread(target=lambda: [lines.append(x.rstrip()) for x in proc.stdout], daemon=True).start()  # type: ignore[union-attr]
    tablet = Zeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
    seen: dict[str, dict] = {}
    gone: list[str] = []

    def changed(zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        result["events"].append([state_change.name, name])
        if state_change is ServiceStateChange.Removed:
            gone.append(name)

    browser = ServiceBrowser(tablet, TYPE, handlers=[changed])
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(x.startswith("mDNS:") for x in lines):
            time.sleep(0.05)
        result["lines"] = list(lines)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not seen:
            for kind, name in list(result["events"]):
                if kind == "Added" and name not in seen and not name.startswith("Printer."):
                    info = tablet.get_service_info(TYPE, name, timeout=3000)
                    if info is not None:
                        seen[name] = {"port": info.port, "server": info.server, "addresses": info.parsed_addresses(),
                                      "properties": {k.decode(): (v or b"").decode() for k, v in info.properties.items()}}
            time.sleep(0.1)
        result["services"] = seen
        # what a tablet does with the address bar: resolve the host name, then open the page
        hosts = {}
        for name in ("tableref.local.", "tableref-2.local."):
            r = AddressResolverIPv4(name)
            hosts[name] = r.parsed_addresses() if r.request(tablet, 3000) else []
        result["hosts"] = hosts
        url = next((x for x in lines if re.match(r"^http://127\.0\.0\.1:\d+/$", x)), None)
        port = int(url.rsplit(":", 1)[1].strip("/")) if url else None
        ours = next((v for v in seen.values()), None)
        if ours and ours["addresses"]:
            req = urllib.request.Request(f"http://{ours['addresses'][0]}:{ours['port']}/api/health",
                                         headers={"Host": f"{ours['server'].rstrip('.')}:{ours['port']}"})
            with urllib.request.urlopen(req, timeout=5) as r:
                result["health"] = r.status
        result["port"] = port
        # stopping the service withdraws the announcement (goodbye packets): browsers drop it at once
        t0 = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        result["rc"] = proc.wait(15)
        result["stop_seconds"] = round(time.monotonic() - t0, 2)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not [n for n in seen if n in gone]:
            time.sleep(0.05)
        result["removed"] = [n for n in seen if n in gone]
        result["lines"] = list(lines)
    finally:
        if proc.poll() is None:
            proc.kill()
        browser.cancel()
        tablet.close()
        if other is not None:
            other.close()
    return result


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], "--squatter" in sys.argv[2:])))
