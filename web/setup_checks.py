"""What the first-run wizard checks and hands out: the camera's four corner markers (found, or
which is missing) and the printable marker sheet.

``camera_check`` only reads what the service already reports (the camera enrolment's live corners,
or the camera device's last registration), so the wizard sees exactly what the referee's camera
sees; ``marker_sheet`` lays out the board's corner markers with ``vision.markers`` (the generator
behind ``tableref vision markers``) and returns the page as PDF or PNG bytes.
"""

from __future__ import annotations

import io
from typing import Any, Mapping

CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")  # the layouts' marker order (vision.markers)


def _corners_from_registration(reg: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Corner entries from a device's ``registration`` ({found, missing}) or the fake table's
    ``markers`` ({found, expected}); four ids are named in the layouts' order (lowest id top-left)."""
    found = {int(i) for i in reg.get("found") or ()}
    ids = sorted(found | {int(i) for i in reg.get("missing") or ()} | {int(i) for i in reg.get("expected") or ()})
    names = CORNER_NAMES if len(ids) == len(CORNER_NAMES) else (None,) * len(ids)
    return [{"id": i, "corner": name, "seen": i in found} for i, name in zip(ids, names)]


def camera_check(camera: Mapping[str, Any] | None, enrolment: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The camera step's answer: ``available``, the device ``state``, ``corners`` [{id, corner, seen}],
    ``missing`` (ids), ``registered`` (the board is placed), the registration ``message`` and the
    table model's line. ``camera`` is ``devices()["camera"]``, ``enrolment`` the service's
    ``camera_enrolment()`` (its live corners are named from the camera's own layout)."""
    camera = camera or {}
    state = str(camera.get("state") or "absent")
    if state == "absent":
        return {"available": False, "state": state, "corners": [], "missing": [], "registered": False,
                "message": None, "model": None}
    live = (enrolment or {}).get("live") if enrolment else None
    registration = camera.get("registration") or camera.get("markers") or {}
    if live and live.get("corners"):
        corners = [{"id": int(c["id"]), "corner": c.get("corner"), "seen": bool(c.get("seen"))} for c in live["corners"]]
        registered = bool(live.get("registered"))
        message = live.get("message")
    else:
        corners = _corners_from_registration(registration)
        status = registration.get("status")
        registered = status in ("ok", "partial") if status else bool(corners) and all(c["seen"] for c in corners)
        message = registration.get("message")
    model = camera.get("model") or ((enrolment or {}).get("model") if enrolment else None)
    return {"available": True, "state": state, "source": camera.get("source"), "corners": corners,
            "missing": [c["id"] for c in corners if not c["seen"]], "registered": registered,
            "message": message, "model": model}


def marker_sheet(layout_doc: Mapping[str, Any], *, fmt: str = "pdf", dpi: int = 300) -> bytes:
    """The board's four corner markers at true size on A4 (with the 50 mm check bar), as a PDF
    (bilevel, lossless: print at 100 %) or a PNG of the page (for the preview)."""
    from PIL import Image

    from vision.layout import layout_from_json
    from vision.markers import corner_sheet_items, sheet_pages

    layout = layout_from_json(dict(layout_doc), where="layout")
    pages = sheet_pages(corner_sheet_items(layout), dpi=dpi, title=f"tableref markers for {layout.id}")
    images = [Image.fromarray(p).convert("L") for p in pages]
    out = io.BytesIO()
    if fmt == "png":
        images[0].save(out, "PNG", dpi=(dpi, dpi), optimize=True)
    elif fmt == "pdf":
        bilevel = [im.point(lambda v: 255 if v >= 128 else 0).convert("1", dither=Image.Dither.NONE) for im in images]
        bilevel[0].save(out, "PDF", resolution=float(dpi), save_all=True, append_images=bilevel[1:])
    else:
        raise ValueError(f"unknown marker sheet format {fmt!r}")
    return out.getvalue()
