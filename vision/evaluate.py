"""Scoring the board reader on a folder of camera frames with their truth (``tableref vision
eval``; the set format and the metrics are described in docs/vision-eval.md).

Pure logic, no printing: loading and validating a set (``load_set``), scoring one frame from its
truth and the reader's space results (``score_frame``), reading a whole set (``evaluate_set``)
and adding the frames up (``summarise``). Which reader reads a table's frames is decided by ONE
function, ``vision.eval_readers.make_reader_factory``.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import cv2
import numpy as np

from scorer.core.types import Piece
from scorer.core.hidden import HiddenUnder, restore_content
from scorer.core.unvalued import resolve_content
from vision.covered_pieces import seen_before
from vision.errors import FrameSetError
from vision.eval_set import (IMAGE_SUFFIXES, RESERVED_KEYS, Frame, FrameSet, FrameTruth, _image_in, load_set,  # noqa: F401
                             load_truth, parse_token, parse_truth, read_image, read_json_file, truth_to_json)
from vision.hand_outline import HandOutline, load_hand_mask, outline_score, summarise_outlines
from vision.layout import Layout

NONE = "(none)"  # the empty side of a missed or an extra piece in the confusion summary

Warn = Callable[[str], None]


# --------------------------------------------------------------------------------------------
# scoring one frame

def token(p: Piece) -> str:
    return f"{p.owner}:{p.kind}"


@dataclass(frozen=True)
class WrongSpace:
    space: str
    truth: tuple[str, ...]  # tokens, one per piece
    read: tuple[str, ...] | None  # None: flagged occluded (no reading)

    def to_json(self) -> dict[str, Any]:
        return {"space": self.space, "truth": list(self.truth), "read": None if self.read is None else list(self.read)}


@dataclass(frozen=True)
class FrameScore:
    registered: bool
    hand: bool
    right: int  # visible spaces read exactly right
    scored: int  # visible spaces counted (partly occluded ones the reader flagged are left out)
    wrong: tuple[WrongSpace, ...]  # visible spaces not right: misread, or flagged (incl. false flags)
    false_flags: tuple[str, ...]  # visible, not partly occluded, flagged occluded (registered frames)
    clear: int  # visible, not partly occluded spaces (registered frames; the false-flag denominator)
    read_through: tuple[str, ...]  # truth-occluded spaces the reader did not flag (registered frames)
    occluded: int  # truth-occluded spaces (registered frames)
    partly_flagged: tuple[str, ...] = ()
    partly_read: tuple[str, ...] = ()
    confusions: Counter = field(default_factory=Counter)  # (truth token | NONE, read token | NONE) -> n
    # visible spaces read right but for what the game state supplies, taking the truth as the state: values
    # the reading left out (``token-?``, ``scorer.core.unvalued``), pieces hidden under others that the
    # game names (``Game.hidden_under``: a fortress under a house, ``scorer.core.hidden``), or read under them
    # where the state has none (dropped by a live reader that saw the space before, ``vision.covered_pieces``);
    # not in ``right``
    from_state: tuple[str, ...] = ()
    unsure: tuple[str, ...] = ()  # of ``false_flags``: not read for a face or value not sure, not for a hand

    @property
    def board_right_with_state(self) -> bool:
        return self.registered and self.right + len(self.from_state) == self.scored

    @property
    def board_right(self) -> bool:
        return self.registered and self.right == self.scored

    @property
    def failed(self) -> bool:
        return not self.board_right or bool(self.read_through)


def _tokens(c: Counter) -> tuple[str, ...]:
    return tuple(token(p) for p, n in sorted(c.items()) for _ in range(n) if n > 0)


def confusions(truth: Counter, read: Counter) -> Counter:
    """Pair the pieces a space's truth has and its reading lacks with the pieces the reading has
    and its truth lacks: same kind first (a colour error), then same owner (a kind error), then
    any; the rest are missed (``-> (none)``) or extra (``(none) ->``) pieces."""
    missing = list((truth - read).elements())
    extra = list((read - truth).elements())
    out: Counter = Counter()
    for same in (lambda a, b: a.kind == b.kind, lambda a, b: a.owner == b.owner, lambda a, b: True):
        for m in list(missing):
            for e in extra:
                if same(m, e):
                    out[(token(m), token(e))] += 1
                    missing.remove(m)
                    extra.remove(e)
                    break
    for m in missing:
        out[(token(m), NONE)] += 1
    for e in extra:
        out[(NONE, token(e))] += 1
    return out


def _unsure(result: Any) -> bool:
    """Seen but not read sure (``SpaceResult.unsure``; a reader's result without the field never is)."""
    return bool(getattr(result, "unsure", False))


def _not_read(result: Any) -> bool:
    """No reading of the space: no result, a hand over it, or not sure of it."""
    return result is None or bool(result.occluded) or _unsure(result)


def score_frame(truth: FrameTruth, spaces: Iterable[Any], space_ids: Sequence[str],
                registered: bool = True, hidden_under: HiddenUnder | None = None,
                fixed: frozenset[str] = frozenset()) -> FrameScore:
    """Score one frame. ``spaces``: the reader's ``SpaceResult``s (``.space``, ``.pieces`` as
    (Piece, count) pairs, ``.occluded``); a space without a result counts as flagged. In a frame
    that was not registered every visible space is wrong (nothing was read). ``hidden_under``: the
    game's pieces that others may hide (``Game.hidden_under``), and ``fixed`` the spaces whose markers
    the rules never move (``Game.fixed_spaces``: the referee keeps the state there), for
    ``FrameScore.from_state``."""
    hidden_under = hidden_under or {}
    results = {s.space: s for s in spaces}
    visible = [s for s in space_ids if s not in truth.occluded]
    if not registered:
        wrong = tuple(WrongSpace(s, _tokens(truth.content(s)), None) for s in visible)
        return FrameScore(False, truth.hand, 0, len(visible), wrong, (), 0, (), 0)
    right = scored = clear = 0
    wrong: list[WrongSpace] = []
    false_flags: list[str] = []
    partly_flagged: list[str] = []
    partly_read: list[str] = []
    from_state: list[str] = []
    unsure: list[str] = []
    conf: Counter = Counter()
    for s in visible:
        r = results.get(s)
        flagged = _not_read(r)
        partly = s in truth.partly_occluded
        want = truth.content(s)
        if partly:
            (partly_flagged if flagged else partly_read).append(s)
            if flagged:
                continue
        else:
            clear += 1
        scored += 1
        if flagged:
            false_flags.append(s)
            if r is not None and _unsure(r):
                unsure.append(s)
            wrong.append(WrongSpace(s, _tokens(want), None))
            if s in fixed:
                from_state.append(s)
            continue
        got = Counter({p: n for p, n in r.pieces if n > 0})
        if got == want:
            right += 1
            continue
        wrong.append(WrongSpace(s, _tokens(want), _tokens(got)))
        # what the state supplies is no confusion (a value left out, a hidden piece); what else is wrong is
        supplied = restore_content(resolve_content(got, want) or got, want, hidden_under)
        # ... and a hidden piece read under its cover where the state has none: a live reader that saw the
        # space without it drops it (vision.covered_pieces)
        supplied = seen_before(supplied, want, hidden_under)
        if supplied == want or s in fixed:
            from_state.append(s)
        else:
            conf += confusions(want, supplied)
    read_through = tuple(s for s in space_ids if s in truth.occluded and not _not_read(results.get(s)))
    return FrameScore(True, truth.hand, right, scored, tuple(wrong), tuple(false_flags), clear, read_through,
                      len(truth.occluded), tuple(partly_flagged), tuple(partly_read), conf, tuple(from_state),
                      tuple(unsure))


# --------------------------------------------------------------------------------------------
# a whole set

@dataclass(frozen=True)
class FrameResult:
    stem: str
    table: str | None
    score: FrameScore
    read_ms: float
    status: str = "ok"  # the registration status
    outline: HandOutline | None = None  # the hand test against the hand's true outline, where the set has one

    def to_json(self) -> dict[str, Any]:
        s = self.score
        out: dict[str, Any] = {
            "frame": self.stem, "table": self.table, "registered": s.registered, "registration": self.status,
            "hand": s.hand, "spaces_right": s.right, "spaces_scored": s.scored, "board_right": s.board_right,
            "read_ms": round(self.read_ms, 1),
        }
        if s.registered:
            out["wrong"] = [w.to_json() for w in s.wrong if w.read is not None]
            out["false_flags"] = list(s.false_flags)
            out["read_through"] = list(s.read_through)
            if s.from_state:
                out["right_with_state"] = list(s.from_state)
            if s.partly_flagged or s.partly_read:
                out["partly_occluded"] = {"flagged": list(s.partly_flagged), "read": list(s.partly_read)}
        if self.outline is not None:
            out["hand_outline"] = self.outline.to_json()
        return out


def watched_frame(image: np.ndarray, width: int | None) -> tuple[np.ndarray, np.ndarray | None]:
    """``image`` as the reader watches it at ``width`` px wide (the ISP scales a camera's
    low-resolution stream, not timed here), and the detail frame beside it; ``image`` itself and no
    detail frame when it is no wider."""
    if not width or image.shape[1] <= width:
        return image, None
    h = int(round(image.shape[0] * width / image.shape[1]))
    return cv2.resize(image, (width, h), interpolation=cv2.INTER_AREA), image


def _game_of(layout: Layout):
    """The game the layout is for (``scorer.core.registry``); None for a layout that names no game the
    registry knows."""
    from scorer.core.registry import UnknownGame, get_game

    if not layout.game:
        return None
    try:
        return get_game(layout.game)
    except UnknownGame:
        return None


def hidden_under_of(layout: Layout) -> HiddenUnder:
    """The pieces that others may hide in the game the layout is for (``Game.hidden_under``); none
    for a layout that names no game the registry knows."""
    game = _game_of(layout)
    return {} if game is None else game.hidden_under()


def fixed_spaces_of(layout: Layout) -> frozenset[str]:
    """The spaces whose markers the rules never move in the game the layout is for (``Game.fixed_spaces``,
    its shipped board's); none for a layout that names no game the registry knows."""
    game = _game_of(layout)
    return frozenset() if game is None else game.fixed_spaces() & frozenset(s.id for s in layout.spaces)


def evaluate_set(frame_set: FrameSet, reader_for: Callable[[str | None], Any], space_ids: Sequence[str], *,
                 limit: int | None = None, progress: Callable[[int, int, FrameResult, float], None] | None = None,
                 on_frame: Callable[[Frame, np.ndarray, Any, FrameResult], None] | None = None,
                 warn: Warn | None = None, watch_width: int | None = None,
                 hidden_under: HiddenUnder | None = None,
                 fixed: frozenset[str] = frozenset()) -> tuple[list[FrameResult], list[str]]:
    """Read every frame with a fresh reader for its table and score it. Returns the results and
    the frames skipped (unreadable images, with a warning). ``progress(i, n, result, running
    per-space accuracy)`` after each frame; ``on_frame(frame, image, detection, result)`` too.
    ``watch_width``: the frames are detail stills; each is read scaled down to this width (as a
    camera's low-resolution stream shows it) with the still itself as the reader's ``detail``.
    ``hidden_under``, ``fixed``: as ``score_frame`` (``hidden_under_of(layout)``, ``fixed_spaces_of(layout)``)."""
    frames = frame_set.frames[:limit] if limit else frame_set.frames
    results: list[FrameResult] = []
    skipped: list[str] = []
    right = scored = 0
    for i, fr in enumerate(frames, 1):
        try:
            image = read_image(fr.image)
        except FrameSetError as exc:
            skipped.append(str(exc))
            if warn:
                warn(f"skipped: {exc}")
            continue
        reader = reader_for(fr.truth.table)
        watched, detail = watched_frame(image, watch_width)
        t0 = time.perf_counter()
        det = reader.read(watched, at=float(i), detail=detail)
        ms = (time.perf_counter() - t0) * 1e3
        reg = det.registration
        score = score_frame(fr.truth, det.spaces, space_ids, bool(reg.usable), hidden_under, fixed)
        res = FrameResult(fr.stem, fr.truth.table, score, ms, str(reg.status), _outline(fr, reader, det, watched.shape))
        results.append(res)
        right += score.right
        scored += score.scored
        if on_frame:
            on_frame(fr, image, det, res)
        if progress:
            progress(i, len(frames), res, right / scored if scored else 1.0)
    return results, skipped


def _outline(frame: Frame, reader: Any, det: Any, shape: tuple[int, ...]) -> HandOutline | None:
    """The frame's hand test against the hand's true outline, when the set has one and the reader
    reports its hand (``Detection.hand_mask``; a registered frame read whole)."""
    mask = getattr(det, "hand_mask", None)
    if frame.hand is None or mask is None or not det.registration.usable or not hasattr(reader, "to_board"):
        return None
    true = load_hand_mask(frame.hand)
    if true.shape[:2] != shape[:2]:  # a detail still read as its watched frame: the outline scaled alike
        true = cv2.resize(true, (shape[1], shape[0]), interpolation=cv2.INTER_NEAREST)
    return outline_score(reader.to_board(true, det.registration) > 0, mask, det.board_px_per_mm)


def _ratio(num: int, den: int) -> dict[str, Any]:
    return {"count": num, "of": den, "percent": round(100.0 * num / den, 3) if den else None}


def _percentile(values: Sequence[float], q: float) -> float | None:
    return float(np.percentile(np.asarray(values, float), q)) if len(values) else None


def summarise(results: Sequence[FrameResult], top: int = 10) -> dict[str, Any]:
    """The metrics of docs/vision-eval.md, as a JSON-able dict."""
    reg = [r.score for r in results if r.score.registered]
    right = sum(r.score.right for r in results)
    scored = sum(r.score.scored for r in results)
    no_hand = [r.score for r in results if not r.score.hand]
    hand = [r.score for r in results if r.score.hand]
    conf: Counter = Counter()
    for s in reg:
        conf += s.confusions
    times = [r.read_ms for r in results]
    supplied = sum(len(s.from_state) for s in reg)
    outlines = summarise_outlines([r.outline for r in results if r.outline is not None])
    return {
        "frames": len(results),
        "per_space": _ratio(right, scored),
        "whole_board": {
            "without_hand": _ratio(sum(s.board_right for s in no_hand), len(no_hand)),
            "with_hand": _ratio(sum(s.board_right for s in hand), len(hand)),
        },
        # spaces read right but for what the referee takes from the game state (values left out, pieces
        # hidden under others): the per-space and whole-board figures the referee sees while the state knows them
        "with_state": {
            "spaces": supplied,
            "per_space": _ratio(right + supplied, scored),
            "whole_board_without_hand": _ratio(sum(s.board_right_with_state for s in no_hand), len(no_hand)),
        },
        "read_through_occlusion": _ratio(sum(len(s.read_through) for s in reg), sum(s.occluded for s in reg)),
        "false_occlusion_flags": _ratio(sum(len(s.false_flags) for s in reg), sum(s.clear for s in reg)),
        # of those, spaces the reader saw but did not read sure (a face, a value): not taken for a hand
        "unsure": sum(len(s.unsure) for s in reg),
        "not_registered": _ratio(len(results) - len(reg), len(results)),
        "partly_occluded": {"flagged": sum(len(s.partly_flagged) for s in reg),
                            "read": sum(len(s.partly_read) for s in reg)},
        "confusion": [{"truth": t, "read": r, "count": n}
                      for (t, r), n in sorted(conf.items(), key=lambda kv: (-kv[1], kv[0]))[:top]],
        "errors_total": sum(conf.values()),
        "read_ms": {"median": _round(_percentile(times, 50)), "p90": _round(_percentile(times, 90)),
                    "frames": len(times)},
        **({"hand_outline": outlines} if outlines is not None else {}),
    }


def _round(v: float | None, nd: int = 1) -> float | None:
    return None if v is None or math.isnan(v) else round(v, nd)


# --------------------------------------------------------------------------------------------
# pictures of the failures

WRONG_BGR = (40, 40, 235)
FLAG_BGR = (0, 165, 255)
THROUGH_BGR = (235, 40, 235)


def failure_image(image: np.ndarray, detection: Any, result: FrameResult, layout: Layout) -> np.ndarray:
    """The frame with the misread spaces outlined in red (with truth / reading), false occlusion
    flags in orange and readings through an occlusion in magenta, through the detection's
    homography (board mm -> image px)."""
    import cv2

    img = image.copy()
    s = result.score
    Hm = getattr(detection.registration, "homography", None)
    lines = [f"{result.stem}: {s.right}/{s.scored} spaces right, registration {result.status}"]
    if Hm is not None:
        def outline(space_id: str, bgr, label: str | None = None) -> None:
            sp = layout.space(space_id)
            pts = cv2.perspectiveTransform(np.asarray(sp.polygon, np.float64).reshape(-1, 1, 2), Hm).reshape(-1, 2)
            cv2.polylines(img, [np.round(pts * 16).astype(np.int32)], True, bgr, 2, cv2.LINE_AA, 4)
            if label:
                c = cv2.perspectiveTransform(np.asarray([[sp.centre]], np.float64), Hm).reshape(2)
                org = (int(c[0]) - 40, int(c[1]) + 4)
                cv2.putText(img, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.38, (0, 0, 0), 3, cv2.LINE_AA)
                cv2.putText(img, label, org, cv2.FONT_HERSHEY_SIMPLEX, 0.38, (255, 255, 255), 1, cv2.LINE_AA)

        if s.registered:
            for w in s.wrong:
                if w.read is None:
                    outline(w.space, FLAG_BGR)
                else:
                    outline(w.space, WRONG_BGR, f"{_short(w.truth)} > {_short(w.read)}")
            for sid in s.read_through:
                outline(sid, THROUGH_BGR)
    lines.append("red: misread (truth > read)   orange: false occlusion flag   magenta: read through an occlusion")
    cv2.rectangle(img, (0, 0), (img.shape[1], 12 + 20 * len(lines)), (0, 0, 0), -1)
    for k, text in enumerate(lines):
        cv2.putText(img, text, (10, 22 + 20 * k), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 255, 255), 1, cv2.LINE_AA)
    return img


def _short(tokens: Sequence[str]) -> str:
    if not tokens:
        return "empty"
    c = Counter(tokens)
    return ",".join(f"{n}{t.split(':')[0][:3]}:{t.split(':')[1][:3]}" if n > 1 else f"{t.split(':')[0][:3]}:{t.split(':')[1][:3]}"
                    for t, n in sorted(c.items()))
