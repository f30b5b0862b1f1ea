"""Draw the dashboard's home-screen icons (web/static/icons/*.png) with Pillow.

The picture is the product: a board seen from above with its four corner markers and three
players' pieces, on the dashboard's dark background. Drawn once at 1024 px and scaled down (smooth
edges without anti-aliasing primitives). ``icon-maskable-512.png`` keeps the picture inside the
central 80 % circle that launchers may crop to; the others are rounded squares.

Run: python scripts/make_icons.py   (tests/web/test_web_kiosk.py checks the files match)
"""

from __future__ import annotations

import sys
from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parent.parent / "web" / "static" / "icons"
BIG = 1024
BG = (18, 20, 24, 255)  # app.css --bg
GOLD = (232, 185, 49, 255)  # --accent
PAPER = (239, 231, 211, 255)
INK = (12, 12, 14, 255)
WHITE = (255, 255, 255, 255)
BLUE, GREEN, RED = (47, 100, 214, 255), (47, 158, 85, 255), (214, 58, 58, 255)
SIZES = {"icon-192.png": (192, False), "icon-512.png": (512, False), "apple-touch-icon.png": (180, False),
         "icon-maskable-512.png": (512, True)}


def _motif(draw: ImageDraw.ImageDraw, cx: float, cy: float, side: float) -> None:
    """The board (side x side*0.8) centred on (cx, cy): frame, markers, roads and pieces."""
    w, h = side, side * 0.8
    x0, y0 = cx - w / 2, cy - h / 2
    u = side / 100.0  # drawing unit
    draw.rounded_rectangle((x0, y0, x0 + w, y0 + h), radius=5 * u, fill=PAPER, outline=GOLD, width=round(4 * u))
    m = 15 * u  # corner marker side
    inset = 6 * u
    for mx, my in ((x0 + inset, y0 + inset), (x0 + w - inset - m, y0 + inset),
                   (x0 + w - inset - m, y0 + h - inset - m), (x0 + inset, y0 + h - inset - m)):
        draw.rectangle((mx, my, mx + m, my + m), fill=INK)
        draw.rectangle((mx + m * 0.3, my + m * 0.3, mx + m * 0.55, my + m * 0.7), fill=WHITE)
    # a road between three spaces, and the pieces standing on them
    spaces = [(cx - 24 * u, cy + 8 * u), (cx, cy - 12 * u), (cx + 24 * u, cy + 8 * u)]
    draw.line(spaces, fill=(138, 106, 63, 255), width=round(4 * u), joint="curve")
    r = 10 * u
    for sx, sy in spaces:
        draw.ellipse((sx - r, sy - r, sx + r, sy + r), fill=WHITE, outline=(92, 84, 71, 255), width=round(1.5 * u))
    a = 7 * u
    (bx, by), (gx, gy), (rx, ry) = spaces
    draw.rectangle((bx - a, by - a, bx + a, by + a), fill=BLUE, outline=INK, width=round(1.2 * u))
    draw.ellipse((gx - a, gy - a, gx + a, gy + a), fill=GREEN, outline=INK, width=round(1.2 * u))
    draw.rectangle((rx - a, ry - a, rx + a, ry + a), fill=RED, outline=INK, width=round(1.2 * u))


def draw_icon(size: int, maskable: bool) -> Image.Image:
    img = Image.new("RGBA", (BIG, BIG), (0, 0, 0, 0) if not maskable else BG)
    d = ImageDraw.Draw(img)
    if maskable:
        _motif(d, BIG / 2, BIG / 2, BIG * 0.56)  # inside the 80 % safe circle (diagonal 0.72 < 0.8)
    else:
        d.rounded_rectangle((0, 0, BIG - 1, BIG - 1), radius=BIG * 0.18, fill=BG)
        _motif(d, BIG / 2, BIG / 2, BIG * 0.78)
    return img.resize((size, size), Image.Resampling.LANCZOS)


def write_icons(out: Path = OUT) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, (size, maskable) in SIZES.items():
        path = out / name
        draw_icon(size, maskable).save(path, "PNG", optimize=True)
        written.append(path)
    return written


if __name__ == "__main__":
    for p in write_icons(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT):
        print(p)
