"""What the card reader learns from a table of cards (The Great Wall): the deck colours, each
card kind's type panel and each token's printed value, from the enrolment photo of
``vision.card_rows.enrol_board`` (one card of each kind laid in a row in the layout's order, a
crosswise card on one of them, one token of each value on the token spots).

Without that photo the reader uses the layout's nominal artwork (``nominal_card_faces``: right
for the renderer and the demo's synthetic camera only; a real copy must be enrolled).
"""

from __future__ import annotations

from collections import Counter
from typing import Mapping

import cv2
import numpy as np

from scorer.core.types import Board, Piece
from vision.card_rows import (ART_PX_PER_MM, CARD_FACE_RGB, CROSS_TOP_MM, INDEX_X, OWNER_Y, PANEL_BLOCKS, PANEL_INK, PANEL_Y,
                              _card_art, card_kinds, card_row, crosswise_kinds, label_of, panel_pattern, token_spots)
from vision.errors import CalibrationError
from vision.layout import Layout

FACE, INK, BOARD = "~face", "~ink", "~board"  # colours of a card that are no deck colour (the reader's index test weighs them too)
PANEL_SHRINK_MM = 1.0  # the panel crop leaves this margin (its edge mixes with the owner square and the card)
TOKEN_FACE_MM = 18.0  # the middle of a token's face that is compared (its inscribed square, 26 mm across: the whole
                      # digit; at 14 mm a blurred 7 showed little but gold, and a 1 looked like an 8)
MIN_SPREAD = 12.0  # Lab units: a deck colour is never taken tighter than this (the nominal spread)
SQUARE_SHRINK_MM = 2.0  # the owner square's pixels learned, this far inside its edge


def panel_size_mm() -> tuple[float, float]:
    """(width, height) of an upright card's type panel crop."""
    return (INDEX_X[1] - INDEX_X[0] - 2 * PANEL_SHRINK_MM, PANEL_Y[1] - PANEL_Y[0] - 2 * PANEL_SHRINK_MM)


def panel_centre(left: float, top: float) -> tuple[float, float]:
    """Board mm of an upright card's type panel centre, from the card's left and top edges."""
    return left + (INDEX_X[0] + INDEX_X[1]) / 2, top + (PANEL_Y[0] + PANEL_Y[1]) / 2


def cross_panel_centre(square_x: float, square_y: float) -> tuple[float, float]:
    """A crosswise card's panel centre from its owner square's centre (the index runs along the
    card's top edge, the panel before the square)."""
    return square_x - ((PANEL_Y[0] + PANEL_Y[1]) / 2 - (OWNER_Y[0] + OWNER_Y[1]) / 2), square_y


def _crop(img: np.ndarray, cx: float, cy: float, w: int, h: int) -> np.ndarray | None:
    from vision.faces import _crop as crop

    return crop(img, cx, cy, w, h)


def card_colours(layout: Layout, reference: np.ndarray) -> dict[str, np.ndarray]:
    """The cards' own colours that are no deck colour (their face, the panels' ink), nominal: the
    card art's colours under the board's white balance (8-bit Lab prototypes)."""
    from vision.calibration import _lab, board_white_balance

    wb = board_white_balance(reference, layout)
    out = {}
    for name, bgr in ((FACE, CARD_FACE_RGB[::-1]), (INK, PANEL_INK)):
        rgb = bgr[::-1]
        out[name] = np.stack([_lab([rgb[i] * wb[i] * f for i in range(3)]) for f in (0.8, 1.0)]).astype(np.float32)
    return out


