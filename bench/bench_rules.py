"""Rules benchmark: replay random complete games through each engine.

For every game whose package has ``simulate.random_game(seed, players)``, generate GAMES random
complete games (generation is not timed), then time (a) ``violations`` + ``apply_unchecked`` per
move over the replays and (b) the final scoring of each end position.

    python -m bench rules                 # 1000 China games (4 players) + the other games
    python -m bench rules -- --games 200 --only china
"""

from __future__ import annotations

import argparse
import gc
import importlib
import statistics
import time

from scorer.core.registry import available_ids, get_game

PLAYERS = {"china": 4, "great_wall": 4, "cheops": 4, "ming": 4, "zhang_yi": 2}
FINAL_SCORING = {"china": ("scorer.games.china.engine", "final_scoring"), "cheops": ("scorer.games.cheops.reporting", "final_scoring"), "ming": ("scorer.games.ming.engine", "final_scoring"), "zhang_yi": ("scorer.games.zhang_yi.engine", "final_scoring")}
FINAL_SCORING["great_wall"] = ("scorer.games.great_wall.engine", "final_scoring")


def bench_game(gid: str, games: int) -> None:
    try:
        sim = importlib.import_module(f"scorer.games.{gid}.simulate")
    except ModuleNotFoundError:
        print(f"{gid}: no simulate module, skipped")
        return
    game = get_game(gid)
    players = PLAYERS.get(gid, 4)
    t0 = time.perf_counter()
    played = [sim.random_game(seed, players) for seed in range(games)]
    gen = time.perf_counter() - t0
    from scorer.core.game import SetupOptions

    # The generated games stay in memory for the replay; without this, the garbage collector's
    # full passes scan all of them and bill that to the moves (a referee holds one game, not 1000).
    gc.collect()
    gc.freeze()

    per_move: list[float] = []
    total_moves = 0
    t_all = 0.0
    for setup, moves, _ in played:
        state = game.setup(SetupOptions.from_json(setup))
        t = time.perf_counter()
        for move in moves:
            if game.violations(state, move):
                raise SystemExit(f"{gid}: replay found an illegal move; the simulator is wrong")
            state = game.apply_unchecked(state, move)
        dt = time.perf_counter() - t
        t_all += dt
        total_moves += len(moves)
        per_move.append(dt / max(1, len(moves)))
    final_times = []
    if gid in FINAL_SCORING:
        mod, fn = FINAL_SCORING[gid]
        scoring = getattr(importlib.import_module(mod), fn)
        finals = [st for _, _, st in played]
        for st in finals:
            t = time.perf_counter()
            scoring(st)
            final_times.append(time.perf_counter() - t)
    else:
        finals = [st for _, _, st in played]
        for st in finals:
            t = time.perf_counter()
            game.score(st)
            final_times.append(time.perf_counter() - t)
    gc.unfreeze()
    print(f"{gid}: {games} random complete {players}-player games, {total_moves} moves (generation {gen:.1f} s, not timed below; generated games frozen out of GC scans)")
    print(f"  violations+apply per move: mean {t_all / total_moves * 1e6:.1f} us, "
          f"median game {statistics.median(per_move) * 1e6:.1f} us, worst game {max(per_move) * 1e6:.1f} us")
    print(f"  final scoring per game:    mean {statistics.mean(final_times) * 1e3:.3f} ms, "
          f"p95 {sorted(final_times)[int(0.95 * (len(final_times) - 1))] * 1e3:.3f} ms, max {max(final_times) * 1e3:.3f} ms")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench rules")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--only", action="append", help="game id (repeatable)")
    args = ap.parse_args(argv)
    for gid in args.only or available_ids():
        bench_game(gid, args.games)
    return 0
