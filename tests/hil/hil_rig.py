"""What the hardware-in-the-loop tests share: talking to the person at the table and the rig's settings
(a module with a unique name: test modules import it, never ``conftest``)."""

from __future__ import annotations

import os
import sys
import time
from typing import Callable

HIL = os.environ.get("TABLEREF_HIL") == "1"
WAIT = float(os.environ.get("TABLEREF_HIL_WAIT", "30"))


def setting(name: str, default: str) -> str:
    """A setting of the rig, ``TABLEREF_HIL_<NAME>`` (docs/hil.md lists them with their defaults)."""
    return os.environ.get(f"TABLEREF_HIL_{name}", default)


def ask(text: str) -> None:
    """Tell the person at the table what to do now (shown with pytest -s)."""
    sys.__stdout__.write(f"\n>>> {text} (within {WAIT:.0f} s)\n")
    sys.__stdout__.flush()


def wait_until(cond: Callable[[], object], timeout: float | None = None, step: float = 0.02) -> object:
    """``cond()``'s first true value, or its last value after ``timeout`` (default ``WAIT``)."""
    deadline = time.monotonic() + (WAIT if timeout is None else timeout)
    while time.monotonic() < deadline:
        value = cond()
        if value:
            return value
        time.sleep(step)
    return cond()
