"""Which RFID tag is which thing: uid -> a Piece (board sensors) or a Card (card reader).

One registry serves every tag reader (the sensor board, the card reader, later the dashboard's
enrolment page and the vision marker mode), so it knows nothing about any of them. It is a JSON
file written atomically (temporary file, fsync, rename, fsync of the folder): a power cut leaves
either the old or the new registry, never half of one.

Enrolment: ``begin_enrolment(item, count)`` arms the registry; each unknown uid then ``offer``-ed
by a reader is assigned to ``item`` until ``count`` tags are enrolled. Known tags are never
reassigned by enrolment (remove them first): a mis-tap must not silently relabel a piece.
"""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Union

import jsonschema

from scorer.core import Colour, InvalidRecord, Message, Piece, TableRefError, safejson

log = logging.getLogger("hardware.tag_registry")

REGISTRY_VERSION = 1

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "tableref tag registry",
    "type": "object",
    "required": ["version", "tags"],
    "additionalProperties": False,
    "properties": {
        "version": {"const": REGISTRY_VERSION},
        "tags": {
            "type": "object",
            "propertyNames": {"pattern": "^([0-9A-F]{2}){4,10}$"},
            "additionalProperties": {
                "oneOf": [
                    {
                        "type": "object",
                        "required": ["owner", "kind"],
                        "additionalProperties": False,
                        "properties": {"owner": {"type": "string", "minLength": 1},
                                       "kind": {"type": "string", "minLength": 1}},
                    },
                    {
                        "type": "object",
                        "required": ["card"],
                        "additionalProperties": False,
                        "properties": {"card": {"type": "string", "minLength": 1}},
                    },
                ]
            },
        },
    },
}


class RegistryError(TableRefError, ValueError):
    """A registry file or uid that cannot be used."""


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """A playing card known by its tag: ``card`` is a colour or a card id (``"red"``, ``"wall-7"``)."""

    card: str

    def to_json(self) -> dict[str, str]:
        return {"card": self.card}

    def __repr__(self) -> str:
        return f"Card({self.card})"


TagItem = Union[Piece, Card]

_UID_SEPARATORS = re.compile(r"[\s:\-]")
_HEX = re.compile(r"^[0-9A-F]+$")


def normalise_uid(uid: str | bytes) -> str:
    """Upper-case hex without separators: ``b"\\x04\\xa1"`` and ``"04:a1"`` both give ``"04A1"``."""
    if isinstance(uid, (bytes, bytearray)):
        text = bytes(uid).hex().upper()
    else:
        text = _UID_SEPARATORS.sub("", str(uid)).upper()
    if len(text) < 8 or len(text) % 2 or not _HEX.match(text) or len(text) > 20:
        raise RegistryError(f"not a tag uid: {uid!r} (4 to 10 bytes of hex expected)")
    return text


def item_from_json(data: Mapping[str, str]) -> TagItem:
    if "card" in data:
        return Card(str(data["card"]))
    return Piece.from_json(data)


_KINDS = ("house", "emissary", "fortress", "family", "prince")  # the kinds with a name in the catalogues (hardware.tag_registry.kind.*)


def describe(item: TagItem) -> Message:
    """What a tag is, in every language, for enrolment feedback and alerts."""
    if isinstance(item, Card):
        return Message.t("hardware.tag_registry.card", colour=_colour(item.card))
    kind = Message.t(f"hardware.tag_registry.kind.{item.kind}") if item.kind in _KINDS else Message.t("name.as_given", name=item.kind)
    return Message.t("hardware.tag_registry.piece", owner=_colour(item.owner), kind=kind)


def _colour(name: str) -> Message:
    """A colour's name; anything else (a state, an unlisted card colour) as given."""
    try:
        return Colour(name).label
    except ValueError:
        return Message.t("name.as_given", name=name)


@dataclass(frozen=True, slots=True)
class Enrolment:
    """An armed enrolment: the next ``remaining`` unknown tags become ``item``."""

    item: TagItem
    remaining: int
    enrolled: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class OfferResult:
    """What became of a uid offered for enrolment. ``enrolled`` is True only if it was assigned."""

    uid: str
    enrolled: bool
    item: TagItem | None
    message: Message


RegistryListener = Callable[[str, "TagItem | None"], None]


