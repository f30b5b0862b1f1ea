"""Playing a scripted game against the running demo: each ``Step`` carried out at the emulated table
(pieces, buttons, cards, declarations, dice), then waited on until the referee answered as the
step expects (``DemoError`` when it does not in time, ``DemoStopped`` on Ctrl-C or SIGTERM).
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Callable, TextIO

from scorer.core.types import Piece
from tableref.demo_script import SCRIPT, Step
from tableref.demo_table import Demo, DemoError, DemoStopped, card_uids
from tableref.lang import BOTH, show
from tableref.runtime import Runtime


NOT_SHOWN_YET = "tableref.table.finish_or_clear_what_is"  # a declaration the table does not show (yet)


def wait_until(cond: Callable[[], bool], timeout: float, poll: float = 0.02, stop: threading.Event | None = None) -> bool:
    """Poll ``cond`` until it holds (True) or ``timeout`` passes; a set ``stop`` ends the wait at once (False)."""
    deadline = time.monotonic() + timeout
    pause = stop.wait if stop is not None else time.sleep
    while time.monotonic() < deadline:
        if cond():
            return True
        if stop is not None and stop.is_set():
            return False
        pause(poll)
    return cond()


def _moves(rt: Runtime) -> int:
    return int(rt.snapshot().get("moves", -1))


def _open_reading(rt: Runtime) -> bool:
    """A legal move still waiting to close (a takeback after an undo is not one)."""
    pending = rt.snapshot().get("pending")
    return pending is not None and not pending.get("takeback")


def run_step(demo: Demo, step: Step, *, speed: float, timeout: float, out: TextIO, stop: threading.Event | None = None,
             langs: tuple[str, ...] = BOTH) -> None:
    """One scripted step, narrated in ``langs``; ``stop`` (Ctrl-C, SIGTERM) raises ``DemoStopped`` between actions
    and in every wait."""
    rt = demo.runtime
    if step.pause:
        if stop is not None and stop.wait(step.pause / max(speed, 0.01)):
            raise DemoStopped()
        if stop is None:
            time.sleep(step.pause / max(speed, 0.01))
    if stop is not None and stop.is_set():
        raise DemoStopped()
    print(f"\n>>> {show(step.say, langs)}", file=out, flush=True)
    if step.hand is not None:
        demo.table.hand(step.hand)
    for space, owner, kind in step.take:
        demo.table.take(space, Piece(owner, kind))
    for space, owner, kind in step.put:
        demo.table.put(space, Piece(owner, kind))
    for button in step.press:
        demo.gpio.press(button)
        wait_until(lambda: len(demo.gpio.results) > 0, 2.0, stop=stop)
    for colour in step.tap:
        demo.cards.tap(card_uids()[colour])
    if step.admin_undo:
        res = rt.undo("demo dashboard (admin PIN)", True)
        if not res.ok:
            raise DemoError(f"admin undo refused: {res.message}")
    if step.roll is not None and demo.table.camera is not None:
        demo.table.roll(step.roll)  # the camera reads it and enters the roll
    elif step.declare is not None:
        res = rt.declare(step.declare, "demo dashboard")
        if not res.ok and getattr(res.message, "key", None) == NOT_SHOWN_YET:
            # the camera has not seen all of the move yet (a busy machine reads frames late): as a player
            # told "finish what is on the table first" would, wait for the table to show it, then declare
            def shown() -> bool:
                nonlocal res
                res = rt.declare(step.declare, "demo dashboard")
                return res.ok

            wait_until(shown, timeout, poll=0.2, stop=stop)
        if not res.ok:
            raise DemoError(f"declaration refused: {res.message} (the table shows: {rt.snapshot().get('pending')})")

    def check(what: str, cond: Callable[[], bool]) -> None:
        if not wait_until(cond, timeout, stop=stop):
            if stop is not None and stop.is_set():
                raise DemoStopped()
            snap = rt.snapshot()
            raise DemoError(f"step '{step.say.en}': {what} did not happen within {timeout:.0f} s "
                            f"(moves {snap.get('moves')}, flag {bool(snap.get('flag'))}, pending {snap.get('pending')})")

    if step.expect_flag:
        check(f"a flag for {step.expect_flag}", lambda: any(
            v["rule"] == step.expect_flag for v in ((rt.snapshot().get("flag") or {}).get("violations") or [])))
    if step.expect_clear:
        check("the flag clearing", lambda: rt.snapshot().get("flag") is None)
    if step.expect_undo_wait is not None:
        want = step.expect_undo_wait
        check("the undo wait " + ("starting" if want else "ending"), lambda: (rt.snapshot().get("undo_wait") is not None) == want)
    if step.expect_pending:
        check("a move read from the table", lambda: _open_reading(rt))
    if step.expect_moves is not None:
        n = step.expect_moves
        check(f"{n} accepted moves", lambda: _moves(rt) == n and not _open_reading(rt))
    if step.expect_over:
        check("the end of the game", lambda: rt.snapshot().get("outcome") is not None)
    follow = step.extra.get("expect_follow")
    if follow is not None:  # the rules moved pieces by themselves: the referee follows until the table matches
        check("the table following the rules" if follow else "the table matching the rules' board",
              lambda: (rt.snapshot().get("follow") is not None) == follow)
    scores = step.extra.get("expect_score")
    if scores:
        check(f"scores {scores}", lambda: {p["player"]: p["total"] for p in rt.snapshot()["scores"]["players"]} == scores)
    demo.gpio.results.clear()


def run_script(demo: Demo, *, speed: float = 1.0, timeout: float = 20.0, out: TextIO = sys.stdout,
               script: tuple[Step, ...] = SCRIPT, stop: threading.Event | None = None, langs: tuple[str, ...] = BOTH) -> None:
    for step in script:
        run_step(demo, step, speed=speed, timeout=timeout, out=out, stop=stop, langs=langs)
