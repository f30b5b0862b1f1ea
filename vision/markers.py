"""Fiducial markers: the four AprilTags that register the board, the small ArUco tags that name
pieces in marker mode, and the printable sheet for both.

OpenCV 4.7+/5 API only (``ArucoDetector``); the legacy functions are gone in OpenCV 5.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Sequence

import cv2
import numpy as np

CORNER_DICTIONARY = "DICT_APRILTAG_36h11"
# piece tags: our own 4x4 dictionary of 20 codes at least 6 bits apart (2 bit errors corrected),
# stored as data (vision/piece_tags.json). A tag names a piece type, so few codes are needed, and
# few codes far apart decode more reliably and are less often found in the board's artwork.
# The former DICT_4X4_250 tags still work with ``BoardReader(tag_dictionary="DICT_4X4_250")``.
PIECE_DICTIONARY = "TABLEREF_4X4_20"
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")
_CUSTOM = {"TABLEREF_4X4_20": Path(__file__).with_name("piece_tags.json")}


def known_dictionary(name: str) -> bool:
    return name in _CUSTOM or (name.startswith("DICT_") and hasattr(cv2.aruco, name))


@lru_cache(maxsize=None)
def dictionary(name: str) -> cv2.aruco.Dictionary:
    if name in _CUSTOM:
        import json

        data = json.loads(_CUSTOM[name].read_text("utf-8"))
        n = int(data["marker_size"])
        bits = [np.array([int(ch) for ch in code], np.uint8).reshape(n, n) for code in data["codes"]]
        bytes_list = np.concatenate([cv2.aruco.Dictionary.getByteListFromBits(b) for b in bits])
        return cv2.aruco.Dictionary(bytes_list, n, int(data["max_correction_bits"]))
    if not known_dictionary(name):
        raise ValueError(f"unknown ArUco dictionary {name!r}")
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


def dictionary_size(name: str) -> int:
    return int(dictionary(name).bytesList.shape[0])


def marker_bits(name: str) -> int:
    """Cells across a marker of this dictionary, black border included."""
    return dictionary(name).markerSize + 2


def corner_detector(name: str = CORNER_DICTIONARY, refine: bool = True) -> cv2.aruco.ArucoDetector:
    """Detector for the board's corner markers (large, few): AprilTag corner refinement."""
    p = cv2.aruco.DetectorParameters()
    if refine:
        p.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    # two threshold passes (9 and 25 px windows) cover cells of ~4-20 px at a third of the
    # default cost; markers under 4% of the frame's perimeter are too small to register anyway
    p.adaptiveThreshWinSizeMin = 9
    p.adaptiveThreshWinSizeMax = 25
    p.adaptiveThreshWinSizeStep = 16
    p.minMarkerPerimeterRate = 0.04
    return cv2.aruco.ArucoDetector(dictionary(name), p)


def piece_detector(name: str = PIECE_DICTIONARY) -> cv2.aruco.ArucoDetector:
    """Detector for the small tags on pieces: tuned for markers of 15-30 pixels. The reader sets
    the size limits per image from the tags' expected size in pixels."""
    p = cv2.aruco.DetectorParameters()
    p.minMarkerPerimeterRate = 0.01
    p.adaptiveThreshWinSizeMin = 5  # the reader widens these for larger cells
    p.adaptiveThreshWinSizeMax = 15
    p.adaptiveThreshWinSizeStep = 10
    p.perspectiveRemovePixelPerCell = 6
    p.perspectiveRemoveIgnoredMarginPerCell = 0.2
    p.polygonalApproxAccuracyRate = 0.06
    p.minCornerDistanceRate = 0.02
    p.minDistanceToBorder = 1
    # our own piece dictionary's codes are 6 bits apart: correct up to 2 wrong bits (a tag
    # must also have its piece's size, see the reader); the predefined ones: as before
    p.errorCorrectionRate = 1.0 if name in _CUSTOM else 0.6
    p.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
    return cv2.aruco.ArucoDetector(dictionary(name), p)


@dataclass(frozen=True, slots=True)
class SheetItem:
    dictionary: str
    marker_id: int
    size_mm: float  # side of the black square
    label: str


def _put(img: np.ndarray, text: str, org: tuple[int, int], scale: float, thick: int = 2) -> None:
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, 0, thick, cv2.LINE_AA)