def board_colours(reference: np.ndarray, k: int = 4) -> np.ndarray:
    """The bare board's colours (k-means of the empty board's pixels, 8-bit Lab)."""
    from vision.enrolment import KMEANS_SEED

    px = cv2.cvtColor(reference[::4, ::4], cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    cv2.setRNGSeed(KMEANS_SEED)
    _, _, centres = cv2.kmeans(px, k, None, (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.5), 2,
                               cv2.KMEANS_PP_CENTERS)
    return centres.astype(np.float32)


def nominal_card_faces(layout: Layout, px_per_mm: float) -> dict[str, np.ndarray]:
    """Type panels and token faces from the layout's own artwork (``card_rows``, ``face_art``),
    at ``px_per_mm``, keyed ``owner:kind`` as ``vision.faces`` keys them."""
    from vision.face_art import face_art

    out: dict[str, np.ndarray] = {}
    cross = set(crosswise_kinds(layout))
    s = px_per_mm
    pw, ph = panel_size_mm()
    for kind in card_kinds(layout):
        spec = layout.pieces[kind]
        art = _card_art(kind, card_kinds(layout), label_of(layout, kind), (128, 128, 128), spec.size[0], spec.size[-1])
        a = ART_PX_PER_MM
        cx, cy = panel_centre(0.0, 0.0)
        x0, x1 = int(round((cx - pw / 2) * a)), int(round((cx + pw / 2) * a))
        y0, y1 = int(round((cy - ph / 2) * a)), int(round((cy + ph / 2) * a))
        panel = cv2.resize(art[y0:y1, x0:x1], (max(1, int(round(pw * s))), max(1, int(round(ph * s)))),
                           interpolation=cv2.INTER_AREA)
        if kind in cross:
            panel = np.ascontiguousarray(np.rot90(panel, -1))  # turned 90 degrees clockwise, as it lies
        for owner in layout.players:
            out[f"{owner}:{kind}"] = panel
    n = max(1, int(round(TOKEN_FACE_MM * s)))
    for kind, spec in layout.pieces.items():
        if spec.neutral and spec.printed:
            art = face_art(layout, kind)
            side = spec.size[0]  # the art covers the square round the disc: its side is the diameter
            m = art.shape[0]
            half = TOKEN_FACE_MM / side / 2
            c0, c1 = int(round((0.5 - half) * m)), int(round((0.5 + half) * m))
            out[f"neutral:{kind}"] = cv2.resize(art[c0:c1, c0:c1], (n, n), interpolation=cv2.INTER_AREA)
    return out


def learn_card_table(layout: Layout, corrected: np.ndarray, reference: np.ndarray, board: Board,
                     px_per_mm: float) -> tuple[dict[str, list[np.ndarray]], dict[str, np.ndarray]]:
    """From the enrolment photo (rectified, light-corrected ``corrected``) of ``enrol_board``:
    Lab pixels per owner (the owner squares; the tokens' ground as ``neutral``) and the faces
    (type panels keyed for every owner, token faces). Raises ``CalibrationError`` when a card or
    token is not where the plan put it."""
    s = px_per_mm
    lab = cv2.cvtColor(corrected, cv2.COLOR_BGR2LAB).astype(np.float32)
    cross = set(crosswise_kinds(layout))
    upright_kinds = [k for k in card_kinds(layout) if k not in cross]
    pixels: dict[str, list[np.ndarray]] = {}
    faces: dict[str, np.ndarray] = {}
    pw, ph = panel_size_mm()
    for sid in board.spaces():
        row = card_row(layout, sid)
        content = board.pieces(sid)
        cards = sorted((p for p in content.elements() if p.kind in upright_kinds), key=lambda p: upright_kinds.index(p.kind))
        if row is None or not cards:
            continue
        pitch = row.pitch(len(cards))
        for k, piece in enumerate(cards):
            left = row.x0 + k * pitch
            # the owner square, found near where the plan puts it
            sx = left + (INDEX_X[0] + INDEX_X[1]) / 2
            sy = row.top + (OWNER_Y[0] + OWNER_Y[1]) / 2
            side = INDEX_X[1] - INDEX_X[0]
            cx, cy = sx * s, sy * s  # the plan's place (a card lies within a mm of it)
            half = (side / 2 - SQUARE_SHRINK_MM) * s
            y0, y1, x0, x1 = int(round(cy - half)), int(round(cy + half)), int(round(cx - half)), int(round(cx + half))
            patch = lab[y0:y1 + 1, x0:x1 + 1].reshape(-1, 3)
            if len(patch) < 4:
                raise CalibrationError(f"the {piece.owner} {piece.kind} card's corner is off the board in the pieces photo")
            pixels.setdefault(str(piece.owner), []).append(patch)
            dx, dy = cx / s - sx, cy / s - sy  # where the card really lies
            px, py = panel_centre(left + dx, row.top + dy)
            crop = _crop(corrected, px * s, py * s, int(round(pw * s)), int(round(ph * s)))
            if crop is None:
                raise CalibrationError(f"the {piece.kind} card's panel is off the board in the pieces photo")
            for owner in layout.players:
                faces[f"{owner}:{piece.kind}"] = crop
            # what is no deck colour on a card: its face (right of the index) and the panel's ink
            fx0, fx1 = int(round((left + INDEX_X[1] + 4) * s)), int(round((left + INDEX_X[1] + 30) * s))
            fy0, fy1 = int(round((row.top + 4) * s)), int(round((row.top + 34) * s))
            pixels.setdefault(FACE, []).append(lab[fy0:fy1, fx0:fx1].reshape(-1, 3))
            step = (PANEL_Y[1] - PANEL_Y[0]) / PANEL_BLOCKS
            for b, dark in enumerate(panel_pattern(piece.kind, card_kinds(layout))):
                if dark:
                    by0 = int(round((row.top + PANEL_Y[0] + b * step + 1.0) * s))
                    by1 = int(round((row.top + PANEL_Y[0] + (b + 1) * step - 1.0) * s))
                    bx0, bx1 = int(round((left + INDEX_X[0] + 2) * s)), int(round((left + INDEX_X[1] - 2) * s))
                    pixels.setdefault(INK, []).append(lab[by0:by1 + 1, bx0:bx1 + 1].reshape(-1, 3))
    return pixels, faces


def learn_crosswise(layout: Layout, corrected: np.ndarray, labels: np.ndarray, owners: tuple[str, ...],
                    board: Board, px_per_mm: float, faces: dict[str, np.ndarray]) -> None:
    """The crosswise card's panel (in ``faces``, as it lies: turned), found by its owner square
    in the cross band of its row (``labels``: owner index per board pixel)."""
    s = px_per_mm
    pw, ph = panel_size_mm()
    for sid in board.spaces():
        row = card_row(layout, sid)
        for piece in board.pieces(sid):
            if row is None or piece.kind not in crosswise_kinds(layout):
                continue
            y0 = int(round((row.top + CROSS_TOP_MM - 2) * s))
            y1 = int(round((row.top + CROSS_TOP_MM + 16) * s))
            x0, x1 = int(round(row.x0 * s)), int(round(row.x1 * s))
            band = (labels[y0:y1, x0:x1] == owners.index(str(piece.owner))).astype(np.uint8)
            n, _, stats, cents = cv2.connectedComponentsWithStats(band)
            if n <= 1:
                raise CalibrationError(f"the crosswise {piece.kind} card was not found in the pieces photo")
            j = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
            sx, sy = (cents[j][0] + x0) / s, (cents[j][1] + y0) / s
            px, py = cross_panel_centre(sx, sy)
            crop = _crop(corrected, px * s, py * s, int(round(ph * s)), int(round(pw * s)))
            if crop is None:
                raise CalibrationError(f"the crosswise {piece.kind} card's panel is off the board")
            for owner in layout.players:
                faces[f"{owner}:{piece.kind}"] = crop


def learn_tokens(layout: Layout, corrected: np.ndarray, reference: np.ndarray, board: Board, px_per_mm: float,
                 faces: dict[str, np.ndarray], pixels: dict[str, list[np.ndarray]]
                 ) -> list[tuple[Piece, tuple[float, float]]]:
    """Each face-up token's face (in ``faces``); returns each token and where it lies (mm)."""
    from vision.faces import locate

    s = px_per_mm
    n = int(round(TOKEN_FACE_MM * s))
    found = []
    for sid in board.spaces():
        tokens = sorted(p for p in board.pieces(sid).elements() if str(p.owner) == "neutral")
        for (x, y), piece in zip(token_spots(layout, sid), tokens):
            d = layout.pieces[piece.kind].size[0]
            cx, cy = locate(corrected, reference, (x * s, y * s), (int(d * s), int(d * s)), int(4 * s))
            crop = _crop(corrected, cx, cy, n, n)
            if crop is None:
                raise CalibrationError(f"token {piece.kind} is off the board in the pieces photo")
            faces[f"neutral:{piece.kind}"] = crop  # (their printed art has many colours: "neutral" stays nominal)
            found.append((piece, (cx / s, cy / s)))
    return found


def enrol_cards(layout: Layout, empty: np.ndarray, empty_homography: np.ndarray, pieces: np.ndarray | None,
                pieces_homography: np.ndarray | None, board: Board | None, px_per_mm: float = 1.0):
    """A ``TableModel`` for a card layout: the empty board, and from the pieces photo (of
    ``card_rows.enrol_board``) the deck colours and the faces. Without it: nominal."""
    from dataclasses import replace

    from vision.calibration import rectify
    from vision.card_detail import learn_detail_tokens
    from vision.enrolment import KMEANS_SEED, PROTOS_PER_COLOUR, nominal_model_for
    from vision.foreground import LightNormaliser

    reference = cv2.GaussianBlur(rectify(empty, empty_homography, layout, px_per_mm), (0, 0), 0.6)
    nominal = nominal_model_for(layout, reference, px_per_mm, "empty board photo only")
    if pieces is None or pieces_homography is None or board is None:
        return replace(nominal, faces=nominal_card_faces(layout, px_per_mm))
    light = LightNormaliser(reference, px_per_mm)
    corrected = light.correct(rectify(pieces, pieces_homography, layout, px_per_mm))
    pixels, faces = learn_card_table(layout, corrected, reference, board, px_per_mm)
    tokens = learn_tokens(layout, corrected, reference, board, px_per_mm, faces, pixels)
    # ... and, where the photo is fine enough, each token's face for the detail still (vision.card_detail)
    faces.update(learn_detail_tokens(layout, pieces, pieces_homography, tokens,
                                     lambda at: light.gain_at(at[0] * px_per_mm, at[1] * px_per_mm)))
    protos: dict[str, np.ndarray] = {}
    spreads: dict[str, float] = {}
    for owner, parts in pixels.items():
        px = np.concatenate(parts).astype(np.float32)
        k = min(PROTOS_PER_COLOUR, max(1, len(px) // 20))
        cv2.setRNGSeed(KMEANS_SEED)
        _, lbl, centres = cv2.kmeans(px, k, None, (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.5), 3,
                                     cv2.KMEANS_PP_CENTERS)
        protos[owner] = centres.astype(np.float32)
        d = np.linalg.norm(px - centres[lbl.ravel()], axis=1)
        spreads[owner] = max(MIN_SPREAD, float(np.percentile(d, 80)))  # one photo's squares are alike: not the light's range
    for owner in [*layout.players, "neutral"]:  # a colour the photo did not show stays nominal
        if owner not in protos and owner in nominal.colours:
            protos[owner], spreads[owner] = nominal.colours[owner], nominal.spreads[owner]
    for name, colour in card_colours(layout, reference).items():
        if name not in protos:
            protos[name], spreads[name] = colour, 12.0
    model = replace(nominal, colours=protos, spreads=spreads, enrolled=True,
                    notes=(f"enrolled {sum(board.pieces(s).total() for s in board.spaces())} cards and tokens",))
    from vision.colour_classes import ColourClassifier

    colours = ColourClassifier(model)
    labels = colours.classify(cv2.cvtColor(corrected, cv2.COLOR_BGR2LAB).astype(np.float32),
                              np.ones(corrected.shape[:2], bool))
    learn_crosswise(layout, corrected, labels, colours.owners, board, px_per_mm, faces)
    return replace(model, faces=faces)


def card_model_from_photos(layout: Layout, empty: np.ndarray, pieces: np.ndarray | None = None,
                           board: Board | None = None, px_per_mm: float = 1.0):
    """Register each photo by its corner markers and enrol (as ``enrolment.model_from_photos``)."""
    from dataclasses import replace

    from vision.errors import NotRegistered
    from vision.registration import Registrar

    def register(img: np.ndarray, name: str) -> np.ndarray:
        reg = Registrar(layout).detect(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
        if not reg.usable:
            raise NotRegistered(f"{name}: {reg.message.en} / {reg.message.zh}")
        return reg.homography

    H0 = register(empty, "empty-board photo")
    H1 = register(pieces, "pieces photo") if pieces is not None and board is not None else None
    model = enrol_cards(layout, empty, H0, pieces, H1, board, px_per_mm)
    return replace(model, pose=np.asarray(H0, np.float64), frame_size=(empty.shape[1], empty.shape[0]))


def faces_of(model, layout: Layout) -> Mapping[str, np.ndarray]:
    """The model's faces, or the layout's nominal ones when it has none."""
    faces = getattr(model, "faces", None) or {}
    return faces if faces else nominal_card_faces(layout, model.px_per_mm)


# ------------------------------------------------------------------ the enrolment flow, for any layout
def plan_items(layout: Layout) -> list[tuple[str, Piece]]:
    """Where the user lays the enrolment pieces, as (space, piece) pairs: several per section for
    a card layout (``card_rows.enrol_board``), else ``enrolment.enrolment_plan``'s one per space."""
    from vision.card_rows import enrol_board, is_card_layout
    from vision.enrolment import enrolment_plan

    if is_card_layout(layout):
        cards = card_kinds(layout)
        order = {k: i for i, k in enumerate(layout.pieces)}
        return [(sid, p) for sid, counts in enrol_board(layout).items()
                for p in sorted(counts.elements(), key=lambda p: (p.kind not in cards, order[p.kind], str(p.owner)))]
    return list(enrolment_plan(layout).items())


def enrol_table(layout: Layout, empty: np.ndarray, empty_homography: np.ndarray, pieces: np.ndarray,
                pieces_homography: np.ndarray, placed: list[tuple[str, Piece]]):
    """Learn a table from its two photos, whatever its layout: ``enrol_cards`` for card rows, else
    ``enrolment.enrol`` (the camera's enrolment page and the demo call this)."""
    from collections import Counter

    from vision.card_rows import is_card_layout
    from vision.enrolment import enrol

    if is_card_layout(layout):
        cells: dict[str, Counter] = {}
        for sid, p in placed:
            cells.setdefault(sid, Counter())[p] += 1
        return enrol_cards(layout, empty, empty_homography, pieces, pieces_homography, Board.from_counts(cells))
    return enrol(layout, empty, empty_homography, pieces, pieces_homography, dict(placed))


def enrol_from_files(layout: Layout, empty: np.ndarray | None, pieces: np.ndarray | None, placed: Board | None,
                     out: str | None, plan_only: bool) -> dict:
    """``tableref vision enrol`` for a card layout: the plan (a list: several cards per section),
    or the model learned from the photos and saved to ``out``; returns what the command prints."""
    items = plan_items(layout)
    if plan_only:
        return {"board": layout.id, "plan": [{"space": sid, "piece": f"{p.owner}:{p.kind}"} for sid, p in items]}
    if placed is None and pieces is not None:
        cells: dict[str, Counter] = {}
        for sid, p in items:
            cells.setdefault(sid, Counter())[p] += 1
        placed = Board.from_counts(cells)
    model = card_model_from_photos(layout, empty, pieces, placed)
    model.save(out)
    return {"model": out, "board": layout.id, "enrolled": model.enrolled, "notes": list(model.notes),
            "faces": sorted(model.faces),
            "colours_lab": {o: [[round(float(v), 1) for v in c] for c in cs] for o, cs in model.colours.items()}}
