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
    def label(self) -> Message:
        """The colour's name in every language (catalogue key ``colour.<name>``)."""
        return Message.t(f"colour.{self.value}")

    @property
    def zh(self) -> str:
        """The Simplified Chinese name, for code not yet moved to ``label`` / ``player_label``."""
        return self.label.zh


class Message:
    """A text a player may read, in every language the project speaks (scorer/core/i18n.py).

    Two kinds, one interface (``get(lang)``, ``to_json()``):

    * ``Message.t(key, **args)`` — a catalogue text: ``key`` names an entry of the engine catalogues
      (``scorer/i18n/<lang>.json``), ``args`` fill its ``{fields}``; an argument that is itself a
      ``Message`` is shown in the same language, a list or tuple as that language's list.
    * ``Message(en, zh)`` / ``Message.of({"en": ..., "zh-Hans": ...})`` — texts given per language,
      for names that come from data files (a board's provinces). Languages missing from them are derived
      (Traditional from Simplified) or fall back to English. Code must not hide player-facing text here:
      a test walks the code for literal texts outside the catalogues.
    """

    __slots__ = ("key", "args", "texts")

    def __init__(self, en: str | None = None, zh: str | None = None, *, key: str | None = None,
                 args: tuple[tuple[str, object], ...] = (), texts: tuple[tuple[str, str], ...] = ()):
        if key is None:
            given = dict(texts)
            if en is not None:
                given["en"] = en
            if zh is not None:
                given["zh-Hans"] = zh
            if "en" not in given or len(given) < 2 or (given["en"] == "") != all(v == "" for v in given.values()):
                raise ValueError("a Message needs an English text and at least one other language (empty only all together)")
            texts = tuple(sorted(given.items()))
        object.__setattr__(self, "key", key)
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "texts", texts)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Message is immutable")

    def __reduce__(self) -> tuple[object, ...]:
        return (_restore_message, (self.key, self.args, self.texts))

    @classmethod
    def t(cls, key: str, **args: object) -> "Message":
        return cls(key=key, args=tuple(sorted((k, _freeze_arg(v)) for k, v in args.items())))

    @classmethod
    def of(cls, texts: Mapping[str, str]) -> "Message":
        """Texts per language as a data file gives them; ``zh`` is accepted for ``zh-Hans``."""
        given = {("zh-Hans" if k == "zh" else k): str(v) for k, v in texts.items() if v}
        return cls(texts=tuple(sorted(given.items())))

    def get(self, lang: str) -> str:
        from scorer.core import i18n

        lang = i18n.normalise(lang) or i18n.DEFAULT
        if self.key is None:
            return i18n.text_in(lang, dict(self.texts))
        template = i18n.catalogue(i18n.ENGINE_CATALOGUES, lang).get(self.key)
        if template is None:
            template = i18n.catalogue(i18n.ENGINE_CATALOGUES, i18n.DEFAULT).get(self.key)
            if template is None:
                raise KeyError(f"no catalogue text for {self.key!r} (scorer/i18n/en.json)")
        if not self.args:
            return template
        return template.format(**{k: _show_arg(v, lang) for k, v in self.args})

    @property
    def en(self) -> str:
        return self.get("en")

    @property
    def zh(self) -> str:
        """The Simplified Chinese text (the name the two-language code used)."""
        return self.get("zh-Hans")

    def to_json(self) -> dict[str, str]:
        """Every language's text by tag, plus ``zh`` (= zh-Hans) for readers of the two-language format."""
        from scorer.core import i18n

        out = {tag: self.get(tag) for tag in i18n.language_tags()}
        out["zh"] = out.get("zh-Hans", out["en"])
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Message):
            return NotImplemented
        return (self.key, self.args, self.texts) == (other.key, other.args, other.texts)

    def __hash__(self) -> int:
        return hash((self.key, self.args, self.texts))

    def __repr__(self) -> str:
        if self.key is not None:
            return f"Message.t({self.key!r}{''.join(f', {k}={v!r}' for k, v in self.args)})"
        return f"Message.of({dict(self.texts)!r})"

    def __str__(self) -> str:
        return f"{self.en} / {self.zh}"


def _restore_message(key: str | None, args: tuple[tuple[str, object], ...], texts: tuple[tuple[str, str], ...]) -> Message:
    return Message(key=key, args=args, texts=texts)


def _freeze_arg(value: object) -> object:
    if isinstance(value, list):
        return tuple(value)
    return value


def _show_arg(value: object, lang: str) -> object:
    from scorer.core import i18n

    if isinstance(value, Message):
        return value.get(lang)
    if isinstance(value, tuple):
        return i18n.format_list([str(_show_arg(v, lang)) for v in value], lang)
    return value


def player_label(player: str) -> Message:
    """How texts name a player: a colour's player by the colour (``player.label``: "blue" / "蓝方"),
    any other seat (a name typed at set-up) as given, in every language (``name.as_given``)."""
    try:
        colour = Colour(player)
    except ValueError:
        return Message.t("name.as_given", name=player)
    return Message.t("player.label", colour=colour.label)


def or_list(items: Iterable[Message | str]) -> Message:
    """Alternatives as one text, "a or b or c" / "a或b或c" (``list.or`` applied pairwise); at least one."""
    items = list(items)
    if not items:
        raise ValueError("or_list needs at least one item")
    text: Message | str = items[0]
    for item in items[1:]:
        text = Message.t("list.or", a=text, b=item)
    return text if isinstance(text, Message) else Message.t("name.as_given", name=text)


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


def violation(rule: str, message: "Message | str", *rest: object, fix: "Message | tuple[str, str] | None" = None) -> Violation:
    """A ``Violation`` from a catalogue message: ``violation(rule, Message.t(key, ...), spaces, fix)``.

    The older two-text form ``(rule, en, zh, spaces, fix=(en, zh))`` is still accepted for code not yet
    moved to the catalogues (tests/test_i18n_catalogues.py lists what is left)."""
    if isinstance(message, str):
        zh, *rest = rest
        message = Message(message, str(zh))
    spaces = tuple(SpaceId(s) for s in (rest[0] if rest else ()))
    if len(rest) > 1 and fix is None:
        fix = rest[1]  # type: ignore[assignment]
    if isinstance(fix, tuple):
        fix = Message(*fix)
    return Violation(rule, message, spaces, fix)


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
