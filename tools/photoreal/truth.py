"""Ground truth: rasterise hand/arm, pieces and spaces with the camera matrix (render
coordinates, ideal pinhole) and decide occlusion per space and per corner marker.

Occluded: hand covers > 15 % of the space's projected area, or > 15 % of the projected
silhouette of any piece on it. Partly occluded: covers something, less than that.
"""
import cv2
import numpy as np

import camera

SHIFT = 3


def raster(cam, V, F, mask=None):
    if mask is None:
        mask = np.zeros((camera.H, camera.W), np.uint8)
    p, z = cam.project_render(V)
    pi = np.round(p * (1 << SHIFT)).astype(np.int32)
    ok = z >= 0.02
    for f in F:
        idx = list(f)
        if not ok[idx].all():
            continue
        # one face at a time: a multi-polygon fillPoly would XOR overlapping faces
        cv2.fillConvexPoly(mask, pi[idx], 1, cv2.LINE_8, SHIFT)
    return mask


def polygon_mask(cam, Xw):
    mask = np.zeros((camera.H, camera.W), np.uint8)
    p, z = cam.project_render(Xw)
    cv2.fillPoly(mask, [np.round(p * (1 << SHIFT)).astype(np.int32)], 1, cv2.LINE_8, SHIFT)
    return mask


def hand_mask(cam, hand):
    m = np.zeros((camera.H, camera.W), np.uint8)
    if hand is None:
        return m
    for V, F in hand["parts"].values():
        raster(cam, V, F, m)
    return m


def occlusion(cam, layout, hmask, pieces_by_space, piece_faces, thr=0.15):
    """pieces_by_space: sid -> list of world vertex arrays; piece_faces: list of faces per piece."""
    occ, part = [], []
    if not hmask.any():
        return occ, part, []
    for s in layout.spaces:
        sid = s["id"]
        out = layout.space_outline_mm(sid)
        Xw = np.array([layout.to_world(x, y) for x, y in out])
        sm = polygon_mask(cam, Xw)
        area = int(sm.sum())
        cov = int((sm & hmask).sum())
        frac = cov / max(area, 1)
        any_cov = cov > 0
        for V, F in pieces_by_space.get(sid, []):
            pm = raster(cam, V, F)
            pa = int(pm.sum())
            pc = int((pm & hmask).sum())
            if pa > 0:
                frac = max(frac, pc / pa)
            any_cov = any_cov or pc > 0
        if frac > thr:
            occ.append(sid)
        elif any_cov:
            part.append(sid)
    covered = []
    for mid, _ in layout.markers:
        mm = polygon_mask(cam, layout.marker_corners_world(mid))
        if (mm & hmask).any():
            covered.append(mid)
    return occ, part, covered


def board_coverage(cam, layout, hmask):
    bm = polygon_mask(cam, layout.board_corners_world())
    return float((bm & hmask).sum()) / max(int(bm.sum()), 1)
