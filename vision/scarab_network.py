"""Scarabs on Cheops' pyramid asked of a small network as well as of their colour.

The look-reading (``vision.appearance``) tells tiles by their printed faces and scarabs by their
colour and body. On a far, bright or noisy table that misses scarabs a person still sees there: a
white scarab on the pale space fill, a black one read green or blue (the photoreal Cheops tuning
split, table t00: 33 of its 66 wrong spaces are a white scarab read as nothing). A network on the
space's crop (``vision.space_crops``: the frame, the table's empty board there, the difference, the
enrolled colours) is asked what lies there: nothing, a scarab of each colour, or a tile
(``STAND_IN``: which tile, the faces say; the network never saw this table's portraits).

It is asked only where the look read no tile and was sure enough to read the space at all. Its
answer is taken only when it is a scarab: where the look read nothing, at ``SURE_TO_ADD``; where the
look read a scarab of another colour, at ``SURE_TO_RECOLOUR``. It never takes away a scarab the look saw:
allowed at ``SURE_TO_RECOLOUR``, that won one space of about 9 700 on the photoreal sets it was
decided on (docs/vision.md), too little for the risk of flagging a legal table. A space on which nothing differs from the empty board is not asked
(``space_crops.bare_spaces``).

The price columns' dots are asked too (their own head: nothing or the column's scarab), even where
nothing differs: the marker scarab lies on a dot printed in its own colour, and the look missed it on
one dot in five to one in seventeen of the photoreal sets' frames. Only the column's own colour is taken there.

The model (``vision/models/scarab_network/``) is a space-classifier folder (``vision.space_classifier``)
whose heads are ``scarab_heads``'; ``tools.train_space_classifier --heads scarab`` trains it. Missing or
damaged, the reader logs a warning and reads by look alone.
"""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np

from scorer.core.types import Piece
from vision.colour_classes import ColourClassifier
from vision.counting import SpaceCount
from vision.foreground import ForegroundMaps
from vision.layout import Layout
from vision.space_classifier import MODELS, SEVERAL_FIT, STAND_IN, ClassifierError, Head, SpaceClassifier
from vision.space_crops import bare_spaces, crops_by_kind, evidence_map, reference_crops

log = logging.getLogger(__name__)

MODEL_DIR = MODELS / "scarab_network"
SURE_TO_ADD = 0.9  # the network's probability at which its scarab goes where the look read nothing
SURE_TO_RECOLOUR = 0.99  # ... at which its scarab replaces a scarab of another colour the look read


def scarab_heads(layout: Layout) -> dict[str, Head]:
    """Per space kind that holds printed tiles and plain neutral pieces, one piece at a time (Cheops'
    pyramid: a family tile, a neighbour or one scarab), one choice: nothing, one plain piece of each
    kind, or a tile (``STAND_IN`` for every printed kind). On a board that has such spaces, also the
    kinds that hold one plain neutral piece and nothing else (Cheops' dots: nothing or a scarab).
    Spaces for several (the price columns) are left to the look: a network trained to count them
    read fewer right than the look (docs/vision.md, "Cheops' dots asked of the scarab network")."""
    heads: dict[str, Head] = {}
    plain_only: dict[str, list[str]] = {}
    for sk, kinds in layout.holds.items():
        printed = tuple(k for k in kinds if layout.pieces[k].printed)
        plain = [k for k in kinds if not layout.pieces[k].printed and layout.pieces[k].neutral]
        if not plain or len(printed) + len(plain) != len(kinds):
            continue
        if not any(sp.kind == sk for sp in layout.spaces):
            continue
        if not printed:
            plain_only[sk] = plain
            continue
        classes = ((),) + tuple((Piece("neutral", k),) for k in plain) + ((STAND_IN,),)
        heads[sk] = Head(sk, "single", classes, stands_in=printed)
    if not heads:  # no tiles among the plain pieces: the space classifier's business, not this network's
        return heads
    for sk, plain in plain_only.items():
        area = min(sp.area for sp in layout.spaces if sp.kind == sk)
        if all(layout.pieces[k].area * SEVERAL_FIT > area for k in plain):  # one at a time (a dot)
            heads[sk] = Head(sk, "single", ((),) + tuple((Piece("neutral", k),) for k in plain))
    return heads


