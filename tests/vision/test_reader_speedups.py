"""The reader's faster paths give what the plain ones give (vision: foreground, colour lookup,
colour blobs, bare spaces, and on a rendered frame with a hand: blob stats, dilations, ambiguous
colours, crops, rectification, light, faded print, the hand's colour). Each compares against the
straightforward computation it replaced."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from vision.blobs import dilated, stats_components
from vision.colour_classes import Q, lut_index, resolve_ambiguous
from vision.foreground import Foreground, _outside8
from vision.blobs import members
from vision.occlusion import _colour_components, _mixed
from vision.space_crops import bare_spaces, channels, crop_spaces, evidence_map, reference_crops


def _per_colour_components(labels: np.ndarray) -> list[tuple[int, frozenset]]:
    """Each colour's 8-connected blobs found one colour at a time: (colour, pixel set) each."""
    out = []
    for oi in np.unique(labels[labels >= 0]):
        n, lbl = cv2.connectedComponents((labels == oi).astype(np.uint8), connectivity=8)
        for k in range(1, n):
            out.append((int(oi), frozenset(np.flatnonzero(lbl.ravel() == k).tolist())))
    return out


def _random_labels(rng: np.random.Generator, shape=(90, 120)) -> np.ndarray:
    """Touching rectangles and discs of a few colours on a bare board (-2), some unknown (-1)."""
    labels = np.full(shape, -2, np.int16)
    for _ in range(25):
        colour = int(rng.integers(-1, 5))
        x, y = int(rng.integers(0, shape[1])), int(rng.integers(0, shape[0]))
        if rng.random() < 0.5:
            labels[y:y + int(rng.integers(2, 15)), x:x + int(rng.integers(2, 15))] = colour
        else:
            cv2.circle(labels, (x, y), int(rng.integers(1, 9)), colour, -1)
    return labels


def test_colour_blobs_in_one_pass_are_each_colours_own_blobs():
    rng = np.random.default_rng(7)
    for _ in range(30):
        labels = _random_labels(rng)
        lbl, areas = _colour_components(labels)
        got = []
        for k in np.unique(lbl[lbl > 0]):
            px = np.flatnonzero(lbl.ravel() == k)
            colours = np.unique(labels.ravel()[px])
            assert len(colours) == 1, "a blob holds two colours"
            assert areas[k] == len(px)
            got.append((int(colours[0]), frozenset(px.tolist())))
        assert sorted(got, key=lambda c: min(c[1])) == sorted(_per_colour_components(labels), key=lambda c: min(c[1]))


def test_colour_blobs_bigger_than_the_limit_are_split_exactly():
    """With ``min_area``, blobs of two colours no bigger than it stay whole (no colour of them can
    be bigger), every blob bigger than it is exactly one colour's blob."""
    rng = np.random.default_rng(8)
    for _ in range(30):
        labels = _random_labels(rng)
        lbl, areas = _colour_components(labels, min_area=60)
        want = {px for _, px in _per_colour_components(labels) if len(px) > 60}
        got = {frozenset(np.flatnonzero(lbl.ravel() == k).tolist()) for k in np.flatnonzero(areas > 60)}
        assert got == want


def test_one_flat_index_finds_the_same_lookup_cell():
    rng = np.random.default_rng(9)
    lab = rng.uniform(-20, 280, (40, 50, 3)).astype(np.float32)
    n = 256 // Q
    table = rng.integers(0, 100, n ** 3).reshape(n, n, n)
    q = np.clip(lab, 0, 255).astype(np.uint8) // Q
    assert np.array_equal(table.reshape(-1)[lut_index(lab)], table[q[..., 0], q[..., 1], q[..., 2]])


def test_the_8_bit_difference_outside_a_range_is_the_float_one():
    rng = np.random.default_rng(10)
    ref = rng.integers(0, 256, (60, 70)).astype(np.uint8)
    lo, hi = cv2.erode(ref, np.ones((3, 3), np.uint8)), cv2.dilate(ref, np.ones((3, 3), np.uint8))
    v = rng.integers(0, 256, (60, 70)).astype(np.uint8)
    vf, lof, hif = (x.astype(np.float32) for x in (v, lo, hi))
    assert np.array_equal(_outside8(v, lo, hi).astype(np.float32), np.maximum(np.maximum(vf - hif, lof - vf), 0.0))


