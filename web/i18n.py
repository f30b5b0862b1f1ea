"""The dashboard's message catalogue (English and Simplified Chinese) and language choice.

Every string a page shows lives in ``web/i18n/<lang>.json`` under the same keys in both files
(a test checks this). Texts that come from the rules engine are already bilingual
``Message`` values and are picked with :func:`pick`.

The language is, in order: the ``lang`` cookie (set by the switcher and remembered for a year),
else the browser's ``Accept-Language``, else English.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any, Mapping

LANGUAGES = ("en", "zh-Hans")
DEFAULT = "en"
COOKIE = "lang"
LANGUAGE_NAMES = {"en": "English", "zh-Hans": "简体中文"}


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    if lang not in LANGUAGES:
        raise KeyError(lang)
    text = resources.files("web").joinpath("i18n", f"{lang}.json").read_text("utf-8")
    data = json.loads(text)
    return {k: v for k, v in data.items() if not k.startswith("_")}


def normalise(code: str | None) -> str | None:
    """Map a language tag to one we speak: any Chinese tag -> zh-Hans, any English tag -> en."""
    if not code:
        return None
    low = code.strip().lower().replace("_", "-")
    if low.startswith("zh"):
        return "zh-Hans"
    if low.startswith("en"):
        return "en"
    return None


def negotiate(cookie: str | None, accept: list[tuple[str, float]]) -> str:
    """The page language from the remembered choice or the browser's ranked preferences."""
    chosen = normalise(cookie) if cookie in LANGUAGES else None
    if chosen:
        return chosen
    for tag, quality in sorted(accept, key=lambda tq: -tq[1]):
        if quality <= 0:
            continue
        found = normalise(tag)
        if found:
            return found
    return DEFAULT


def translate(lang: str, key: str, **values: Any) -> str:
    """The catalogue text for ``key``; a missing key shows as ``[key]`` so it is noticed, not hidden."""
    text = catalogue(lang).get(key)
    if text is None:
        return f"[{key}]"
    return text.format(**values) if values else text


def pick(lang: str, message: Mapping[str, str] | None) -> str:
    """The right half of a bilingual ``{"en", "zh"}`` message."""
    if not message:
        return ""
    if lang == "zh-Hans":
        return message.get("zh") or message.get("en", "")
    return message.get("en") or message.get("zh", "")
