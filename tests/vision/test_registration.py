from dataclasses import replace

import cv2
import numpy as np

from scorer.core.types import Board
from vision.render import Conditions, Hand, random_conditions, render
from vision.registration import Registrar, RegistrationStatus


def _err_mm(layout, reg, truth_h):
    w, h = layout.size
    pts = np.array([[x, y] for x in np.linspace(0, w, 5) for y in np.linspace(0, h, 5)])
    img = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), truth_h).reshape(-1, 2)
    return float(np.abs(reg.image_to_board(img) - pts).max())


def test_homography_is_accurate_over_varied_poses(small_layout):
    rng = np.random.default_rng(21)
    for _ in range(6):
        cond = replace(random_conditions(small_layout, rng, size=(960, 540), hand_probability=0.0), shadows=())
        r = render(small_layout, Board(), cond)
        reg = Registrar(small_layout).update(r.image)
        assert reg.status is RegistrationStatus.OK, cond.describe()
        assert _err_mm(small_layout, reg, r.truth.homography) < 1.5, cond.describe()


def test_no_full_detection_while_nothing_moves_and_redetection_after_a_bump(small_layout):
    cond = Conditions(size=(960, 540), tilt_deg=5)
    registrar = Registrar(small_layout)
    first = registrar.update(render(small_layout, Board(), cond).image)
    assert first.fresh and registrar.full_detections == 1
    for seed in range(1, 4):  # same pose, new noise: tracked, not detected again
        reg = registrar.update(render(small_layout, Board(), replace(cond, seed=seed, noise_sigma=3)).image)
        assert reg.usable and not reg.fresh
    assert registrar.full_detections == 1
    bumped = replace(cond, tilt_deg=9, roll_deg=3, offset=(0.02, 0.0))
    r = render(small_layout, Board(), bumped)
    reg = registrar.update(r.image)
    assert reg.fresh and registrar.full_detections == 2 and reg.status is RegistrationStatus.OK
    assert _err_mm(small_layout, reg, r.truth.homography) < 1.5


def test_a_hand_over_one_marker_keeps_the_registration(small_layout):
    cond = Conditions(size=(960, 540))
    registrar = Registrar(small_layout)
    registrar.update(render(small_layout, Board(), cond).image)
    corner = small_layout.markers[0].centre
    r = render(small_layout, Board(), replace(cond, hand=Hand(corner, 225.0, 50.0)))
    assert 0 in r.truth.markers_covered
    reg = registrar.update(r.image)
    assert reg.usable and reg.status is RegistrationStatus.PARTIAL and 0 in reg.missing
    assert registrar.full_detections == 1


def test_a_marker_covered_while_tracked_is_found_again_when_the_hand_leaves(small_layout):
    """Regression: the tracked registration kept a covered marker in ``missing`` for good (the
    dashboard's camera check named it missing after the hand had gone)."""
    cond = Conditions(size=(960, 540))
    registrar = Registrar(small_layout)
    registrar.update(render(small_layout, Board(), cond).image)
    covered = render(small_layout, Board(), replace(cond, hand=Hand(small_layout.markers[0].centre, 180.0, 50.0)))
    assert 0 in covered.truth.markers_covered
    reg = registrar.update(covered.image)
    assert reg.status is RegistrationStatus.PARTIAL and reg.missing == (0,) and 0 not in reg.found
    reg = registrar.update(render(small_layout, Board(), replace(cond, seed=5)).image)
    assert reg.status is RegistrationStatus.OK and not reg.missing and reg.found == (0, 1, 2, 3)
    assert registrar.full_detections == 1  # tracked throughout: no new detection was needed


def test_missing_markers_and_too_oblique_views_are_reported(small_layout):
    blank = np.full((540, 960, 3), 128, np.uint8)
    reg = Registrar(small_layout).update(blank)
    assert reg.status is RegistrationStatus.MARKERS_MISSING and not reg.usable
    assert reg.missing == (0, 1, 2, 3) and reg.message.zh
    steep = render(small_layout, Board(), Conditions(size=(960, 540), tilt_deg=68, fill=0.7))
    reg = Registrar(small_layout).update(steep.image)
    assert reg.status in (RegistrationStatus.TOO_OBLIQUE, RegistrationStatus.MARKERS_MISSING)
    assert not reg.usable


def test_a_marker_hidden_at_registration_is_picked_up_when_the_hand_leaves(small_layout):
    m0 = small_layout.markers[0]
    cond = Conditions(size=(960, 540), tilt_deg=12, tilt_azimuth_deg=30)
    covered = replace(cond, hand=Hand(m0.centre, 135.0, 60.0))
    hidden = render(small_layout, Board(), covered)
    assert m0.id in hidden.truth.markers_covered
    registrar = Registrar(small_layout)
    first = registrar.update(hidden.image)
    assert first.status is RegistrationStatus.PARTIAL and m0.id in first.missing
    clear = render(small_layout, Board(), cond)
    again = registrar.update(clear.image)
    assert again.status is RegistrationStatus.OK and again.fresh and not again.missing
    assert _err_mm(small_layout, again, clear.truth.homography) < 1.0