def test_dark_pixels_are_those_below_half_the_print_and_well_below_it():
    """``Foreground.measure``'s dark map (one comparison with a precomputed map) against its rule."""
    board = np.full((40, 40, 3), 200, np.uint8)
    board[:, 20:] = 90  # darker print on the right
    fg = Foreground(board)
    frame = board.copy()
    frame[5:15, 5:15] = 40  # very dark on the pale half: dark
    frame[25:35, 25:35] = 50  # on the dark print: L above half of it -> not dark
    frame[25:35, 5:15] = 120  # a shadow on the pale half: darker, not dark
    maps = fg.measure(frame, noise=2.0)
    L = cv2.cvtColor(cv2.GaussianBlur(frame, (0, 0), 0.7), cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)
    lo = fg.lo[0].astype(np.float32)
    assert np.array_equal(maps.dark, (L < 0.5 * lo) & (lo - L > 30.0))
    assert maps.dark[10, 10] and not maps.dark[30, 30] and not maps.dark[30, 10]


def test_a_space_with_nothing_on_it_is_bare_and_one_with_a_piece_is_not():
    box = np.ones((10, 10), np.uint8)
    masks = [((0, 0, 10, 10), box), ((20, 0, 30, 10), box), ((40, 0, 50, 10), box)]
    piece = np.zeros((20, 60), bool)
    piece[2:6, 22:26] = True  # a piece on space 1
    piece[0, 40:42] = True  # two stray pixels on space 2: noise, still bare
    assert bare_spaces(masks, range(3), piece, 1.0) == {0, 2}
    # a part of the board (a partial read) starting at x=15: space 0 is not wholly inside it
    assert bare_spaces(masks, range(3), piece[:, 15:], 1.0, origin=(15, 0)) == {2}


def test_a_reader_looks_for_the_markers_where_the_enrolment_photo_had_them(china_layout, enrolled_table, tmp_path):
    """A new reader, and one reset, expects the board where the table's enrolment photo showed it (a
    mounted camera): its first registration searches small crops there, not the whole frame."""
    from dataclasses import replace

    from scorer.core.types import Board
    from vision.render import Conditions, render
    from vision.table_reader import TableReader

    camera = Conditions(size=(1280, 720), tilt_deg=8, seed=40)
    model = enrolled_table(china_layout, camera, tmp_path)
    reader = TableReader(china_layout, model)
    seen = []
    detector = reader.registrar.detector

    class Spy:
        def detectMarkers(self, img):
            seen.append(img.shape[:2])
            return detector.detectMarkers(img)

        def getDetectorParameters(self):
            return detector.getDetectorParameters()

    reader.registrar.detector = Spy()  # the whole-frame detector (the crops have their own)
    frame = render(china_layout, Board(), replace(camera, seed=44)).image
    assert reader.read(frame).registration.status.value == "ok"
    assert not seen
    moved = render(china_layout, Board(), replace(camera, seed=45, tilt_deg=16, offset=(0.1, 0.04))).image
    assert reader.read(moved).registration.usable and seen == [(720, 1280)]
    reader.reset()  # as new: the enrolment photo's place again, not the moved board's
    seen.clear()
    assert reader.read(frame).registration.status.value == "ok" and not seen


# ---------------------------------------------------------------- on a rendered frame: each faster step
# against the computation it replaced, on the maps a reader makes of a rendered board with a hand over it

_CAMERA = dict(size=(1280, 720), fov_deg=62.0, fill=0.86, tilt_deg=14.0, tilt_azimuth_deg=30.0, blur_sigma=0.6,
               noise_sigma=3.0, jpeg_quality=90, seed=11)


