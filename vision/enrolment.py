"""Per-table enrolment: what the reader learns from the user's own table.

Two photos: the **empty board** (its artwork, under this light, through this camera) and, once,
the board with **one piece of each type** on spaces the dashboard marks (``enrolment_plan``).
From the second the reader learns each player's colours as this camera sees them (lit tops and
shaded walls alike) and each piece type's size. Nothing about a piece's look is in the code:
without the pieces photo the layout's nominal colours and sizes are used, and the model says so
(``enrolled`` is False), since those are a guess about someone else's copy of the game.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

import cv2
import numpy as np

from scorer.core.types import Piece
from vision.calibration import Calibration, ColourModel, nominal_model, rectified_size
from vision.errors import CalibrationError
from vision.foreground import Foreground, LightNormaliser
from vision.geometry import camera_from_homography, estimate_fov
from vision.layout import Layout, SpaceShape

if TYPE_CHECKING:
    from scorer.core.types import Board
    from vision.registration import Registration

FORMAT = "tableref-table-model/1"
KMEANS_SEED = 20261125
PROTOS_PER_COLOUR = 4  # lit top, walls turned from the light, shadows: a few shades per colour
DEFAULT_FOV_DEG = 66.0


@dataclass(frozen=True)
class PieceSize:
    """A piece type's footprint area (mm^2, parallax removed) and height (mm, from the layout)."""

    area_mm2: float
    height_mm: float
    round: bool
    enrolled: bool


@dataclass(frozen=True)
class TableModel:
    """Everything the reader knows about one table: its empty board and its pieces."""

    layout_id: str
    px_per_mm: float
    reference: np.ndarray  # the empty board, rectified (BGR uint8)
    colours: Mapping[str, np.ndarray]  # owner ("red", "neutral") -> (k, 3) Lab prototypes
    spreads: Mapping[str, float]  # owner -> typical Lab distance of its own pixels to its prototypes
    sizes: Mapping[Piece, PieceSize]
    enrolled: bool
    created: float = field(default_factory=time.time)
    notes: tuple[str, ...] = ()
    pose: np.ndarray | None = None  # board mm -> pixels of the empty-board photo (a mounted camera stays there)
    frame_size: tuple[int, int] | None = None  # (w, h) of that photo
    faces: Mapping[str, np.ndarray] = field(default_factory=dict)  # "owner:kind" -> printed top face (vision/faces.py)
    # "neutral:kind" -> (Lab prototypes, spread) of a plain neutral kind (a Cheops treasure's colour; vision/appearance.py)
    kind_colours: Mapping[str, tuple[np.ndarray, float, float]] = field(default_factory=dict)  # + area scale
    # the pieces photo, rectified like ``reference``, and what lay on it: the learned classifier checks
    # how sure it is of this table's own pieces there (vision/enrolment_margins.py); None: not enrolled
    pieces_view: np.ndarray | None = None
    placed: Mapping[str, Piece] = field(default_factory=dict)

    # -------------------------------------------------------------- persistence
    def save(self, path: str | Path) -> None:
        meta = {
            "format": FORMAT, "layout": self.layout_id, "px_per_mm": self.px_per_mm, "enrolled": self.enrolled,
            "created": self.created, "notes": list(self.notes),
            "colours": {k: np.round(v, 2).tolist() for k, v in self.colours.items()},
            "spreads": {k: round(float(v), 2) for k, v in self.spreads.items()},
            "pose": None if self.pose is None else np.asarray(self.pose, float).tolist(),
            "frame_size": None if self.frame_size is None else list(self.frame_size),
            "sizes": [{"owner": str(p.owner), "kind": p.kind, "area_mm2": round(s.area_mm2, 1),
                       "height_mm": s.height_mm, "round": s.round, "enrolled": s.enrolled}
                      for p, s in self.sizes.items()],
            "faces": sorted(self.faces),
            "kind_colours": {k: {"protos": np.round(v[0], 2).tolist(), "spread": round(float(v[1]), 2),
                                 "scale": round(float(v[2]), 3)}
                             for k, v in self.kind_colours.items()},
            "placed": {s: f"{p.owner}:{p.kind}" for s, p in self.placed.items()},
        }
        ok, png = cv2.imencode(".png", self.reference)
        tmp = Path(str(path) + ".tmp")
        with open(tmp, "wb") as fh:  # written whole, then renamed: a crash never leaves half a file
            # printed faces (optional; files without them load as before): face0, face1, ... in meta["faces"] order
            faces = {f"face{i}": np.asarray(self.faces[k], np.uint8) for i, k in enumerate(meta["faces"])}
            if self.pieces_view is not None:  # (optional too)
                faces["pieces_view"] = cv2.imencode(".png", self.pieces_view)[1]
            np.savez_compressed(fh, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8), reference=png, **faces)
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path, layout: Layout | None = None) -> "TableModel":
        """Read a table model; an older colour calibration file (``tableref vision calibrate``)
        is accepted too, with nominal sizes (``layout`` needed then)."""
        try:
            with np.load(path) as z:
                meta = json.loads(bytes(z["meta"]).decode())
                ref = cv2.imdecode(z["reference"], cv2.IMREAD_COLOR)
                faces = {k: np.array(z[f"face{i}"]) for i, k in enumerate(meta.get("faces", ()))}
                view = cv2.imdecode(z["pieces_view"], cv2.IMREAD_COLOR) if "pieces_view" in z.files else None
        except (OSError, ValueError, KeyError, EOFError) as exc:
            raise CalibrationError(f"cannot read table model {path}: {exc}") from None
        if ref is None:
            raise CalibrationError(f"table model {path} has no empty-board image")
        if meta.get("format") != FORMAT:
            if layout is None:
                raise CalibrationError(f"{path} is an older colour calibration; its layout is needed to use it")
            return from_calibration(Calibration.load(path), layout)
        sizes = {Piece(d["owner"], d["kind"]): PieceSize(d["area_mm2"], d["height_mm"], d["round"], d["enrolled"])
                 for d in meta["sizes"]}
        return cls(meta["layout"], float(meta["px_per_mm"]), ref,
                   {k: np.asarray(v, np.float32) for k, v in meta["colours"].items()},
                   dict(meta["spreads"]), sizes, bool(meta["enrolled"]), float(meta.get("created", 0.0)),
                   tuple(meta.get("notes", ())),
                   None if meta.get("pose") is None else np.asarray(meta["pose"], np.float64),
                   None if meta.get("frame_size") is None else tuple(meta["frame_size"]), faces,
                   {k: (np.asarray(v["protos"], np.float32), float(v["spread"]), float(v.get("scale", 1.0)))
                    for k, v in meta.get("kind_colours", {}).items()},
                   view, {s: Piece(*t.split(":", 1)) for s, t in meta.get("placed", {}).items()})


