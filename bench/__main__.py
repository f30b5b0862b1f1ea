"""Run the benchmarks: ``python -m bench [NAME ...] [-- extra args]``."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time

import bench


def _names() -> list[str]:
    return sorted(m.name[len("bench_"):] for m in pkgutil.iter_modules(bench.__path__) if m.name.startswith("bench_"))


def main(argv: list[str]) -> int:
    extra: list[str] = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1 :]
    wanted = argv or _names()
    unknown = [n for n in wanted if n not in _names()]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; available: {', '.join(_names())}", file=sys.stderr)
        return 2
    status = 0
    for name in wanted:
        print(f"== bench {name} ==", flush=True)
        t0 = time.perf_counter()
        rc = importlib.import_module(f"bench.bench_{name}").main(extra)
        print(f"== bench {name} done in {time.perf_counter() - t0:.1f} s (exit {rc}) ==\n", flush=True)
        status = status or rc
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
