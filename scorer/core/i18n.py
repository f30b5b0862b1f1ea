"""Languages as data: the catalogues, Traditional Chinese derived from Simplified, and the language a reader gets.

A language is a catalogue file ``<tag>.json`` (BCP 47 tag) in a catalogue folder: ``scorer/i18n`` for
the engines' texts (rules, flags, fixes, scoreboard) and ``web/i18n`` for the dashboard. A file maps
keys to texts; ``str.format`` fields (``{space}``) are filled when the text is shown. Its ``_language``
entry describes the language::

    {"_language": {"name": "繁體中文", "babel": "zh_Hant_TW",
                   "derive": {"from": "zh-Hans", "converter": "opencc:s2twp"},
                   "glossary": {"皇亲": "皇親"}},
     "some.key": "an explicit text wins over a derived one"}

The engine folder's files decide which languages exist (English first, it is the fallback and is
required). A language that ``derive``\\ s from another gets every text of that language converted by
the named converter (OpenCC's ``s2twp`` profile: Taiwan standard with Taiwan phrasing), with the
glossary's game terms fixed before conversion so the rulebooks' words win; explicit entries in the file
win over both. Derivation runs once per text and process, at first use; the converter (about 40 MB)
is loaded for it and dropped a second after its last use (``CONVERTER_IDLE_SECONDS``). docs/i18n.md is
the translators' guide.
"""

from __future__ import annotations

import ctypes
import json
import re
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

ENGINE_CATALOGUES = "scorer"
"""Package whose ``i18n`` folder holds the engines' catalogues and defines the languages."""

DEFAULT = "en"
_META = "_language"
_PUA = 0xE000  # private-use code points: converters leave them alone, so glossary terms survive conversion


class CatalogueError(ValueError):
    """A catalogue file that cannot be used (bad JSON, unknown converter, a derivation loop)."""


@dataclass(frozen=True, slots=True)
class Language:
    tag: str
    name: str
    babel: str
    derive_from: str | None = None
    converter: str | None = None
    glossary: tuple[tuple[str, str], ...] = ()


_EXTRA_FOLDERS: dict[str, list[Path]] = {}


def add_catalogue_folder(package: str, folder: str | Path) -> None:
    """Add a folder of ``<tag>.json`` files to ``package``'s catalogues (a plugin game's texts, a new
    language kept outside the source tree). Its keys join the package's; a new tag is a new language."""
    _EXTRA_FOLDERS.setdefault(package, []).append(Path(folder))
    reset_caches()


def reset_caches() -> None:
    for fn in (_tags, languages, catalogue, _locale, normalise, _read, derive):
        fn.cache_clear()


def _folders(package: str) -> list[Any]:
    return [resources.files(package).joinpath("i18n"), *_EXTRA_FOLDERS.get(package, [])]