# ------------------------------------------------------------------ plan and nominal values
def piece_types(layout: Layout) -> list[Piece]:
    """One piece per owner and look: kinds that look alike are enrolled and read as one
    (``vision.piece_looks``: Zhang Yi's talent counters as its army counters)."""
    from vision.piece_looks import read_kinds

    players = list(layout.players)
    kinds = read_kinds(layout)
    out = [Piece(p, k) for k in layout.player_kinds() if k in kinds for p in players]
    return out + [Piece("neutral", k) for k in layout.neutral_kinds() if k in kinds]


def enrolment_types(layout: Layout) -> list[Piece]:
    """The pieces of the enrolment photo: ``piece_types`` (a kind shown by printed counters as one
    counter per owner, values in turn: ``vision.counted_values.enrolment_pieces``), and one of each
    kind told apart only by its face from a kind counted by colour (``vision.piece_looks.face_kinds``:
    each Zhang Yi talent, with its state), whose face is learned."""
    from vision.counted_values import enrolment_pieces, value_kinds
    from vision.piece_looks import face_kinds, read_kinds

    players = list(layout.players)
    read = read_kinds(layout)
    # a kind shown by printed counters (Zhang Yi's army: 1-4) is enrolled as them, their values in turn
    out = [q for k in layout.player_kinds() if k in read for q in enrolment_pieces(layout, k, players)]
    out += [Piece("neutral", k) for k in layout.neutral_kinds() if k in read]
    values = value_kinds(layout)
    return out + [Piece(o, k) for k in face_kinds(layout) if k not in values for o in layout.pieces[k].owners_in(players)]


