"""Pieces seen without their value, and the game state that supplies it.

A camera sees a Great Wall token lying face up at a section, but at 1280 px its printed value
(2, 3 or 5) can be a blur. Rather than guess a value, or leave the whole section unread, a
source reports such a piece as ``<family>-?`` (``Piece("neutral", "token-?")``): present, owner
known, value unknown. Sensors report positions; the rules know values: most of the time the token
lying there is the one the game state put there, so the referee takes its value from the
expected board. Only when that is not unambiguous (a token claimed or newly revealed, whose value
the state cannot know) the space stays unread: it keeps what the state expects until a source
reads the value or a player declares the move, never a guess.

Pure code: boards in, boards out.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Mapping

from scorer.core.types import Board, Piece, SpaceId

UNVALUED = "-?"  # the kind suffix of a piece read without its value: "token-?" is a "token-<v>"


def unvalued(piece: Piece) -> Piece:
    """``piece`` as read without its value (``token-5`` -> ``token-?``)."""
    family = _family(piece.kind)
    if family is None:
        raise ValueError(f"{piece.kind!r} has no value to leave out (expected <family>-<value>)")
    return Piece(piece.owner, family + UNVALUED)


def is_unvalued(piece: Piece) -> bool:
    return piece.kind.endswith(UNVALUED)


def _family(kind: str) -> str | None:
    """``token`` for ``token-5`` and ``token-?``; None for a kind without a value."""
    family, sep, _ = kind.rpartition("-")
    return family if sep and family else None


def resolve_content(content: Mapping[Piece, int], expected: Mapping[Piece, int]) -> Counter[Piece] | None:
    """``content`` with each unvalued piece given the value ``expected`` has for it; None when that
    is ambiguous (the space must then stay unread).

    Per family (``token``), the values ``expected`` holds beyond those ``content`` already reads
    are the candidates, first per owner: the unvalued pieces of an owner take that owner's
    candidates when there are exactly as many, or when those all have one value. Failing that,
    when the space holds as many pieces of the family as expected (a token moved from the spot onto
    a player's card, The Great Wall's claim, keeps the count), the candidates of every owner are
    pooled: a lone unvalued piece, or unvalued pieces of one owner, or candidates of one value,
    take them. Anything else (a choice between values, more pieces than expected) decides nothing.
    """
    out: Counter[Piece] = Counter({p: n for p, n in content.items() if n > 0 and not is_unvalued(p)})
    pending: list[tuple[Piece, int]] = []
    for piece, n in sorted(content.items()):
        if n <= 0 or not is_unvalued(piece):
            continue
        missing = _missing(out, expected, _family(piece.kind), piece.owner)
        if len(missing) == n or (len(missing) > n and len(set(missing)) == 1):
            for value in missing[:n]:
                out[Piece(piece.owner, value)] += 1
        else:
            pending.append((piece, n))
    for family in sorted({_family(p.kind) for p, _ in pending}):
        mine = [(p, n) for p, n in pending if _family(p.kind) == family]
        want = sum(n for p, n in expected.items() if not is_unvalued(p) and _family(p.kind) == family)
        have = sum(n for p, n in content.items() if n > 0 and _family(p.kind) == family)
        missing = _missing(out, expected, family, None)
        count = sum(n for _, n in mine)
        if have != want or len(missing) != count:
            return None
        if count > 1 and len({p.owner for p, _ in mine}) > 1 and len(set(missing)) > 1:
            return None  # two owners, two values: which went where is not known
        values = iter(missing)
        for piece, n in mine:
            for _ in range(n):
                out[Piece(piece.owner, next(values))] += 1
    return out


def _missing(read: Mapping[Piece, int], expected: Mapping[Piece, int], family: str | None,
             owner: str | None) -> list[str]:
    """The kinds (``token-7``) of ``family`` that ``expected`` holds (of ``owner``, or of anyone)
    beyond what ``read`` already holds, one entry per piece."""
    def kinds(board: Mapping[Piece, int]) -> Counter[str]:
        out: Counter[str] = Counter()
        for p, n in board.items():
            if n > 0 and not is_unvalued(p) and _family(p.kind) == family and (owner is None or p.owner == owner):
                out[p.kind] += n
        return out
    left = kinds(expected) - kinds(read)
    return sorted(left.elements())


def resolve(sensed: Board, expected: Board) -> tuple[Board, tuple[SpaceId, ...]]:
    """``sensed`` with its unvalued pieces valued from ``expected``, and the spaces where that was
    ambiguous: those keep ``expected``'s content (not read), and are returned so the caller can say
    so."""
    if not any(is_unvalued(p) for _, p, _ in sensed.items()):
        return sensed, ()
    cells = sensed.as_dict()
    unread: list[SpaceId] = []
    for space, content in list(cells.items()):
        if not any(is_unvalued(p) for p in content):
            continue
        want = expected.pieces(space)
        got = resolve_content(content, want)
        if got is None:
            unread.append(space)
            got = want
        cells[space] = got
    return Board.from_counts(cells), tuple(sorted(unread))


def contents_agree(a: Iterable[tuple[Piece, int]], b: Iterable[tuple[Piece, int]]) -> bool:
    """Two sources' readings of one space tell the same story: equal, or equal once the unvalued
    pieces of either are valued from the other (a camera's ``token-?`` agrees with an RFID pad's
    ``token-5``)."""
    ca, cb = Counter(dict(a)), Counter(dict(b))
    if ca == cb:
        return True
    ra, rb = resolve_content(ca, cb), resolve_content(cb, ca)
    return (ra is not None and ra == cb) or (rb is not None and rb == ca)


__all__ = ["UNVALUED", "contents_agree", "is_unvalued", "resolve", "resolve_content", "unvalued"]
