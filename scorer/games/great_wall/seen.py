"""What a camera saw of how The Great Wall's cards lie, checked against a reading's moves.

An RFID pad under a section knows a dragon was laid there, not on which card; explain.py therefore
offers every possible target, the most valuable first. A camera over the table sees the card under
the dragon (``vision.card_reader``: its index stays visible above the dragon) and reports it as
``"covers <owner>:<kind>"`` (``scorer.core.observation.covers_fact``) in the section's
``SpaceReading.seen``; among readings that explain the table equally well, the referee takes one
whose dragons lie where the camera saw them.
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping, Sequence

from scorer.core.observation import COVERS
from scorer.games.great_wall.moves import GreatWallMove, Play, section_index
from scorer.games.great_wall.state import GreatWallState
from scorer.games.great_wall.values import covered_set


def seen_disagreements(state: GreatWallState, moves: Sequence[GreatWallMove],
                       seen: Mapping[str, tuple[str, ...]]) -> int:
    """How many dragon targets of ``moves`` lie on another card than the camera saw. Cards the
    section's earlier dragons already cover are taken out of what was seen first (a new dragon
    never lies on a covered card); a section of which nothing was seen disagrees with nothing."""
    out = 0
    for move in moves:
        if not isinstance(move, Play) or not move.targets:
            continue
        facts = [f[len(COVERS):] for f in seen.get(move.section, ()) if f.startswith(COVERS)]
        if not facts:
            continue
        free = Counter(facts)
        s = section_index(move.section)
        if s is not None and s < len(state.sections):
            sec = state.sections[s]
            for i in covered_set(sec.cards):
                free[f"{state.players[sec.cards[i].owner]}:{sec.cards[i].kind}"] -= 1
        for t in move.targets:
            key = f"{t.owner}:{t.kind}"
            if free[key] > 0:
                free[key] -= 1
            else:
                out += 1
    return out


__all__ = ["seen_disagreements"]
