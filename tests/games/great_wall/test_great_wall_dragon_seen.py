"""Which card a dragon lies on, as the camera saw it (``SpaceReading.seen``, ``scorer.games.great_wall.seen``):
among readings that explain the table equally well, the live referee takes the one whose dragon lies
where the camera saw it; without that, the most valuable target first, as an RFID pad's reading."""

from __future__ import annotations

from pathlib import Path

import pytest

from gw_live_rig import SECTIONS, GreatWallRig
from gw_testkit import position
from scorer.core.observation import covers_fact
from scorer.games.great_wall.game import GAME
from scorer.games.great_wall.moves import CardRef, Play
from scorer.games.great_wall.seen import seen_disagreements


@pytest.fixture
def rig(tmp_path: Path):
    r = GreatWallRig(tmp_path / "table.sqlite", source="camera")
    r.run(1.0)
    yield r
    r.close()


def _blue_tower_and_gate_then_a_red_dragon(rig: GreatWallRig, seen: tuple[str, ...]) -> Play:
    for sp, pair in zip(SECTIONS, ((4, 3), (5, 2), (7, 1))):
        for v in pair:
            rig.put(sp, "neutral", f"token-{v}")
        rig.run()
    rig.put("section-1", "blue", "tower")
    rig.run()
    rig.put("section-1", "blue", "gate")
    rig.run(9.0)  # blue might still add a second gate: taken as complete after the quiet timeout
    rig.seen["section-1"] = seen
    return rig.play_one("section-1", "red", "dragon")


def test_without_a_camera_the_most_valuable_card_is_taken(rig: GreatWallRig) -> None:
    assert _blue_tower_and_gate_then_a_red_dragon(rig, ()) == Play("red", "section-1", ("dragon",), (CardRef("blue", "tower"),))


def test_the_card_the_camera_saw_under_the_dragon_is_taken(rig: GreatWallRig) -> None:
    move = _blue_tower_and_gate_then_a_red_dragon(rig, (covers_fact("blue", "gate"),))
    assert move == Play("red", "section-1", ("dragon",), (CardRef("blue", "gate"),))
    assert rig.state.sections[0].cards[1].kind == "gate" and 1 in {c.covers for c in rig.state.sections[0].cards}


def test_cards_earlier_dragons_cover_are_not_counted_as_seen_under_a_new_one() -> None:
    # blue wall (covered by red's dragon), blue wall: the camera's "covers blue:wall" is the old dragon's
    st = position(sections=[{"tokens": (5, 3), "cards": [("blue", "wall"), ("blue", "wall"), ("blue", "gate"), ("red", "dragon", 1)]}])
    onto = {k: Play("red", "section-1", ("dragon",), (CardRef("blue", k),)) for k in ("wall", "gate")}
    old_only = {"section-1": (covers_fact("blue", "wall"),)}
    assert seen_disagreements(st, [onto["wall"]], old_only) == 1
    assert seen_disagreements(st, [onto["gate"]], old_only) == 1
    both = {"section-1": (covers_fact("blue", "wall"), covers_fact("blue", "gate"))}
    assert seen_disagreements(st, [onto["gate"]], both) == 0
    assert seen_disagreements(st, [onto["wall"]], both) == 1
    assert GAME.seen_disagreements(st, [onto["wall"]], {}) == 0  # nothing seen: nothing to disagree with


def test_the_camera_says_how_cards_lie_even_where_the_rfid_pad_decides() -> None:
    from scorer.core.observation import Observation, SpaceReading
    from scorer.core.types import Piece
    from scorer.referee.stabiliser import CAMERA, SENSOR_BOARD, Stabiliser

    cards = {Piece("blue", "wall"): 2, Piece("red", "dragon"): 1}
    facts = (covers_fact("blue", "wall"), covers_fact("blue", "wall"))  # two dragons may cover alike cards
    st = Stabiliser(settle=0.5)
    for t in (0.0, 0.3, 0.6, 0.9):
        st.observe(Observation(SENSOR_BOARD, t, (SpaceReading.of("section-1", cards),)), t)
        st.observe(Observation(CAMERA, t, (SpaceReading.of("section-1", cards, seen=facts),)), t)
    assert st.view(1.0).seen_by_space() == {"section-1": facts}
    # the camera reads other pieces than the believed ones: what it says of them is not taken
    other = {Piece("blue", "wall"): 1, Piece("red", "dragon"): 1}
    for t in (1.1, 1.2):
        st.observe(Observation(CAMERA, t, (SpaceReading.of("section-1", other, seen=facts[:1]),)), t)
    assert st.view(1.25).seen == ()
