"""Venue at scale: N tables publishing a move every few seconds through one mosquitto to one
``tableref venue``, watched by a real Chromium on the venue page.

Processes: mosquitto; the venue service (``python -m tableref venue``, measured: RSS and CPU from
/proc); the tables (``python -m tableref.venue.simulate``: N fake tables with a real rules engine,
each with the real ``MqttPublisher``, a legal China move every ``--interval`` s, spread evenly);
headless Chromium (Playwright) on the venue page. Every move's ``at`` is the wall-clock time its
``move_accepted`` event was published on the table's bus; a MutationObserver in the page records
the wall-clock time (``performance.timeOrigin + performance.now()``) at which each tile's
``data-version`` attribute is set, which venue.js does after the tile's new content is in the DOM.
Latency = first DOM record of that table with a version >= the move's version - the move's ``at``.
All on one host, one clock.

    python -m bench venue                                # 50 tables, a move every 2 s each, 60 s measured
    python -m bench venue -- --tables 10 --duration 20
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], p: float) -> float:
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def start_mosquitto(tmp: Path) -> tuple[subprocess.Popen, int]:
    exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not os.access(exe, os.X_OK):
        raise SystemExit("bench venue needs mosquitto (sudo apt-get install mosquitto; scripts/system-deps.sh does it)")
    port = free_port()
    conf = tmp / "mosquitto.conf"
    lines = [f"listener {port} 127.0.0.1", "persistence false", "allow_anonymous true", "max_queued_messages 10000"]
    if os.geteuid() == 0:
        lines.append("user root")
    conf.write_text("\n".join(lines) + "\n")
    proc = subprocess.Popen([exe, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=open(tmp / "mosquitto.log", "wb"))
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit(f"mosquitto did not start: {(tmp / 'mosquitto.log').read_text()[-300:]}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="bench venue")
    ap.add_argument("--tables", type=int, default=50)
    ap.add_argument("--interval", type=float, default=2.0, help="seconds between two moves at one table (default 2)")
    ap.add_argument("--warmup", type=float, default=10.0, help="seconds played before measuring (default 10)")
    ap.add_argument("--duration", type=float, default=60.0, help="seconds measured (default 60)")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args(argv)

    from playwright.sync_api import sync_playwright

    from tableref.venue.simulate import DOM_VERSION_LOG, page_latencies

    tmp = Path(tempfile.mkdtemp(prefix="bench-venue-"))
    procs: list[subprocess.Popen] = []
    broker, port = start_mosquitto(tmp)
    procs.append(broker)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    try:
        venue = subprocess.Popen([sys.executable, "-m", "tableref", "venue", "--broker", f"127.0.0.1:{port}", "--host", "127.0.0.1",
                                  "--port", "0", "--data-dir", str(tmp / "venue"), "--name", "Bench hall", "--threads", "16"],
                                 stdout=subprocess.PIPE, stderr=open(tmp / "venue.log", "wb"), text=True, env=env)
        procs.append(venue)
        url = None
        assert venue.stdout is not None
        for line in venue.stdout:
            if line.startswith("http://"):
                url = line.strip()
                break
        if url is None:
            raise SystemExit(f"the venue did not start: {(tmp / 'venue.log').read_text()[-500:]}")
        threading.Thread(target=lambda: [None for _ in venue.stdout], daemon=True).start()  # type: ignore[union-attr]
        rss_idle = rss_kib(venue.pid)

        moves_log = tmp / "moves.jsonl"
        total = args.warmup + args.duration
        tables = subprocess.Popen([sys.executable, "-m", "tableref.venue.simulate", "--broker", f"127.0.0.1:{port}",
                                   "--tables", str(args.tables), "--interval", str(args.interval), "--duration", str(total),
                                   "--log", str(moves_log)], stdout=subprocess.DEVNULL, stderr=open(tmp / "tables.log", "wb"),
                                  env=env)
        procs.append(tables)
        t_start = time.time()
        load_start = os.getloadavg()

        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=args.chromium, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1920, "height": 1080})
            page.add_init_script(DOM_VERSION_LOG)
            page.goto(url)
            page.wait_for_function(f"() => document.querySelectorAll('article.tile').length === {args.tables}", timeout=30_000)
            tiles_after = time.time() - t_start
            # measure from the end of the warm-up to the end of the run
            time.sleep(max(0.0, t_start + args.warmup - time.time()))
            measure_from = time.time()
            cpu0, wall0 = cpu_seconds(venue.pid), time.monotonic()
            broker_cpu0, tables_cpu0 = cpu_seconds(broker.pid), cpu_seconds(tables.pid)
            rss_samples = []
            tables_cpu1 = tables_cpu0
            while tables.poll() is None:
                rss_samples.append(rss_kib(venue.pid))
                try:
                    tables_cpu1 = cpu_seconds(tables.pid)
                except (OSError, IndexError):  # it just ended
                    break
                time.sleep(1.0)
            cpu1, wall1 = cpu_seconds(venue.pid), time.monotonic()
            time.sleep(1.0)  # the last moves reach the page
            dom = page.evaluate("window.__venueLog")
            tiles_shown = page.evaluate("document.querySelectorAll('article.tile').length")
            browser.close()
        load_end = os.getloadavg()
        moves = [json.loads(line) for line in moves_log.read_text().splitlines() if line.strip()]
        lat, missing = page_latencies(moves, dom, measure_from)
        measured = sum(1 for m in moves if m["at"] >= measure_from)
        run = wall1 - wall0
        print(f"tables: {args.tables}, a move every {args.interval:g} s each ({args.tables / args.interval:.0f} moves/s "
              f"through one mosquitto); warm-up {args.warmup:g} s, measured {run:.0f} s")
        print(f"all {args.tables} tiles on the page {tiles_after:.1f} s after the tables started; tiles at the end: {tiles_shown}")
        if lat:
            print(f"table event -> venue page DOM (n={len(lat)} of {measured} moves, {missing} not shown): "
                  f"p50 {statistics.median(lat):.1f} ms   p95 {pct(lat, 95):.1f} ms   p99 {pct(lat, 99):.1f} ms   "
                  f"max {lat[-1]:.1f} ms")
        print(f"venue service RSS: idle {rss_idle / 1024:.1f} MiB   during the run max {max(rss_samples) / 1024:.1f} MiB   "
              f"end {rss_samples[-1] / 1024:.1f} MiB")
        print(f"venue service CPU: {cpu1 - cpu0:.1f} s in {run:.0f} s ({100 * (cpu1 - cpu0) / run:.0f}% of one core); "
              f"mosquitto {100 * (cpu_seconds(broker.pid) - broker_cpu0) / run:.0f}%; "
              f"the {args.tables} simulated tables (one process) {100 * (tables_cpu1 - tables_cpu0) / run:.0f}%")
        print(f"load average: {load_start[0]:.2f} at the start, {load_end[0]:.2f} at the end ({os.cpu_count()} CPUs)")
        ok = bool(lat) and missing == 0 and tiles_shown == args.tables and pct(lat, 95) < 200 and max(rss_samples) < 200 * 1024
        print("targets (p95 < 200 ms, RSS < 200 MB, every move shown): " + ("met" if ok else "NOT met"))
        return 0 if ok else 1
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
        shutil.rmtree(tmp, ignore_errors=True)
