"""Joining player-facing texts the runtime puts together (a turn's moves, an undo, a CSV row), in
every language: the parts are ``Message``\\ s, the joint is the catalogue's ``list.semicolon``
("a; b" / "a；b"), so no language's punctuation is written in code."""

from __future__ import annotations

from typing import Any, Sequence

from scorer.core.types import Message


def join_messages(parts: Sequence[Message], empty: Message | None = None) -> Message:
    """The parts as one text ("a; b; c"); ``empty`` (default "(nothing)") when there are none."""
    if not parts:
        return empty or Message.t("tableref.table.nothing")
    text = parts[0]
    for part in parts[1:]:
        text = Message.t("list.semicolon", a=text, b=part)
    return text


def message_from_json(data: Any) -> Message | None:
    """A stored message's JSON (``{"en": ..., "zh": ...}`` and any other languages it kept) as a
    ``Message`` again; None for anything else."""
    if isinstance(data, dict) and data.get("en") and data.get("zh"):
        return Message.of({k: v for k, v in data.items() if isinstance(v, str)})
    return None