class ScarabNetwork:
    """The committed scarab network on one table's reader: ``apply`` revises the look's counts."""

    def __init__(self, layout: Layout, classifier: SpaceClassifier, space_masks: Sequence, reference: np.ndarray,
                 px_per_mm: float, colours: ColourClassifier):
        want = scarab_heads(layout)
        if set(classifier.heads) != set(want) or any(classifier.heads[k] != h for k, h in want.items()):
            raise ClassifierError(f"the scarab network {classifier.source} is not made for layout {layout.id}'s "
                                  "pieces: retrain it for this layout")
        if classifier.owners != colours.owners:
            raise ClassifierError(f"the scarab network was trained for owners {classifier.owners}, "
                                  f"the table model has {colours.owners}")
        self.layout = layout
        self.classifier = classifier
        self.space_masks = space_masks
        self.reference = reference
        self.s = px_per_mm
        self.colours = colours
        self.asked = frozenset(i for i, sp in enumerate(layout.spaces) if sp.kind in classifier.heads)
        self.ask_always = frozenset(k for k, h in classifier.heads.items() if not h.stands_in)
        self._reference_crops = reference_crops(layout.spaces, classifier.crops, reference, px_per_mm)

    @classmethod
    def for_reader(cls, layout: Layout, space_masks: Sequence, reference: np.ndarray, px_per_mm: float,
                   colours: ColourClassifier, path: str | Path = MODEL_DIR) -> "ScarabNetwork | None":
        """The network for a reader of ``layout``; None when the layout has no such spaces, or (with a
        warning in the log) when the model is missing, damaged or made for other pieces."""
        if not scarab_heads(layout):
            return None
        try:
            return cls(layout, SpaceClassifier.load(path), space_masks, reference, px_per_mm, colours)
        except ClassifierError as exc:
            log.warning("scarab network not used for layout %s, scarabs read by colour alone: %s", layout.id, exc)
            return None

    def fits(self, indices: Sequence[int], origin: tuple[int, int], shape: tuple[int, ...]) -> bool:
        """Whether every crop the network would look at for ``indices`` lies inside a part of the board
        (``origin``, ``shape``: a partial read). Only the kinds asked even where nothing differs (the
        dots) are checked: a crop padded at the part's edge reads otherwise than the whole board's,
        and a dot asked there would be read differently from one read whole."""
        ox, oy = origin
        h, w = shape[:2]
        for i in indices:
            sp = self.layout.spaces[int(i)]
            if sp.kind not in self.ask_always:  # (a kind of the network's heads: its spaces are all asked)
                continue
            half = self.classifier.crops[sp.kind].size_mm / 2 * self.s
            cx, cy = sp.centre[0] * self.s - ox, sp.centre[1] * self.s - oy
            if cx - half < 0 or cy - half < 0 or cx + half > w or cy + half > h:
                return False
        return True

    def apply(self, counts: Mapping[int, SpaceCount], corrected: np.ndarray, maps: ForegroundMaps,
              indices: Sequence[int], origin: tuple[int, int] = (0, 0)) -> dict[int, SpaceCount]:
        """``counts`` (the look's, space index -> pieces) with what the network is sure of on the
        spaces of ``indices``: scarabs added or recoloured. ``corrected`` and ``maps`` may be a part of
        the board starting at ``origin`` (a partial read)."""
        out = dict(counts)
        heads = self.classifier.heads
        ask = [int(i) for i in indices if int(i) in self.asked and int(i) in counts
               and not any(p.kind in heads[self.layout.spaces[int(i)].kind].stands_in for p in counts[int(i)].pieces)]
        if not ask:
            return out
        # a space on which nothing differs from the empty board is not asked, unless it is of a kind
        # asked always (a dot: a scarab on a dot printed in its own colour differs from it by little)
        gated = [i for i in ask if self.layout.spaces[i].kind not in self.ask_always]
        bare = bare_spaces(self.space_masks, gated, maps.piece, self.s, origin)  # the look's reading stands
        crops = crops_by_kind(self.layout.spaces, [i for i in ask if i not in bare], self.classifier.crops, corrected,
                              self.reference, maps.lookup_lab, evidence_map(maps), self.colours, self.s, origin,
                              self._reference_crops)
        for kind, (idx, blob) in crops.items():
            head = heads[kind]
            for i, row in zip(idx, self.classifier.forward(kind, blob)):
                pieces, conf = head.decode(row)
                if not pieces or any(p == STAND_IN for p, _ in pieces):
                    continue  # nothing (never taken away) or a tile (the faces tell which)
                if any(p.kind not in self.layout.held_kinds(self.layout.spaces[i]) for p, _ in pieces):
                    continue  # a scarab of another colour on a colour's dot
                if conf < (SURE_TO_RECOLOUR if counts[i].pieces else SURE_TO_ADD):
                    continue
                out[i] = SpaceCount(Counter(dict(pieces)), round(conf, 3))
        return out
