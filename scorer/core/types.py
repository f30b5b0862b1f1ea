"""Small immutable values shared by every game: colours, pieces, spaces, boards, messages.

Modelled on python-chess: values are frozen, hashable and have readable reprs, so states built
from them can be compared, cached and used as dictionary keys.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Iterable, Iterator, Mapping, NewType

SpaceId = NewType("SpaceId", str)
"""A board space as the sensors and the layout name it (e.g. ``"wei-3"``, ``"qin-dragon"``)."""


class TableRefError(Exception):
    """Root of the project's own exceptions."""


class Colour(StrEnum):
    """Player (and neutral) colours used by the five games.

    A ``StrEnum``: a colour compares equal to its lower-case name, which keeps records readable.
    """

    BLUE = "blue"
    GREEN = "green"
    VIOLET = "violet"
    RED = "red"
    YELLOW = "yellow"
    GREY = "grey"
    BLACK = "black"
    NEUTRAL = "neutral"

    @property
    def zh(self) -> str:
        return _COLOUR_ZH[self]


_COLOUR_ZH = {
    Colour.BLUE: "蓝",
    Colour.GREEN: "绿",
    Colour.VIOLET: "紫",
    Colour.RED: "红",
    Colour.YELLOW: "黄",
    Colour.GREY: "灰",
    Colour.BLACK: "黑",
    Colour.NEUTRAL: "中立",
}


@dataclass(frozen=True, slots=True)
class Message:
    """A text a player may read, always in English and Simplified Chinese."""

    en: str
    zh: str

    def __post_init__(self) -> None:
        if not self.en or not self.zh:
            raise ValueError("a Message needs both an English and a Chinese text")

    def get(self, lang: str) -> str:
        return self.zh if lang.lower().startswith("zh") else self.en

    def to_json(self) -> dict[str, str]:
        return {"en": self.en, "zh": self.zh}

    def __str__(self) -> str:
        return f"{self.en} / {self.zh}"


@dataclass(frozen=True, slots=True, order=True)
class Piece:
    """One physical piece: who owns it and what it is (``house``, ``emissary``, a card type ...).

    ``owner`` is a player colour, ``"neutral"``, or a game-specific owner such as a Warring
    State in Zhang Yi.
    """

    owner: str
    kind: str

    def __repr__(self) -> str:
        return f"Piece({self.owner}:{self.kind})"

    def to_json(self) -> dict[str, str]:
        return {"owner": str(self.owner), "kind": self.kind}

    @classmethod
    def from_json(cls, data: Mapping[str, str]) -> "Piece":
        return cls(str(data["owner"]), str(data["kind"]))


@dataclass(frozen=True, slots=True)
class BoardDiff:
    """What changed from one board to another, as (space, piece, count) triples."""

    added: tuple[tuple[SpaceId, Piece, int], ...] = ()
    removed: tuple[tuple[SpaceId, Piece, int], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.added or self.removed)

    @property
    def spaces(self) -> tuple[SpaceId, ...]:
        seen = dict.fromkeys(s for s, _, _ in self.added + self.removed)
        return tuple(seen)

    def to_json(self) -> dict[str, list[dict[str, object]]]:
        def rows(items: tuple[tuple[SpaceId, Piece, int], ...]) -> list[dict[str, object]]:
            return [{"space": s, "owner": str(p.owner), "kind": p.kind, "count": n} for s, p, n in items]

        return {"added": rows(self.added), "removed": rows(self.removed)}


