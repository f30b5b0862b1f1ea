"""The first-run wizard's progress: which step a table's setup is at, what was chosen and checked.

Pure transitions on an immutable ``WizardState`` (each refuses a step out of turn with a bilingual
reason) and ``SetupStore``, which keeps the state in ``<data>/web/setup.json`` so the wizard
resumes where it was after a reload, on another tablet, or after a restart of the referee.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping

from scorer.core.types import Message, TableRefError
from web.security import write_private

log = logging.getLogger(__name__)

# The order a table is set up in. ``camera`` .. ``sensors`` may be passed over (a table without a
# camera or a sensor board); the PIN and the game may not, and ``start`` ends the wizard.
STEPS = ("pin", "game", "camera", "markers", "enrol", "sensors", "start")
OPTIONAL = frozenset({"camera", "markers", "enrol", "sensors"})
STATUSES = ("new", "active", "skipped", "done")
VERSION = 1


class WizardRefused(TableRefError, ValueError):
    """A wizard action out of turn (the API answers 409 with this message)."""

    def __init__(self, message: Message, code: str = "setup_order"):
        self.message = message
        self.code = code
        super().__init__(str(message))


@dataclass(frozen=True)
class WizardState:
    status: str = "new"  # new: never opened; active: under way; skipped / done: finished
    step: str = "pin"
    done: tuple[str, ...] = ()
    choices: Mapping[str, Any] | None = None  # the new-game body chosen at the game step
    checks: Mapping[str, Any] = field(default_factory=dict)  # step -> what its check found (shown at the end)
    updated: float = 0.0

    @property
    def index(self) -> int:
        """1-based position of the current step (the "step n of N" the page shows)."""
        return STEPS.index(self.step) + 1

    @property
    def finished(self) -> bool:
        return self.status in ("skipped", "done")

    def to_json(self) -> dict[str, Any]:
        return {"version": VERSION, "status": self.status, "step": self.step, "done": list(self.done),
                "choices": dict(self.choices) if self.choices is not None else None,
                "checks": {k: v for k, v in self.checks.items()}, "updated": self.updated}

    @classmethod
    def from_json(cls, doc: Mapping[str, Any]) -> "WizardState":
        status = doc.get("status") if doc.get("status") in STATUSES else "new"
        step = doc.get("step") if doc.get("step") in STEPS else "pin"
        done = tuple(s for s in STEPS if s in (doc.get("done") or ()))
        choices = doc.get("choices") if isinstance(doc.get("choices"), dict) else None
        checks = {k: v for k, v in (doc.get("checks") or {}).items() if k in STEPS} if isinstance(doc.get("checks"), dict) else {}
        return cls(status, step, done, choices, checks, float(doc.get("updated") or 0.0))


def is_due(state: WizardState, *, pin_set: bool, game_running: bool) -> bool:
    """Whether the dashboard's front page should open the wizard: it is under way, or this is a
    first run (no admin PIN yet, or no game) and nobody finished or skipped it."""
    if state.status == "active":
        return True
    return state.status == "new" and (not pin_set or not game_running)


def _blocked(state: WizardState, step: str, pin_set: bool) -> Message | None:
    """Why ``step`` cannot be opened yet (None: it can)."""
    if step == "pin":
        return None
    if not pin_set:
        return Message.t('web.setup_state.set_the_admin_pin_first')
    if step == "start" and state.choices is None:
        return Message.t('web.setup_state.choose_the_game_board_and')
    return None


def goto(state: WizardState, step: str, *, pin_set: bool, now: float) -> WizardState:
    """Open ``step`` (Back, or a step in the progress list)."""
    if step not in STEPS:
        raise WizardRefused(Message.t('web.setup_state.there_is_no_setup_step', step=step), "bad_step")
    why = _blocked(state, step, pin_set)
    if why is not None:
        raise WizardRefused(why)
    return replace(state, status="active", step=step, updated=now)


def _next(step: str) -> str:
    i = STEPS.index(step)
    return STEPS[min(i + 1, len(STEPS) - 1)]


def complete(state: WizardState, step: str, *, pin_set: bool, now: float, check: Mapping[str, Any] | None = None,
             skipped: bool = False) -> WizardState:
    """Mark ``step`` done (or passed over: ``skipped``, optional steps only) and open the next."""
    if step not in STEPS or step == "start":
        raise WizardRefused(Message.t('web.setup_state.the_step_cannot_be_completed', step=step), "bad_step")
    if step == "pin" and not pin_set:
        raise WizardRefused(Message.t('web.setup_state.choose_the_admin_pin_first'), "pin_not_set")
    if step == "game" and state.choices is None:
        raise WizardRefused(Message.t('web.setup_state.choose_the_game_board_and.2'))
    if skipped and step not in OPTIONAL:
        raise WizardRefused(Message.t('web.setup_state.this_step_cannot_be_skipped'))
    why = _blocked(state, step, pin_set)
    if why is not None:
        raise WizardRefused(why)
    checks = dict(state.checks)
    if skipped:
        checks[step] = {"skipped": True}
    elif check is not None:
        checks[step] = dict(check)
    done = tuple(s for s in STEPS if s in set(state.done) | {step})
    return replace(state, status="active", step=_next(step), done=done, checks=checks, updated=now)


def choose(state: WizardState, choices: Mapping[str, Any], *, pin_set: bool, now: float) -> WizardState:
    """Keep the checked new-game body; the game itself starts at the last step."""
    why = _blocked(state, "game", pin_set)
    if why is not None:
        raise WizardRefused(why)
    return complete(replace(state, choices=dict(choices)), "game", pin_set=pin_set, now=now)


def skip(state: WizardState, *, now: float) -> WizardState:
    """Leave the wizard for good (it can be run again from the settings)."""
    return replace(state, status="skipped", updated=now)


def finish(state: WizardState, *, now: float) -> WizardState:
    """The game was started: the wizard is done."""
    return replace(state, status="done", step="start", done=STEPS, updated=now)


def restart(state: WizardState, *, now: float) -> WizardState:
    """Run the wizard again from the first step, keeping the earlier choices as defaults."""
    return WizardState(status="active", step="pin", done=(), choices=state.choices, checks={}, updated=now)


class SetupStore:
    """``WizardState`` kept in a JSON file (written whole, then renamed). A file that cannot be
    read is treated as a fresh start and logged: the wizard is a convenience, not a record."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()
        self._state = self._load()

    def _load(self) -> WizardState:
        if not self.path.exists():
            return WizardState()
        try:
            doc = json.loads(self.path.read_text("utf-8"))
            if not isinstance(doc, dict):
                raise ValueError("not a JSON object")
            return WizardState.from_json(doc)
        except (OSError, ValueError) as exc:
            log.warning("setup wizard: %s unreadable (%s); starting afresh", self.path, exc)
            return WizardState()

    def get(self) -> WizardState:
        with self._lock:
            return self._state

    def update(self, change: Callable[[WizardState], WizardState]) -> WizardState:
        """Apply one transition under the lock and keep the result (two tablets may click at once);
        a refused transition (``WizardRefused``) changes nothing."""
        with self._lock:
            state = change(self._state)
            write_private(self.path, json.dumps(state.to_json(), ensure_ascii=False, indent=1).encode("utf-8"))
            self._state = state
            return state
