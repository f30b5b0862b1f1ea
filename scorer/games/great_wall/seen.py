"""What a camera saw of how The Great Wall's cards lie, checked against a reading's moves.

An RFID pad under a section knows a dragon was laid there, not on which card, and that a first
token was laid on one of its claimant's cards, not on which; explain.py therefore offers every
possible card, the most valuable first. A camera over the table sees the card under the dragon
(``vision.card_reader``: its index stays visible above the dragon) and the card a token lies on,
and reports them in the section's ``SpaceReading.seen`` as ``"covers <owner>:<kind>"``
(``scorer.core.observation.covers_fact``) and ``"token-<v> on <owner>:<kind>"`` (``lies_on_fact``).
Among readings that explain the table equally well, the referee takes one that agrees.
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping, Sequence

from scorer.core.observation import COVERS
from scorer.games.great_wall.moves import Claim, GreatWallMove, Play, section_index
from scorer.games.great_wall.state import GreatWallState
from scorer.games.great_wall.values import covered_set

def seen_disagreements(state: GreatWallState, moves: Sequence[GreatWallMove],
                       seen: Mapping[str, tuple[str, ...]]) -> int:
    """How many dragon targets and claimed tokens of ``moves`` lie on another card than the camera
    saw (a claim that names no card, where the camera saw one, counts as one). Cards the
    section's earlier dragons already cover are taken out of what was seen first (a new dragon
    never lies on a covered card); a section of which nothing was seen disagrees with nothing."""
    out = 0
    for move in moves:
        if isinstance(move, Claim):
            out += _claim_disagrees(move, seen)
            continue
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


def _claim_disagrees(move: Claim, seen: Mapping[str, tuple[str, ...]]) -> int:
    """1 when the camera saw the claimed token on a card and the claim does not name that card."""
    prefix = f"token-{move.token} on "
    cards = [f[len(prefix):] for f in seen.get(move.section, ()) if f.startswith(prefix)]
    if not cards:
        return 0
    return 0 if move.on is not None and f"{move.on.owner}:{move.on.kind}" in cards else 1


__all__ = ["seen_disagreements"]