@dataclass(frozen=True, slots=True)
class Board:
    """Space -> multiset of pieces. Immutable and hashable; empty spaces are not stored.

    This is the common language of sensors and rules: observations are boards, and
    ``Game.visible_board`` says which board the sensors should see.
    """

    _cells: tuple[tuple[SpaceId, tuple[tuple[Piece, int], ...]], ...] = field(default=())

    @classmethod
    def from_counts(cls, cells: Mapping[str, Mapping[Piece, int] | Iterable[Piece]]) -> "Board":
        out = []
        for space, content in cells.items():
            counter = Counter(content) if not isinstance(content, Mapping) else Counter(dict(content))
            items = tuple(sorted((p, n) for p, n in counter.items() if n > 0))
            if any(n < 0 for n in counter.values()):
                raise ValueError(f"negative piece count on {space}")
            if items:
                out.append((SpaceId(space), items))
        out.sort()
        return cls(tuple(out))

    @classmethod
    def from_placements(cls, placements: Iterable[tuple[str, Piece]]) -> "Board":
        cells: dict[str, Counter[Piece]] = {}
        for space, piece in placements:
            cells.setdefault(space, Counter())[piece] += 1
        return cls.from_counts(cells)

    def spaces(self) -> tuple[SpaceId, ...]:
        return tuple(s for s, _ in self._cells)

    def pieces(self, space: str) -> Counter[Piece]:
        for s, items in self._cells:
            if s == space:
                return Counter(dict(items))
        return Counter()

    def count(self, space: str, piece: Piece | None = None) -> int:
        c = self.pieces(space)
        return sum(c.values()) if piece is None else c[piece]

    def items(self) -> Iterator[tuple[SpaceId, Piece, int]]:
        for s, items in self._cells:
            for p, n in items:
                yield s, p, n

    def as_dict(self) -> dict[SpaceId, Counter[Piece]]:
        return {s: Counter(dict(items)) for s, items in self._cells}

    def restricted_to(self, spaces: Iterable[str]) -> "Board":
        keep = set(spaces)
        return Board(tuple(c for c in self._cells if c[0] in keep))

    def with_added(self, space: str, piece: Piece, n: int = 1) -> "Board":
        cells = self.as_dict()
        cells.setdefault(SpaceId(space), Counter())[piece] += n
        return Board.from_counts(cells)

    def with_removed(self, space: str, piece: Piece, n: int = 1) -> "Board":
        cells = self.as_dict()
        have = cells.get(SpaceId(space), Counter())[piece]
        if have < n:
            raise ValueError(f"cannot remove {n} x {piece!r} from {space}: only {have} there")
        cells[SpaceId(space)][piece] -= n
        return Board.from_counts(cells)

    def diff(self, other: "Board") -> BoardDiff:
        """What must be added to and removed from ``self`` to obtain ``other``."""
        a, b = self.as_dict(), other.as_dict()
        added, removed = [], []
        for space in sorted(set(a) | set(b)):
            ca, cb = a.get(space, Counter()), b.get(space, Counter())
            for piece in sorted(set(ca) | set(cb)):
                d = cb[piece] - ca[piece]
                if d > 0:
                    added.append((space, piece, d))
                elif d < 0:
                    removed.append((space, piece, -d))
        return BoardDiff(tuple(added), tuple(removed))

    def to_json(self) -> dict[str, list[dict[str, object]]]:
        return {
            s: [{"owner": str(p.owner), "kind": p.kind, "count": n} for p, n in items]
            for s, items in self._cells
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Iterable[Mapping[str, object]]]) -> "Board":
        cells: dict[str, Counter[Piece]] = {}
        for space, rows in data.items():
            c = cells.setdefault(space, Counter())
            for row in rows:
                c[Piece(str(row["owner"]), str(row["kind"]))] += int(row.get("count", 1))  # type: ignore[arg-type]
        return cls.from_counts(cells)

    def __len__(self) -> int:
        return sum(n for _, _, n in self.items())

    def __repr__(self) -> str:
        inner = ", ".join(f"{s}: {dict(items)}" for s, items in self._cells)
        return f"Board({{{inner}}})"


@dataclass(frozen=True, slots=True)
class Violation:
    """Why a move is illegal: the rule, bilingual text, the spaces involved and how to fix it."""

    rule: str
    message: Message
    spaces: tuple[SpaceId, ...] = ()
    fix: Message | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "message": self.message.to_json(),
            "spaces": list(self.spaces),
            "fix": self.fix.to_json() if self.fix else None,
        }

    def __str__(self) -> str:
        text = f"[{self.rule}] {self.message.en} / {self.message.zh}"
        if self.fix:
            text += f" -- fix: {self.fix.en} / {self.fix.zh}"
        return text


class IllegalMove(TableRefError, ValueError):
    """Raised by ``Game.apply`` for a move that breaks a rule; carries the violations."""

    def __init__(self, violations: Iterable[Violation]):
        self.violations = tuple(violations)
        if not self.violations:
            raise ValueError("IllegalMove needs at least one violation")
        super().__init__("; ".join(str(v) for v in self.violations))


class InvalidRecord(TableRefError, ValueError):
    """A game record, board file or move description that cannot be read (not a rules matter)."""

    def __init__(self, message: str, where: str = ""):
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)
