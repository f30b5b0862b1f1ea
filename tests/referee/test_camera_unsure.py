"""A space the camera sees but cannot read sure (a tile's face, a token's value on a card) is not a
hand: the sensor board's reading of it is believed as usual, while a hand over the space holds
both back (``vision.detection.SpaceResult.unsure`` against ``occluded``)."""

from __future__ import annotations

from collections import Counter

from scorer.core.observation import Observation
from scorer.core.types import Piece
from scorer.referee.stabiliser import CAMERA, SENSOR_BOARD, Stabiliser
from vision.detection import SpaceResult

TILE = Piece("neutral", "family-A")


def _run(camera: SpaceResult) -> tuple:
    st = Stabiliser(settle=0.3)
    for i in range(30):
        t = 0.1 * i
        st.observe(Observation(SENSOR_BOARD, t, (SpaceResult("r1c1", ((TILE, 1),)).reading(),)), t)
        st.observe(Observation(CAMERA, t, (camera.reading(),)), t)
    view = st.view(3.0)
    return view.board.pieces("r1c1"), view.busy, view.occluded


def test_a_space_seen_but_not_read_sure_leaves_the_sensor_board_to_decide() -> None:
    unsure = SpaceResult("r1c1", (), 0.0, unsure=True)
    assert unsure.to_json() == {"pieces": [], "confidence": 0.0, "unsure": True}
    assert not unsure.reading().occluded and unsure.reading().confidence == 0.0
    pieces, busy, occluded = _run(unsure)
    assert pieces == Counter({TILE: 1}) and not busy and occluded == ()


def test_a_hand_over_the_space_holds_the_sensor_board_back() -> None:
    pieces, busy, occluded = _run(SpaceResult("r1c1", (), 0.0, True))
    assert pieces == Counter() and busy and occluded == ("r1c1",)


def test_a_camera_alone_that_cannot_read_a_space_keeps_the_table_waiting() -> None:
    """Without another source the space is not known: the referee keeps the engine's board there
    and, the space being unsettled, waits (as it would under a hand) rather than read it empty."""
    st = Stabiliser(settle=0.3)
    for i in range(30):
        t = 0.1 * i
        st.observe(Observation(CAMERA, t, (SpaceResult("r1c1", (), 0.0, unsure=True).reading(),)), t)
    view = st.view(3.0)
    assert "r1c1" not in view.known and view.busy and view.occluded == ()
