"""Dashboard fan-out: N concurrent server-sent-event clients on loopback.

The dashboard (waitress + Flask, ``web.server``) runs in a subprocess on a fake table that plays
China moves at a fixed rate; every move publishes two events (``move_accepted`` and a full
``state`` snapshot of ~8 KB). The clients are plain sockets in this process, watched by one
selector thread, so the clients themselves add almost nothing to the measured delay.

Reported:
* fan-out latency = time a client received an event - time the event was published (both on the
  same host clock), over every event and every client: p50, p95, p99, max;
* server resident memory (VmRSS of the server process): idle, with N clients connected, peak
  during the run; the server's CPU time during the run;
* that every client received every event, in order.

    python -m bench sse                       # 50 clients, 300 moves at 20 moves/s
    python -m bench sse -- --clients 100 --moves 200 --rate 10
"""

from __future__ import annotations

import argparse
import json
import os
import selectors
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

SETUP = {"players": ["blue", "green", "red", "yellow"], "board": "china-a"}


# -- the server side (a subprocess) --------------------------------------------------------------

def serve(threads: int) -> int:
    """Start the dashboard on a free port, print it, then obey stdin: ``go MOVES RATE`` / ``quit``."""
    import random

    from web.app import create_app
    from web.fake import FakeTableService
    from web.fake_demo import random_legal_move
    from web.server import make_server

    service = FakeTableService(setup=SETUP)
    app = create_app(service, data_dir=tempfile.mkdtemp(prefix="bench-sse-"), config={"SSE_KEEPALIVE": 5.0})
    server = make_server(app, "127.0.0.1", 0, threads=threads).start()
    if not server.wait_ready(10):
        return 1
    print(server.port, flush=True)
    rng = random.Random(1)
    for line in sys.stdin:
        parts = line.split()
        if not parts or parts[0] == "quit":
            break
        if parts[0] == "streams":
            print(app.extensions["tableref"].streams, flush=True)
        elif parts[0] == "go":
            moves, rate = int(parts[1]), float(parts[2])
            first = service.events().last_id + 1
            start = time.monotonic()
            for i in range(moves):
                time.sleep(max(0.0, start + i / rate - time.monotonic()))
                move = random_legal_move(service, rng)
                if move is None:
                    service.new_game(dict(SETUP), actor="bench")
                else:
                    service.play(move)
            print(f"{first} {service.events().last_id}", flush=True)
    server.stop()
    return 0


# -- the measuring side ----------------------------------------------------------------------------

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


class Client:
    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.sock.sendall(b"GET /api/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        self.sock.setblocking(False)
        self.buf = b""
        self.chunks: list[tuple[float, bytes]] = []  # (receive time, bytes): parsed after the run

    def events(self) -> list[tuple[float, dict[str, Any]]]:
        """(receive time, event) for every complete SSE data line, in order."""
        out = []
        pending = b""
        for t, chunk in self.chunks:
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                if line.startswith(b"data: {\"id\""):
                    out.append((t, json.loads(line[6:])))
        return out


def reader(sel: selectors.BaseSelector, stop: threading.Event) -> None:
    while not stop.is_set():
        for key, _ in sel.select(timeout=0.1):
            client: Client = key.data
            now = time.time()
            try:
                data = client.sock.recv(1 << 16)
            except BlockingIOError:
                continue
            if data:
                client.chunks.append((now, data))
            else:
                sel.unregister(client.sock)


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench sse")
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--moves", type=int, default=300)
    ap.add_argument("--rate", type=float, default=20.0, help="moves per second (2 events each)")
    ap.add_argument("--threads", type=int, default=0, help="server threads (default: clients + 16)")
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    threads = args.threads or args.clients + 16
    if args.serve:
        return serve(threads)

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.getcwd(), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-m", "bench.bench_sse", "--serve", "--threads", str(threads)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        port = int(proc.stdout.readline())
        time.sleep(0.5)
        idle = rss_kib(proc.pid)
        sel = selectors.DefaultSelector()
        clients = []
        for _ in range(args.clients):
            c = Client(port)  # no Last-Event-ID: live from now on
            sel.register(c.sock, selectors.EVENT_READ, c)
            clients.append(c)
        stop = threading.Event()
        t = threading.Thread(target=reader, args=(sel, stop), daemon=True)
        t.start()
        deadline = time.monotonic() + 20
        while True:
            proc.stdin.write("streams\n")
            proc.stdin.flush()
            if int(proc.stdout.readline()) >= args.clients:
                break
            if time.monotonic() > deadline:
                print(f"only some of {args.clients} streams opened", file=sys.stderr)
                return 1
            time.sleep(0.1)
        time.sleep(0.5)
        connected = rss_kib(proc.pid)
        cpu0 = cpu_seconds(proc.pid)
        peak = [connected]
        sampling = threading.Event()

        def sample() -> None:
            while not sampling.is_set():
                peak[0] = max(peak[0], rss_kib(proc.pid))
                time.sleep(0.2)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        t0 = time.monotonic()
        proc.stdin.write(f"go {args.moves} {args.rate}\n")
        proc.stdin.flush()
        first, last = (int(x) for x in proc.stdout.readline().split())
        run = time.monotonic() - t0
        cpu = cpu_seconds(proc.pid) - cpu0
        time.sleep(1.0)  # let the last events arrive
        sampling.set()
        stop.set()
        t.join(2)
        expected = list(range(first, last + 1))
        lat_all: list[float] = []
        lat_state: list[float] = []
        complete = 0
        state_bytes = 0
        for c in clients:
            evs = [(rt, e) for rt, e in c.events() if first <= e["id"] <= last]
            if [e["id"] for _, e in evs] == expected:
                complete += 1
            for rt, e in evs:
                lat_all.append((rt - e["at"]) * 1000)
                if e["type"] == "state":
                    lat_state.append((rt - e["at"]) * 1000)
                    state_bytes = max(state_bytes, len(json.dumps(e)))
            c.sock.close()
        n = len(expected)
        print(f"clients: {args.clients}   server threads: {threads}   moves: {args.moves} at {args.rate:g}/s "
              f"-> {n} events in {run:.1f} s ({n / run:.0f} events/s, {n * args.clients / run:.0f} deliveries/s)")
        print(f"state event size: ~{state_bytes / 1024:.1f} KiB")
        print(f"clients that got every event in order: {complete}/{args.clients}")
        for name, lat in (("all events", lat_all), ("state events", lat_state)):
            if lat:
                print(f"fan-out latency ({name}, n={len(lat)}): p50 {statistics.median(lat):.2f} ms   "
                      f"p95 {pct(lat, 95):.2f} ms   p99 {pct(lat, 99):.2f} ms   max {max(lat):.2f} ms")
        print(f"server RSS: idle {idle / 1024:.1f} MiB   with {args.clients} clients {connected / 1024:.1f} MiB "
              f"(+{(connected - idle) / max(1, args.clients):.0f} KiB/client)   peak during run {peak[0] / 1024:.1f} MiB")
        print(f"server CPU during the run: {cpu:.2f} s ({100 * cpu / run:.0f}% of one core)")
        return 0 if complete == args.clients else 1
    finally:
        if proc.stdin is not None and proc.poll() is None:
            try:
                proc.stdin.write("quit\n")
                proc.stdin.flush()
            except BrokenPipeError:
                pass
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
