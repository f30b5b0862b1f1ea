"""The committed space classifier with its outputs altered, for tests that need the network to misread
in one known way (a uniquely named helper module). A subclass says how in ``alter``; the heads, crops,
owners and the check against a layout are the committed model's."""

from __future__ import annotations

import numpy as np

from vision.space_classifier import SpaceClassifier


class AlteredClassifier:
    def __init__(self, inner: SpaceClassifier):
        self.inner = inner
        self.heads, self.crops, self.owners = inner.heads, inner.crops, inner.owners

    def check(self, layout) -> None:
        self.inner.check(layout)

    def forward(self, kind: str, blob: np.ndarray) -> np.ndarray:
        return self.alter(kind, self.inner.forward(kind, blob))

    def alter(self, kind: str, out: np.ndarray) -> np.ndarray:
        """The network's outputs ``out`` (one row per space of ``kind``) as this test wants them."""
        return out
