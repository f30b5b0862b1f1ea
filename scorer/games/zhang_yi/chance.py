"""Zhang Yi's random stream for seeded games: one int in the game state (splitmix64), so a replay
of a seeded game is exact (``flow.settle`` draws from it)."""

from __future__ import annotations

MASK = (1 << 64) - 1


def rng_next(x: int) -> tuple[int, int]:
    """splitmix64: a pure, fast generator whose whole state is one int kept in the game state."""
    x = (x + 0x9E3779B97F4A7C15) & MASK
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return x, z ^ (z >> 31)


def rng_below(x: int, n: int) -> tuple[int, int]:
    x, z = rng_next(x)
    return x, z % n


def rng_shuffle(x: int, items: tuple[int, ...] | list[int]) -> tuple[int, tuple[int, ...]]:
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        x, j = rng_below(x, i + 1)
        out[i], out[j] = out[j], out[i]
    return x, tuple(out)
