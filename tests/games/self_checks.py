"""Engines that check themselves: the checks every game's self-check tests run on random reachable states.

Each game's ``test_<game>_self_checks.py`` plays random games with its simulator and, at sampled
states, hands this module the state and a list of *candidate* moves from a generator that proposes
legal and deliberately illegal moves. The checks are the same for every game (issue 13):

* ``legal_moves(state)`` yields only moves without violations, and every candidate without
  violations is among them (soundness and completeness against an independent generator);
* an over game has no legal move; a running game that awaits a move has at least one;
* every refused candidate names a rule id with English and Chinese texts, documented in the
  game's docs page;
* moves survive their JSON round trip, and a state rebuilt by replaying its record through JSON
  equals the state reached by play.

Game-specific checks (multi-step turns, turn order per round, the rulebook's end condition) live in
each game's test file. ``--long`` (see tests/conftest.py) raises the number of games for a soak run.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import Any, Iterable

from scorer.core.game import Game, SetupOptions
from scorer.core.types import Violation
from scorer.records import parse_record, replay, to_record

DOCS = Path(__file__).resolve().parents[2] / "docs"
DOC_PAGES = {"china": "china.md", "cheops": "cheops.md", "great_wall": "great-wall.md", "ming": "ming.md", "zhang_yi": "zhang-yi.md"}
RULE_ID = re.compile(r"^[a-z0-9_]+(\.[a-z0-9_]+)+$")
# Rule ids every engine shares (documented once in docs/conventions.md or docs/records.md).
SHARED_RULE_IDS = ("game.over",)


@dataclass
class Tally:
    """What a self-check run looked at, printed by the tests so the note can quote it."""

    games: int = 0
    states: int = 0
    legal_moves: int = 0
    candidates: int = 0
    refused: int = 0
    rule_ids: set[str] = field(default_factory=set)

    def line(self, game_id: str, seconds: float) -> str:
        return (f"self-check {game_id}: {self.games} games, {self.states} states, {self.legal_moves} legal moves, "
                f"{self.candidates} candidates ({self.refused} refused, {len(self.rule_ids)} rule ids) in {seconds:.1f} s")


@lru_cache(maxsize=None)
def documented_text(game_id: str) -> str:
    pages = [DOC_PAGES[game_id], "conventions.md", "records.md"]
    return "\n".join((DOCS / p).read_text(encoding="utf-8") for p in pages if (DOCS / p).exists())


def check_violation(game: Game, violation: Violation) -> None:
    """A refusal a player can act on: a stable, documented rule id and both languages."""
    assert RULE_ID.match(violation.rule), f"rule id {violation.rule!r} is not of the form area.rule"
    assert violation.message.en.strip() and violation.message.zh.strip(), violation
    assert re.search(r"[\u4e00-\u9fff]", violation.message.zh), f"{violation.rule}: Chinese text has no Chinese: {violation.message.zh!r}"
    if violation.fix is not None:
        assert violation.fix.en.strip() and violation.fix.zh.strip(), violation
    if violation.rule not in SHARED_RULE_IDS:
        assert f"`{violation.rule}`" in documented_text(game.id), f"rule id {violation.rule!r} is not documented in docs/{DOC_PAGES[game.id]}"


def check_state(game: Game, state: Any, candidates: Iterable[Any], tally: Tally, *, legal_cap: int | None = None) -> list[Any]:
    """The generic checks at one state; returns the legal moves (capped at ``legal_cap`` if given).

    Completeness is checked only when the legal moves were enumerated in full."""
    tally.states += 1
    legal = list(islice(game.legal_moves(state), legal_cap)) if legal_cap else list(game.legal_moves(state))
    complete = legal_cap is None or len(legal) < legal_cap
    tally.legal_moves += len(legal)
    for move in legal:
        found = game.violations(state, move)
        assert not found, f"legal_moves yielded {move!r}, which violates {[str(v) for v in found]}"
    known = set(legal)
    for move in candidates:
        tally.candidates += 1
        found = game.violations(state, move)
        if found:
            tally.refused += 1
            for v in found:
                check_violation(game, v)
                tally.rule_ids.add(v.rule)
        elif complete:
            assert move in known, f"{move!r} has no violations but legal_moves does not offer it"
    if game.is_over(state):
        assert not legal, f"the game is over yet legal_moves offers {legal[:3]!r}"
    elif game.turn(state).awaiting == "move":
        assert legal, f"the game goes on and awaits a move of {game.turn(state).active}, but no legal move exists"
    for move in legal[:20]:
        check_move_round_trip(game, move)
    return legal


def check_move_round_trip(game: Game, move: Any) -> None:
    data = json.loads(json.dumps(game.move_to_json(move)))
    assert game.move_from_json(data) == move, f"{move!r} -> {data} -> {game.move_from_json(data)!r}"


def check_record_round_trip(game: Game, setup: SetupOptions | dict[str, Any], moves: list[Any], state: Any) -> None:
    """Replaying the game's record through JSON reaches the same state, and the same dashboard view."""
    options = setup if isinstance(setup, SetupOptions) else SetupOptions.from_json(setup)
    doc = json.loads(json.dumps(to_record(game, options, moves)))
    result = replay(parse_record(doc))
    assert result.ok, f"the record of a legal game does not replay: move {result.illegal_index}: {result.illegal}"
    assert result.state == state, "state rebuilt from the JSON record differs from the state reached by play"
    assert json.dumps(game.state_to_json(result.state), sort_keys=True, default=str) == \
        json.dumps(game.state_to_json(state), sort_keys=True, default=str)