@pytest.fixture(scope="module")
def seen(china_layout, enrolled_table, tmp_path_factory):
    """A reader (the learned one) and what it makes of a rendered board with a hand: the frame, its
    registration, the rectified and corrected board and the foreground maps."""
    from scorer.core.types import Board
    from vision.render import Conditions, Hand, random_board, render
    from vision.table_reader import TableReader

    camera = Conditions(**_CAMERA)
    model = enrolled_table(china_layout, camera, tmp_path_factory.mktemp("speedups"))
    board = random_board(china_layout, np.random.default_rng(4), occupancy=0.8)
    assert isinstance(board, Board)
    hand = Hand(china_layout.space("qi-dragon").centre, 90.0, 70.0, 1.0, (232, 190, 160))
    frame = render(china_layout, board, dataclasses.replace(camera, seed=40, hand=hand)).image
    reader = TableReader(china_layout, model)
    reg = reader.registration.register(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    assert reg.usable
    rect = reader._rectify(frame, reg.homography)
    corrected = reader.light.correct(rect)
    return SimpleNamespace(reader=reader, frame=frame, reg=reg, rect=rect, corrected=corrected,
                           maps=reader.fg.measure(corrected))


def test_block_based_blobs_are_opencvs_default_ones(seen):
    rng = np.random.default_rng(11)
    masks = [seen.maps.piece, seen.maps.weak, seen.maps.strict] + [rng.random((int(h), int(w))) < d for h, w, d in
                                                                   zip(rng.integers(1, 90, 40), rng.integers(1, 90, 40),
                                                                       rng.random(40))]
    for m in masks:
        m = m.astype(np.uint8)
        want, got = cv2.connectedComponentsWithStats(m, connectivity=8), stats_components(m)
        assert want[0] == got[0] and np.array_equal(want[1], got[1]) and np.array_equal(want[2], got[2])
        assert np.array_equal(want[3], got[3], equal_nan=True)


def test_pieces_near_lost_print_are_the_whole_board_dilation_there(seen):
    finder = seen.reader.occlusion
    known = (seen.reader.colours.classify(seen.maps.lookup_lab, seen.maps.strict) >= 0).astype(np.uint8)
    lost = seen.reader.print_watcher.look(seen.maps.lab[..., 0]).lost
    whole = cv2.dilate(known, finder.piece_reach) > 0
    for where in (lost, np.zeros_like(lost), seen.maps.weak & ~seen.maps.piece):
        assert np.array_equal(finder._near_pieces(known, where) & where, whole & where)


def _mixed_by_shifts(labels: np.ndarray, lbl: np.ndarray, n: int) -> np.ndarray:
    """The blobs holding two 8-neighbours of different colours, the board compared with itself shifted."""
    mixed = np.zeros(n, bool)
    for a, b in (((slice(None), slice(1, None)), (slice(None), slice(None, -1))),
                 ((slice(1, None), slice(None)), (slice(None, -1), slice(None))),
                 ((slice(1, None), slice(1, None)), (slice(None, -1), slice(None, -1))),
                 ((slice(1, None), slice(None, -1)), (slice(None, -1), slice(1, None)))):
        pa, pb = labels[a], labels[b]
        differ = (pa != pb) & (pa >= 0) & (pb >= 0)
        mixed[lbl[a][differ]] = True
    return mixed


def test_blobs_of_two_colours_are_those_with_two_differing_neighbours(seen):
    rng = np.random.default_rng(12)
    raw = seen.reader.colours.classify(seen.maps.lookup_lab, seen.maps.piece)
    for labels in [raw, np.where(seen.maps.strict, raw, np.int16(-2))] + [_random_labels(rng) for _ in range(20)]:
        n, lbl = cv2.connectedComponents((labels >= 0).astype(np.uint8), connectivity=8)
        assert np.array_equal(_mixed(labels, lbl, n), _mixed_by_shifts(labels, lbl, n))


def _resolve_on_the_whole_board(labels: np.ndarray, ambiguous: np.ndarray, reach_px: float = 3.0) -> np.ndarray:
    sure = (labels >= 0) & ~ambiguous
    if not sure.any():
        return labels
    dist, idx = cv2.distanceTransformWithLabels(np.where(sure, 0, 255).astype(np.uint8), cv2.DIST_L2, 3,
                                                labelType=cv2.DIST_LABEL_PIXEL)
    owners = np.concatenate([[-2], labels[sure]]).astype(np.int16)
    take = ambiguous & (dist <= reach_px)
    out = labels.copy()
    out[take] = owners[idx[take]]
    return out


def test_ambiguous_colours_resolved_in_their_box_as_on_the_whole_board(seen):
    colours = seen.reader.colours
    mask = seen.maps.piece
    idx = lut_index(seen.maps.lookup_lab[mask])
    labels = np.full(mask.shape, -2, np.int16)
    labels[mask] = colours._lut_flat[idx]
    amb = np.zeros(mask.shape, bool)
    amb[mask] = colours._ambiguous_flat[idx]
    assert amb.any()
    rng = np.random.default_rng(13)
    cases = [(labels, amb)]
    for _ in range(30):  # a few ambiguous pixels somewhere, or many
        some = amb & (rng.random(amb.shape) < rng.random() * 0.2)
        y, x = int(rng.integers(0, amb.shape[0] - 40)), int(rng.integers(0, amb.shape[1] - 40))
        corner = np.zeros_like(amb)
        corner[y:y + 40, x:x + 40] = (labels[y:y + 40, x:x + 40] >= 0) & (rng.random((40, 40)) < 0.5)
        cases += [(labels, some), (labels, corner)]
    for lab, a in cases:
        for reach in (3.0, 1.5):
            assert np.array_equal(resolve_ambiguous(lab, a, reach), _resolve_on_the_whole_board(lab, a, reach))


def _classify_by_mask(colours, lab: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``ColourClassifier.classify`` as first written: the boolean mask used for each gather and scatter."""
    out = np.full(mask.shape, -2, np.int16)
    idx = lut_index(lab[mask])
    out[mask] = colours._lut_flat[idx]
    amb_px = colours._ambiguous_flat[idx]
    if not amb_px.any():
        return out
    amb = np.zeros(mask.shape, bool)
    amb[mask] = amb_px
    return _resolve_on_the_whole_board(out, amb)


def test_8_bit_lab_and_word_gathers_give_the_same_lookups(seen):
    colours, maps = seen.reader.colours, seen.maps
    assert np.array_equal(maps.lab8.astype(np.float32), maps.lab)
    assert np.array_equal(lut_index(maps.lab8), lut_index(maps.lab))
    assert np.array_equal(colours.affinity(maps.lab8), colours._affinity_flat[lut_index(maps.lab)])
    for mask in (maps.piece, maps.strict, np.zeros_like(maps.piece)):
        want = _classify_by_mask(colours, maps.lab, mask)
        assert np.array_equal(colours.classify(maps.lab8, mask), want)
        assert np.array_equal(colours.classify(maps.lab, mask), want)


def _crops_one_by_one(corrected, reference, lab, evidence, colours, centres_px, spec, px_per_mm, origin=(0, 0)):
    """The crops cut one space at a time, each channel converted and looked up alone (as first written)."""
    n, k = len(centres_px), len(colours.owners)
    out = np.empty((n, channels(k), spec.px, spec.px), np.float32)
    scale = spec.px / (spec.size_mm * px_per_mm)
    ox, oy = origin
    size = (spec.px, spec.px)
    flags = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    for i, (cx, cy) in enumerate(np.asarray(centres_px, np.float64)):
        tx, ty = spec.px / 2 - scale * cx, spec.px / 2 - scale * cy
        Ml = np.array([[scale, 0.0, tx + scale * ox], [0.0, scale, ty + scale * oy]])
        out[i, 0:3] = cv2.warpAffine(corrected, Ml, size, flags=flags, borderMode=cv2.BORDER_REPLICATE).transpose(2, 0, 1)
        M = np.array([[scale, 0.0, tx], [0.0, scale, ty]])
        out[i, 3:6] = cv2.warpAffine(reference, M, size, flags=flags, borderMode=cv2.BORDER_REPLICATE).transpose(2, 0, 1)
        out[i, 6] = cv2.warpAffine(evidence, Ml, size, flags=flags, borderMode=cv2.BORDER_REPLICATE)
        lab_c = cv2.warpAffine(lab, Ml, size, flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE)
        out[i, 7:] = colours._affinity_flat[lut_index(lab_c)].transpose(2, 0, 1)
    return out * np.float32(1.0 / 255.0)


def test_crops_cut_together_are_the_crops_cut_one_by_one(seen):
    reader, maps = seen.reader, seen.maps
    specs = reader.classifier.crops
    evidence = evidence_map(maps)
    cache = reference_crops(reader.layout.spaces, specs, reader.model.reference, reader.s)
    assert cache.keys() == reader._reference_crops.keys()
    for kind, spec in specs.items():
        idx = [i for i, sp in enumerate(reader.layout.spaces) if sp.kind == kind]
        centres = np.array([reader.layout.spaces[i].centre for i in idx], np.float64) * reader.s
        want = _crops_one_by_one(seen.corrected, reader.model.reference, maps.lab, evidence, reader.colours, centres,
                                 spec, reader.s)
        for lab, ref_cache in ((maps.lab, None), (maps.lab8, {}), (maps.lab8, cache)):
            got = crop_spaces(seen.corrected, reader.model.reference, lab, evidence, reader.colours, centres, spec,
                              reader.s, reference_cache=ref_cache)
            assert np.array_equal(got, want)
        # a part of the board (a partial read), cut from its own origin
        x0, y0 = 40, 30
        part = crop_spaces(seen.corrected[y0:, x0:], reader.model.reference, maps.lab8[y0:, x0:], evidence[y0:, x0:],
                           reader.colours, centres, spec, reader.s, (x0, y0), cache)
        assert np.array_equal(part, _crops_one_by_one(seen.corrected[y0:, x0:], reader.model.reference,
                                                      maps.lab[y0:, x0:], evidence[y0:, x0:], reader.colours, centres,
                                                      spec, reader.s, (x0, y0)))


def test_the_rectified_board_is_what_the_maps_made_anew_gave(seen):
    reader, H = seen.reader, seen.reg.homography
    h, w = reader.model.reference.shape[:2]
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float32) / reader.s, np.arange(h, dtype=np.float32) / reader.s)
    mapped = cv2.perspectiveTransform(np.dstack([xs, ys]), H.astype(np.float64))
    m1, m2 = cv2.convertMaps(mapped[..., 0].copy(), mapped[..., 1].copy(), cv2.CV_16SC2)
    want = cv2.remap(seen.frame, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    reader._maps = None
    assert np.array_equal(reader._rectify(seen.frame, H), want)


def _light_as_written(light, rect: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``LightNormaliser.correct`` as first written (the balanced ratio divided three times): (corrected, field)."""
    from vision.foreground import FIELD_MEDIAN, FIELD_TINT

    small = cv2.resize(rect, light.small_size, interpolation=cv2.INTER_AREA).astype(np.float32) + 1.0
    ratio = small / light.ref_small
    wb = np.median(ratio.reshape(-1, 3), axis=0)
    lum = (ratio / wb).mean(axis=2)
    lum8 = np.clip(lum * 100, 0, 255).astype(np.uint8)
    tint = (ratio / wb).max(axis=2) - (ratio / wb).min(axis=2)
    coloured = (tint > FIELD_TINT * lum).astype(np.uint8)
    if coloured.any():
        n, lbl, stats, _ = cv2.connectedComponentsWithStats(coloured, connectivity=8)
        edge = np.unique(np.concatenate([lbl[0], lbl[-1], lbl[:, 0], lbl[:, -1]]))
        big = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] > light.most_tinted_cells)
        coloured[np.isin(lbl, np.concatenate([edge[edge > 0], big[big > 0]]))] = 0
    if 0 < coloured.sum() < coloured.size // 2:
        lum8 = cv2.inpaint(lum8, coloured, 3, cv2.INPAINT_TELEA)
    lum8 = cv2.medianBlur(lum8, FIELD_MEDIAN)
    field = np.maximum(cv2.GaussianBlur(lum8.astype(np.float32) / 100.0, (0, 0), 1.0), 0.05)
    inv = ((1.0 / field)[..., None] / wb[None, None, :].astype(np.float32)).astype(np.float32)
    return cv2.multiply(rect, cv2.resize(inv, light.size, interpolation=cv2.INTER_LINEAR), dtype=cv2.CV_8U), inv


