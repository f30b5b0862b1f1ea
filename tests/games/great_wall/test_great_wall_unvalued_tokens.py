"""A camera that sees The Great Wall's tokens but not their printed values (a 1280 px frame shows a 26 mm
token's digit as a few pixels) reports them as ``token-?``. The live referee (``tableref.table.Table``
over a real SQLite file, a fake clock) takes the value the game state has there, so the cards played
beside such tokens are read; a value the state cannot know (a pair just revealed) is never guessed:
nothing is accepted or flagged until the dashboard declares it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gw_live_rig import SECTIONS, GreatWallRig
from scorer.core import Piece
from scorer.core.unvalued import unvalued


class BlurredTokenCamera(GreatWallRig):
    """The rig's table as a camera sees it that reads every token's presence and owner, no value."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, source="camera")

    def reported(self, space: str) -> dict[Piece, int]:
        out: dict[Piece, int] = {}
        for p, n in self.pieces.get(space, {}).items():
            q = unvalued(p) if p.kind.startswith("token-") else p
            out[q] = out.get(q, 0) + n
        return out


@pytest.fixture
def rig(tmp_path: Path):
    r = BlurredTokenCamera(tmp_path / "table.sqlite")
    r.run(1.0)
    yield r
    r.close()


def _flag(rig: GreatWallRig):
    return rig.table.snapshot().get("flag")


def test_a_revealed_pair_is_never_guessed_and_then_cards_beside_it_are_read(rig: BlurredTokenCamera) -> None:
    for v in (5, 2):
        rig.put("section-1", "neutral", f"token-{v}")
    rig.run(12.0)
    # the camera sees two tokens where the state awaits a reveal: their values it cannot know
    assert rig.accepted() == [] and _flag(rig) is None
    assert rig.state.sections[0].tokens == ()
    rig.declare({"type": "reveal", "section": "section-1", "tokens": [5, 2]})
    assert rig.state.sections[0].tokens == (5, 2)
    for sp, pair in zip(SECTIONS[1:], ((7, 1), (4, 3))):
        for v in pair:
            rig.put(sp, "neutral", f"token-{v}")
        rig.declare({"type": "reveal", "section": sp, "tokens": list(pair)})
    rig.run(3.0)
    assert _flag(rig) is None
    # blue lays a tower beside the blurred 5 and 2: the tokens take the state's values, the tower is read
    rig.accepted()
    rig.put("section-1", "blue", "tower")
    rig.run(9.0)
    plays = [m for m in rig.accepted() if m["type"] == "play"]
    assert [(m["player"], m["section"], m["cards"]) for m in plays] == [("blue", "section-1", ["tower"])]
    assert _flag(rig) is None


def test_a_claimed_token_of_an_equal_pair_is_read_on_its_card(rig: BlurredTokenCamera) -> None:
    """Equal 3s: whichever was laid on the card, both are 3s, so a token on blue's card and one at the
    spot, neither value seen, tell the whole story (the claim the engine made by itself)."""
    for sp, pair in zip(SECTIONS, ((3, 3), (5, 2), (7, 1))):
        for v in pair:
            rig.put(sp, "neutral", f"token-{v}")
        rig.declare({"type": "reveal", "section": sp, "tokens": list(pair)})
    for owner, kind in (("blue", "tower"), ("blue", "gate"), ("red", "gate")):
        rig.put("section-1", owner, kind)
        rig.run()
    rig.run(9.0)
    rig.declare({"type": "draw", "player": "red"})
    rig.declare({"type": "draw", "player": "green"})
    rig.declare({"type": "draw", "player": "green"})
    sec = rig.state.sections[0]
    assert sec.claimed_owner == 0 and sec.claimed_value == 3  # blue's check: 5 > 2, the first 3 laid by default
    rig.take("section-1", "neutral", "token-3")
    rig.put("section-1", "blue", "token-3")
    rig.run(6.0)
    assert _flag(rig) is None and rig.table.snapshot().get("pending") is None