def _read_one(node: Any, where: str) -> dict[str, Any]:
    try:
        data = json.loads(node.read_text("utf-8"))
    except json.JSONDecodeError as exc:
        raise CatalogueError(f"{where} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or not all(isinstance(v, str) for k, v in data.items() if not k.startswith("_")):
        raise CatalogueError(f"{where} must map keys to texts")
    return data


@lru_cache(maxsize=None)
def _read(package: str, tag: str) -> dict[str, Any] | None:
    """The entries of every ``<tag>.json`` of ``package`` (its own folder first, added folders after)."""
    merged: dict[str, Any] | None = None
    for folder in _folders(package):
        node = folder.joinpath(f"{tag}.json")
        if node.is_file():
            merged = {**(merged or {}), **_read_one(node, str(node))}
    return merged


@lru_cache(maxsize=None)
def _tags(package: str) -> tuple[str, ...]:
    found = sorted({p.name[:-5] for folder in _folders(package) if folder.is_dir() for p in folder.iterdir() if p.name.endswith(".json")})
    if DEFAULT not in found:
        raise CatalogueError(f"{package}/i18n has no {DEFAULT}.json; English is required")
    return (DEFAULT, *[t for t in found if t != DEFAULT])


@lru_cache(maxsize=None)
def languages() -> tuple[Language, ...]:
    """Every language the project speaks, English first (from the engine catalogues' files)."""
    out = []
    for tag in _tags(ENGINE_CATALOGUES):
        meta = (_read(ENGINE_CATALOGUES, tag) or {}).get(_META, {})
        derive = meta.get("derive") or {}
        out.append(Language(
            tag=tag,
            name=str(meta.get("name", tag)),
            babel=str(meta.get("babel", tag.replace("-", "_"))),
            derive_from=derive.get("from"),
            converter=derive.get("converter"),
            glossary=tuple(sorted(dict(meta.get("glossary", {})).items(), key=lambda kv: -len(kv[0]))),
        ))
    known = {lang.tag for lang in out}
    for lang in out:
        if lang.derive_from and lang.derive_from not in known:
            raise CatalogueError(f"{lang.tag} derives from {lang.derive_from}, which has no catalogue")
    return tuple(out)


def language_tags() -> tuple[str, ...]:
    return tuple(lang.tag for lang in languages())


def language(tag: str) -> Language:
    for lang in languages():
        if lang.tag == tag:
            return lang
    raise KeyError(tag)


# -- conversion ------------------------------------------------------------------------------

CONVERTER_IDLE_SECONDS = 1.0
"""How long a loaded converter stays after its last use. OpenCC's ``s2twp`` dictionaries take about
40 MB resident (the Pi's whole service is meant to stay under 150 MB) and load in 0.2 s here. Conversions
come in bursts (the catalogues at start-up, a new game's data texts) and ``derive`` remembers each
text, so a converter is loaded for a burst and dropped after it."""


def _load_converter(name: str) -> Callable[[str], str]:
    kind, _, profile = name.partition(":")
    if kind != "opencc" or not profile:
        raise CatalogueError(f"unknown converter {name!r} (known: opencc:<profile>)")
    import opencc  # imported lazily: only languages that derive need it

    return opencc.OpenCC(profile).convert


class _Converters:
    """The converters by name: each loaded on first use, all dropped ``idle`` seconds after the last
    use (a timer thread checks), their memory given back to the system."""

    def __init__(self, idle: float) -> None:
        self.idle = idle
        self._lock = threading.Lock()
        self._loaded: dict[str, Callable[[str], str]] = {}
        self._last_use = 0.0
        self._timer: threading.Timer | None = None

    def convert(self, name: str, text: str) -> str:
        with self._lock:
            fn = self._loaded.get(name)
            if fn is None:
                fn = self._loaded[name] = _load_converter(name)
            self._last_use = time.monotonic()
            if self._timer is None:
                self._expire_in(self.idle)
            return fn(text)

    def _expire_in(self, seconds: float) -> None:
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def _expire(self) -> None:
        with self._lock:
            left = self._last_use + self.idle - time.monotonic()
            if left > 0:
                self._expire_in(left)
                return
            self._timer = None
            self._loaded.clear()
        _give_back_freed_memory()


_converters = _Converters(CONVERTER_IDLE_SECONDS)


def _give_back_freed_memory() -> None:
    """glibc keeps freed small blocks in its heap: hand their pages back (``malloc_trim``). A no-op
    where there is no glibc."""
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError, TypeError):  # no glibc (TypeError: Windows has no CDLL(None))
        pass


@lru_cache(maxsize=4096)
def derive(text: str, tag: str) -> str:
    """``text`` (in the language ``tag`` derives from) converted into ``tag``, glossary terms first.
    Remembered: a data file's names are shown (and converted) with every state."""
    lang = language(tag)
    if not lang.converter:
        return text
    protected = text
    for i, (source, _) in enumerate(lang.glossary):
        protected = protected.replace(source, chr(_PUA + i))
    converted = _converters.convert(lang.converter, protected)
    for i, (_, target) in enumerate(lang.glossary):
        converted = converted.replace(chr(_PUA + i), target)
    return converted


@lru_cache(maxsize=None)
def catalogue(package: str, tag: str) -> dict[str, str]:
    """Every text of ``package``'s catalogue in ``tag``: derived texts, then the file's own entries."""
    lang = language(tag)
    texts: dict[str, str] = {}
    if lang.derive_from:
        if lang.derive_from == tag:
            raise CatalogueError(f"{tag} derives from itself")
        texts = {k: derive(v, tag) for k, v in catalogue(package, lang.derive_from).items()}
    own = _read(package, tag) or {}
    texts.update({k: v for k, v in own.items() if not k.startswith("_")})
    return texts


def text_in(lang: str, texts: Mapping[str, str]) -> str:
    """Pick from texts given per language (a data file's names): the language itself, else derived from
    the language it derives from, else English."""
    if lang in texts:
        return texts[lang]
    try:
        spec = language(lang)
    except KeyError:
        spec = None
    if spec and spec.derive_from and spec.derive_from in texts:
        return derive(texts[spec.derive_from], lang)
    return texts.get(DEFAULT) or next(iter(texts.values()), "")


# -- choosing a language ----------------------------------------------------------------------

_HANT_REGIONS = {"tw", "hk", "mo"}