def test_focal_length_is_measured_from_a_tilted_homography():
    from vision.geometry import estimate_fov, focal_from_homography, look_at_camera

    for fov, tilt in ((56.0, 15.0), (72.0, 20.0)):
        cam = look_at_camera((1280, 720), fov, (300, 270), 900, tilt, 40.0, 5.0)
        f, measured_tilt = focal_from_homography(cam.homography(), (1280, 720))
        assert f is not None and abs(f - cam.K[0, 0]) < 1e-3 * cam.K[0, 0]
        assert abs(measured_tilt - tilt) < 0.5
        assert abs(estimate_fov(cam.homography(), (1280, 720), 66.0) - fov) < 0.1
    # straight down the focal length is not observable: the prior is kept
    flat = look_at_camera((1280, 720), 56.0, (300, 270), 900, 0.0, 0.0, 0.0)
    assert estimate_fov(flat.homography(), (1280, 720), 66.0) == 66.0


class _CountingDetector:
    """The registrar's detector, counting the pixels it was given (a whole frame or crops)."""

    def __init__(self, detector):
        self.detector, self.pixels = detector, []

    def detectMarkers(self, img):
        self.pixels.append(img.shape[0] * img.shape[1])
        return self.detector.detectMarkers(img)

    def getDetectorParameters(self):
        return self.detector.getDetectorParameters()

    def setDetectorParameters(self, params):
        self.detector.setDetectorParameters(params)


def test_markers_are_looked_for_where_they_were_first_and_give_the_same_registration(small_layout):
    cond = Conditions(size=(960, 540), tilt_deg=12, noise_sigma=2)
    whole = Registrar(small_layout).detect(cv2.cvtColor(render(small_layout, Board(), cond).image, cv2.COLOR_BGR2GRAY))
    gray = cv2.cvtColor(render(small_layout, Board(), replace(cond, seed=5)).image, cv2.COLOR_BGR2GRAY)
    expected = Registrar(small_layout)
    expected.expect(whole.homography, (960, 540))
    near = expected._near = _CountingDetector(expected._near)
    whole_frame = expected.detector = _CountingDetector(expected.detector)
    reg = expected.detect(gray)
    by_whole_frame = Registrar(small_layout).detect(gray)
    assert reg.status is RegistrationStatus.OK and reg.found == by_whole_frame.found
    assert len(near.pixels) == 4 and max(near.pixels) < 0.1 * 960 * 540 and not whole_frame.pixels  # four small crops
    corners = np.float64([[[0, 0]], [[small_layout.size[0], small_layout.size[1]]]])
    assert np.abs(cv2.perspectiveTransform(corners, reg.homography)
                  - cv2.perspectiveTransform(corners, by_whole_frame.homography)).max() < 0.3


def test_a_board_moved_away_from_where_it_was_is_found_in_the_whole_frame(small_layout):
    cond = Conditions(size=(960, 540), tilt_deg=5)
    before = Registrar(small_layout).update(render(small_layout, Board(), cond).image)
    r = render(small_layout, Board(), replace(cond, tilt_deg=14, roll_deg=3, offset=(0.12, 0.05)))
    moved = Registrar(small_layout)
    moved.expect(before.homography, (960, 540))
    spy = moved.detector = _CountingDetector(moved.detector)
    reg = moved.detect(cv2.cvtColor(r.image, cv2.COLOR_BGR2GRAY))
    assert reg.status is RegistrationStatus.OK and _err_mm(small_layout, reg, r.truth.homography) < 1.5
    assert spy.pixels == [960 * 540]  # the crops missed a marker: the whole frame was searched
    spy.pixels.clear()
    again = moved.detect(cv2.cvtColor(render(small_layout, Board(), replace(cond, tilt_deg=14, roll_deg=3,
                                                                            offset=(0.12, 0.05), seed=3)).image,
                                      cv2.COLOR_BGR2GRAY))
    assert again.status is RegistrationStatus.OK and not spy.pixels  # its new place is expected now


def test_a_marker_too_small_for_the_whole_frame_pass_is_not_taken_from_a_crop(small_layout):
    """The crops must never register what the whole frame would not (``minMarkerPerimeterRate``)."""
    cond = Conditions(size=(960, 540), tilt_deg=5)
    gray = cv2.cvtColor(render(small_layout, Board(), cond).image, cv2.COLOR_BGR2GRAY)
    strict = Registrar(small_layout)
    p = strict.detector.getDetectorParameters()
    p.minMarkerPerimeterRate = 1.0  # nothing is big enough in a 960 px frame
    strict.detector.setDetectorParameters(p)
    strict._upscaled.setDetectorParameters(p)
    strict._retry.setDetectorParameters(p)
    strict._near.setDetectorParameters(p)
    strict.expect(Registrar(small_layout).detect(gray).homography, (960, 540))
    assert not strict.detect(gray).usable