def sheet_pages(items: Sequence[SheetItem], dpi: int = 300, page_mm: tuple[float, float] = (210.0, 297.0),
                title: str = "tableref markers") -> list[np.ndarray]:
    """Lay markers out on A4 pages at true size. Each page states its scale and has a 50 mm ruler
    so the printout can be checked with a ruler (print at 100%, no "fit to page")."""
    px = lambda mm: int(round(mm / 25.4 * dpi))  # noqa: E731
    W, H = px(page_mm[0]), px(page_mm[1])
    margin = px(15)
    pages: list[np.ndarray] = []
    page = None
    x = y = row_h = 0

    def new_page() -> np.ndarray:
        p = np.full((H, W), 255, np.uint8)
        _put(p, f"{title} - page {len(pages) + 1}", (margin, margin), dpi / 150)
        _put(p, f"Print at 100% (actual size, no scaling). {dpi} dpi. The bar below must measure 50 mm.", (margin, margin + px(7)), dpi / 300, 1)
        y0 = margin + px(11)
        p[y0:y0 + px(2), margin:margin + px(50)] = 0
        for k in range(6):
            xx = margin + px(10 * k)
            p[y0 - px(2):y0 + px(4), max(0, xx - 1):xx + 2] = 0
        return p

    for it in items:
        cells = marker_bits(it.dictionary)
        body = px(it.size_mm)  # exact physical size; one white cell of quiet zone around
        q = int(round(body / cells))
        img = cv2.resize(cv2.aruco.generateImageMarker(dictionary(it.dictionary), it.marker_id, body), (body, body), interpolation=cv2.INTER_NEAREST)
        img = cv2.copyMakeBorder(img, q, q, q, q, cv2.BORDER_CONSTANT, value=255)
        label_h = px(9)
        bw, bh = img.shape[1], img.shape[0] + label_h
        if page is None:
            page = new_page()
            x, y, row_h = margin, margin + px(20), 0
        if x + bw > W - margin:
            x, y, row_h = margin, y + row_h + px(6), 0
        if y + bh > H - margin:
            pages.append(page)
            page = new_page()
            x, y, row_h = margin, margin + px(20), 0
        page[y:y + img.shape[0], x:x + img.shape[1]] = img
        # thin cut guide around the quiet zone
        cv2.rectangle(page, (x - 1, y - 1), (x + img.shape[1], y + img.shape[0]), 170, 1)
        _put(page, it.label, (x, y + img.shape[0] + px(4)), dpi / 400, 1)
        _put(page, f"{it.size_mm:g} mm, {it.dictionary[5:]} id {it.marker_id}", (x, y + img.shape[0] + px(8)), dpi / 450, 1)
        x += bw + px(8)
        row_h = max(row_h, bh)
    if page is not None:
        pages.append(page)
    return pages


def write_sheet(pages: Sequence[np.ndarray], out_base: Path, dpi: int = 300) -> tuple[list[Path], Path]:
    """Write ``<base>-N.png`` per page (with the dpi recorded) and one ``<base>.pdf`` whose pages
    have the true physical size."""
    from PIL import Image  # Pillow: OpenCV cannot write PDF

    out_base = Path(out_base)
    out_base.parent.mkdir(parents=True, exist_ok=True)
    images = [Image.fromarray(p).convert("L") for p in pages]
    pngs = []
    for i, im in enumerate(images, 1):
        name = out_base.with_name(f"{out_base.name}-{i}.png") if len(images) > 1 else out_base.with_suffix(".png")
        im.save(name, dpi=(dpi, dpi))
        pngs.append(name)
    pdf = out_base.with_suffix(".pdf")
    images[0].save(pdf, "PDF", resolution=float(dpi), save_all=True, append_images=images[1:])
    return pngs, pdf


def corner_sheet_items(layout: "object") -> list[SheetItem]:
    from vision.layout import Layout

    assert isinstance(layout, Layout)
    return [
        SheetItem(layout.dictionary, m.id, layout.marker_size,
                  f"{layout.id}: {name} corner, centre at ({m.centre[0]:g}, {m.centre[1]:g}) mm")
        for m, name in zip(layout.markers, CORNER_NAMES)
    ]


def tag_sheet_items(tag_ids: Iterable[int], size_mm: float, names: dict[int, str] | None = None,
                    dictionary_name: str = PIECE_DICTIONARY) -> list[SheetItem]:
    names = names or {}
    return [SheetItem(dictionary_name, int(t), size_mm, names.get(int(t), f"piece tag {t}")) for t in tag_ids]
