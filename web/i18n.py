"""The dashboard's message catalogues and language choice, on top of scorer/core/i18n.py.

Every string a page shows lives in ``web/i18n/<lang>.json`` under the same keys as English (a test
checks this). Which languages exist is decided by the engine catalogues (``scorer/i18n``): a language
with no dashboard file, or a key missing from one, is derived (Traditional Chinese from Simplified) or
falls back to English. Texts from the rules engine are ``Message`` values, sent as JSON with one text
per language tag, and picked with :func:`pick`.

The language is, in order: the ``lang`` cookie (set by the switcher and remembered for a year), else
the table's configured language, else the browser's ``Accept-Language``, else English.
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping, Sequence

from scorer.core import i18n as core

DEFAULT = core.DEFAULT
COOKIE = "lang"
PACKAGE = "web"

class _LiveTags(Sequence[str]):
    """The language tags, read from the catalogues each time (a catalogue folder added later counts)."""

    def __getitem__(self, i: Any) -> Any:
        return core.language_tags()[i]

    def __len__(self) -> int:
        return len(core.language_tags())

    def __contains__(self, tag: object) -> bool:
        return tag in core.language_tags()


class _LiveNames(Mapping[str, str]):
    """Tag -> the language's own name, for the switcher and the settings page."""

    def __getitem__(self, tag: str) -> str:
        return core.language(tag).name

    def __iter__(self) -> Iterator[str]:
        return iter(core.language_tags())

    def __len__(self) -> int:
        return len(core.language_tags())


LANGUAGES: Sequence[str] = _LiveTags()
LANGUAGE_NAMES: Mapping[str, str] = _LiveNames()


def catalogue(lang: str) -> dict[str, str]:
    """The dashboard's texts in ``lang``: English as the base, the language's own (or derived) texts over it."""
    if lang not in LANGUAGES:
        raise KeyError(lang)
    if lang == DEFAULT:
        return core.catalogue(PACKAGE, DEFAULT)
    return {**core.catalogue(PACKAGE, DEFAULT), **core.catalogue(PACKAGE, lang)}


def normalise(code: str | None) -> str | None:
    """Map a language tag to one we speak (zh-TW, zh-HK, zh-MO, zh-Hant -> zh-Hant; other Chinese -> zh-Hans)."""
    return core.normalise(code)


def negotiate(cookie: str | None, accept: list[tuple[str, float]]) -> str:
    """The page language from the remembered choice or the browser's ranked preferences."""
    ranked = [tag for tag, quality in sorted(accept, key=lambda tq: -tq[1]) if quality > 0]
    return core.negotiate([cookie if cookie in LANGUAGES else None, *ranked])


def translate(lang: str, key: str, **values: Any) -> str:
    """The catalogue text for ``key``; a missing key shows as ``[key]`` so it is noticed, not hidden."""
    text = catalogue(lang).get(key)
    if text is None:
        return f"[{key}]"
    return text.format(**values) if values else text


def pick(lang: str, message: Mapping[str, str] | None) -> str:
    """The text of a ``Message.to_json()`` value in ``lang`` (older two-language JSON has ``en``/``zh``)."""
    if not message:
        return ""
    if lang in message:
        return message[lang]
    if lang.startswith("zh") and message.get("zh"):
        return core.text_in(lang, {"zh-Hans": message["zh"], "en": message.get("en", "")})
    return message.get("en") or message.get("zh", "")
