"""Debug view: draw the truth over a rendered frame using the camera saved in tables/<t>/meta.json.

  .venv-photoreal/bin/python tools/photoreal/overlay.py SET STEM OUT.png [--layout ...]

Green: space with pieces, blue: empty, red: occluded, yellow: partly occluded, magenta: markers.
The Great Wall (meta.json lists each frame's pieces): every card's outline in its deck colour with its
index (owner square + type panel) in white and the kind's first letters, every token's disc and value.
Ming Dynasty (meta.json lists each frame's pieces as `ming_pieces`): every family member's square and
prince's disc in its owner colour, and per space with pieces its truth as counts ("3y 1r P:b" = 3 yellow
and 1 red family members, the blue prince).
Zhang Yi (meta.json: `zy_pieces`): every counter's square / chit's disc in its state colour with its value,
talent initials or "D<v>" for the die ("/" marks a leaning counter), and per space (yellow, near its top) the
truth: strength per state ("qi5" = 5 Qi army points) and each talent ("qi.TD") / chit / die.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

import camera  # noqa: E402
from layout_io import Layout  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("set"); ap.add_argument("stem"); ap.add_argument("out")
    ap.add_argument("--layout", default=os.path.join(os.path.dirname(__file__), "..", "..", "vision", "layouts", "china-a.json"))
    a = ap.parse_args()
    L = Layout(a.layout)
    table = a.stem.split("-")[0]
    meta = json.load(open(os.path.join(a.set, "tables", table, "meta.json")))
    fm = meta["frames"][a.stem]
    cam = camera.Camera(meta["camera"]["hfov"], np.array(fm["camera_R_c2w"]), np.array(fm["camera_C"]), meta["camera"]["k1"])
    img = cv2.imread(os.path.join(a.set, "frames", a.stem + ".jpg"))
    tr = json.load(open(os.path.join(a.set, "truth", a.stem + ".json")))
    for s in L.spaces:
        P = cam.project_output(np.array([L.to_world(x, y) for x, y in L.space_outline_mm(s["id"])]))
        sid = s["id"]
        col = (0, 0, 255) if sid in tr["occluded"] else (0, 255, 255) if sid in tr["partly_occluded"] else (0, 255, 0) if sid in tr else (255, 0, 0)
        cv2.polylines(img, [np.round(P).astype(np.int32)], True, col, 1, cv2.LINE_AA)
    for kind, sid, x, y, rot in fm.get("pieces", []):  # Great Wall: each card (outline, index) and token
        size = meta["piece_sizes_m"][kind]
        owner = kind.split("|")[1] if "|" in kind else "neutral"
        col = tuple(int(v) for v in L.players.get(owner, (255, 255, 255))[::-1])
        c, s_ = np.cos(np.radians(rot)), np.sin(np.radians(rot))
        o = L.to_world(x, y)
        if "|" in kind:
            w, h = size[0], size[1]
            boxes = [[(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)],
                     [(-w / 2 + .0015, h / 2 - .037), (-w / 2 + .0125, h / 2 - .037), (-w / 2 + .0125, h / 2 - .0015), (-w / 2 + .0015, h / 2 - .0015)]]
        else:
            r = size[0] / 2
            boxes = [[(r * np.cos(a), r * np.sin(a)) for a in np.linspace(0, 2 * np.pi, 24, endpoint=False)]]
        for j, box in enumerate(boxes):
            Xw = np.array([o + np.array([u * c - v * s_, u * s_ + v * c, 0.0]) for u, v in box])
            P = cam.project_output(Xw)
            cv2.polylines(img, [np.round(P).astype(np.int32)], True, col if j == 0 else (255, 255, 255), 1, cv2.LINE_AA)
        lab = kind.split("|")[0][:2] if "|" in kind else kind.split("-")[-1]
        at = np.round(cam.project_output(Xw[:1])[0]).astype(int)
        cv2.putText(img, lab, (int(at[0]), int(at[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.35, (0, 0, 0), 2, cv2.LINE_AA)
        cv2.putText(img, lab, (int(at[0]), int(at[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.35, col, 1, cv2.LINE_AA)
    ming_pcs = fm.get("ming_pieces")
    for owner, kind, sid, x, y, rot in ming_pcs or []:  # Ming: each family member (square) and prince (disc)
        size = meta["piece_sizes_m"][kind]
        col = tuple(int(v) for v in L.players.get(owner, (255, 255, 255))[::-1])
        c, s_ = np.cos(np.radians(rot)), np.sin(np.radians(rot))
        o = L.to_world(x, y)
        if len(size) == 3:
            w, h = size[0] / 2, size[1] / 2
            box = [(-w, -h), (w, -h), (w, h), (-w, h)]
        else:
            box = [(size[0] / 2 * np.cos(a), size[0] / 2 * np.sin(a)) for a in np.linspace(0, 2 * np.pi, 16, endpoint=False)]
        Xw = np.array([o + np.array([u * c - v * s_, u * s_ + v * c, 0.0]) for u, v in box])
        cv2.polylines(img, [np.round(cam.project_output(Xw)).astype(np.int32)], True, col, 1, cv2.LINE_AA)
    if ming_pcs is not None:  # the truth per space as counts, at the space's centre
        for sid, toks in tr.items():
            if sid not in L.space_by_id or not toks:
                continue
            cnt = {}
            for t in toks:
                cnt[t] = cnt.get(t, 0) + 1
            lab = " ".join((f"P:{t.split(':')[0][0]}" if t.endswith(":prince") else f"{n}{t.split(':')[0][0]}")
                           for t, n in sorted(cnt.items()))
            at = np.round(cam.project_output(np.array([L.to_world(*L.space_centre(sid))]))[0]).astype(int)
            cv2.putText(img, lab, (int(at[0]) - 12, int(at[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.38, (0, 0, 0), 3, cv2.LINE_AA)
            cv2.putText(img, lab, (int(at[0]) - 12, int(at[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.38, (255, 255, 255), 1, cv2.LINE_AA)
    zy = fm.get("zy_pieces")
    for owner, kind, sid, x, y, rot, lift, tilt, value in zy or []:  # Zhang Yi: each counter, chit and the die
        sizes = meta["piece_sizes_m"]
        key = kind if kind in sizes else next(k for k, v in sizes.items() if len(v) == 3 and k != "die")
        size = sizes[key]
        col = tuple(int(v) for v in L.players.get(owner, (255, 255, 255))[::-1])
        c, s_ = np.cos(np.radians(rot)), np.sin(np.radians(rot))
        o = L.to_world(x, y)
        if len(size) == 3:
            w = size[0] / 2
            box = [(-w, -w), (w, -w), (w, w), (-w, w)]
        else:
            box = [(size[0] / 2 * np.cos(a), size[0] / 2 * np.sin(a)) for a in np.linspace(0, 2 * np.pi, 16, endpoint=False)]
        Xw = np.array([o + np.array([u * c - v * s_, u * s_ + v * c, 0.0]) for u, v in box])
        P = np.round(cam.project_output(Xw)).astype(np.int32)
        cv2.polylines(img, [P], True, (255, 255, 255) if kind == "die" else col, 1, cv2.LINE_AA)
        lab = (f"D{value}" if kind == "die" else str(value) if value else
               "".join(w[0].upper() for w in kind[7:].split("_")) if kind.startswith("talent-") else kind[:2])
        if abs(tilt) > 3:
            lab += "/"
        at = P.mean(axis=0).astype(int)
        cv2.putText(img, lab, (int(at[0]) - 4, int(at[1]) + 4), cv2.FONT_HERSHEY_SIMPLEX, 0.35, (0, 0, 0), 2, cv2.LINE_AA)
        cv2.putText(img, lab, (int(at[0]) - 4, int(at[1]) + 4), cv2.FONT_HERSHEY_SIMPLEX, 0.35, (255, 255, 255), 1, cv2.LINE_AA)
    if zy is not None:  # the truth per space: strength per state (and talents, chits, die), near the space's centre
        for sid, toks in tr.items():
            if sid not in L.space_by_id or not toks:
                continue
            cnt = {}
            for t in toks:
                o, k = t.split(":")
                key = f"{o[:3]}" if k == "army" else f"{o[:3]}.{''.join(w[0] for w in k[7:].split('_'))}" if k.startswith("talent-") else f"{o[:3]}.{k[:2]}"
                cnt[key] = cnt.get(key, 0) + 1
            lab = " ".join(f"{k}{n}" if "." not in k else k for k, n in sorted(cnt.items()))
            pts = np.array(L.space_outline_mm(sid), float)
            at = np.round(cam.project_output(np.array([L.to_world(pts[:, 0].mean(), pts[:, 1].min() + 8)]))[0]).astype(int)
            cv2.putText(img, lab, (int(at[0]) - 20, int(at[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.38, (0, 0, 0), 3, cv2.LINE_AA)
            cv2.putText(img, lab, (int(at[0]) - 20, int(at[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.38, (0, 255, 255), 1, cv2.LINE_AA)
    for mid, _ in L.markers:
        P = cam.project_output(L.marker_corners_world(mid))
        cv2.polylines(img, [np.round(P).astype(np.int32)], True, (255, 0, 255), 1, cv2.LINE_AA)
    cv2.imwrite(a.out, img)


if __name__ == "__main__":
    main()