def enrolment_plan(layout: Layout) -> dict[str, Piece]:
    """Where the user puts one piece of each type for the enrolment photo: each alone on a space
    of a kind that normally holds it (the layout's ``holds``: China's houses on house sites,
    emissaries on dragon spaces), spread over the board so that the light and the camera's angle
    vary between them and a leaning piece never touches another."""
    types = sorted(enrolment_types(layout), key=lambda p: -layout.pieces[p.kind].area)
    holders = {k: [sk for sk, kinds in layout.holds.items() if k in kinds] for k in layout.pieces}
    cx, cy = layout.size[0] / 2, layout.size[1] / 2
    chosen: list = []
    plan: dict[str, Piece] = {}
    for piece in types:
        kinds = holders.get(piece.kind) or []
        cands = [sp for sp in layout.spaces if sp not in chosen and (not kinds or sp.kind in kinds)]
        if not cands:
            cands = [sp for sp in layout.spaces if sp not in chosen]
        if not cands:
            raise CalibrationError(f"the board has {len(layout.spaces)} spaces, enrolment needs {len(types)}")
        if not chosen:
            best = min(cands, key=lambda sp: ((sp.centre[0] - cx) ** 2 + (sp.centre[1] - cy) ** 2, sp.id))
        else:
            best = max(cands, key=lambda sp: (min((sp.centre[0] - c.centre[0]) ** 2 + (sp.centre[1] - c.centre[1]) ** 2
                                                  for c in chosen), sp.id))
        chosen.append(best)
        plan[best.id] = piece
    return plan


def nominal_sizes(layout: Layout) -> dict[Piece, PieceSize]:
    return {p: PieceSize(layout.pieces[p.kind].area, layout.pieces[p.kind].height,
                         layout.pieces[p.kind].footprint == "circle", False) for p in piece_types(layout)}


def _colours_by_owner(model: ColourModel) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    """A colour calibration's prototypes grouped by owner (``red``, ``neutral``), with the
    default spread: what a table model holds when the pieces were not enrolled."""
    colours: dict[str, list] = {}
    for proto, ci in zip(model.protos, model.proto_class):
        colours.setdefault(model.classes[int(ci)].split(":", 1)[0], []).append(proto)
    return {k: np.asarray(v, np.float32) for k, v in colours.items()}, {k: 12.0 for k in colours}


def _nominal_colours(layout: Layout, reference: np.ndarray) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    from vision.calibration import board_white_balance

    return _colours_by_owner(nominal_model(layout, board_white_balance(reference, layout)))


def from_calibration(cal: Calibration, layout: Layout) -> TableModel:
    colours, spreads = _colours_by_owner(cal.model)
    return TableModel(layout.id, cal.px_per_mm, cal.reference, colours, spreads, nominal_sizes(layout), False,
                      notes=(f"from colour calibration ({cal.source}); piece sizes nominal",))


def nominal_model_for(layout: Layout, reference: np.ndarray, px_per_mm: float, note: str) -> TableModel:
    colours, spreads = _nominal_colours(layout, reference)
    return TableModel(layout.id, px_per_mm, reference, colours, spreads, nominal_sizes(layout), False,
                      notes=(note, "piece colours and sizes are the layout's nominal ones: enrol the pieces"))


# ------------------------------------------------------------------ learning from the photos
def camera_centre(H: np.ndarray, frame_size: tuple[int, int]) -> np.ndarray | None:
    return camera_from_homography(H, frame_size, estimate_fov(H, frame_size, DEFAULT_FOV_DEG))


