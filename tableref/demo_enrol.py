"""The camera's enrolment in a demo, done as a user does it on the dashboard's camera enrolment page:
the same runtime calls, with the synthetic camera's pieces put down and taken off by the script.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, TextIO

from scorer.core.types import Message, Piece
from tableref.demo_runner import wait_until
from tableref.demo_table import Demo, DemoError, DemoStopped
from tableref.lang import BOTH, show
from tableref.texts import join_messages


def enrol_camera(demo: Demo, *, timeout: float = 30.0, out: TextIO = sys.stdout, stop: threading.Event | None = None,
                 langs: tuple[str, ...] = BOTH) -> Any:
    """Enrol the table as a user does on the dashboard's camera enrolment page, through the same
    runtime calls (``Runtime.camera_enrol``): the empty board photo, one piece of each type put on
    the planned spaces of the synthetic camera, the pieces photo, the pieces taken off, save. The
    referee ignores the camera meanwhile; returns the saved model. ``langs``: the languages of its lines."""
    from hardware.tag_registry import describe

    rt = demo.runtime
    cam = demo.table.camera
    if cam is None:
        raise DemoError("the camera enrolment needs the synthetic camera")

    def say(text: Message, prefix: str = "\n>>> ") -> None:
        out.write(prefix + show(text, langs) + "\n")  # one write: the console printer's thread writes between lines, not inside one
        out.flush()

    def step(name: str) -> Any:
        res = rt.camera_enrol(name, "demo dashboard")
        if not res.ok:
            raise DemoError(f"camera enrolment ({name}) refused: {res.message}")
        return res

    set_up = cam.board  # pieces the game's set-up put down (Zhang Yi's armies) come back after the photos
    if set_up.spaces():
        from scorer.core.types import Board
        from tableref.camera_enrolment import HOLD

        rt.devices_["camera"].hold(HOLD)  # as the enrolment does from its first photo on: the referee ignores the camera
        cam.set_board(Board())
    say(Message.t("tableref.demo.enrol_empty"))
    step("empty")
    plan = [(p["space"], Piece(p["owner"], p["kind"])) for p in rt.camera_enrolment()["plan"]]
    where = tuple(Message.t("tableref.demo.piece_on_space", piece=describe(p), space=space) for space, p in plan)
    say(Message.t("tableref.demo.enrol_pieces", where=where))
    for space, piece in plan:
        cam.place(space, piece)
    res = step("pieces")
    sizes = res.data["result"]["sizes"]
    learned = [Message.t("tableref.demo.learned_size", piece=describe(Piece(s["owner"], s["kind"])), area=f"{s['area_mm2']:.0f}",
                         nominal=f"{s['nominal_mm2']:.0f}") for s in sizes]
    say(Message.t("tableref.demo.learned", sizes=join_messages(learned)), prefix="    ")
    for space, piece in plan:
        cam.remove(space, piece)
    if set_up.spaces():  # set up before the model is saved: the referee reads the camera again from then on
        cam.set_board(set_up)
        grabbed = rt.devices()["camera"].get("frames", 0)  # a frame of the enrolment pieces may be in the reader still:
        wait_until(lambda: rt.devices()["camera"].get("frames", 0) >= grabbed + 2, 5.0, stop=stop)  # let it pass
    say(Message.t("tableref.demo.enrol_save"))
    step("save")
    camera = rt.devices_["camera"]
    if not wait_until(lambda: rt.devices().get("camera", {}).get("state") == "ok" and "held" not in rt.devices()["camera"], timeout,
                      stop=stop):
        if stop is not None and stop.is_set():
            raise DemoStopped()
        raise DemoError("the camera did not come back after its enrolment")
    return getattr(camera, "model", None)
