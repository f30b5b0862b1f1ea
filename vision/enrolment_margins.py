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

Chosen on the photoreal tuning tables (tools/photoreal seed 2 and the evaluation set's tune
split) and the project's renderer: docs/vision.md, "Enrolment margins".
"""

from __future__ import annotations

import logging
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


def enrolment_samples(head: Head, logits: Mapping[str, np.ndarray], placed: Mapping[str, Piece]
                      ) -> list[tuple[np.ndarray, int]]:
    """``logits``: space id -> the network's outputs for the photo's spaces of ``head``'s kind;
    ``placed``: what lay on the photo. A piece the head has no class for is left out."""
    out = []
    for sid, row in logits.items():
        target = head.target([placed[sid]] if sid in placed else [])
        if target is not None:
            out.append((row, int(target[0])))
    return out


def table_raises(reader: "TableReader") -> dict[str, np.ndarray]:
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
        raises = class_raises(head, enrolment_samples(head, dict(zip((spaces[i].id for i in idx), rows)), placed))
        if raises.any():
            out[kind] = raises
            log.info("enrolment photo: %s classes raised for this table: %s", kind,
                     {"+".join(f"{p.owner}:{p.kind}" for p in head.classes[c]): round(float(r), 2)
                      for c, r in enumerate(raises) if r})
    return out
