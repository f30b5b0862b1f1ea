"""The stabiliser: settle time, occlusion, fusion (RFID decides, camera confirms), source loss."""

from __future__ import annotations

import pytest

from scorer.core.observation import Observation, SpaceReading
from scorer.core.types import Board, Piece
from scorer.referee.stabiliser import CAMERA, SENSOR_BOARD, Stabiliser

BH = Piece("blue", "house")
GH = Piece("green", "house")
RH = Piece("red", "house")


def obs(source: str, at: float, **spaces: object) -> Observation:
    readings = []
    for space, content in spaces.items():
        space = space.replace("_", "-")
        if content == "hand":
            readings.append(SpaceReading.of(space, (), confidence=0.0, occluded=True))
        elif isinstance(content, tuple) and len(content) == 2 and isinstance(content[1], float):
            readings.append(SpaceReading.of(space, content[0], confidence=content[1]))
        else:
            readings.append(SpaceReading.of(space, content))  # type: ignore[arg-type]
    return Observation(source, at, tuple(readings))


def test_reading_is_believed_only_after_the_settle_time() -> None:
    st = Stabiliser(settle=0.5)
    st.observe(obs(CAMERA, 0.0, wei_1=[BH]), 0.0)
    v = st.view(0.49)
    assert v.board == Board()
    assert v.unsettled == ("wei-1",) and v.busy
    assert st.next_deadline() == pytest.approx(0.5)
    v = st.view(0.5)
    assert v.board == Board.from_counts({"wei-1": [BH]})
    assert not v.busy and "wei-1" in v.known


def test_a_change_restarts_the_settle_time_and_old_belief_stays_meanwhile() -> None:
    st = Stabiliser(settle=0.5)
    st.observe(obs(CAMERA, 0.0, wei_1=[BH]), 0.0)
    assert st.view(0.6).board.count("wei-1") == 1
    st.observe(obs(CAMERA, 1.0, wei_1=[]), 1.0)
    st.observe(obs(CAMERA, 1.3, wei_1=[BH]), 1.3)  # flicker back
    st.observe(obs(CAMERA, 1.4, wei_1=[]), 1.4)
    v = st.view(1.8)
    assert v.board.count("wei-1") == 1 and v.unsettled == ("wei-1",)
    v = st.view(1.9)
    assert v.board.count("wei-1") == 0 and not v.busy
    assert v.changed_at == 1.9


def test_occlusion_holds_belief_and_restarts_the_window_after_the_hand_leaves() -> None:
    st = Stabiliser(settle=0.5)
    st.observe(obs(CAMERA, 0.0, wei_1=[]), 0.0)
    st.view(0.5)
    st.observe(obs(CAMERA, 1.0, wei_1="hand"), 1.0)
    v = st.view(1.2)
    assert v.occluded == ("wei-1",) and v.busy
    st.observe(obs(CAMERA, 1.4, wei_1=[BH]), 1.4)
    assert st.view(1.8).board.count("wei-1") == 0  # 0.4 s after the hand left: not yet
    assert st.view(1.9).board.count("wei-1") == 1


def test_a_hand_seen_by_the_camera_also_holds_back_the_rfid_reading() -> None:
    st = Stabiliser(settle=0.5)
    st.observe(obs(SENSOR_BOARD, 0.0, wei_1=[BH]), 0.0)
    st.observe(obs(CAMERA, 0.2, wei_1="hand"), 0.2)
    assert st.view(0.6).board.count("wei-1") == 0
    st.observe(obs(CAMERA, 0.5, wei_1=[BH]), 0.5)  # the hand is gone: the window restarts from its last report
    assert st.next_deadline() == pytest.approx(0.7)
    assert st.view(0.7).board.count("wei-1") == 1


