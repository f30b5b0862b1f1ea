"""Read the board layout JSON (plain json, no project code) and convert board mm to world metres.

World frame: metres, board top surface at z = 0, board centre at the origin,
+X = board x (right), +Y = board -y (board y grows "down" the printed sheet).
"""
import json
import math

import numpy as np


class Layout:
    def __init__(self, path):
        with open(path) as f:
            d = json.load(f)
        self.raw = d
        self.id = d.get("id", "board")
        self.W, self.H = (float(v) for v in d["size_mm"])
        self.background_rgb = d.get("background_rgb", [226, 214, 184])
        m = d["markers"]
        self.marker_size = float(m["size_mm"])
        self.markers = [(int(c["id"]), tuple(float(v) for v in c["centre_mm"])) for c in m["corners"]]
        self.regions = d.get("regions", [])
        self.spaces = d["spaces"]
        self.space_by_id = {s["id"]: s for s in self.spaces}
        self.roads = d.get("roads", [])
        self.pieces = d["pieces"]
        self.players = {k: tuple(v) for k, v in d.get("players", {}).items()}  # Cheops has none
        self.sites = [s["id"] for s in self.spaces if s["kind"] == "site"]
        self.dragons = [s["id"] for s in self.spaces if s["kind"] == "dragon"]

    # --- geometry helpers -------------------------------------------------
    def to_world(self, x_mm, y_mm, z_mm=0.0):
        return np.array([(x_mm - self.W / 2) / 1000.0, (self.H / 2 - y_mm) / 1000.0, z_mm / 1000.0])

    def space_centre(self, sid):
        s = self.space_by_id[sid]
        if s.get("shape", "circle") == "circle" or "centre_mm" in s:
            return tuple(s["centre_mm"])
        pts = np.array(s["points_mm"], float)
        return tuple(pts.mean(axis=0))

    def space_radius(self, sid):
        """Radius (mm) of the largest centred disc we may place pieces in."""
        s = self.space_by_id[sid]
        if "radius_mm" in s:
            return float(s["radius_mm"])
        pts = np.array(s["points_mm"], float)
        c = pts.mean(axis=0)
        return float(np.min(np.linalg.norm(pts - c, axis=1))) * 0.8

    def space_outline_mm(self, sid, n=48):
        s = self.space_by_id[sid]
        if "points_mm" in s and s.get("shape") != "circle":
            return np.array(s["points_mm"], float)
        cx, cy = s["centre_mm"]
        r = float(s["radius_mm"])
        t = np.linspace(0, 2 * math.pi, n, endpoint=False)
        return np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], axis=1)

    def board_corners_world(self):
        return np.array([self.to_world(x, y) for x, y in
                         [(0, 0), (self.W, 0), (self.W, self.H), (0, self.H)]])

    def marker_corners_world(self, mid, pad_mm=0.0):
        for i, (cx, cy) in self.markers:
            if i == mid:
                h = self.marker_size / 2 + pad_mm
                return np.array([self.to_world(cx + dx, cy + dy) for dx, dy in
                                 [(-h, -h), (h, -h), (h, h), (-h, h)]])
        raise KeyError(mid)
