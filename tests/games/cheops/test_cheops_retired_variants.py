"""A record written when law 8 on the pyramid needed the variant ``law8_pyramid`` still replays: the
variant is retired (its reading is the default now) rather than refused as unknown."""

from __future__ import annotations

import pytest

from scorer.core.game import SetupOptions
from scorer.core.types import InvalidRecord
from scorer.games.cheops import GAME
from scorer.games.cheops.simulate import random_game
from scorer.records import parse_record, replay, to_record


def test_law8_pyramid_is_accepted_and_changes_nothing():
    setup, moves, final = random_game(3, 3)
    setup["variants"] = ["law8_pyramid"]
    result = replay(parse_record(to_record(GAME, SetupOptions.from_json(setup), moves)))
    assert result.ok and not result.state.rules.law8_face_up_only
    assert GAME.score(result.state).to_json() == GAME.score(final).to_json()


def test_an_unknown_variant_is_still_refused():
    setup, _, _ = random_game(3, 3)
    setup["variants"] = ["law8_everywhere"]
    with pytest.raises(InvalidRecord, match="unknown variant"):
        GAME.setup(SetupOptions.from_json(setup))
