"""The live referee (``tableref.table.Table``: a real SQLite file, the event bus, a fake clock and a
sensor source that sees every section) follows a Great Wall game up to equal tokens: the engine
lays the first token by default on the claimant's tower, the dashboard's declaration names the gate
it really lies on (the sensors cannot see which card), and the next dragon the sensors read is then
taken as covering the tower -- the reading that is legal only because the card was named."""

from __future__ import annotations

from pathlib import Path

import pytest

from gw_live_rig import SECTIONS, GreatWallRig
from scorer.games.great_wall.moves import CardRef, Play

@pytest.fixture
def rig(tmp_path: Path):
    r = GreatWallRig(tmp_path / "table.sqlite")
    r.run(1.0)
    yield r
    r.close()


def _to_equal_tokens(rig: GreatWallRig) -> None:
    for sp, pair in zip(SECTIONS, ((3, 3), (5, 2), (7, 1))):
        for v in pair:
            rig.put(sp, "neutral", f"token-{v}")
        rig.run()
    rig.put("section-1", "blue", "tower")
    rig.run()
    rig.put("section-1", "blue", "gate")
    rig.run()
    rig.put("section-1", "red", "gate")
    rig.run(9.0)  # red might still add a second gate: taken as complete after the quiet timeout
    rig.declare({"type": "draw", "player": "red"})
    rig.declare({"type": "draw", "player": "green"})
    rig.declare({"type": "draw", "player": "green"})
    # blue's check: 5 > 2 with two equal 3s -> taken without a choice, laid by default on the tower
    sec = rig.state.sections[0]
    assert sec.claimed_owner == 0 and sec.claimed_value == 3 and sec.claimed_card == 0 and sec.unnamed_claim == 3
    rig.take("section-1", "neutral", "token-3")
    rig.put("section-1", "blue", "token-3")  # blue lays it on a card: which one, no sensor says
    rig.run()


def _red_plays_a_dragon(rig: GreatWallRig) -> Play:
    rig.declare({"type": "draw", "player": "blue"})
    rig.declare({"type": "draw", "player": "blue"})
    return rig.play_one("section-1", "red", "dragon")


def test_the_dashboard_names_the_card_and_the_dragon_reading_follows_it(rig: GreatWallRig) -> None:
    _to_equal_tokens(rig)
    rig.declare({"type": "claim", "player": "blue", "section": "section-1", "token": 3, "on": {"kind": "gate"}})
    assert rig.state.sections[0].claimed_card == 1 and rig.state.sections[0].unnamed_claim == -1
    dragon = _red_plays_a_dragon(rig)
    assert dragon == Play("red", "section-1", ("dragon",), (CardRef("blue", "tower"),))
    stored = [e for e in rig.store.events(rig.table.session.game_no) if e.type == "move"]
    assert any(m.get("type") == "claim" and m.get("on") == {"kind": "gate"} for e in stored for m in e.data["moves"])


def test_without_a_named_card_the_default_stands(rig: GreatWallRig) -> None:
    _to_equal_tokens(rig)
    dragon = _red_plays_a_dragon(rig)
    assert dragon == Play("red", "section-1", ("dragon",), (CardRef("blue", "gate"),))  # the tower holds the token
