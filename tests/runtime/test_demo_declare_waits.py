"""A scripted declaration the table does not show yet is declared again once it does
(``tableref.demo_runner.run_step``): on a busy machine the camera reads the last piece of a move
late, and "finish what is on the table first" then only means "not yet". Any other refusal ends
the demo at once."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest

from scorer.core.types import Message
from tableref.demo_runner import NOT_SHOWN_YET, run_step
from tableref.demo_script import Step
from tableref.demo_table import DemoError
from tableref.table_commands import ok, refused


class Runtime:
    """Refuses the declaration ``late`` times as not shown yet, then takes it."""

    def __init__(self, late: int, other: Message | None = None):
        self.late, self.other, self.calls = late, other, 0

    def declare(self, move, actor):
        self.calls += 1
        if self.other is not None:
            return refused(self.other)
        if self.calls <= self.late:
            return refused(Message.t(NOT_SHOWN_YET))
        return ok(Message.t("tableref.table.table_accepted_as_it_stands"))

    def snapshot(self):
        return {"pending": None}


def _demo(rt: Runtime) -> SimpleNamespace:
    return SimpleNamespace(runtime=rt, table=SimpleNamespace(camera=None),
                           gpio=SimpleNamespace(results=[]), cards=None)


STEP = Step(Message.t("tableref.demo_cheops.green_declares_turn_tile_c"), declare={"type": "turn", "player": "green"}, pause=0.0)


def test_a_declaration_the_camera_has_not_seen_yet_is_made_once_it_has():
    rt = Runtime(late=3)
    run_step(_demo(rt), STEP, speed=1.0, timeout=5.0, out=io.StringIO())
    assert rt.calls == 4


def test_a_declaration_the_table_never_shows_fails_after_the_timeout():
    rt = Runtime(late=10 ** 6)
    with pytest.raises(DemoError, match="declaration refused"):
        run_step(_demo(rt), STEP, speed=1.0, timeout=0.5, out=io.StringIO())
    assert rt.calls > 1


def test_any_other_refusal_ends_the_demo_at_once():
    rt = Runtime(late=0, other=Message.t("tableref.table.the_game_is_over"))
    with pytest.raises(DemoError, match="declaration refused"):
        run_step(_demo(rt), STEP, speed=1.0, timeout=5.0, out=io.StringIO())
    assert rt.calls == 1