class TagRegistry:
    def __init__(self, path: str | os.PathLike[str] | None = None, tags: Mapping[str, TagItem] | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._tags: dict[str, TagItem] = {normalise_uid(u): i for u, i in (tags or {}).items()}
        self._lock = threading.RLock()
        self._listeners: list[RegistryListener] = []
        self._enrolment: Enrolment | None = None

    # ---- persistence ----

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "TagRegistry":
        """Read a registry file; a missing file is an empty registry that will be created on save."""
        p = Path(path)
        if not p.exists():
            return cls(p)
        try:
            data = safejson.load_file(str(p), "tag registry")
        except InvalidRecord as exc:
            raise RegistryError(f"cannot read tag registry: {exc}") from None
        try:
            jsonschema.validate(data, SCHEMA)
        except jsonschema.ValidationError as exc:
            raise RegistryError(f"{p}: invalid tag registry: {exc.message}") from exc
        return cls(p, {uid: item_from_json(v) for uid, v in data["tags"].items()})

    def to_json(self) -> dict[str, object]:
        with self._lock:
            return {"version": REGISTRY_VERSION,
                    "tags": {uid: item.to_json() for uid, item in sorted(self._tags.items())}}

    def save(self) -> None:
        """Write the registry atomically; a no-op for a registry without a file."""
        if self.path is None:
            return
        with self._lock:
            text = json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"
            folder = self.path.parent
            folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=folder)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(text)
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(tmp, self.path)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
            dir_fd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)

    # ---- lookups ----

    def lookup(self, uid: str | bytes) -> TagItem | None:
        with self._lock:
            return self._tags.get(normalise_uid(uid))

    def piece(self, uid: str | bytes) -> Piece | None:
        item = self.lookup(uid)
        return item if isinstance(item, Piece) else None

    def card(self, uid: str | bytes) -> Card | None:
        item = self.lookup(uid)
        return item if isinstance(item, Card) else None

    def items(self) -> dict[str, TagItem]:
        with self._lock:
            return dict(self._tags)

    def uids_of(self, item: TagItem) -> tuple[str, ...]:
        with self._lock:
            return tuple(sorted(u for u, i in self._tags.items() if i == item))

    def __len__(self) -> int:
        return len(self._tags)

    def __contains__(self, uid: object) -> bool:
        try:
            return self.lookup(uid) is not None  # type: ignore[arg-type]
        except RegistryError:
            return False

    # ---- changes ----

    def subscribe(self, listener: RegistryListener) -> None:
        """``listener(uid, item_or_None)`` after each change has been saved."""
        self._listeners.append(listener)

    def assign(self, uid: str | bytes, item: TagItem, *, replace: bool = False) -> None:
        key = normalise_uid(uid)
        with self._lock:
            self._assign_locked(key, item, replace)
        self._changed(key, item)

    def _assign_locked(self, key: str, item: TagItem, replace: bool) -> None:
        old = self._tags.get(key)
        if old is not None and old != item and not replace:
            raise RegistryError(f"tag {key} is already {old!r}; remove it first or pass replace=True")
        self._tags[key] = item
        try:
            self.save()
        except OSError:
            if old is None:
                del self._tags[key]
            else:
                self._tags[key] = old
            raise

    def remove(self, uid: str | bytes) -> TagItem:
        key = normalise_uid(uid)
        with self._lock:
            if key not in self._tags:
                raise RegistryError(f"tag {key} is not in the registry")
            old = self._tags.pop(key)
            try:
                self.save()
            except OSError:
                self._tags[key] = old
                raise
        self._changed(key, None)
        return old

    def _changed(self, uid: str, item: TagItem | None) -> None:
        for listener in list(self._listeners):
            listener(uid, item)

    # ---- enrolment ----

    def begin_enrolment(self, item: TagItem, count: int = 1) -> Enrolment:
        if count < 1:
            raise RegistryError("enrol at least one tag")
        with self._lock:
            if self._enrolment is not None:
                log.info("tag registry: enrolment of %r replaced by %r", self._enrolment.item, item)
            self._enrolment = Enrolment(item, count)
            log.info("tag registry: enrolling the next %d unknown tag(s) as %r", count, item)
            return self._enrolment

    def cancel_enrolment(self) -> Enrolment | None:
        with self._lock:
            current, self._enrolment = self._enrolment, None
            return current

    @property
    def enrolment(self) -> Enrolment | None:
        return self._enrolment

    def offer(self, uid: str | bytes) -> OfferResult:
        """A reader presents a tag. Unknown and enrolment armed: it is assigned and saved."""
        key = normalise_uid(uid)
        with self._lock:
            known = self._tags.get(key)
            if known is not None:
                name = describe(known)
                return OfferResult(key, False, known, Message.t("hardware.tag_registry.already", uid=key, name=name))
            en = self._enrolment
            if en is None:
                return OfferResult(key, False, None, Message.t("hardware.tag_registry.unknown", uid=key))
            self._assign_locked(key, en.item, False)
            remaining = en.remaining - 1
            self._enrolment = Enrolment(en.item, remaining, en.enrolled + (key,)) if remaining > 0 else None
        # Listeners run outside the lock: they may well call back into the registry.
        self._changed(key, en.item)
        name = describe(en.item)
        log.info("tag registry: tag %s enrolled as %r (%d more to go)", key, en.item, remaining)
        return OfferResult(key, True, en.item, Message.t("hardware.tag_registry.enrolled", uid=key, name=name))