def test_a_slow_camera_still_seeing_the_hand_holds_the_rfid_reading_between_its_frames() -> None:
    """A loaded Pi reads a frame every second or so, longer than ``settle``: the hand is there until a
    frame shows it gone (it flaked a runtime test under load when it held only ``settle``)."""
    st = Stabiliser(settle=0.3, occlusion_hold=3.0)
    st.observe(obs(CAMERA, 0.0, wei_1="hand"), 0.0)
    st.observe(obs(SENSOR_BOARD, 0.1, wei_1=[BH]), 0.1)
    assert st.view(1.0).board.count("wei-1") == 0  # no camera frame since 0.0: still covered
    assert st.next_deadline() == pytest.approx(3.0)
    st.observe(obs(CAMERA, 1.1, wei_1="hand"), 1.1)
    assert st.view(2.0).board.count("wei-1") == 0
    st.observe(obs(CAMERA, 2.2, wei_1=[BH]), 2.2)  # a frame shows the hand gone, over a second after it was last seen
    assert st.view(2.2).board.count("wei-1") == 1  # the RFID reading has stood since 0.1


def test_a_camera_that_stops_reporting_does_not_hold_a_space_forever() -> None:
    st = Stabiliser(settle=0.3, occlusion_hold=3.0)
    st.observe(obs(CAMERA, 0.0, wei_1="hand"), 0.0)
    st.observe(obs(SENSOR_BOARD, 0.1, wei_1=[BH]), 0.1)
    assert st.view(2.9).board.count("wei-1") == 0
    v = st.view(3.0)  # nothing heard from the camera for occlusion_hold: the RFID reading stands
    assert v.board.count("wei-1") == 1
    assert v.occluded == ("wei-1",)  # still shown as the camera last saw it


def test_rfid_decides_identity_and_a_disagreement_is_reported_once_it_outlasts_the_lag() -> None:
    st = Stabiliser(settle=0.2, disagreement_after=1.0)
    st.observe(obs(SENSOR_BOARD, 0.0, wei_1=[BH]), 0.0)
    st.observe(obs(CAMERA, 0.0, wei_1=[GH], wei_2=[RH]), 0.0)
    v = st.view(0.3)
    assert v.board == Board.from_counts({"wei-1": [BH], "wei-2": [RH]})
    assert v.disagreements == ()  # could still be a source catching up
    v = st.view(1.0)
    assert len(v.disagreements) == 1
    d = v.disagreements[0]
    assert (d.space, d.decided_by, d.other_source) == ("wei-1", SENSOR_BOARD, CAMERA)
    assert "blue" in d.message.en and d.message.zh
    assert d.to_json()["other"] == [{"owner": "green", "kind": "house", "count": 1}]


def test_camera_covers_spaces_without_an_antenna_and_agreement_is_silent() -> None:
    st = Stabiliser(settle=0.2)
    st.observe(obs(SENSOR_BOARD, 0.0, wei_1=[BH]), 0.0)
    st.observe(obs(CAMERA, 0.0, wei_1=[BH], qi_1=[GH]), 0.0)
    v = st.view(0.3)
    assert v.board == Board.from_counts({"wei-1": [BH], "qi-1": [GH]})
    assert v.disagreements == ()
    assert v.known == {"wei-1", "qi-1"}


def _placed_on_the_sensor_board() -> Stabiliser:
    """Both sources agreed on an empty wei-1 at 0 s; at 1 s the sensor board reports a blue house
    there and the camera has not reported since."""
    st = Stabiliser(settle=0.2, disagreement_after=1.0)
    st.observe(obs(SENSOR_BOARD, 0.0, wei_1=[]), 0.0)
    st.observe(obs(CAMERA, 0.0, wei_1=[]), 0.0)
    st.view(0.5)
    st.observe(obs(SENSOR_BOARD, 1.0, wei_1=[BH]), 1.0)
    return st


def test_a_camera_that_catches_up_is_lag_not_a_disagreement() -> None:
    st = _placed_on_the_sensor_board()
    st.observe(obs(CAMERA, 1.6, wei_1=[BH]), 1.6)  # the camera sees it 0.6 s later
    for t in (1.2, 1.5, 1.8, 2.5, 4.0):
        assert st.view(t).disagreements == ()


