"""The live referee's pure logic: believe what the sensors agree on, then read it as moves.

* ``stabiliser`` -- observations from several sources (sensor board, camera) in, a *stable view*
  of the table out: a space's content is believed once it has stayed the same for a settle time
  and nothing blocked the view; RFID decides identity where it covers a space, the camera covers
  the rest and confirms; disagreements are reported.
* ``reconciler`` -- the stable view against the board the engine expects: the most likely legal
  move, when to close a turn, a flag (rule, spaces, fix) when nothing legal explains the table.

No I/O and no hidden time: every call takes ``now`` from the runtime's injected clock.
"""

from scorer.referee.stabiliser import Disagreement, SourceStatus, Stabiliser, StableView
from scorer.referee.reconciler import (
    AcceptMove,
    ClearFlag,
    CloseReason,
    Decision,
    Flag,
    FlagKind,
    RaiseFlag,
    Reading,
    ReadingChanged,
    Reconciler,
    ReconcilerSettings,
    TableMatched,
)

__all__ = [
    "AcceptMove",
    "ClearFlag",
    "CloseReason",
    "Decision",
    "Disagreement",
    "Flag",
    "FlagKind",
    "RaiseFlag",
    "Reading",
    "ReadingChanged",
    "Reconciler",
    "ReconcilerSettings",
    "SourceStatus",
    "Stabiliser",
    "StableView",
    "TableMatched",
]