def enrol(layout: Layout, empty: np.ndarray, empty_homography: np.ndarray,
          pieces: np.ndarray | None = None, pieces_homography: np.ndarray | None = None,
          placed: Mapping[str, Piece] | None = None, px_per_mm: float = 1.0) -> TableModel:
    """Learn a table from its empty-board photo and (optionally) the photo with one piece of
    each type on the spaces ``placed`` names. Photos are camera frames; homographies map board
    mm to their pixels (``Registrar.detect``)."""
    from vision.calibration import rectify

    reference = cv2.GaussianBlur(rectify(empty, empty_homography, layout, px_per_mm), (0, 0), 0.6)
    if pieces is None or placed is None or pieces_homography is None:
        return nominal_model_for(layout, reference, px_per_mm, "empty board photo only")
    rect = rectify(pieces, pieces_homography, layout, px_per_mm)
    light = LightNormaliser(reference, px_per_mm)
    fg = Foreground(reference, px_per_mm)
    corrected = light.correct(rect)
    maps = fg.measure(corrected)
    lab = maps.lab
    cam = camera_centre(pieces_homography, (pieces.shape[1], pieces.shape[0]))
    colours: dict[str, list[np.ndarray]] = {}
    sizes = nominal_sizes(layout)
    notes = []
    missing = []
    found: list[tuple[Piece, np.ndarray, np.ndarray, np.ndarray]] = []  # piece, labels, stats row, centre
    pixels_of: dict[Piece, np.ndarray] = {}  # each enrolled piece's inner Lab pixels
    from vision.piece_looks import face_kinds

    face_only = face_kinds(layout)  # counted as another kind: only its face is learned (``learn_faces``)
    h, w = reference.shape[:2]
    for sid, piece in placed.items():
        sp = layout.space(sid)
        mask = _search_area(sp, layout.pieces[piece.kind].height, (w, h), px_per_mm)
        evidence = (maps.seeds & (mask > 0)).astype(np.uint8)
        evidence = cv2.morphologyEx(evidence, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        n, lbl, stats, cents = cv2.connectedComponentsWithStats(evidence, connectivity=8)
        if n <= 1:
            # a piece of nearly the board's colour (a white scarab on a white space) shows only weakly:
            # its shaded walls and rim; nothing else is on the board, so weak evidence is the piece
            weak = cv2.morphologyEx((maps.weak & (mask > 0)).astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
            n, lbl, stats, cents = cv2.connectedComponentsWithStats(weak, connectivity=8)
        if n <= 1:
            missing.append(sid)
            continue
        # the piece is the blob with most of its pixels on its space (a bigger one in the search area
        # may be a neighbouring piece's, as in a photo of a game under way)
        own = _search_area(sp, 0.0, (w, h), px_per_mm, grow_mm=0.0) > 0
        on_space = np.bincount(lbl[own].ravel(), minlength=n)[1:]
        best = 1 + int(np.argmax(on_space if on_space.max() > 0 else stats[1:, cv2.CC_STAT_AREA]))
        if layout.pieces[piece.kind].neutral:
            # a pale neutral piece (a white scarab) breaks into specks of sure evidence, a neighbour's
            # edge may then weigh more: its weak evidence, whole, is taken when it lies nearer the space
            weak = cv2.morphologyEx((maps.weak & (mask > 0)).astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
            n2, lbl2, stats2, cents2 = cv2.connectedComponentsWithStats(weak, connectivity=8)
            if n2 > 1:
                over2 = np.bincount(lbl2[own].ravel(), minlength=n2)[1:]
                b2 = 1 + int(np.argmax(over2 if over2.max() > 0 else stats2[1:, cv2.CC_STAT_AREA]))
                centre = np.asarray(sp.centre) * px_per_mm
                if np.linalg.norm(cents2[b2] - centre) + 3 * px_per_mm < np.linalg.norm(cents[best] - centre):
                    n, lbl, stats, cents, best = n2, lbl2, stats2, cents2, b2
        blob = lbl == best
        # the blob's inner pixels: its edge mixes with the board
        counts_as = layout.pieces[piece.kind].counts_as
        if piece.kind in face_only and counts_as is None:
            continue  # found (its face is learned below); its printed ink is no colour of its owner's pieces
        inner = cv2.erode(blob.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
        if inner.sum() < 6:
            inner = blob
        if counts_as is not None:
            # a printed counter (Zhang Yi's army counter) teaches its owner's colour without its ink,
            # and the size of the kind it counts as
            inner &= ~_ink_pixels(lab, inner)
            piece = Piece(piece.owner, counts_as[0])
        colours.setdefault(str(piece.owner), []).append(lab[inner])
        mine = inner & own  # a scarab's colour from its pixels on its own space (a blob can touch a neighbour's)
        pixels_of[piece] = lab[mine] if mine.sum() >= 6 else lab[inner]
        found.append((piece, np.where(blob, best, 0).astype(np.int32), stats[best], cents[best]))
    if missing:
        raise CalibrationError("no piece found on " + ", ".join(missing) + " in the pieces photo: put the marked "
                               "pieces there (nothing else on the board) and take it again")
    protos: dict[str, np.ndarray] = {}
    spreads: dict[str, float] = {}
    for owner, parts in colours.items():
        px = np.concatenate(parts).astype(np.float32)
        k = min(PROTOS_PER_COLOUR, max(1, len(px) // 20))
        crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.5)
        cv2.setRNGSeed(KMEANS_SEED)  # the same photos always give the same model
        _, lbl, centres = cv2.kmeans(px, k, None, crit, 3, cv2.KMEANS_PP_CENTERS)
        protos[owner] = centres.astype(np.float32)
        d = np.linalg.norm(px - centres[lbl.ravel()], axis=1)
        spreads[owner] = float(np.percentile(d, 80))
    from vision.counting import MassMeter

    owners = sorted(protos)
    labels = np.full((h, w), -2, np.int16)  # nothing else is on the board: the fringe is the piece's
    meter = MassMeter(lab, fg.ref, labels, [protos[o].mean(axis=0) for o in owners])
    for piece, lbl, stat, centre in found:
        spec = layout.pieces[piece.kind]
        area = meter.area(owners.index(str(piece.owner)), lbl, int(lbl.max()), stat) / px_per_mm ** 2
        sweep = _sweep(cam, centre / px_per_mm, spec.height)
        sizes[piece] = PieceSize(footprint_from_apparent(area, sweep), spec.height, spec.footprint == "circle", True)
    from vision.faces import learn_faces

    from vision.kind_colours import learn_kind_colours

    faces = learn_faces(layout, corrected, reference, placed, px_per_mm, cam)
    from vision.counted_faces import learn_counted_faces

    faces.update(learn_counted_faces(layout, corrected, reference, placed, px_per_mm, cam))  # turned square
    from vision.counted_faces import enrolled_counters
    from vision.counted_values import learn_values, value_kinds

    if value_kinds(layout):  # counters read by their printed value: learned finer, from the photo itself
        counters = enrolled_counters(layout, corrected, reference, placed, px_per_mm, cam)
        faces.update(learn_values(layout, counters, placed, pieces, pieces_homography))
    kind_colours = learn_kind_colours(layout, pixels_of, rect, reference, placed, cam, px_per_mm, maps.noise)
    notes.append(f"enrolled {len(placed)} pieces" + (f", {len(faces)} printed faces" if faces else ""))
    return TableModel(layout.id, px_per_mm, reference, protos, spreads, sizes, True, notes=tuple(notes), faces=faces,
                      kind_colours=kind_colours, pieces_view=rect, placed=dict(placed))


INK_LAB = 25.0  # Lab units: a printed counter's pixel this far from its median colour is its print ...
INK_SPREAD = 3.0  # ... or this many times the typical distance, when the counter's shades vary more


def _ink_pixels(lab: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """The pixels of ``inner`` (a printed counter) that are its print, not its colour."""
    px = lab[inner].astype(np.float32)
    d = np.linalg.norm(px - np.median(px, axis=0), axis=1)
    out = np.zeros(inner.shape, bool)
    out[inner] = d > max(INK_LAB, INK_SPREAD * float(np.median(d)))
    return out


LEAN_MM = 12.0  # a piece seen obliquely leans this far out of its space ...
LEAN_PER_HEIGHT = 0.75  # ... or this share of its height, for a tall one


def _search_area(space: "SpaceShape", height_mm: float, size: tuple[int, int], px_per_mm: float,
                 grow_mm: float | None = None) -> np.ndarray:
    """Where an enrolment piece on ``space`` can show: the space grown by how far the piece may
    lean out of it (its height decides; a circle space grows as a circle, a polygon by dilation);
    ``grow_mm``: grown by that instead."""
    w, h = size
    grow = max(LEAN_MM, LEAN_PER_HEIGHT * height_mm) if grow_mm is None else grow_mm
    mask = np.zeros((h, w), np.uint8)
    if space.radius is not None:
        cv2.circle(mask, (int(round(space.centre[0] * px_per_mm)), int(round(space.centre[1] * px_per_mm))),
                   int(round((space.radius + grow) * px_per_mm)), 1, -1)
        return mask
    cv2.fillPoly(mask, [np.round(np.asarray(space.polygon) * px_per_mm).astype(np.int32)], 1)
    g = int(round(grow * px_per_mm))
    return cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * g + 1, 2 * g + 1)))


def _with_pose(model: TableModel, H: np.ndarray, size: tuple[int, int]) -> TableModel:
    from dataclasses import replace

    return replace(model, pose=np.asarray(H, np.float64), frame_size=size)


def _sweep(cam: np.ndarray | None, at_mm: np.ndarray, height: float) -> float:
    from vision.geometry import parallax

    return float(np.linalg.norm(parallax(np.asarray(at_mm, float).reshape(1, 2), cam, height)[0]))


def footprint_from_apparent(area: float, sweep: float) -> float:
    """Invert ``apparent_area``: the footprint whose swept area is ``area``."""
    # area = a + sqrt(a) * sweep  ->  sqrt(a) = (-sweep + sqrt(sweep^2 + 4 area)) / 2
    r = (-sweep + (sweep * sweep + 4 * area) ** 0.5) / 2
    return r * r


def apparent_area(footprint: float, sweep: float) -> float:
    """A piece's area as seen from the camera, in the board plane: its footprint swept by the
    displacement of its top (about its width times the sweep)."""
    return footprint + footprint ** 0.5 * sweep


def check_model(model: TableModel, layout: Layout) -> None:
    if model.layout_id != layout.id:
        raise CalibrationError(f"table model is for layout {model.layout_id!r}, not {layout.id!r}")
    want = rectified_size(layout, model.px_per_mm)
    if (model.reference.shape[1], model.reference.shape[0]) != want:
        raise CalibrationError("table model's empty board does not match the layout's size")


def register_photo(layout: Layout, image: np.ndarray, empty: tuple[np.ndarray, np.ndarray] | None = None,
                   px_per_mm: float = 1.0) -> "Registration":
    """``image`` registered by its corner markers; failing that, with ``empty`` (the empty-board photo and its
    homography) placed as the reader places such a frame (``TableRegistration``): the empty photo's pose refined
    on the print, the camera being mounted. A far board's markers, 20 px across, can be read in the calm empty
    photo and not in the pieces photo (photoreal China seed 66 t02: its table could not be enrolled)."""
    from vision.registration import Registrar

    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    reg = Registrar(layout).detect(gray)
    if reg.usable or empty is None:
        return reg
    from vision.card_rows import is_card_layout
    from vision.table_registration import TableRegistration

    if is_card_layout(layout):  # a card table's model is vision.card_enrol's
        return reg

    photo, H = empty
    bare = _with_pose(enrol(layout, photo, H, px_per_mm=px_per_mm), H, (photo.shape[1], photo.shape[0]))
    return TableRegistration(Registrar(layout), bare).register(gray)


def model_from_photos(layout: Layout, empty: np.ndarray, pieces: np.ndarray | None = None,
                      placed: Mapping[str, Piece] | None = None, *, empty_name: str = "empty-board photo",
                      pieces_name: str = "pieces photo", px_per_mm: float = 1.0) -> TableModel:
    """Register each photo (``register_photo``: the pieces photo, failing its markers, by the empty photo's pose
    refined on the print) and enrol. Raises ``NotRegistered`` naming the photo that was not placed."""
    from vision.errors import NotRegistered

    def register(img: np.ndarray, name: str, known: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        reg = register_photo(layout, img, known, px_per_mm)
        if not reg.usable:
            raise NotRegistered(f"{name}: {reg.message.en} / {reg.message.zh}")
        return reg.homography

    H0 = register(empty, empty_name)
    if pieces is None or not placed:
        model = enrol(layout, empty, H0, px_per_mm=px_per_mm)
    else:
        model = enrol(layout, empty, H0, pieces, register(pieces, pieces_name, (empty, H0)), placed, px_per_mm)
    return _with_pose(model, H0, (empty.shape[1], empty.shape[0]))


def placed_from_board(board: "Board") -> dict[str, Piece]:
    """An enrolment photo's truth (one piece per space) as space -> piece."""
    out: dict[str, Piece] = {}
    for sid, counts in board.as_dict().items():
        items = [p for p, n in counts.items() for _ in range(n)]
        if len(items) != 1:
            raise CalibrationError(f"enrolment space {sid} holds {len(items)} pieces; put exactly one piece on each")
        out[sid] = items[0]
    return out