def test_light_and_faded_print_are_what_the_plain_computations_gave(seen):
    """``LightNormaliser.correct`` (the balanced ratio divided once) and ``PrintWatcher``'s correlation (the
    empty board's detail power per block kept, the frame's lightness made contiguous first)."""
    from vision.structure import FADED_WINDOW, _detail

    reader, maps = seen.reader, seen.maps
    want, field = _light_as_written(reader.light, seen.rect)
    assert np.array_equal(reader.light.correct(seen.rect), want) and np.array_equal(reader.light.field, field)
    watcher = reader.print_watcher
    soft = cv2.GaussianBlur(maps.lab[..., 0], (0, 0), 1.0)
    assert np.array_equal(soft, cv2.GaussianBlur(np.ascontiguousarray(maps.lab[..., 0]), (0, 0), 1.0))
    lost = np.zeros(watcher.small[::-1], bool)
    lost[10:20, 15:30] = True
    detail = _detail(soft)
    for level, ref in enumerate(watcher.ref_detail):
        products = cv2.merge([detail * ref, detail * detail, ref * ref])
        per_block = cv2.resize(products, watcher.small, interpolation=cv2.INTER_AREA) * lost[..., None].astype(np.float32)
        fr, ff, rr = cv2.split(cv2.boxFilter(per_block, -1, (FADED_WINDOW, FADED_WINDOW), normalize=False,
                                             borderType=cv2.BORDER_CONSTANT))
        want = fr / np.sqrt(np.maximum(ff * rr, 1e-9))
        assert np.array_equal(watcher._correlation(lost, detail, level), want)


