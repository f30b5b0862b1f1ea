"""Moves whose order the referee inferred: kept provisional until a person confirms the order or
chooses another one (scorer.referee.reconciler.OrderQuestion says when that happens).

A *group* is the run of moves accepted from one inferred order, named by the stored sequence
number of its first move. Its first move's stored data carries the inferred order (``chosen``,
one entry per turn: player and moves as JSON) and the ``alternatives``; each later move of the
same order carries ``{"group": G, "step": i}``. Two stored events close a group:
``order_confirmed`` and ``order_changed`` (the group's moves replaced by the same number of turns
of an alternative). Pure bookkeeping: the session folds, the table decides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from scorer.core.game import Game
from scorer.core.types import Message
from tableref.texts import join_messages

ORDER_CONFIRMED = "order_confirmed"
ORDER_CHANGED = "order_changed"

_IGNORED = ("cards", "draws", "at")  # what the table cannot show: not part of a step's identity


@dataclass
class Provisional:
    group: int
    chosen: list[dict[str, Any]]
    alternatives: list[list[dict[str, Any]]]
    seqs: list[int] = field(default_factory=list)

    def next_step(self) -> dict[str, Any] | None:
        """The next turn of the inferred order not yet accepted, if any."""
        n = len(self.seqs)
        return self.chosen[n] if n < len(self.chosen) else None

    def to_json(self) -> dict[str, Any]:
        return {"group": self.group, "chosen": self.chosen, "alternatives": self.alternatives, "recorded": len(self.seqs)}


def steps_json(game: Game, steps: Sequence[Any]) -> list[dict[str, Any]]:
    """``reconciler.Step`` values as stored JSON."""
    return [{"player": s.player, "moves": [game.move_to_json(m) for m in s.moves], "complete": s.complete} for s in steps]


def _key(moves: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in m.items() if k not in _IGNORED} for m in moves]


def same_step(moves_json: Sequence[Mapping[str, Any]], step: Mapping[str, Any]) -> bool:
    """The accepted moves are this step of an order (what the table showed, cards aside)."""
    return _key(moves_json) == _key(step["moves"])


def describe_steps(game: Game, steps: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for i, step in enumerate(steps):
        parts = [game.describe_move(game.move_from_json(m)) for m in step["moves"]]
        text = join_messages(parts)
        out.append({"n": i + 1, "player": step.get("player"), "description": text.to_json()})
    return out


def question_json(game: Game, p: Provisional) -> dict[str, Any]:
    """What the dashboard shows: the inferred order, the alternatives, and what to do."""
    return {
        "group": p.group,
        "recorded": len(p.seqs),
        "steps": describe_steps(game, p.chosen),
        "alternatives": [{"index": k, "steps": describe_steps(game, alt)} for k, alt in enumerate(p.alternatives)],
        "message": Message.t('tableref.move_order.several_moves_appeared_at_once').to_json(),
    }
