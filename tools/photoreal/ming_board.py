"""Ming Dynasty's board as the photoreal renderer reads it from the layout JSON alone (no project
code): which spaces are of a kind, the city houses, each space's outline and what it may hold
(the rules notes' capacities). Shared by the pieces and positions (ming.py) and the artwork
(ming_art.py)."""
import numpy as np

CITY_HOUSES = 3      # rules: 3 city houses per district
CLOISTER_CAP = 1     # rules: a cloister holds at most 1 family member


def is_ming(layout):
    return layout.raw.get("game") == "ming" or str(layout.id).startswith("ming")


def family_kind(layout):
    return next(k for k, v in layout.pieces.items() if v.get("footprint") == "rect")


def prince_kind(layout):
    return next(k for k, v in layout.pieces.items() if v.get("footprint") == "circle")


def owners(layout):
    return list(layout.players)


def spaces_of(layout, kind):
    return [s["id"] for s in layout.spaces if s["kind"] == kind]


def holds(layout, sid):
    return set(layout.raw.get("holds", {}).get(layout.space_by_id[sid]["kind"], []))


def region(layout, rid):
    for r in layout.regions:
        if r["id"] == rid:
            return np.array(r.get("polygon") or r.get("points_mm"), float)
    return None


def house_squares(layout, sid):
    """Centres (mm) and side of the city houses of the city space `sid` (`<district>-city`)."""
    d = sid[:-len("-city")] if sid.endswith("-city") else sid
    out = []
    for k in range(1, CITY_HOUSES + 1):
        poly = region(layout, f"house-{d}-{k}")
        if poly is not None:
            out.append((tuple(poly.mean(axis=0)), float(np.ptp(poly[:, 0]))))
    if not out:  # no house regions: three slots across the city
        pts = np.array(layout.space_by_id[sid]["points_mm"], float)
        x0, y0 = pts.min(axis=0); x1, y1 = pts.max(axis=0)
        out = [((x0 + (x1 - x0) * (k + 0.5) / 3, (y0 + y1) / 2), (x1 - x0) / 3.5) for k in range(CITY_HOUSES)]
    return out


def capacity(layout, sid, kind):
    """How many pieces of `kind` the space may hold (rules notes: cloister 1, city 3 houses,
    open area and province space unbounded for family members, one prince per district)."""
    sk = layout.space_by_id[sid]["kind"]
    if kind not in holds(layout, sid):
        return 0
    if kind == prince_kind(layout):
        return 1
    if sk == "cloister":
        return CLOISTER_CAP
    if sk == "city":
        return len(house_squares(layout, sid))
    return 10 ** 6


def space_polygon(layout, sid):
    return np.array(layout.space_outline_mm(sid, n=40), float)