def test_the_hand_colour_line_per_channel_is_the_one_on_both_channels(seen):
    """``PaleFingers.towards`` (a channel at a time) against the (h, w, 2) arrays it was written with."""
    finder = seen.reader.occlusion.fingers
    ab = seen.maps.lab[..., 1:]
    for core in (seen.maps.weak, seen.maps.piece):
        h = np.median(ab[core], axis=0).astype(np.float32)
        dh = h[None, None, :] - finder.ref_ab
        contrast = np.sqrt((dh * dh).sum(axis=2))
        along = (((ab - finder.ref_ab) * dh).sum(axis=2) - contrast * contrast / 2) / np.maximum(contrast, 1e-3)
        got = finder.towards(seen.maps.lab, h)
        assert np.array_equal(got[0], contrast) and np.array_equal(got[1], along)


def test_blobs_looked_up_in_a_table_are_those_isin_finds(seen):
    raw = seen.reader.colours.classify(seen.maps.lookup_lab, seen.maps.piece)
    lbl, areas = _colour_components(raw, 100)
    rng = np.random.default_rng(14)
    for ids in (np.array([], int), np.array([1]), rng.choice(len(areas), 5, replace=False), np.arange(len(areas))):
        assert np.array_equal(members(lbl, ids, len(areas)), np.isin(lbl, ids))


def test_a_dilation_over_the_masks_box_is_the_whole_boards(seen):
    finder = seen.reader.occlusion
    rng = np.random.default_rng(15)
    hand = np.zeros(seen.maps.piece.shape, bool)
    hand[200:320, 400:] = seen.maps.weak[200:320, 400:]  # an arm from the right edge
    masks = [hand, seen.maps.strict, np.zeros_like(hand)] + [rng.random(hand.shape) < 1e-4 for _ in range(5)]
    for m in masks:
        for kernel in (finder.fingers.finger_reach, finder.finger_kernel, finder.margin_kernel, np.ones((3, 3), np.uint8)):
            assert np.array_equal(dilated(m, kernel), cv2.dilate(m.astype(np.uint8), kernel))