@lru_cache(maxsize=256)
def normalise(code: str | None) -> str | None:
    """The language we speak for a BCP 47 or POSIX tag (``zh_TW.UTF-8``, ``zh-Hant-HK``, ``en-GB``), or None.

    Chinese goes by script, else region: Hant, TW, HK, MO -> zh-Hant; other Chinese -> zh-Hans."""
    if not code:
        return None
    low = code.strip().split(".")[0].split("@")[0].replace("_", "-").lower()
    if not low or low in ("c", "posix"):
        return None
    tags = language_tags()
    by_lower = {t.lower(): t for t in tags}
    if low in by_lower:
        return by_lower[low]
    parts = low.split("-")
    if parts[0] == "zh":
        rest = set(parts[1:])
        traditional = "hant" in rest or ("hans" not in rest and bool(_HANT_REGIONS & rest))
        script = "zh-hant" if traditional else "zh-hans"
        return by_lower.get(script) or by_lower.get("zh-hans") or by_lower.get("zh-hant")
    for tag in tags:
        if tag.lower().split("-")[0] == parts[0]:
            return tag
    return None


def negotiate(preferences: Iterable[str | None]) -> str:
    """The first preference we speak (a cookie, a --lang option, Accept-Language in order), else English."""
    for pref in preferences:
        found = normalise(pref)
        if found:
            return found
    return DEFAULT


def from_environment(env: Mapping[str, str]) -> str:
    """The language of a terminal from the usual variables, in POSIX precedence (LANGUAGE may list several)."""
    prefs: list[str] = []
    if env.get("TABLEREF_LANG"):
        prefs.append(env["TABLEREF_LANG"])
    if env.get("LANGUAGE"):
        prefs.extend(env["LANGUAGE"].split(":"))
    prefs.extend(env.get(k, "") for k in ("LC_ALL", "LC_MESSAGES", "LANG"))
    return negotiate(prefs)


# -- formatting (Babel) ----------------------------------------------------------------------

@lru_cache(maxsize=None)
def _locale(tag: str):
    from babel import Locale, UnknownLocaleError

    try:
        return Locale.parse(language(tag).babel if tag in language_tags() else tag.replace("-", "_"))
    except (UnknownLocaleError, ValueError, KeyError):
        return Locale.parse("en")


def format_list(items: Sequence[str], lang: str) -> str:
    """``a, b and c`` / ``a、b和c`` as the language writes lists."""
    from babel.lists import format_list as babel_list

    items = [str(i) for i in items]
    if not items:
        return ""
    return babel_list(items, style="standard", locale=_locale(lang))


def format_number(value: float | int, lang: str) -> str:
    from babel.numbers import format_decimal

    return format_decimal(value, locale=_locale(lang))


def format_datetime(value: Any, lang: str, *, style: str = "medium") -> str:
    from babel.dates import format_datetime as babel_datetime

    return babel_datetime(value, format=style, locale=_locale(lang))


def format_time(value: Any, lang: str, *, style: str = "medium") -> str:
    from babel.dates import format_time as babel_time

    return babel_time(value, format=style, locale=_locale(lang))


def at_texts(at: Any) -> dict[str, str] | None:
    """An event time (epoch seconds or ISO text) as each language writes a time of day, for the dashboard."""
    from datetime import datetime

    try:
        when = datetime.fromtimestamp(float(at)) if isinstance(at, (int, float)) else datetime.fromisoformat(str(at))
    except (TypeError, ValueError, OSError, OverflowError):
        return None
    return {tag: format_time(when, tag) for tag in language_tags()}


def date_texts(at: Any, *, style: str = "medium") -> dict[str, str] | None:
    """A date and time (UTC ISO text or epoch seconds) in local time, as each language writes it (Babel)."""
    from datetime import datetime

    try:
        if isinstance(at, (int, float)):
            when = datetime.fromtimestamp(float(at))
        else:
            when = datetime.fromisoformat(str(at).replace("Z", "+00:00"))
            if when.tzinfo is not None:
                when = when.astimezone().replace(tzinfo=None)
    except (TypeError, ValueError, OSError, OverflowError):
        return None
    return {tag: format_datetime(when, tag, style=style) for tag in language_tags()}


def sort_key(lang: str) -> Callable[[str], Any]:
    """A key that sorts names as readers of ``lang`` expect (case-insensitively; Chinese by code point of the
    Simplified/Traditional form, as Babel has no collation)."""
    del lang  # one rule for now: casefold; see docs/i18n.md
    return lambda s: (s.casefold(), s)


_FIELD = re.compile(r"{([A-Za-z_][A-Za-z0-9_]*)")


def fields(template: str) -> set[str]:
    """The named fields a template uses (a catalogue test checks every language uses the same ones)."""
    return set(_FIELD.findall(template))
