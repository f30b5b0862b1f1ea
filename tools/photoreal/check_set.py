"""Check a rendered set: every frame has a truth file, truth names only layout spaces and
valid owner:kind tokens; print counts.

  python tools/photoreal/check_set.py data/vision/photoreal/tune [--layout vision/layouts/china-a.json]
  python tools/photoreal/check_set.py evalsets/photoreal-cheops/tune --layout vision/layouts/cheops.json
  python tools/photoreal/check_set.py data/vision/photoreal-zhang-yi/tune --layout vision/layouts/zhang-yi-sample.json

Plain Python + json (no bpy, no project code). Exit status 1 on any problem.
"""
import argparse
import collections
import json
import os
import sys

OWNERS = {"blue", "green", "violet", "red", "yellow", "neutral"}   # China's; replaced by the layout's below
KINDS = {"house", "emissary", "fortress"}
NEUTRAL = {"fortress"}   # kinds whose owner is "neutral"
CLAIMABLE = False        # The Great Wall: a claimed token is "<owner of the card it lies on>:token-<v>"
META_KEYS = {"occluded", "partly_occluded", "markers_covered", "table"}


def check_truth(t, spaces, where, problems, counts):
    for k, v in t.items():
        if k in META_KEYS:
            continue
        if k not in spaces:
            problems.append(f"{where}: unknown space {k!r}")
            continue
        if not isinstance(v, list):
            problems.append(f"{where}: {k}: not a list")
            continue
        for tok in v:
            owner, _, kind = str(tok).partition(":")
            if owner not in OWNERS or kind not in KINDS:
                problems.append(f"{where}: {k}: bad token {tok!r}")
            elif (kind in NEUTRAL) != (owner == "neutral") and not (kind in NEUTRAL and CLAIMABLE and owner != "neutral"):
                problems.append(f"{where}: {k}: bad owner for {tok!r}")
            else:
                counts[kind] += 1
    for key in ("occluded", "partly_occluded"):
        for sid in t.get(key, []):
            if sid not in spaces:
                problems.append(f"{where}: {key} names unknown space {sid!r}")
            if key == "occluded" and sid in t:
                problems.append(f"{where}: occluded space {sid} carries a piece list")
    for m in t.get("markers_covered", []):
        if m not in (0, 1, 2, 3):
            problems.append(f"{where}: bad marker id {m!r}")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("set")
    ap.add_argument("--layout", default=os.path.join(os.path.dirname(__file__), "..", "..", "vision", "layouts", "china-a.json"))
    a = ap.parse_args(argv)
    global OWNERS, KINDS, NEUTRAL, CLAIMABLE
    with open(a.layout) as f:
        lay = json.load(f)
    spaces = {s["id"] for s in lay["spaces"]}
    # owners, kinds and neutral kinds from the layout (China: as before; Cheops: 12 neutral kinds)
    OWNERS = set(lay.get("players", {})) | {"neutral"}
    KINDS = set(lay["pieces"])
    NEUTRAL = {k for k, v in lay["pieces"].items() if v.get("owners") == "neutral"}
    n_types = sum(len(lay.get("players", {})) if v.get("owners") == "players" else 1 for v in lay["pieces"].values())
    if lay.get("game") == "great_wall":  # enrolment: one card of each kind (owners taking turns), one token of each value
        CLAIMABLE = True
        n_types = len(lay["pieces"])
    if lay.get("game") == "zhang_yi":  # enrolment (the project's plan): one value counter per state (values in turn),
        # one of each other player kind per state, each talent with its state(s); no die, not the counted kind itself
        counted = {v["counts_as"]["kind"] for v in lay["pieces"].values() if v.get("counts_as")}
        dice = set(lay.get("holds", {}).get("dice", []))
        n_players = len(lay.get("players", {}))
        n_types = n_players if counted else 0
        for k, v in lay["pieces"].items():
            if k in counted or k in dice or v.get("counts_as") or v.get("owners") != "players":
                continue
            n_types += len(v["owned_by"]) if "owned_by" in v else n_players
    problems = []
    sj = os.path.join(a.set, "set.json")
    if not os.path.exists(sj):
        problems.append("missing set.json")
    else:
        meta = json.load(open(sj))
        for k in ("board", "source", "split", "seed", "notes"):
            if k not in meta:
                problems.append(f"set.json lacks {k}")
    fdir, tdir = os.path.join(a.set, "frames"), os.path.join(a.set, "truth")
    frames = sorted(f[:-4] for f in os.listdir(fdir) if f.endswith(".jpg")) if os.path.isdir(fdir) else []
    truths = sorted(f[:-5] for f in os.listdir(tdir) if f.endswith(".json")) if os.path.isdir(tdir) else []
    for s in set(truths) - set(frames):
        problems.append(f"truth without frame: {s}")
    counts = collections.Counter()
    n_hand = n_occ = n_part = 0
    per_table = collections.Counter()
    markers_cov = 0
    for s in frames:
        p = os.path.join(tdir, s + ".json")
        if not os.path.exists(p):
            problems.append(f"frame without truth: {s}")
            continue
        t = json.load(open(p))
        check_truth(t, spaces, s, problems, counts)
        per_table[t.get("table", "?")] += 1
        if t.get("table") and not s.startswith(t["table"]):
            problems.append(f"{s}: table {t['table']} does not match stem")
        if t.get("occluded") or t.get("partly_occluded") or t.get("markers_covered"):
            n_hand += 1
        n_occ += len(t.get("occluded", []))
        n_part += len(t.get("partly_occluded", []))
        markers_cov += bool(t.get("markers_covered"))
    tables_dir = os.path.join(a.set, "tables")
    tables = sorted(os.listdir(tables_dir)) if os.path.isdir(tables_dir) else []
    # exact hand count from the renderer's per-table meta.json when present
    n_hand_meta = 0; have_meta = False
    for tb in tables:
        mp = os.path.join(tables_dir, tb, "meta.json")
        if os.path.exists(mp):
            have_meta = True
            fr = json.load(open(mp)).get("frames", {})
            n_hand_meta += sum(1 for s, v in fr.items() if s in frames and v.get("hand"))
    for tb in tables:
        for f in ("empty.jpg", "enrol.jpg", "enrol.json"):
            if not os.path.exists(os.path.join(tables_dir, tb, f)):
                problems.append(f"tables/{tb}: missing {f}")
        ej = os.path.join(tables_dir, tb, "enrol.json")
        if os.path.exists(ej):
            ec = collections.Counter()
            et = json.load(open(ej))
            check_truth(et, spaces, f"tables/{tb}/enrol.json", problems, ec)
            toks = [tok for k, v in et.items() if k not in META_KEYS for tok in v]
            if len(set(toks)) != n_types or len(toks) != n_types:
                problems.append(f"tables/{tb}/enrol.json: expected the {n_types} piece types once each, got {sorted(toks)}")
    for tb in per_table:
        if tb not in tables:
            problems.append(f"frames name table {tb} with no tables/{tb}/")
    print(f"set: {a.set}")
    print(f"frames: {len(frames)}  tables: {len(tables)} ({', '.join(f'{k}:{v}' for k, v in sorted(per_table.items()))})")
    if have_meta:
        print(f"frames with a hand: {n_hand_meta}")
    print(f"frames with any occlusion/marker cover: {n_hand}; occluded spaces: {n_occ}; partly occluded: {n_part}; frames with a covered marker: {markers_cov}")
    print("pieces per kind (visible, not occluded): " + ", ".join(f"{k}={counts[k]}" for k in sorted(KINDS)))
    if problems:
        print(f"{len(problems)} PROBLEMS:")
        for p in problems[:50]:
            print("  " + p)
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
