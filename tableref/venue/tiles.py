"""One table's tile on the venue screen, made from its retained state and info (pure).

A tile carries only what the hall display shows -- name, game, round, who is to play, scores,
the open flag, the result -- so the venue keeps a few hundred bytes per table instead of the
whole snapshot, and the page's live stream stays small.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Mapping


def _names(snap: Mapping[str, Any]) -> dict[str, str]:
    """colour -> the player's name, only for seats that have one (a name equal to the colour is none)."""
    raw = snap.get("player_names") or {}
    return {str(c): str(n) for c, n in raw.items() if n and str(n) != str(c)} if isinstance(raw, Mapping) else {}


def _message(m: Any) -> dict[str, str] | None:
    if isinstance(m, Mapping) and (m.get("en") or m.get("zh")):
        return {k: str(v) for k, v in m.items() if isinstance(v, str)}
    return None


def table_name(table_id: str, snap: Mapping[str, Any] | None, info: Mapping[str, Any] | None) -> str:
    for source in (info or {}).get("name"), ((snap or {}).get("table") or {}).get("name"):
        if isinstance(source, str) and source.strip():
            return source.strip()
    return table_id


def make_tile(table_id: str, snap: Mapping[str, Any] | None, info: Mapping[str, Any] | None) -> dict[str, Any]:
    """The tile of a table (without its online state, which the hall adds)."""
    snap = snap or {}
    info = info or {}
    url = info.get("dashboard_url")
    tile: dict[str, Any] = {
        "id": table_id,
        "name": table_name(table_id, snap, info),
        "dashboard_url": url if isinstance(url, str) and re.match(r"^https?://", url) else None,
        "game": snap.get("game"),
        "game_name": _message(snap.get("game_name")),
        "game_no": snap.get("game_no"),
        "version": snap.get("version"),
        "event_id": snap.get("event_id"),
        "moves": snap.get("moves"),
    }
    turn = snap.get("turn") if isinstance(snap.get("turn"), Mapping) else {}
    tile["round"] = turn.get("round")
    tile["phase"] = turn.get("phase")
    tile["awaiting"] = turn.get("awaiting")
    tile["to_play"] = [str(p) for p in turn.get("active") or []]
    names = _names(snap)
    scores = (snap.get("scores") or {}).get("players") or [] if isinstance(snap.get("scores"), Mapping) else []
    outcome = snap.get("outcome") if isinstance(snap.get("outcome"), Mapping) else None
    winners = [str(w) for w in (outcome or {}).get("winners") or []]
    totals = [int(p.get("total", 0)) for p in scores if isinstance(p, Mapping)]
    best = max(totals) if totals else None
    ahead = best is not None and best > min(totals)  # nobody leads while everyone is level
    tile["players"] = [
        {"player": str(p.get("player")), "name": names.get(str(p.get("player"))), "total": int(p.get("total", 0)),
         "leader": bool(ahead and int(p.get("total", 0)) == best) and not winners,
         "winner": str(p.get("player")) in winners}
        for p in scores if isinstance(p, Mapping)
    ]
    flag = snap.get("flag") if isinstance(snap.get("flag"), Mapping) else None
    if flag is not None:
        violations = [v for v in flag.get("violations") or [] if isinstance(v, Mapping)]
        message = _message(flag.get("message")) or (_message(violations[0].get("message")) if violations else None)
        tile["flag"] = {"message": message, "rules": [str(v.get("rule")) for v in violations if v.get("rule")],
                        "spaces": [str(s) for s in flag.get("spaces") or []]}
    else:
        tile["flag"] = None
    tile["over"] = {"winners": winners, "reason": _message(outcome.get("reason"))} if outcome is not None else None
    last = snap.get("last_move") if isinstance(snap.get("last_move"), Mapping) else None
    tile["last_move"] = _message(last.get("description")) if last else None
    return tile


def last_move_time(snap: Mapping[str, Any] | None) -> float | None:
    """When the table's last move was made (its ISO wall time), for an offline table found retained."""
    last = (snap or {}).get("last_move")
    at = last.get("at") if isinstance(last, Mapping) else None
    if not isinstance(at, str):
        return None
    try:
        return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def natural_key(name: str) -> tuple[Any, ...]:
    """"Table 2" before "Table 10"."""
    return tuple(int(part) if part.isdigit() else part.casefold() for part in re.split(r"(\d+)", name))
