"""The appliance's service: resident memory with the camera on, and start-up to a served dashboard.

Runs the real ``tableref run`` (a subprocess) with the configuration ``scripts/install-pi.sh`` writes
from examples/table.toml, adapted as on a machine without the Pi's parts: the synthetic camera at the
example's 1280x720 and 4 frames/s, the emulated sensor board, mock GPIO, the dashboard on loopback.
One dashboard tab stays connected (an open event stream) while memory is sampled.

* start-up: from spawning the process to the first 200 answer for the dashboard page ``/`` (median
  of ``--starts`` cold starts, each on a fresh data folder);
* memory: VmRSS of the service sampled every 0.5 s for ``--seconds`` once the camera is live
  (median and maximum) and the kernel's high-water mark VmHWM; targets: RSS < 150 MB, start-up < 10 s.

Run as root with ``unshare`` available, the whole measurement runs in a private network namespace
with mDNS on (``[web] mdns = true`` on loopback), so the announcement's cost is counted; otherwise
without mDNS, and the report says so.

    python -m bench service
    python -m bench service -- --seconds 120 --starts 5
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RSS_TARGET_MB = 150.0
START_TARGET_S = 10.0
NETNS_SETUP = "ip link set lo up && ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo"


def status_kib(pid: int, key: str) -> int:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise KeyError(key)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_photos(folder: Path, n: int = 8) -> Path:
    """``n`` frames of the synthetic camera saved as PNG: a camera source that is only frames, as the
    Pi's camera is (no renderer and its caches in the process)."""
    import cv2

    from hardware.camera import SyntheticCamera
    from vision.layout import load_layout
    from vision.render import Conditions

    folder.mkdir(parents=True)
    cam = SyntheticCamera(load_layout("china-a"), conditions=Conditions(size=(1280, 720)), seed=1)
    for i in range(n):
        cv2.imwrite(str(folder / f"frame-{i:02d}.png"), cam.read().image)
    cam.close()
    return folder


def write_config(folder: Path, port: int, mdns: bool, photos: Path | None = None) -> Path:
    """examples/table.toml as install-pi.sh writes it, then the edits for a machine without the Pi's parts
    (``photos``: the camera reads that folder of frames instead of rendering)."""
    text = (ROOT / "examples" / "table.toml").read_text()
    data = folder / "data"
    data.mkdir(parents=True)
    for name in ("table-tags.json", "table-wiring.json"):
        shutil.copy(ROOT / "examples" / name, data / name)
    for old, new in (('data_dir = "data"', f'data_dir = "{data}"'), ('tags = "table-tags.json"', f'tags = "{data}/table-tags.json"'),
                     ('antennas = "table-wiring.json"', f'antennas = "{data}/table-wiring.json"'),
                     ('port = "auto"', 'port = "emulated"'), ('source = "picamera2"', f'source = "{photos or "synthetic"}"'),
                     ('pin_factory = "lgpio"', 'pin_factory = "mock"'), ('host = "0.0.0.0"', 'host = "127.0.0.1"')):
        assert old in text, old
        text = text.replace(old, new)
    text = re.sub(r"(?m)^port = 8080$", f"port = {port}", text)
    text = re.sub(r"(?m)^(threads = .*)$", r"\1" + f"\nmdns = {'true' if mdns else 'false'}", text)
    cfg = folder / "table.toml"
    cfg.write_text(text)
    return cfg


def get(url: str, timeout: float = 2.0) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read()


class Service:
    def __init__(self, cfg: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
        self.started = time.monotonic()
        self.proc = subprocess.Popen([sys.executable, "-m", "tableref", "run", "--config", str(cfg), "--lang", "en"],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        self.lines: list[str] = []
        threading.Thread(target=lambda: [self.lines.append(x.rstrip()) for x in self.proc.stdout], daemon=True).start()  # type: ignore[union-attr]

    def stop(self) -> float:
        t0 = time.monotonic()
        self.proc.terminate()
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        return time.monotonic() - t0


def wait_served(url: str, started: float, proc: subprocess.Popen, timeout: float = 60.0) -> float:
    """Seconds from ``started`` to the first 200 for the dashboard page."""
    while time.monotonic() - started < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"the service exited ({proc.returncode}) before it served the dashboard")
        try:
            status, body = get(url, 1.0)
            if status == 200 and b"<html" in body.lower():
                return time.monotonic() - started
        except OSError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"no dashboard within {timeout} s")


def camera_live(url: str) -> bool:
    try:
        return json.loads(get(url + "api/devices")[1]).get("camera", {}).get("state") == "ok"
    except OSError:
        return False


