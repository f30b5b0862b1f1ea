"""An evaluation set on disk (``tableref vision eval``'s input; the format is in docs/vision-eval.md):
each frame's truth parsed and checked against the layout, the frames and their truth paired, and
images read with a clear error. Split from ``vision.evaluate`` (which re-exports these names), so
loading a set and scoring a reader each have their own module.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

import cv2
import numpy as np

from scorer.core import safejson
from scorer.core.types import Board, InvalidRecord, Piece
from vision.errors import FrameSetError
from vision.hand_outline import hand_mask_path
from vision.layout import Layout

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
RESERVED_KEYS = ("occluded", "partly_occluded", "table", "markers_covered")


# --------------------------------------------------------------------------------------------
# the truth of one frame

@dataclass(frozen=True)
class FrameTruth:
    """What is on the board in one frame. ``pieces``: space -> multiset (empty spaces absent)."""

    pieces: Mapping[str, Counter]
    occluded: frozenset[str] = frozenset()
    partly_occluded: frozenset[str] = frozenset()
    table: str | None = None
    markers_covered: tuple = ()

    @property
    def hand(self) -> bool:
        """A hand is over the board (something is occluded, even a little)."""
        return bool(self.occluded or self.partly_occluded)

    def content(self, space: str) -> Counter:
        return Counter(self.pieces.get(space, Counter()))

    def board(self) -> Board:
        return Board.from_counts(self.pieces)


def parse_token(token: Any, layout: Layout, where: str) -> Piece:
    """``"<owner>:<kind>"`` -> Piece; the owner a player colour of the layout or ``neutral``."""
    if not isinstance(token, str) or token.count(":") != 1:
        raise FrameSetError(f"{where}: bad piece {token!r} (expected \"<owner>:<kind>\", e.g. \"red:house\")")
    owner, kind = (t.strip() for t in token.split(":"))
    spec = layout.pieces.get(kind)
    if spec is None:
        raise FrameSetError(f"{where}: bad piece {token!r}: unknown kind {kind!r} "
                            f"(layout {layout.id} has {', '.join(layout.pieces)})")
    if spec.neutral and owner != "neutral" and owner not in layout.players:  # a player's: a token claimed (The Great Wall)
        raise FrameSetError(f"{where}: bad piece {token!r}: a {kind} is neutral (write \"neutral:{kind}\")")
    if not spec.neutral and owner not in layout.players:
        raise FrameSetError(f"{where}: bad piece {token!r}: unknown owner {owner!r} "
                            f"(players: {', '.join(layout.players)})")
    return Piece(owner, kind)


def _space_list(value: Any, key: str, layout: Layout, where: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise FrameSetError(f"{where}: \"{key}\" must be a list of space ids")
    unknown = [v for v in value if v not in layout.space_ids]
    if unknown:
        raise FrameSetError(f"{where}: unknown space id(s) in \"{key}\": {', '.join(map(repr, unknown[:5]))} "
                            f"(not on board {layout.id})")
    return frozenset(value)


def parse_truth(data: Any, layout: Layout, where: str = "truth") -> FrameTruth:
    """Validate a truth object (docs/vision-eval.md) against the layout."""
    if not isinstance(data, dict):
        raise FrameSetError(f"{where}: a truth file must hold a JSON object")
    ids = set(layout.space_ids)
    pieces: dict[str, Counter] = {}
    for key, value in data.items():
        if key in RESERVED_KEYS:
            continue
        if key not in ids:
            raise FrameSetError(f"{where}: unknown space id {key!r} (not on board {layout.id})")
        if not isinstance(value, list):
            raise FrameSetError(f"{where}: space {key!r} must be a list of \"<owner>:<kind>\" strings")
        c = Counter(parse_token(t, layout, f"{where} space {key}") for t in value)
        if c:
            pieces[key] = c
    occ = _space_list(data.get("occluded", []), "occluded", layout, where)
    partly = _space_list(data.get("partly_occluded", []), "partly_occluded", layout, where)
    both = occ & partly
    if both:
        raise FrameSetError(f"{where}: space(s) both occluded and partly_occluded: {', '.join(sorted(both))}")
    table = data.get("table")
    if table is not None and (not isinstance(table, str) or not table or "/" in table or table in (".", "..")):
        raise FrameSetError(f"{where}: \"table\" must be a table id (a folder name under tables/)")
    covered = data.get("markers_covered", [])
    if not isinstance(covered, list):
        raise FrameSetError(f"{where}: \"markers_covered\" must be a list")
    return FrameTruth(pieces, occ, partly, table, tuple(covered))


def read_json_file(path: Path, what: str = "") -> Any:
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise FrameSetError(f"{path}: cannot read {what or 'file'} ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise FrameSetError(f"{path}: not UTF-8 text") from None
    try:
        return safejson.loads(text, str(path))
    except InvalidRecord as exc:
        raise FrameSetError(str(exc)) from None


def load_truth(path: Path, layout: Layout) -> FrameTruth:
    return parse_truth(read_json_file(path, "truth"), layout, str(path))


def truth_to_json(board: Board, occluded: Iterable[str] = (), partly_occluded: Iterable[str] = (),
                  table: str | None = None, markers_covered: Iterable[int] = ()) -> dict[str, Any]:
    """A truth object in the set format (the inverse of ``parse_truth``)."""
    out: dict[str, Any] = {}
    for space in board.spaces():
        out[str(space)] = [f"{p.owner}:{p.kind}" for p, n in sorted(board.pieces(space).items()) for _ in range(n)]
    out["occluded"] = sorted(occluded)
    if partly_occluded:
        out["partly_occluded"] = sorted(partly_occluded)
    if table is not None:
        out["table"] = table
    covered = sorted(markers_covered)
    if covered:
        out["markers_covered"] = covered
    return out


# --------------------------------------------------------------------------------------------
# a set on disk

@dataclass(frozen=True)
class Frame:
    stem: str
    image: Path
    truth: FrameTruth
    hand: Path | None = None  # the hand's true outline (``vision.hand_outline``), where the set has one


@dataclass(frozen=True)
class FrameSet:
    root: Path
    info: Mapping[str, Any]  # set.json, or {}
    frames: tuple[Frame, ...]
    orphans: tuple[str, ...] = ()  # frames without truth and truth without frame (skipped)
    warnings: tuple[str, ...] = ()

    @property
    def tables(self) -> tuple[str, ...]:
        return tuple(sorted({f.truth.table for f in self.frames if f.truth.table}))


def _image_in(folder: Path, stem: str) -> Path | None:
    for suf in IMAGE_SUFFIXES:
        for p in (folder / f"{stem}{suf}", folder / f"{stem}{suf.upper()}"):
            if p.is_file():
                return p
    return None


def load_set(root: str | Path, layout: Layout) -> FrameSet:
    """Read and validate a set. Orphans (a frame without truth, a truth without frame) are
    skipped with a warning; everything else that is wrong raises ``FrameSetError``."""
    root = Path(root)
    if not root.is_dir():
        raise FrameSetError(f"{root}: no such folder")
    info: dict[str, Any] = {}
    if (root / "set.json").exists():
        info = read_json_file(root / "set.json", "set description")
        if not isinstance(info, dict):
            raise FrameSetError(f"{root / 'set.json'}: must hold a JSON object")
        board = info.get("board")
        if board is not None and board != layout.id:
            raise FrameSetError(f"{root / 'set.json'}: the set is for board {board!r}, not {layout.id!r}")
    frames_dir, truth_dir = root / "frames", root / "truth"
    for d in (frames_dir, truth_dir):
        if not d.is_dir():
            raise FrameSetError(f"{root}: no {d.name}/ folder (a set holds frames/<stem>.jpg and truth/<stem>.json)")
    images: dict[str, Path] = {}
    for p in sorted(frames_dir.iterdir()):
        if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES:
            if p.stem in images:
                raise FrameSetError(f"{p}: two frames named {p.stem!r} ({images[p.stem].name} and {p.name})")
            images[p.stem] = p
    truths = {p.stem: p for p in sorted(truth_dir.iterdir()) if p.is_file() and p.suffix.lower() == ".json"}
    orphans = [f"frame without truth, skipped: {images[s]}" for s in sorted(set(images) - set(truths))]
    orphans += [f"truth without frame, skipped: {truths[s]}" for s in sorted(set(truths) - set(images))]
    frames = tuple(Frame(s, images[s], load_truth(truths[s], layout), hand_mask_path(root, s))
                   for s in sorted(set(images) & set(truths)))
    if not frames:
        raise FrameSetError(f"{root}: no frame with truth (frames/<stem>.jpg with truth/<stem>.json)")
    warnings: list[str] = list(orphans)
    for t in sorted({f.truth.table for f in frames if f.truth.table}):
        tdir = root / "tables" / t
        if _image_in(tdir, "empty") is None:
            warnings.append(f"{tdir}: no empty.jpg for table {t!r}")
        enrol = _image_in(tdir, "enrol")
        if enrol is not None:
            if not (tdir / "enrol.json").is_file():
                raise FrameSetError(f"{enrol}: enrolment photo without {tdir / 'enrol.json'}")
            load_truth(tdir / "enrol.json", layout)
    return FrameSet(root, info, frames, tuple(orphans), tuple(warnings))


# --------------------------------------------------------------------------------------------
# which reader reads a table's frames

def read_image(path: Path) -> np.ndarray:
    import cv2

    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise FrameSetError(f"{path}: not an image OpenCV can decode")
    return img
