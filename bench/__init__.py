"""Benchmarks. ``python -m bench`` runs them all; ``python -m bench NAME`` runs one.

Each ``bench/bench_<name>.py`` has ``main(argv) -> int`` and prints its own figures. Machines here
are shared and noisy: compare ratios within one run rather than absolute numbers across runs.
"""
