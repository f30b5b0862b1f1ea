"""``vision.bright_bands`` on made-up light ratios: what is lit more than what lies on both sides of it, and which
spaces that makes covered."""

from __future__ import annotations

import numpy as np
import pytest

from vision.bright_bands import BAND_SHARE, lift, lifted_spaces, space_cells

CELL_MM = 4.0  # a light-field cell of 8 px at 2 px/mm


def _board(h: int = 100, w: int = 80) -> np.ndarray:
    """A lamp's gradient (0.6 to 1.3 across the board, 320 mm) with vignetting: light, nothing else."""
    ys, xs = np.mgrid[0:h, 0:w]
    grad = 0.6 * (1.3 / 0.6) ** (xs / (w - 1))
    vignette = 1.0 - 0.3 * (((xs - w / 2) / w) ** 2 + ((ys - h / 2) / h) ** 2)
    return (grad * vignette).astype(np.float32)


def _cells(*boxes: tuple[int, int, int, int]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Spaces as boxes of cells (row0, col0, row1, col1)."""
    out = []
    for r0, c0, r1, c1 in boxes:
        ys, xs = np.mgrid[r0:r1, c0:c1]
        out.append((ys.ravel(), xs.ravel()))
    return out


def test_light_alone_is_lit_as_its_surroundings():
    assert float(lift(_board(), CELL_MM).max()) < 1.1


@pytest.mark.parametrize("edge", [20, 40, 60])
def test_a_shadows_edge_is_not_a_band(edge):
    """The lit top of a hard shadow's edge on the gradient's rising side comes nearest (1.32-1.38 here)."""
    for shadow in (np.s_[:, edge:], np.s_[:, :edge]):
        lum = _board()
        lum[shadow] *= 0.55
        assert float(lift(lum, CELL_MM).max()) < BAND_SHARE


def test_a_lit_strip_between_two_shadows_is_not_a_band():
    """Lit more than both sides, but only as the board is lit (a hand's shadow and its arm's, 60 mm apart)."""
    lum = _board()
    lum[:, 20:30] *= 0.5
    lum[:, 45:55] *= 0.5
    assert float(lift(lum, CELL_MM)[:, 30:45].max()) < BAND_SHARE


def test_a_pale_arm_is_lit_more_than_both_sides_of_it():
    lum = _board()
    lum[:, 30:47] *= 1.85  # 68 mm wide, the board's height long
    up = lift(lum, CELL_MM)
    assert float(np.median(up[:, 32:45])) > 1.5
    assert float(up[:, :28].max()) < 1.1 and float(up[:, 49:].max()) < 1.1


def test_a_bare_space_under_the_band_makes_it_an_object_and_its_edge_spaces_covered():
    lum = _board()
    lum[:, 30:47] *= 1.85
    up = lift(lum, CELL_MM)
    # 0: bare, inside the arm; 1: read as a piece, a third under the arm's edge; 2: bare, beside the arm
    cells = _cells((20, 33, 29, 42), (40, 24, 49, 33), (60, 55, 69, 64))
    assert lifted_spaces(up, cells, bare=[0, 2]) == {0, 1}


def test_a_bright_crowd_of_pieces_covers_nothing():
    """Pale tiles over dark fill are as lit as an arm, but no space under them is read bare."""
    lum = _board()
    lum[20:60, 30:47] *= 1.85
    up = lift(lum, CELL_MM)
    cells = _cells((25, 33, 34, 42), (62, 33, 71, 42))
    assert lifted_spaces(up, cells, bare=[1]) == set()


def test_space_cells_are_the_cells_a_mask_covers_half_of():
    mask = np.ones((20, 28), np.uint8)  # board px x 10..38, y 4..24; cells of 8 px
    mask[:4, :6] = mask[:4, -6:] = 0  # its top row's first and last cells covered less than half
    (ys, xs), = space_cells([((10, 4, 38, 24), mask)], 8, (10, 10))
    assert sorted(set(zip(ys.tolist(), xs.tolist()))) == [(0, 2), (0, 3)] + [(r, c) for r in (1, 2) for c in (1, 2, 3, 4)]


def test_results_under_the_band_turn_occluded_and_the_rule_can_be_turned_off(monkeypatch):
    import vision.bright_bands as bright_bands
    from scorer.core.types import Piece
    from vision.detection import SpaceResult

    lum = _board()
    lum[:, 30:47] *= 1.85
    cells = _cells((20, 33, 29, 42), (40, 24, 49, 33), (60, 55, 69, 64))
    results = [SpaceResult("a"), SpaceResult("b", ((Piece("neutral", "scarab"), 1),)), SpaceResult("c")]
    got, lifted = bright_bands.lifted_results(results, lum, CELL_MM, cells)
    assert lifted == {0, 1}
    assert [(r.occluded, r.pieces, r.confidence) for r in got[:2]] == [(True, (), 0.0)] * 2 and got[2] == results[2]
    monkeypatch.setattr(bright_bands, "BAND_SHARE", 0.0)
    assert bright_bands.lifted_results(results, lum, CELL_MM, cells) == (results, set())
    assert bright_bands.lifted_results(results, None, CELL_MM, cells)[1] == set()
