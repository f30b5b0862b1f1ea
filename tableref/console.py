"""The table in a terminal: one line per accepted move, flag, correction, undo, override, score
change and device change, as they happen (an ``EventBus`` subscriber on its own thread).

Used by ``tableref run`` (the lines go to the journal on a Pi) and ``tableref demo`` (so the whole
system can be watched without a browser). ``lang`` picks English, Chinese or both.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, Callable, TextIO

from scorer.core.types import Message, player_label
from tableref import service as ev
from tableref.lang import BOTH, show
from tableref.service import EventBus, TableEvent
from tableref.texts import message_from_json

_TAGS = {
    ev.MOVE_ACCEPTED: "MOVE",
    ev.FLAG_RAISED: "FLAG",
    ev.FLAG_CLEARED: "CLEARED",
    ev.UNDO: "UNDO",
    ev.OVERRIDE: "OVERRIDE",
    ev.GAME_OVER: "GAME OVER",
    ev.NEW_GAME: "NEW GAME",
    ev.DEVICES: "DEVICE",
    "score": "SCORE",
    "table_matched": "TABLE OK",
    "signal": "REFUSED",
    "follow": "FOLLOW",
}


def _langs(lang: str) -> tuple[str, ...]:
    """``lang`` as language tags: a tag, ``zh`` (Simplified), ``both`` (English and Simplified) or
    several tags joined with ``+``."""
    if lang == "zh":
        lang = "zh-Hans"
    return BOTH if lang == "both" else tuple(lang.split("+"))


def _pick(msg: Any, lang: str) -> str:
    """A message (or its JSON) in ``lang`` (see ``_langs``)."""
    if not isinstance(msg, (dict, Message)):
        return ""
    return show(msg, _langs(lang))


def format_event(event: TableEvent, lang: str = "both") -> str | None:
    """One human line for an event, or None for events not worth a line (state snapshots)."""
    tag = _TAGS.get(event.type)
    if tag is None:
        return None
    d = event.data
    if event.type == ev.DEVICES:
        if "disagreement" in d:
            return f"[SENSORS] {_pick(d.get('description'), lang)}"
        if "camera_enrolment" in d:
            return f"[CAMERA] {_pick(d.get('description'), lang)}"
        if "source" not in d:
            return None
        state = "live" if d.get("live") else "DOWN"
        reason = _pick(d.get("reason"), lang)
        return f"[{tag}] {d['source']}: {state}" + (f" ({reason})" if reason else "")
    text = _pick(d.get("description"), lang)
    if event.type == ev.FLAG_RAISED:
        spaces = ", ".join(d.get("spaces", []))
        rules = ", ".join(v.get("rule", "") for v in d.get("violations", []))
        text = f"{text} [rule {rules}; spaces {spaces}]"
    if event.type == ev.MOVE_ACCEPTED and d.get("reason"):
        text = f"{text} (closed by {d['reason']})"
    version = d.get("version")
    prefix = f"#{version} " if isinstance(version, int) else ""
    return f"[{tag}] {prefix}{text}"


def format_scoreboard(snapshot: dict[str, Any], lang: str = "both") -> str:
    scores = snapshot.get("scores") or {}
    cats = scores.get("categories", [])
    names = snapshot.get("player_names", {})
    lines = [_pick(Message.t("tableref.console.scoreboard_final" if scores.get("final") else "tableref.console.scoreboard"), lang)]
    widths = [max(10, len(c)) + 1 for c in cats]  # long category names must not run together
    header = f"  {'player':<18}{'total':>6}" + "".join(f"{c:>{w}}" for c, w in zip(cats, widths))
    lines.append(header)
    for p in sorted(scores.get("players", []), key=lambda p: (-p["total"], p["player"])):
        label = p["player"] + (f" ({names[p['player']]})" if names.get(p["player"], p["player"]) != p["player"] else "")
        lines.append(f"  {label:<18}{p['total']:>6}" + "".join(f"{p['breakdown'].get(c, 0):>{w}}" for c, w in zip(cats, widths)))
    outcome = snapshot.get("outcome")
    if outcome:
        winners = tuple(player_label(w) for w in outcome.get("winners", []))
        reason = message_from_json(outcome.get("reason")) or Message.t("tableref.table.game_over")
        lines.append("  " + _pick(Message.t("tableref.console.winners", winners=winners, reason=reason), lang))
    for u in scores.get("not_checked", []):
        text = message_from_json(u.get("message"))
        if text is not None:
            lines.append("  " + _pick(Message.t("tableref.console.not_checked", text=text), lang))
    return "\n".join(lines)


class ConsolePrinter:
    """Prints bus events as lines. ``close()`` is idempotent; the thread stops within 0.2 s."""

    def __init__(self, bus: EventBus, out: TextIO | None = None, lang: str = "both",
                 extra: Callable[[TableEvent], str | None] | None = None) -> None:
        self.out = out or sys.stdout
        self.lang = lang
        self.extra = extra
        self._sub = bus.subscribe()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="console-printer", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            event = self._sub.get(timeout=0.2)
            if event is None:
                continue
            line = format_event(event, self.lang)
            if line is None and self.extra is not None:
                line = self.extra(event)
            if line:
                try:
                    print(line, file=self.out, flush=True)
                except (OSError, ValueError):
                    return

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
        self._sub.close()
