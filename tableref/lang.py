"""The language of the command line: ``--lang``, else the usual environment variables, else both
English and Simplified Chinese (what the CLI printed before it spoke more languages)."""

from __future__ import annotations

import argparse
import os
from typing import Any, Mapping

from scorer.core import i18n

BOTH = ("en", "zh-Hans")


def add_lang_option(parser: argparse.ArgumentParser, *, help_extra: str = "") -> None:
    tags = ", ".join(i18n.language_tags())
    both = " and ".join(i18n.language(tag).name for tag in BOTH)  # each language by its own name
    parser.add_argument("--lang", metavar="LANG", default=None,
                        help=f"language of the messages: {tags}, zh-TW/zh-HK/zh-CN ..., or 'both' ({both}); "
                             f"default: TABLEREF_LANG, LANGUAGE, LC_ALL, LC_MESSAGES or LANG if one names a language we speak, "
                             f"else both{help_extra}")


def cli_languages(option: str | None, env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The languages to print, in order. Raises ``ValueError`` for a --lang we do not speak."""
    if option:
        if option.lower() in ("both", "all"):
            return BOTH if option.lower() == "both" else i18n.language_tags()
        found = i18n.normalise(option)
        if not found:
            raise ValueError(f"unknown language {option!r}; choose one of {', '.join(i18n.language_tags())} or 'both'")
        return (found,)
    env = os.environ if env is None else env
    prefs = [env.get("TABLEREF_LANG"), *(env.get("LANGUAGE") or "").split(":"), env.get("LC_ALL"), env.get("LC_MESSAGES"), env.get("LANG")]
    for pref in prefs:
        found = i18n.normalise(pref)
        if found:
            return (found,)
    return BOTH


def show(message: Any, langs: tuple[str, ...]) -> str:
    """A ``Message`` (or its JSON) in the chosen languages, joined with `` / ``."""
    from scorer.core.types import Message
    from web.i18n import pick

    if isinstance(message, Message):
        texts = [message.get(lang) for lang in langs]
    elif isinstance(message, dict):
        texts = [pick(lang, message) for lang in langs]
    else:
        return str(message or "")
    out: list[str] = []
    for t in texts:
        if t and t not in out:
            out.append(t)
    return " / ".join(out)
