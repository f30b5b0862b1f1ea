"""Builders for Great Wall positions used by the tests (a uniquely named helper module)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any, Iterable, Sequence

from scorer.core.game import SetupOptions
from scorer.games.great_wall import GAME
from scorer.games.great_wall.data import KIND_INDEX, KINDS
from scorer.games.great_wall.moves import Draw
from scorer.games.great_wall.state import GreatWallState, Section
from scorer.games.great_wall.values import Card


def setup(players: Sequence[str] = ("blue", "red"), **extra: Any) -> GreatWallState:
    return GAME.setup(SetupOptions.from_json({"players": list(players), **extra}))


def position(
    players: Sequence[str] = ("blue", "red"),
    sections: Iterable[dict] = (),
    active: str = "blue",
    actions_done: int = 1,
    variants: Sequence[str] = (),
    hand_sizes: Sequence[int] | None = None,
    deck_sizes: Sequence[int] | None = None,
    **extra: Any,
) -> GreatWallState:
    """A mid-turn position at a real table (untracked cards).

    ``sections``: dicts with ``tokens`` (face-up values), ``cards`` (tuples ``(colour, kind)`` or
    ``(colour, "dragon", covered position)`` with positions counted from 1) and ``claimed``
    (``(colour, value)`` or ``(colour, value, card position)``). Sections not given are dead.
    ``active`` is in the middle of their turn with ``actions_done`` actions made, so a ``Draw`` by
    them (see ``end_turn``) ends the turn and starts the next player's progress check.
    """
    state = setup(players, variants=list(variants), **extra)
    idx = {p: i for i, p in enumerate(players)}
    n_sections = len(state.sections)
    given = list(sections)
    built = []
    used_tokens: Counter[int] = Counter()
    played = [[0] * len(KINDS) for _ in players]
    for s in range(n_sections):
        if s >= len(given):
            built.append(Section())
            continue
        spec = given[s]
        cards = []
        for c in spec.get("cards", ()):
            owner, kind = idx[c[0]], c[1]
            covers = c[2] - 1 if len(c) > 2 else -1
            cards.append(Card(owner, kind, covers))
            played[owner][KIND_INDEX[kind]] += 1
        tokens = tuple(sorted(spec.get("tokens", ()), reverse=True))
        used_tokens.update(tokens)
        claimed = spec.get("claimed")
        kw: dict[str, Any] = {}
        if claimed:
            who, value = idx[claimed[0]], claimed[1]
            used_tokens[value] += 1
            if len(claimed) > 2:
                card = claimed[2] - 1
            else:
                card = max(i for i, c in enumerate(cards) if c.owner == who)
            kw = {"claimed_owner": who, "claimed_value": value, "claimed_card": card}
        if "exception" in spec:
            kw["exception"] = idx[spec["exception"]]
        built.append(Section(tokens=tokens, cards=tuple(cards), **kw))
    supply = Counter(state.supply)
    supply.subtract(used_tokens)
    return replace(
        state,
        sections=tuple(built),
        supply=tuple(sorted(supply.elements())),
        played=tuple(tuple(p) for p in played),
        hand_sizes=tuple(hand_sizes) if hand_sizes is not None else (5,) * len(players),
        deck_sizes=tuple(deck_sizes) if deck_sizes is not None else (10,) * len(players),
        active=idx[active],
        actions_done=actions_done,
        checking=False,
        check_cursor=n_sections,
    )


def end_turn(state: GreatWallState) -> GreatWallState:
    """The active player draws as their last action: the turn ends, the next player's check runs."""
    assert state.actions_done == 1, "end_turn expects one action already made"
    return GAME.apply(state, Draw(state.players[state.active]))


def progress_of(state: GreatWallState, section: int = 0) -> dict[str, int]:
    return GAME.state_to_json(state)["sections"][section]["progress"]


def totals(state: GreatWallState) -> dict[str, int]:
    return {p.player: p.total for p in GAME.score(state).players}


def rules_of(state_or_violations) -> list[str]:
    return [v.rule for v in state_or_violations]
