"""How sure the learned classifier is of this table's own pieces, from its enrolment photo.

The enrolment photo shows one piece of each type alone on a known space, in the calm light of the
mounted camera. A network trained on other tables can be unsure of this table's lone pieces there:
on one photoreal tuning table the lone houses' walls and shadows looked like a fortress under
them (P = 0.3-0.5 for "house on a fortress"), on another a blue house came out 13 % empty. The
frames of such a table then repeat that misreading wherever the piece stands.

So before reading, each single-choice class (``Head.mode == "single"``) whose lone piece the
network reads in the photo by less than ``MARGIN`` (in logits: the piece's class against the
best other) is raised by the shortfall, at most ``MOST``, and never so far that the photo's
empty spaces stop reading empty by ``EMPTY_MARGIN`` (all but the least sure ``EMPTY_SHARE`` of
them). A table whose pieces the network already reads surely gets no raise: the network is
unchanged there. A head that counts pieces (``counts``) is left as it is: its classes are counts
per owner, and one photo's lone pieces say nothing of a heap.

A raise counts only against the classes the photo showed it losing to (its *rivals*: those within
``MARGIN`` of the lone piece's class there). On one photoreal tuning table the violet house read
empty in the photo; raised against every class it turned the table's blue houses violet in most
frames, where raised against "empty" alone it does not.

Chosen on the photoreal tuning tables (tools/photoreal seed 2 and the evaluation set's tune
split) and the project's renderer: docs/vision.md, "Enrolment margins".
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np

from scorer.core.types import Piece
from vision.space_classifier import Head

if TYPE_CHECKING:
    from vision.table_reader import TableReader

log = logging.getLogger(__name__)

MARGIN = 4.0  # logits: a lone piece of the photo read this much above the next class (P ~ 0.98)
MOST = 6.0  # the largest raise of a class
EMPTY_MARGIN = 3.0  # the photo's empty spaces keep reading empty by this much ...
EMPTY_SHARE = 10.0  # ... all but this percentage of them


@dataclass(frozen=True)
class Raises:
    """One single-choice head's raises for this table: per class the logit added (``by_class``) and
    the classes it is added against (``rivals[c, k]``: class ``c`` is raised where the network's own
    choice is ``k``; always where it is ``c`` itself)."""

    by_class: np.ndarray
    rivals: np.ndarray

    def apply(self, rows: np.ndarray) -> np.ndarray:
        """The networks' outputs (one row per space) with the raises that hold against each row's choice."""
        choice = np.argmax(rows, axis=1)
        against = self.rivals[:, choice].T | (np.arange(rows.shape[1])[None, :] == choice[:, None])
        return rows + self.by_class[None, :] * against


def class_rivals(head: Head, samples: Sequence[tuple[np.ndarray, int]]) -> np.ndarray:
    """Per class of a single-choice ``head`` (rows), the classes its lone pieces in the photo lost to or
    nearly did (within ``MARGIN``): what its raise is for."""
    n = len(head.classes)
    rivals = np.zeros((n, n), bool)
    if head.mode != "single":
        return rivals
    for row, c in samples:
        if c == 0:
            continue
        near = row > row[c] - MARGIN
        near[c] = False
        rivals[c] |= near
    return rivals


def class_raises(head: Head, samples: Sequence[tuple[np.ndarray, int]]) -> np.ndarray:
    """Per class of a single-choice ``head``, the logit added before deciding. ``samples``: the
    enrolment photo's spaces of that kind, each as (the network's logits, the index of the class
    that lay there; 0 is empty)."""
    raises = np.zeros(len(head.classes), np.float32)
    if head.mode != "single":
        return raises
    empties = np.array([row for row, c in samples if c == 0])
    for row, c in samples:
        if c == 0:
            continue
        shortfall = MARGIN - (row[c] - np.delete(row, c).max())
        if shortfall <= 0:
            continue
        r = min(MOST, shortfall)
        if len(empties):  # no more than the photo's empty spaces allow: they stay empty
            gaps = empties[:, 0] - empties[:, c]
            r = min(r, float(np.percentile(gaps, EMPTY_SHARE)) - EMPTY_MARGIN)
        raises[c] = max(raises[c], r, 0.0)
    return raises


def with_a_piece_under(head: Head, raises: "Raises", samples: Sequence[tuple[np.ndarray, int]]) -> "Raises":
    """The raises carried over to the same pieces on a piece of another kind (China: a house on a
    fortress): a network that misses this table's violet house on a bare site (its photo's house
    read empty) misses it on a fortress too (read as the fortress alone), so "fortress + violet house"
    is raised against "fortress" as "violet house" is against "empty". No further than the photo's
    own spaces of the rival class allow (its lone fortress stays a fortress by ``EMPTY_MARGIN``)."""
    by_class, rivals = raises.by_class.copy(), raises.rivals.copy()
    extras = sorted({p for cls in head.classes for p in cls}, key=str)
    for c in np.flatnonzero(raises.by_class > 0):
        for k in np.flatnonzero(raises.rivals[c]):
            for p in extras:
                c2, k2 = _class_of(head, head.classes[c] + (p,)), _class_of(head, head.classes[k] + (p,))
                if c2 is None or k2 is None:
                    continue
                r = float(raises.by_class[c])
                shown = np.array([row for row, t in samples if t == k2])
                if len(shown):
                    r = min(r, float(np.percentile(shown[:, k2] - shown[:, c2], EMPTY_SHARE)) - EMPTY_MARGIN)
                if r > 0:
                    by_class[c2] = max(by_class[c2], r)
                    rivals[c2, k2] = True
    return Raises(by_class, rivals)


def _class_of(head: Head, pieces: tuple[Piece, ...]) -> int | None:
    target = head.target(list(pieces))
    return None if target is None else int(target[0])


def enrolment_samples(head: Head, logits: Mapping[str, np.ndarray], placed: Mapping[str, Piece]
                      ) -> list[tuple[np.ndarray, int]]:
    """``logits``: space id -> the network's outputs for the photo's spaces of ``head``'s kind;
    ``placed``: what lay on the photo. A piece the head has no class for is left out."""
    out = []
    for sid, row in logits.items():
        c = _class_of(head, (placed[sid],) if sid in placed else ())
        if c is not None:
            out.append((row, c))
    return out


def table_raises(reader: "TableReader") -> dict[str, Raises]:
    """Per single-choice space kind, the raises for this table: its enrolment photo
    (``model.pieces_view``, ``model.placed``) read by ``reader``'s own steps; none without it."""
    model, classifier = reader.model, reader.classifier
    view, placed = model.pieces_view, model.placed
    if classifier is None or view is None or not placed or view.shape != model.reference.shape:
        return {}
    corrected = reader.light.correct(view)
    reader.light.field = None  # the photo's light is not a frame's
    maps = reader.fg.measure(corrected)
    singles = {k for k, h in classifier.heads.items() if h.mode == "single"}
    spaces = reader.layout.spaces
    _, logits = reader.space_logits(corrected, maps, [i for i, sp in enumerate(spaces) if sp.kind in singles])
    out = {}
    for kind, (idx, rows) in logits.items():
        head = classifier.heads[kind]
        samples = enrolment_samples(head, dict(zip((spaces[i].id for i in idx), rows)), placed)
        raises = class_raises(head, samples)
        if raises.any():
            out[kind] = r = with_a_piece_under(head, Raises(raises, class_rivals(head, samples)), samples)
            log.info("enrolment photo: %s classes raised for this table: %s", kind,
                     {_name(head, c) + " against " + ", ".join(_name(head, k) for k in np.flatnonzero(r.rivals[c])):
                      round(float(v), 2) for c, v in enumerate(r.by_class) if v})
    return out


def _name(head: Head, c: int) -> str:
    return "+".join(f"{p.owner}:{p.kind}" for p in head.classes[c]) or "empty"
