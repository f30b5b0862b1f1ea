"""The live referee, end to end: emulated firmware -> serial link -> stabiliser -> reconciler ->
session (SQLite, durable commit) -> published state.

A complete China game (seeded random legal play from ``scorer.games.china.simulate``, three
players) is played on the emulated sensor board on a pseudo-terminal, one move at a time, through
the real runtime. For every piece put down it measures

    latency = (first STATE event whose sensed board shows the piece, as a bus subscriber receives it)
              - (the moment the emulated firmware emitted the tag's arrival frame)

and reports p50/p95/p99 of that latency *beyond the stabilisation window* (latency - settle), plus
the process's resident memory after the game (runtime, dashboard and the emulated firmware in one
process: an upper bound for the service alone).

    python -m bench referee [-- --seed 3 --settle 0.5 --moves 400 --no-web --camera]

Aim (issue 5): p95 under 50 ms beyond the stabilisation window; under 150 MB resident.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any


def _rss_mb() -> tuple[float, float]:
    """(VmRSS, VmHWM) in MB from /proc, or (maxrss, maxrss) where /proc is missing."""
    try:
        fields = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":" in line)
        return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024
    except (OSError, KeyError, ValueError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return peak, peak


def _pct(values: list[float], p: float) -> float:
    s = sorted(values)
    if not s:
        return float("nan")
    k = (len(s) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="bench referee")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--settle", type=float, default=0.5, help="stabilisation window (default 0.5 s, the product default)")
    ap.add_argument("--moves", type=int, default=400, help="stop after this many moves (default: the whole game)")
    ap.add_argument("--no-web", action="store_true", help="leave the dashboard out of the memory figure")
    ap.add_argument("--camera", action="store_true", help="also run the synthetic camera (slow on a small machine)")
    args = ap.parse_args(argv)

    from scorer.core import Piece
    from scorer.games.china.moves import Exchange, Place
    from scorer.games.china.simulate import random_game
    from tableref.demo import build_demo, wait_until
    from tableref.dashboard import start_dashboard

    setup, sim_moves, final = random_game(args.seed, players=3)
    tmp = Path(tempfile.mkdtemp(prefix="bench-referee-"))
    emitted: dict[bytes, float] = {}
    demo = build_demo(tmp, settle=args.settle, complete_grace=0.05, quiet_timeout=0.3, camera=args.camera,
                      players=tuple(setup["players"]))
    if demo.runtime.setup["players"] != setup["players"]:
        raise SystemExit("the demo table and the simulated game disagree on the players")

    def on_emit(e: Any) -> None:
        if e.present:
            emitted.setdefault(bytes(e.uid), e.at)

    demo.table.emulator.on_emit = on_emit
    rt = demo.runtime
    waiting: dict[tuple[str, Piece], tuple[bytes, int]] = {}  # (space, piece) -> (uid, count expected)
    latencies: list[float] = []  # at publish (the event's own time stamp)
    delivered: list[float] = []  # when the subscriber thread got it
    same_clock = time.get_clock_info("perf_counter").implementation == time.get_clock_info("monotonic").implementation
    lock = threading.Lock()
    stop = threading.Event()

    def watch() -> None:
        sub = rt.events().subscribe()
        while not stop.is_set():
            ev = sub.get(timeout=0.1)
            if ev is None or ev.type != "state":
                continue
            now = time.perf_counter()
            sensed = ev.data["sensors"]["sensed"]
            with lock:
                for key, (uid, count) in list(waiting.items()):
                    space, piece = key
                    have = sum(r["count"] for r in sensed.get(space, []) if r["owner"] == piece.owner and r["kind"] == piece.kind)
                    if have >= count and uid in emitted:
                        published = ev.at if same_clock else now
                        latencies.append(published - emitted[uid] - args.settle)
                        delivered.append(now - emitted[uid] - args.settle)
                        del waiting[key]
        sub.close()

    rt.start()
    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    dashboard = None
    if not args.no_web:
        dashboard, _note = start_dashboard(rt, host="127.0.0.1", port=0, data_dir=str(tmp / "web"), initial_pin="2468")
    ok = wait_until(lambda: rt.devices()["sensor_board"]["state"] == "connected", 20)
    if args.camera:
        ok = ok and wait_until(lambda: rt.devices()["camera"]["state"] == "ok", 60)
    if not ok:
        print("devices did not come up")
        return 1
    t0 = time.perf_counter()
    applied = 0
    end_declared = False
    from scorer.core.game import SetupOptions
    from scorer.core.registry import get_game

    game = get_game("china")
    state = game.setup(SetupOptions.from_json(setup))
    try:
        for move in sim_moves[: args.moves]:
            if isinstance(move, Place):
                for pl in move.placements:
                    piece = Piece("neutral", pl.kind) if pl.kind == "fortress" else Piece(move.player, pl.kind)
                    uid_hex = demo.table.uids[piece][0]
                    have = sum(n for (s, p), uids in demo.table.placed.items() if s == pl.space and p == piece for n in [len(uids)])
                    with lock:
                        waiting[(pl.space, piece)] = (bytes.fromhex(uid_hex), have + 1)
                    demo.table.put(pl.space, piece)
                    time.sleep(0.02)
            elif isinstance(move, Exchange):
                res = rt.signal_turn_done("bench")
                if not res.ok:
                    print(f"turn done refused at move {applied + 1}: {res.message.en}")
                    return 1
            state = game.apply(state, move)
            applied += 1
            if not wait_until(lambda: rt.snapshot()["moves"] == applied + int(end_declared) and rt.snapshot()["pending"] is None, 20):
                snap = rt.snapshot()
                print(f"move {applied} was not accepted: flag={snap['flag']} pending={snap['pending']}")
                return 1
            if state.end_triggered and not end_declared and state.finished is None:
                res = rt.declare({"type": "pile_exhausted"}, "bench")
                end_declared = res.ok
                if not res.ok:
                    print(f"declaration refused: {res.message.en}")
                    return 1
        wait_until(lambda: not waiting, 5)
        elapsed = time.perf_counter() - t0
        snap = rt.snapshot()
        rss, hwm = _rss_mb()
    finally:
        stop.set()
        watcher.join(2)
        if dashboard is not None:
            dashboard.stop()
        demo.close()
    ms = [x * 1000 for x in latencies]
    ms_sub = [x * 1000 for x in delivered]
    places = [m for m in sim_moves[:applied] if isinstance(m, Place)]
    print(f"game: seed {args.seed}, {applied} moves ({len(places)} placements, {sum(len(m.placements) for m in places)} pieces), "
          f"{len(ms)} arrivals measured (two equal pieces on one space in one move count once), "
          f"game over={snap['outcome'] is not None}, {elapsed:.1f} s")
    print(f"settle window: {args.settle * 1000:.0f} ms; camera: {'synthetic' if args.camera else 'off'}; "
          f"dashboard: {'off' if args.no_web else 'on'}")
    if ms:
        print(f"latency beyond the settle window (firmware emit -> state published): "
              f"p50 {_pct(ms, 0.5):.1f} ms, p95 {_pct(ms, 0.95):.1f} ms, p99 {_pct(ms, 0.99):.1f} ms, "
              f"max {max(ms):.1f} ms, mean {statistics.fmean(ms):.1f} ms")
        print(f"  ... as received by a bus subscriber thread: p50 {_pct(ms_sub, 0.5):.1f} ms, p95 {_pct(ms_sub, 0.95):.1f} ms, "
              f"p99 {_pct(ms_sub, 0.99):.1f} ms")
    try:
        load = os.getloadavg()
        print(f"machine load average during the run: {load[0]:.2f} (1 min), {os.cpu_count()} CPUs")
    except OSError:
        pass
    print(f"resident memory after the game: {rss:.1f} MB (peak {hwm:.1f} MB) -- runtime, "
          f"{'dashboard, ' if not args.no_web else ''}emulated firmware and this harness in one process")
    print(f"aim: p95 < 50 ms beyond settle: {'met' if ms and _pct(ms, 0.95) < 50 else 'NOT met'}; "
          f"< 150 MB resident: {'met' if rss < 150 else 'NOT met'}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    import sys

    raise SystemExit(main(sys.argv[1:]))
