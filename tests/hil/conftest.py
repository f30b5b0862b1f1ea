"""Hardware-in-the-loop tests: they run on a Raspberry Pi with the parts fitted, and only when asked
for (``TABLEREF_HIL=1``); everywhere else they are skipped with that reason. docs/hil.md is the
checklist for the person running them: what to wire, what to do when a test asks, what passing means.

    TABLEREF_HIL=1 .venv/bin/python -m pytest tests/hil -v -s      # -s: the tests talk to you
"""

from __future__ import annotations

import os

import pytest

from hil_rig import HIL


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if HIL:
        return
    skip = pytest.mark.skip(reason="hardware-in-the-loop: runs on a Raspberry Pi with TABLEREF_HIL=1 (docs/hil.md)")
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(skip)
