"""Believe a space only when it has been quiet: debounce and fuse sensor observations.

Every source (``"sensor-board"``, ``"camera"`` ...) reports, per space it covers, the pieces it
sees, a confidence and whether the view was blocked. The stabiliser keeps, per source and space,
the current reading and when it first appeared, and *believes* it once it

* has stayed the same for ``settle`` seconds (a piece in flight or a hand hovering never counts),
* was not occluded by any source during that time (a hand over the board), and no live source's
  latest reading of the space is still occluded (a slow camera's next frame may come later than
  ``settle``: the hand is over the space until a frame shows it gone, or until that source has
  said nothing at all for ``occlusion_hold`` seconds -- a stalled camera must not hold the table),
* was read with at least ``min_confidence``.

Fusion: for every space the first live source in ``priority`` that has a believed reading decides
(RFID under the board is sure of identity; the camera sees everything at once and covers the
spaces without an antenna). Every other source with a believed reading that differs is reported as
a ``Disagreement`` -- never hidden, never silently overruled without a trace -- once both readings
have stood for ``disagreement_after`` seconds (a camera a few frames behind the RFID is lag, not
a disagreement), and only once the other source has reported since the deciding reading changed (a
camera whose frames come slowly, on a loaded Pi, has not seen the change yet: it cannot disagree).
A piece one source reads without its value (``token-?``, ``scorer.core.unvalued``) agrees with the
other's valued piece.

A source that goes down (camera died, cable pulled) is marked with ``set_source_live(False)``; its
readings are dropped and the next source in priority takes over for its spaces. Spaces no live
source covers are not *known*: the reconciler then trusts the rules engine for them.

Pure code: time comes in as ``now`` (seconds on the runtime's injected clock).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from scorer.core.observation import Observation, SpaceReading
from scorer.core.types import Board, Message, Piece, SpaceId
from scorer.core.unvalued import contents_agree

SENSOR_BOARD = "sensor-board"
CAMERA = "camera"
DEFAULT_PRIORITY = (SENSOR_BOARD, CAMERA)

Content = tuple[tuple[Piece, int], ...]
_EPS = 1e-6  # float slack on time comparisons (0.2 - 0.0 vs 1.2 - 1.0)


def _describe(content: Content) -> str:
    if not content:
        return "nothing"
    return ", ".join(f"{n}x {p.owner} {p.kind}" for p, n in content)


def _content_json(content: Content) -> list[dict[str, object]]:
    return [{"owner": str(p.owner), "kind": p.kind, "count": n} for p, n in content]


@dataclass(frozen=True, slots=True)
class Disagreement:
    """Two sources believe different contents for one space; ``believed`` is the one used."""

    space: SpaceId
    decided_by: str
    believed: Content
    other_source: str
    other: Content

    @property
    def message(self) -> Message:
        return Message.t('referee.stabiliser.reads_reads_using', space=self.space, decided_by=self.decided_by, believed=_describe(self.believed), other_source=self.other_source, other=_describe(self.other))

    def to_json(self) -> dict[str, object]:
        return {
            "space": self.space,
            "decided_by": self.decided_by,
            "believed": _content_json(self.believed),
            "other_source": self.other_source,
            "other": _content_json(self.other),
            "message": self.message.to_json(),
        }


@dataclass(frozen=True, slots=True)
class SourceStatus:
    """Health of one source as the stabiliser sees it."""

    source: str
    live: bool
    spaces: int
    last_seen: float | None
    reason: Message | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "source": self.source,
            "live": self.live,
            "spaces": self.spaces,
            "last_seen": self.last_seen,
            "reason": self.reason.to_json() if self.reason else None,
        }


@dataclass(frozen=True, slots=True)
class StableView:
    """The table as the referee believes it at ``at``.

    ``board`` holds the believed content of the ``known`` spaces only. ``unsettled`` spaces have a
    new reading that is not believed yet (their old belief stays in ``board``); ``occluded`` spaces
    are under a hand right now. ``changed_at`` is when ``board`` last changed.
    """

    at: float
    board: Board
    known: frozenset[SpaceId]
    unsettled: tuple[SpaceId, ...] = ()
    occluded: tuple[SpaceId, ...] = ()
    disagreements: tuple[Disagreement, ...] = ()
    unknown: tuple[tuple[SpaceId, str, str], ...] = ()  # (space, source, tag/label)
    sources: tuple[SourceStatus, ...] = ()
    changed_at: float = 0.0
    since: tuple[tuple[SpaceId, float], ...] = ()  # when each known space's believed content appeared
    seen: tuple[tuple[SpaceId, str], ...] = ()  # how the believed pieces lie, as their source saw it (``SpaceReading.seen``)

    def seen_by_space(self) -> dict[SpaceId, tuple[str, ...]]:
        """``seen`` per space."""
        out: dict[SpaceId, tuple[str, ...]] = {}
        for space, fact in self.seen:
            out[space] = out.get(space, ()) + (fact,)
        return out

    def appeared(self, space: str) -> float:
        """When the believed content of ``space`` first appeared (0.0 if not known)."""
        found = self.appeared_at(space)
        return 0.0 if found is None else found

    def appeared_at(self, space: str) -> float | None:
        """When the believed content of ``space`` first appeared; None if no source knows it."""
        for s, t in self.since:
            if s == space:
                return t
        return None

    @property
    def busy(self) -> bool:
        """Something on the table is still moving or hidden."""
        return bool(self.unsettled or self.occluded)

    def merged_with(self, expected: Board) -> Board:
        """The sensed board where known, the expected board elsewhere."""
        cells: dict[str, dict[Piece, int]] = {}
        for space, piece, n in expected.items():
            if space not in self.known:
                cells.setdefault(space, {})[piece] = n
        for space, piece, n in self.board.items():
            cells.setdefault(space, {})[piece] = n
        return Board.from_counts(cells)

    def to_json(self) -> dict[str, object]:
        return {
            "at": self.at,
            "sensed": self.board.to_json(),
            "known": sorted(self.known),
            "unsettled": list(self.unsettled),
            "occluded": list(self.occluded),
            "disagreements": [d.to_json() for d in self.disagreements],
            "unknown": [{"space": s, "source": src, "tag": t} for s, src, t in self.unknown],
            "sources": [s.to_json() for s in self.sources],
            "changed_at": self.changed_at,
        }


@dataclass(slots=True)
class _Track:
    content: Content
    since: float  # when we saw it change (settling counts from here)
    occluded: bool
    confident: bool
    unknown: tuple[str, ...]
    believed: Content | None = None
    believed_since: float = 0.0
    appeared: float = 0.0  # when it changed, by the source's own clock where it keeps one (ordering)
    believed_appeared: float = 0.0
    seen: tuple[str, ...] = ()  # of the content now read (SpaceReading.seen)


@dataclass(slots=True)
class _Source:
    name: str
    live: bool = True
    tracks: dict[SpaceId, _Track] = field(default_factory=dict)
    last_seen: float | None = None
    reason: Message | None = None


def _looked_since(src: _Source, changed: float) -> bool:
    """``src`` has reported since ``changed`` (when the deciding source's reading changed)."""
    return src.last_seen is not None and src.last_seen >= changed - _EPS


class Stabiliser:
    """Debounce and fuse observations; see the module docstring for the rules it applies."""

    def __init__(
        self,
        *,
        settle: float = 0.5,
        priority: Iterable[str] = DEFAULT_PRIORITY,
        min_confidence: float = 0.5,
        max_clock_skew: float = 2.0,
        disagreement_after: float = 1.5,
        occlusion_hold: float = 3.0,
    ) -> None:
        if settle < 0:
            raise ValueError("settle time must not be negative")
        self.settle = float(settle)
        self.priority = tuple(priority)
        self.min_confidence = float(min_confidence)
        self.max_clock_skew = float(max_clock_skew)
        self.disagreement_after = float(disagreement_after)
        self.occlusion_hold = float(occlusion_hold)
        self._sources: dict[str, _Source] = {}
        self._blocked_until: dict[SpaceId, float] = {}
        self._last_board: Board | None = None
        self._changed_at = 0.0

    # -- input -------------------------------------------------------------------------------
    def observe(self, obs: Observation, now: float) -> None:
        """Take one observation. Spaces absent from it keep their last reading (delta reports)."""
        src = self._sources.get(obs.source)
        if src is None:
            src = self._sources[obs.source] = _Source(obs.source)
        if not src.live:
            # a source that speaks again is alive again (e.g. the cable was plugged back in)
            src.live, src.reason = True, None
        # the observation's own time, unless its clock is clearly not ours
        at = obs.at if abs(obs.at - now) <= self.max_clock_skew else now
        src.last_seen = max(src.last_seen or at, at)
        for reading in obs.readings:
            self._take(src, reading, at)

    def _take(self, src: _Source, r: SpaceReading, at: float) -> None:
        confident = r.confidence >= self.min_confidence
        track = src.tracks.get(r.space)
        # when the content appeared: the source's own change time where it keeps one (the sensor
        # board does, across an outage), never later than the observation. It orders moves; the
        # settle time still counts from when we saw the change.
        appeared = at if r.changed_at is None else min(at, r.changed_at)
        if r.occluded:
            self._blocked_until[r.space] = max(self._blocked_until.get(r.space, 0.0), at + self.settle)
            if track is None:
                src.tracks[r.space] = _Track((), at, True, False, r.unknown)
            else:
                track.occluded, track.since = True, at
            return
        if track is None:
            src.tracks[r.space] = _Track(r.pieces, at, False, confident, r.unknown, appeared=appeared, seen=r.seen)
            return
        if track.occluded or r.pieces != track.content or confident != track.confident:
            track.content, track.since, track.appeared = r.pieces, at, appeared
        track.occluded, track.confident, track.unknown, track.seen = False, confident, r.unknown, r.seen

    def set_source_live(self, source: str, live: bool, now: float, reason: Message | None = None) -> None:
        """Mark a source up or down. Going down drops its readings: they may be stale."""
        src = self._sources.get(source)
        if src is None:
            src = self._sources[source] = _Source(source)
        if not live:
            src.tracks.clear()
        src.live, src.reason = live, (None if live else reason)

    def forget(self, spaces: Iterable[str] | None = None) -> None:
        """Drop all beliefs (e.g. a new game was set up): everything must settle again."""
        for src in self._sources.values():
            if spaces is None:
                src.tracks.clear()
            else:
                for s in spaces:
                    src.tracks.pop(SpaceId(s), None)

    # -- output ------------------------------------------------------------------------------
    def _order(self) -> list[_Source]:
        ranked = [self._sources[n] for n in self.priority if n in self._sources]
        ranked += [s for n, s in sorted(self._sources.items()) if n not in self.priority]
        return [s for s in ranked if s.live]

    def _settled(self, space: SpaceId, track: _Track, now: float, covered: dict[SpaceId, float]) -> bool:
        return (
            not track.occluded
            and track.confident
            and now >= covered.get(space, 0.0) - _EPS
            and now - track.since >= self.settle - _EPS
            and now >= self._blocked_until.get(space, 0.0) - _EPS
        )

    def _covered(self, sources: list[_Source]) -> dict[SpaceId, float]:
        """Spaces some live source last saw occluded, each with the time that stops holding it if the
        source says nothing more (``occlusion_hold`` after it was last heard from)."""
        out: dict[SpaceId, float] = {}
        for src in sources:
            until = (src.last_seen or 0.0) + self.occlusion_hold
            for space, track in src.tracks.items():
                if track.occluded:
                    out[space] = max(out.get(space, 0.0), until)
        return out

    def view(self, now: float) -> StableView:
        sources = self._order()
        covered = self._covered(sources)
        for src in sources:
            for space, track in src.tracks.items():
                if self._settled(space, track, now, covered) and track.believed != track.content:
                    track.believed, track.believed_since = track.content, track.since
                    track.believed_appeared = track.appeared
        cells: dict[SpaceId, Content] = {}
        decider: dict[SpaceId, _Source] = {}
        since: dict[SpaceId, float] = {}
        seen: dict[SpaceId, float] = {}  # when we saw the deciding reading change (lag vs disagreement)
        for src in sources:
            for space, track in src.tracks.items():
                if track.believed is not None and space not in decider:
                    decider[space] = src
                    cells[space] = track.believed
                    since[space] = track.appeared if track.believed == track.content else track.believed_appeared
                    seen[space] = track.since if track.believed == track.content else track.believed_since
        unsettled: set[SpaceId] = set()
        occluded: set[SpaceId] = set()
        unknown: list[tuple[SpaceId, str, str]] = []
        disagreements: list[Disagreement] = []
        # how the believed pieces lie (SpaceReading.seen): from the first source that reads them now and says
        lying: dict[SpaceId, tuple[str, ...]] = {}
        for src in sources:
            for space, track in src.tracks.items():
                if track.occluded:
                    occluded.add(space)
                elif track.seen and space not in lying and space in cells and track.content == track.believed == cells[space]:
                    lying[space] = track.seen
                for tag in track.unknown:
                    unknown.append((space, src.name, tag))
                dec = decider.get(space)
                if dec is None or dec is src:
                    # the deciding source (or any source, before one decides) has news not yet believed
                    if track.occluded or track.believed != track.content:
                        unsettled.add(space)
                elif (track.believed is not None and not contents_agree(track.believed, cells[space])
                      and _looked_since(src, seen[space])):
                    # a slower source catching up is not a disagreement: report it once both
                    # readings have stood for ``disagreement_after``
                    newest = max(seen[space], track.believed_since)
                    if now - newest >= self.disagreement_after - _EPS:
                        disagreements.append(Disagreement(space, dec.name, cells[space], src.name, track.believed))
        board = Board.from_counts({s: dict(c) for s, c in cells.items()})
        if board != self._last_board:
            self._last_board = board
            self._changed_at = now
        statuses = tuple(
            SourceStatus(s.name, s.live, len(s.tracks), s.last_seen, s.reason) for _, s in sorted(self._sources.items())
        )
        return StableView(
            at=now,
            board=board,
            known=frozenset(decider),
            unsettled=tuple(sorted(unsettled - occluded)),
            occluded=tuple(sorted(occluded)),
            disagreements=tuple(sorted(disagreements, key=lambda d: (d.space, d.other_source))),
            unknown=tuple(sorted(unknown)),
            sources=statuses,
            changed_at=self._changed_at,
            since=tuple(sorted(since.items())),
            seen=tuple((space, fact) for space, facts in sorted(lying.items()) for fact in facts),
        )

    def next_deadline(self) -> float | None:
        """The earliest time a reading not yet believed could become believed (for the loop's wait)."""
        best: float | None = None
        sources = self._order()
        covered = self._covered(sources)
        for src in sources:
            for space, track in src.tracks.items():
                if track.occluded or not track.confident or track.believed == track.content:
                    continue
                due = max(track.since + self.settle, self._blocked_until.get(space, 0.0), covered.get(space, 0.0))
                best = due if best is None else min(best, due)
        return best

    def sources(self) -> tuple[SourceStatus, ...]:
        return tuple(SourceStatus(s.name, s.live, len(s.tracks), s.last_seen, s.reason) for _, s in sorted(self._sources.items()))