def test_source_down_drops_its_readings_and_the_camera_takes_over() -> None:
    st = Stabiliser(settle=0.2)
    st.observe(obs(SENSOR_BOARD, 0.0, wei_1=[BH]), 0.0)
    st.observe(obs(CAMERA, 0.0, wei_1=[GH]), 0.0)
    assert st.view(0.3).board.pieces("wei-1") == {BH: 1}
    st.set_source_live(SENSOR_BOARD, False, 0.4)
    v = st.view(0.4)
    assert v.board.pieces("wei-1") == {GH: 1}
    assert [s.live for s in v.sources if s.source == SENSOR_BOARD] == [False]
    # it speaks again: live again, and must settle before it decides
    st.observe(obs(SENSOR_BOARD, 1.0, wei_1=[BH]), 1.0)
    assert st.view(1.1).board.pieces("wei-1") == {GH: 1}
    assert st.view(1.2).board.pieces("wei-1") == {BH: 1}


def test_all_sources_down_means_nothing_is_known() -> None:
    st = Stabiliser(settle=0.1)
    st.observe(obs(CAMERA, 0.0, wei_1=[BH]), 0.0)
    assert st.view(0.2).known == {"wei-1"}
    st.set_source_live(CAMERA, False, 0.3)
    assert st.view(0.3).known == frozenset()


def test_low_confidence_is_never_believed() -> None:
    st = Stabiliser(settle=0.1, min_confidence=0.6)
    st.observe(obs(CAMERA, 0.0, wei_1=([BH], 0.3)), 0.0)
    v = st.view(5.0)
    assert v.board == Board() and v.unsettled == ("wei-1",)
    st.observe(obs(CAMERA, 5.0, wei_1=([BH], 0.9)), 5.0)
    assert st.view(5.1).board.count("wei-1") == 1


def test_delta_observations_keep_other_spaces_and_unknown_tags_are_listed() -> None:
    st = Stabiliser(settle=0.1)
    st.observe(obs(SENSOR_BOARD, 0.0, wei_1=[BH], wei_2=[]), 0.0)
    st.observe(Observation(SENSOR_BOARD, 0.5, (SpaceReading.of("wei-2", [], unknown=["04AABBCC"]),)), 0.5)
    v = st.view(0.7)
    assert v.board.count("wei-1") == 1
    assert v.unknown == (("wei-2", SENSOR_BOARD, "04AABBCC"),)


def test_an_observation_stamped_by_another_clock_is_taken_at_arrival() -> None:
    st = Stabiliser(settle=0.5)
    st.observe(obs(CAMERA, 99999.0, wei_1=[BH]), 10.0)
    assert st.view(10.4).board == Board()
    assert st.view(10.5).board.count("wei-1") == 1


def test_merged_with_uses_expected_board_where_nothing_is_known() -> None:
    st = Stabiliser(settle=0.0)
    st.observe(obs(CAMERA, 0.0, wei_1=[]), 0.0)
    v = st.view(0.0)
    expected = Board.from_counts({"wei-1": [BH], "qi-1": [GH]})
    assert v.merged_with(expected) == Board.from_counts({"qi-1": [GH]})


def test_a_camera_whose_next_frame_is_late_has_not_seen_the_change_and_does_not_disagree() -> None:
    """On a loaded Pi a frame may take longer than ``disagreement_after``: until the camera reports
    again it has not seen the piece the antenna felt, and its old reading is no disagreement."""
    st = _placed_on_the_sensor_board()
    for t in (1.5, 2.2, 3.0, 3.9):  # no frame from the camera since the piece was placed
        v = st.view(t)
        assert v.board.count("wei-1") == 1 and v.disagreements == ()
    st.observe(obs(CAMERA, 4.0, wei_1=[BH]), 4.0)  # its next frame sees it: it was lag
    assert st.view(4.5).disagreements == ()


def test_a_late_frame_that_still_disagrees_is_reported() -> None:
    st = _placed_on_the_sensor_board()
    assert st.view(3.0).disagreements == ()
    st.observe(obs(CAMERA, 3.5, wei_1=[]), 3.5)  # a frame after the change still shows nothing there
    v = st.view(3.6)
    assert [(d.space, d.decided_by, d.other_source) for d in v.disagreements] == [("wei-1", SENSOR_BOARD, CAMERA)]