def measure(args: argparse.Namespace, mdns: bool, source: str) -> dict:
    starts: list[float] = []
    rss: list[float] = []
    result: dict = {"mdns": mdns, "source": source}
    for i in range(args.starts if source == "synthetic" else 1):
        with tempfile.TemporaryDirectory(prefix="bench-service-") as tmp:
            port = free_port()
            url = f"http://127.0.0.1:{port}/"
            photos = write_photos(Path(tmp) / "photos") if source == "photos" else None
            svc = Service(write_config(Path(tmp), port, mdns, photos))
            try:
                starts.append(wait_served(url, svc.started, svc.proc))
                if i:
                    continue
                deadline = time.monotonic() + 60
                while not camera_live(url) and time.monotonic() < deadline:
                    time.sleep(0.2)
                result["camera_live"] = camera_live(url)
                tab = threading.Thread(target=lambda: get(url + "api/stream", timeout=args.seconds + 30), daemon=True)
                tab.start()  # one dashboard tab with its event stream open
                t_end = time.monotonic() + args.seconds
                while time.monotonic() < t_end:
                    rss.append(status_kib(svc.proc.pid, "VmRSS") / 1024)
                    time.sleep(0.5)
                result["hwm_mb"] = round(status_kib(svc.proc.pid, "VmHWM") / 1024, 1)
                dev = json.loads(get(url + "api/devices")[1]).get("camera", {})
                result["camera"] = {k: dev.get(k) for k in ("state", "fps", "frames") if k in dev}
                result["announced"] = [x for x in svc.lines if x.startswith("mDNS:")]
            finally:
                result.setdefault("stop_s", []).append(round(svc.stop(), 2))
    result.update(start_s=[round(s, 2) for s in starts], start_median_s=round(statistics.median(starts), 2),
                  rss_median_mb=round(statistics.median(rss), 1), rss_max_mb=round(max(rss), 1), samples=len(rss),
                  seconds=args.seconds)
    return result


def _in_netns() -> bool:
    return os.environ.get("TABLEREF_BENCH_NETNS") == "1"


def _netns_possible() -> bool:
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip"):
        return False
    return subprocess.run(["unshare", "-n", "sh", "-c", NETNS_SETUP], capture_output=True).returncode == 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench service")
    ap.add_argument("--seconds", type=float, default=60.0, help="how long memory is sampled (default 60)")
    ap.add_argument("--starts", type=int, default=3, help="cold starts timed (default 3)")
    ap.add_argument("--no-mdns", action="store_true", help="measure without the mDNS announcement")
    ap.add_argument("--synthetic-only", action="store_true", help="leave out the comparison with a folder of frames")
    args = ap.parse_args(argv)
    if not args.no_mdns and not _in_netns() and _netns_possible():
        # the whole measurement in a private network namespace: mDNS on, no packet leaves the machine
        env = dict(os.environ, TABLEREF_BENCH_NETNS="1", PYTHONPATH=str(ROOT))
        cmd = [sys.executable, "-m", "bench.bench_service", *argv]
        return subprocess.run(["unshare", "-n", "sh", "-c", f'{NETNS_SETUP} && exec "$0" "$@"', *cmd], env=env, cwd=str(ROOT)).returncode
    mdns = _in_netns() and not args.no_mdns
    r = measure(args, mdns, "synthetic")
    print(f"service start-up to a served dashboard: median {r['start_median_s']} s over {len(r['start_s'])} cold starts "
          f"{r['start_s']} (target < {START_TARGET_S:g} s)")
    print(f"resident memory, synthetic camera on ({r.get('camera')}), one dashboard tab open, {r['seconds']:g} s: "
          f"median {r['rss_median_mb']} MB, max {r['rss_max_mb']} MB, high-water mark {r.get('hwm_mb')} MB "
          f"(target < {RSS_TARGET_MB:g} MB)")
    print(f"mDNS: {'on (private network namespace, loopback)' if mdns else 'off (no private network namespace here)'} "
          f"{r.get('announced', [])}; stop after SIGTERM: {r['stop_s']} s")
    print(json.dumps(r))
    results = [r]
    if not args.synthetic_only:
        f = measure(args, mdns, "photos")
        print(f"for comparison, the camera reading a folder of the same frames (no renderer in the process, as with the "
              f"Pi's camera): median {f['rss_median_mb']} MB, max {f['rss_max_mb']} MB, high-water mark {f.get('hwm_mb')} MB")
        print(json.dumps(f))
        results.append(f)
    ok = r["rss_max_mb"] < RSS_TARGET_MB and r["start_median_s"] < START_TARGET_S and all(x.get("camera_live") for x in results)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
