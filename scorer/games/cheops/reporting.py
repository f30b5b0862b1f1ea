"""Reporting a Cheops game: final scoring of a state (rules/cheops.md 8; the pure sums are in
scoring.py), what the scoreboard could not check and what rests on declarations, move
descriptions, the state as JSON."""

from __future__ import annotations

from typing import Any

from scorer.core.results import Unchecked
from scorer.core.types import Message, player_label
from scorer.games.cheops import scoring
from scorer.games.cheops.data import FACES, SPACES
from scorer.games.cheops.moves import BuyNeighbour, CheopsMove, Pass, PlaceTile, Step, Take, UseLaw10, UseLaw11, UseLaw12
from scorer.games.cheops.state import EMPTY, LAW_BASE, LAW_HIDDEN, NEIGHBOUR_TILE, NO_TILE, CheopsState, is_treasure
from scorer.games.cheops.visible import LAW_FACE_DOWN, law_kind, treasure_kind


def entries_at_end(state: CheopsState) -> list:
    """Per colour: the entry that sets the value (None = law 7's flat 20)."""
    out = []
    for c, t in enumerate(state.tables):
        if state.table_law[c] == 7:
            out.append(None)
        else:
            out.append(scoring.end_entry(t.entries, state.covered[c], state.rules.value_last_covered))
    return out


def scoring_options(state: CheopsState) -> scoring.ScoringOptions:
    r = state.rules
    return scoring.ScoringOptions(r.x_own_count, r.single_holder_not_majority, r.jokers_not_counted, r.value_last_covered)


def final_scoring(state: CheopsState) -> scoring.Result:
    """Cash + kept treasures at their end values + the law-9 joker (rules/cheops.md 8)."""
    owners = [p for p in range(state.n) if 9 in state.held[p]]
    return scoring.score(state.cash, state.kept, entries_at_end(state), owners, scoring_options(state))


def unchecked(state: CheopsState, res: scoring.Result) -> tuple[Unchecked, ...]:
    out = []
    prov = [t.id for t in state.tables if t.provisional]
    if prov:
        out.append(Unchecked("price_tables.provisional", Message.t("cheops.engine.price_tables_provisional", tables=tuple(prov))))
    if state.board.provisional:
        out.append(Unchecked("board.provisional", Message.t('cheops.engine.the_eye_law_spaces_and')))
    if state.unchecked_faces or state.unchecked_passes:
        out.append(Unchecked("tiles.hands", Message.t('cheops.engine.hands_are_not_tracked_placement', unchecked_faces=state.unchecked_faces, unchecked_passes=state.unchecked_passes)))
    for p, c in enumerate(res.joker_colour):
        if c is not None:
            colour = state.colours[c]
            out.append(Unchecked("law9.joker_colour", Message.t("cheops.engine.law9_joker_colour", player=player_label(state.players[p]),
                                                                colour=state.board.colour_name(colour))))
    return tuple(out)


def declared(state: CheopsState) -> tuple[str, ...]:
    out = [
        "cash: the money pile is face down; it is computed from the record's sales, neighbour purchases and law-9 payments",
        "kept treasures: keep decisions and law-12 swaps with kept treasures are declared; players' piles are not sensed",
    ]
    if state.laws_declared:
        out.append(f"law identities: {state.laws_declared} face-down law(s) were named by the players who took them")
    if not state.rules.track_tiles:
        out.append("family tiles in hand and drawn: declared (stacks not tracked)")
    return tuple(out)


def describe_move(move: CheopsMove) -> Message:
    parts = [_describe_step(s) for s in move.steps]
    if move.draws:
        parts.append(Message.t("cheops.describe.draws", stacks=tuple(d.stack for d in move.draws)))
    steps: Message | str = parts[0] if parts else ""
    for part in parts[1:]:
        steps = Message.t("list.semicolon", a=steps, b=part)
    return Message.t("cheops.describe.move", player=player_label(move.player), steps=steps)


def state_to_json(state: CheopsState) -> dict[str, Any]:
    return {
        "players": list(state.players),
        "active": state.players[state.active] if state.finished is None else None,
        "turn_number": state.turn_number,
        "finished": state.finished.value if state.finished else None,
        "market_price": state.market_price(),
        "market_laws": list(state.market_laws),
        "law3": state.law3,
        "tables": [
            {
                "colour": colour,
                "table": state.tables[c].id,
                "provisional": state.tables[c].provisional,
                "covered": state.covered[c],
                "full": state.table_full(c),
                "current": state.tables[c].entries[state.covered[c]].label(),
                "law": state.table_law[c] or None,
            }
            for c, colour in enumerate(state.colours)
        ],
        "pyramid": {
            SPACES[i]: {
                "tile": (None if state.tile[i] == NO_TILE else "neighbour" if state.tile[i] == NEIGHBOUR_TILE else FACES[state.tile[i]]),
                "placed_by": state.players[state.placer[i]] if state.placer[i] >= 0 else None,
                "content": _content_label(state, state.content[i]),
            }
            for i in range(len(SPACES))
        },
        "neighbours_left": state.neighbours_left,
        "stacks": list(state.stack_size),
        "hand_size": dict(zip(state.players, state.hand_size)),
        "held_laws": {pl: list(state.held[i]) for i, pl in enumerate(state.players)},
        "effects": [{"kind": e.kind, "message": e.message.to_json()} for e in state.effects],
    }


def _content_label(state: CheopsState, code: int) -> str | None:
    if code == EMPTY:
        return None
    if is_treasure(code):
        return treasure_kind(state.colours[code])
    return LAW_FACE_DOWN if code == LAW_HIDDEN else law_kind(code - LAW_BASE)


def _take_text(t: Take) -> Message | str:
    """What a step took, as the tail of its description ("" when it took nothing)."""
    if t.sell is not None:
        return Message.t("cheops.describe.sells" if t.sell else "cheops.describe.keeps")
    if t.law is None:
        return ""
    if t.discard:
        return Message.t("cheops.describe.takes_law.discarded", law=t.law)
    if t.table:
        return Message.t("cheops.describe.takes_law.table", law=t.law, table=t.table)
    if t.remove:
        return Message.t("cheops.describe.takes_law.removes", law=t.law, remove=t.remove)
    return Message.t("cheops.describe.takes_law", law=t.law)


def _describe_step(s: Step) -> Message:
    if isinstance(s, (PlaceTile, UseLaw11)):
        key = "cheops.describe.place.law11" if isinstance(s, UseLaw11) else "cheops.describe.place"
        return Message.t(key, tile=s.tile, space=s.space, take=_take_text(s.take))
    if isinstance(s, BuyNeighbour):
        if s.save:
            return Message.t("cheops.describe.neighbour_saved")
        return Message.t("cheops.describe.neighbour", space=s.space, take=_take_text(s.take))
    if isinstance(s, Pass):
        return Message.t("cheops.describe.pass")
    if isinstance(s, UseLaw10):
        return Message.t("cheops.describe.law10", colour=s.colour)
    if isinstance(s, UseLaw12):
        return Message.t("cheops.describe.law12", first=s.first, second=s.second)
    return Message.t("name.as_given", name=repr(s))
