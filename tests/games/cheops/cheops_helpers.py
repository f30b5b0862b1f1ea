"""Builders for Cheops positions used by the tests (imported as a plain module, no conftest)."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable, Mapping

from scorer.core.game import SetupOptions
from scorer.games.cheops import GAME
from scorer.games.cheops.data import FACES, SPACE_INDEX, PriceTable, entry_from_json
from scorer.games.cheops.state import EMPTY, LAW_HIDDEN, NEIGHBOUR_TILE, CheopsState, law_code

PLAYERS = ("blue", "red", "green")


def fresh(players: Iterable[str] = PLAYERS, variants: Iterable[str] = (), seed: int = 1, **extra) -> CheopsState:
    setup = {"players": list(players), "variants": list(variants), "seed": seed, **extra}
    return GAME.setup(SetupOptions.from_json(setup))


def table(entries: list) -> PriceTable:
    return PriceTable("T-test", "I", tuple(entry_from_json(e) for e in entries), provisional=False)


def position(
    state: CheopsState | None = None,
    *,
    tiles: Mapping[str, str] | None = None,
    content: Mapping[str, object] | None = None,
    active: str | None = None,
    cash: Mapping[str, int] | None = None,
    kept: Mapping[str, Mapping[str, int]] | None = None,
    held: Mapping[str, Iterable[int]] | None = None,
    hands: Mapping[str, str] | None = None,
    covered: Mapping[str, int] | None = None,
    tables: Mapping[str, list] | None = None,
    table_law: Mapping[str, int] | None = None,
    market_laws: tuple[int, ...] | None = None,
    law3: bool | None = None,
) -> CheopsState:
    """A position: ``tiles`` space -> face ("A".."D") or "neighbour"; ``content`` space -> colour,
    law number, "law" (face down, unknown) or None (nothing); money, holdings and tables by name."""
    s = state or fresh()
    players = s.players
    colours = s.colours
    tile = list(s.tile)
    placer = list(s.placer)
    cont = list(s.content)
    for space, t in (tiles or {}).items():
        i = SPACE_INDEX[space]
        tile[i] = NEIGHBOUR_TILE if t == "neighbour" else FACES.index(t)
        placer[i] = 0
        cont[i] = EMPTY
    for space, c in (content or {}).items():
        i = SPACE_INDEX[space]
        if c is None:
            cont[i] = EMPTY
        elif c == "law":
            cont[i] = LAW_HIDDEN
        elif isinstance(c, int):
            cont[i] = law_code(c)
        else:
            cont[i] = colours.index(c)
    changes: dict = {"tile": tuple(tile), "placer": tuple(placer), "content": tuple(cont)}
    if active is not None:
        changes["active"] = players.index(active)
    if cash is not None:
        changes["cash"] = tuple(cash.get(p, 0) for p in players)
    if kept is not None:
        changes["kept"] = tuple(tuple(kept.get(p, {}).get(c, 0) for c in colours) for p in players)
    if held is not None:
        changes["held"] = tuple(tuple(sorted(held.get(p, ()))) for p in players)
    if hands is not None:
        hs, sizes = list(s.hands), list(s.hand_size)
        for p, faces in hands.items():
            i = players.index(p)
            hs[i] = tuple(faces.count(f) for f in FACES)
            sizes[i] = len(faces)
        changes["hands"] = tuple(hs)
        changes["hand_size"] = tuple(sizes)
    if covered is not None:
        changes["covered"] = tuple(covered.get(c, 0) for c in colours)
    if tables is not None:
        ts = list(s.tables)
        for c, entries in tables.items():
            ts[colours.index(c)] = table(entries)
        changes["tables"] = tuple(ts)
    if table_law is not None:
        changes["table_law"] = tuple(table_law.get(c, 0) for c in colours)
    if market_laws is not None:
        changes["market_laws"] = market_laws
    if law3 is not None:
        changes["law3"] = law3
    return replace(s, **changes)


def rules_broken(state, move) -> set[str]:
    return {v.rule for v in GAME.violations(state, move)}
