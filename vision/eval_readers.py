"""Which reader reads an evaluation set's frames, and with what calibration: built once per
table from its photos (``tables/<t>/``) or given for all (``--calibration``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np

from scorer.core.types import Piece
from vision.evaluate import Warn, _image_in, load_truth, read_image
from vision.layout import Layout


def make_reader_factory(layout: Layout, set_dir: str | Path, calibration_path: str | None = None,
                        mode: str = "colour", tags: Mapping[int, Piece] | None = None,
                        warn: Warn | None = None, reader: str = "table",
                        classifier_path: str | Path | None = None) -> Callable[[str | None], Any]:
    """``table id (or None) -> a new reader``. Colour mode reads with ``TableReader``: with the
    learned per-space classifier (``reader="learned"``: the committed model or ``classifier_path``;
    a missing or damaged model raises ``ClassifierError``, never a silent classical read) or by
    counting colour blobs (``reader="table"``), and the table's model: ``calibration_path`` (a
    table model from ``tableref vision enrol``, or an older colour calibration) for every frame, else enrolled from ``tables/<t>/empty.jpg`` and
    ``enrol.jpg`` + ``enrol.json``, else the layout's nominal artwork with a warning. Marker mode,
    and ``reader="legacy"``, use the former ``BoardReader`` (see ``_legacy_reader_factory``)."""
    if mode != "colour" or reader == "legacy":
        return _legacy_reader_factory(layout, set_dir, calibration_path, mode, tags, warn)
    from vision.card_rows import is_card_layout

    if is_card_layout(layout):  # cards in rows (The Great Wall): vision.card_reader
        return card_reader_factory(layout, set_dir, calibration_path, warn)
    from vision.enrolment import TableModel, model_from_photos, placed_from_board
    from vision.errors import CalibrationError, NotRegistered
    from vision.space_classifier import SpaceClassifier
    from vision.table_reader import TableReader

    warn = warn or (lambda msg: None)
    classifier = SpaceClassifier.load(classifier_path, layout) if reader == "learned" else None

    def enrolled(tdir: Path, empty: Path) -> Any:
        enrol = _image_in(tdir, "enrol")
        placed = placed_from_board(load_truth(tdir / "enrol.json", layout).board()) if enrol is not None else None
        try:
            return model_from_photos(layout, read_image(empty), read_image(enrol) if enrol is not None else None,
                                     placed, empty_name=str(empty), pieces_name=str(enrol))
        except (NotRegistered, CalibrationError) as exc:
            # as at a real table: this table cannot be read until its photos are retaken
            warn(f"table {tdir.name!r} cannot be enrolled, its frames count as not registered: {exc}")
            return _NOT_ENROLLED

    model_for = _per_table(set_dir, TableModel.load(calibration_path, layout) if calibration_path else None,
                           enrolled, lambda: None, warn,
                           "no table model given{}: using the layout's nominal artwork and pieces; "
                           "pass --calibration or add tables/<table>/empty.jpg")

    readers: dict[str | None, Any] = {}

    def reader_for(table: str | None):
        """A reader as if new: built once per table (its lookup tables and space maps take
        longer than a read), and reset for every frame."""
        if table not in readers:
            model = model_for(table)
            readers[table] = _UnreadableTable(layout) if model is _NOT_ENROLLED else \
                TableReader(layout, model, classifier=classifier)
        reader = readers[table]
        reader.reset()
        return reader

    return reader_for


_NOT_ENROLLED = object()


def _per_table(set_dir: str | Path, fixed: Any, build: Callable[[Path, Path], Any], fallback: Callable[[], Any],
               warn: Warn, missing: str) -> Callable[[str | None], Any]:
    """``table id -> what calibrates it``, built once per table: ``fixed`` for every table when
    given, else ``build(tables/<t>/, its empty.jpg)``, else ``fallback()`` with a warning."""
    cache: dict[str | None, Any] = {}

    def get(table: str | None) -> Any:
        if fixed is not None:
            return fixed
        if table not in cache:
            tdir = Path(set_dir) / "tables" / (table or "")
            empty = _image_in(tdir, "empty") if table else None
            if empty is None:
                warn(missing.format(" for table " + repr(table) if table else ""))
                cache[table] = fallback()
            else:
                cache[table] = build(tdir, empty)
        return cache[table]

    return get


class _UnreadableTable:
    """The reader of a table whose enrolment photos could not be used: nothing is registered."""

    def __init__(self, layout: Layout):
        self.layout = layout

    def reset(self) -> None:
        pass

    def read(self, frame: np.ndarray, at: float | None = None, detail: Any = None) -> Any:
        from vision.detection import Detection, Mode, SpaceResult
        from vision.registration import Registration, RegistrationStatus

        reg = Registration(RegistrationStatus.MARKERS_MISSING, None)
        return Detection(at or 0.0, Mode.COLOUR, reg, tuple(SpaceResult(sp.id, (), 0.0, True) for sp in self.layout.spaces))


def _legacy_reader_factory(layout: Layout, set_dir: str | Path, calibration_path: str | None = None,
                           mode: str = "colour", tags: Mapping[int, Piece] | None = None,
                           warn: Warn | None = None) -> Callable[[str | None], Any]:
    """``table id (or None) -> a new reader`` (a fresh reader state per call; the calibration is
    built once per table). With ``calibration_path``: that calibration for every frame; else,
    for a table with ``tables/<t>/empty.jpg``: calibrated from it (and from ``enrol.jpg`` with
    ``enrol.json`` when present) as ``tableref vision calibrate`` does; else the default
    calibration, with a warning."""
    from vision.calibration import Calibration, default_calibration
    from vision.photo_calibration import calibration_from_photos
    from vision.reader import BoardReader

    warn = warn or (lambda msg: None)

    def calibrated(tdir: Path, empty: Path) -> Any:
        enrol = _image_in(tdir, "enrol")
        board = load_truth(tdir / "enrol.json", layout).board() if enrol is not None else None
        return calibration_from_photos(layout, read_image(empty), read_image(enrol) if enrol is not None else None,
                                       board, empty_name=str(empty), samples_name=str(enrol))

    calibration_for = _per_table(set_dir, Calibration.load(calibration_path) if calibration_path else None,
                                 calibrated, lambda: default_calibration(layout), warn,
                                 "no calibration given{}: using the default calibration (the renderer's board "
                                 "artwork); pass --calibration or add tables/<table>/empty.jpg")

    def reader_for(table: str | None):
        return BoardReader(layout, mode=mode, calibration=calibration_for(table), tag_map=tags)

    return reader_for


def card_reader_factory(layout: Layout, set_dir, calibration_path: str | None = None, warn=None):
    """``table id -> a new CardReader`` for ``tableref vision eval``: each table enrolled from its
    ``tables/<t>/empty.jpg`` and ``enrol.jpg`` + ``enrol.json`` (``card_enrol``), or the table
    model given, or the layout's nominal artwork with a warning (as ``eval_readers`` does)."""
    from vision.card_enrol import card_model_from_photos
    from vision.card_reader import CardReader
    from vision.enrolment import TableModel
    from vision.errors import CalibrationError, NotRegistered

    warn = warn or (lambda msg: None)
    fixed = TableModel.load(calibration_path, layout) if calibration_path else None

    def enrolled(tdir: Path, empty: Path):
        enrol = _image_in(tdir, "enrol")
        board = load_truth(tdir / "enrol.json", layout).board() if enrol is not None else None
        try:
            return card_model_from_photos(layout, read_image(empty), read_image(enrol) if enrol is not None else None, board)
        except (NotRegistered, CalibrationError) as exc:
            warn(f"table {tdir.name!r} cannot be enrolled, its frames count as not registered: {exc}")
            return None

    model_for = _per_table(set_dir, fixed, enrolled, lambda: None, warn,
                           "no table model given{}: using the layout's nominal artwork and cards")
    readers: dict = {}

    def reader_for(table: str | None):
        if table not in readers:
            model = model_for(table)
            tdir_known = table is not None and (Path(set_dir) / "tables" / table).is_dir()
            readers[table] = _UnreadableTable(layout) if model is None and tdir_known and fixed is None \
                and _image_in(Path(set_dir) / "tables" / table, "empty") is not None else CardReader(layout, model)
        reader = readers[table]
        reader.reset()
        return reader

    return reader_for
