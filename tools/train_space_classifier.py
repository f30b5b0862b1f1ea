"""Train the learned per-space classifier and export it for the reader (``vision.space_classifier``).

One command, fixed seed, in its own venv (torch is never a runtime dependency)::

    python3 -m venv .venv-train && .venv-train/bin/pip install -e ".[train]"
    .venv-train/bin/python -m tools.train_space_classifier --out vision/models/space_classifier

Data (``tools.space_classifier_data``): randomised renders of the project's renderer (their own
artwork, piece colours and sizes, camera and light per table) and the photoreal **tuning** split
(``evalsets/photoreal-china-a/tune``; ``--photoreal`` takes more tuning splits, comma-separated,
e.g. tables rendered by ``tools/photoreal`` with another seed into ``data/vision/photoreal-train``).
Model selection uses data held back from training: the last ``--val-tables`` rendered tables and
the photoreal tuning table(s) ``--val-photoreal`` (t01, or ``SET#tNN`` of another set), whose
frames are never trained on. The photoreal **held-out split is never read** by this
script (the data module refuses it): it is only for the final figures (``tableref vision eval``).

Another game's layout (``--board ming-provisional``): its space kinds' crops are in ``SPECS``, its
rendered boards can come from random games of it too (``--positions mix``), it has no photoreal set
unless ``--photoreal`` names one, and its model goes to ``vision/models/space_classifier-<board>/``,
the folder the reader loads for that layout (``vision.space_classifier.model_dir_for``)::

    .venv-train/bin/python -m tools.train_space_classifier --board ming-provisional --positions mix \
        --tables 120 --val-tables 16 --frames-per-table 12 --cache data/space_classifier/ming-crops.npz

Per space kind a small CNN (``make_net``), trained for a fixed number of steps; of the checkpoints
taken every ``--eval-every`` steps the one with the best mean of the two validation accuracies
(photoreal validation table, rendered validation tables) is exported to ONNX with ``model.json``. Progress goes to
stderr; about 30 minutes on one core of the shared machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
# space kind -> crop (mm of board, pixels): wide enough for the space and its pieces leaning in an
# oblique view, at about the frame's own resolution (0.6-0.8 px per mm)
SPECS = {"site": (60.0, 48), "dragon": (96.0, 64),  # China
         "district": (128.0, 80), "province-space": (128.0, 80), "city": (84.0, 64), "cloister": (48.0, 40),  # Ming
         "pyramid": (56.0, 48), "dot": (40.0, 40)}  # Cheops (--heads scarab)
PHOTOREAL_TUNE = {"china-a": "evalsets/photoreal-china-a/tune", "cheops": "evalsets/photoreal-cheops/tune"}  # the committed photoreal tuning split, per board
RENDER, PHOTOREAL = 0, 1  # source tags


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------ data
def _cached(path: Path, key: dict, build) -> dict:
    """``build()``'s arrays, kept in ``path`` and reused while the arguments (``key``) are the same."""
    if path.is_file():
        with np.load(path, allow_pickle=False) as z:
            if "key" in z.files and json.loads(str(z["key"])) == key:
                log(f"data from {path}")
                return {k: z[k] for k in z.files if k != "key"}
    out = build()
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, key=json.dumps(key), **out)
    return out


def photoreal_sets(spec: str) -> list[str]:
    """``--photoreal``: comma-separated tuning splits (paths relative to the repository)."""
    return [s.strip() for s in spec.split(",") if s.strip()]


def is_val_table(set_index: int, set_path: str, table: str, val: set[str]) -> bool:
    """``--val-photoreal`` names tables as ``t01`` (of the first set) or ``SET#t01``."""
    return f"{set_path}#{table}" in val or (set_index == 0 and table in val)


def build_data(args: argparse.Namespace) -> dict:
    """Crops and targets per space kind and split. The rendered tables (slow to make) and the
    photoreal sets are cached apart (``args.cache`` and its ``-photoreal`` twin), so adding a
    photoreal set does not render everything again."""
    from vision.layout import load_layout
    from vision.space_crops import CropSpec
    from tools.space_classifier_data import collect, load_frame_set, rendered_tables, stack

    layout = load_layout(args.board)
    heads = heads_of(args.heads, layout)
    specs = {k: CropSpec(*SPECS[k]) for k in heads}
    cache = Path(args.cache)

    def render_part() -> dict:
        log(f"rendering {args.tables} randomised tables x {args.frames_per_table} frames ...")
        rendered = collect(rendered_tables(layout, args.tables, args.frames_per_table, args.seed,
                                           positions=args.positions), heads, specs,
                           RENDER, log, keep_empty=args.keep_empty, seed=args.seed)
        names = sorted(rendered, key=lambda t: int(t[1:]))
        val_r = set(names[len(names) - args.val_tables:])
        out = {}
        for kind in heads:
            for split, keep in (("train_render", lambda t: t not in val_r), ("val_render", lambda t: t in val_r)):
                x, y = stack([rendered[t] for t in names if keep(t)], kind)
                out[f"{kind}/{split}/x"], out[f"{kind}/{split}/y"] = x, y
                log(f"{kind} {split}: {len(x)} crops")
        return out

    def photo_part() -> dict:
        val = set(args.val_photoreal.split(",")) if args.val_photoreal else set()
        train: list = []
        held: list = []
        for i, path in enumerate(photoreal_sets(args.photoreal)):
            for t, samples in collect(load_frame_set(ROOT / path, layout), heads, specs, PHOTOREAL, log).items():
                (held if is_val_table(i, path, t, val) else train).append(samples)
        out = {}
        for kind in heads:
            for split, parts in (("train_photo", train), ("val_photo", held)):
                x, y = stack(parts, kind)
                out[f"{kind}/{split}/x"], out[f"{kind}/{split}/y"] = x, y
                log(f"{kind} {split}: {len(x)} crops")
        return out

    rkey = {k: getattr(args, k) for k in ("board", "tables", "frames_per_table", "seed", "val_tables", "keep_empty")}
    if args.positions != "layout":  # (caches made before positions could be chosen stay valid)
        rkey["positions"] = args.positions
    pkey = {k: getattr(args, k) for k in ("board", "photoreal", "val_photoreal")}
    if args.heads != "space":
        rkey["heads"] = pkey["heads"] = args.heads
    data = {**_cached(cache, rkey, render_part),
            **_cached(cache.with_name(cache.stem + "-photoreal.npz"), pkey, photo_part)}
    out = {}
    for kind in heads:
        for axis in ("x", "y"):
            parts = [data[f"{kind}/{s}/{axis}"] for s in ("train_render", "train_photo") if len(data[f"{kind}/{s}/{axis}"])]
            out[f"{kind}/train/{axis}"] = np.concatenate(parts) if parts else data[f"{kind}/train_render/{axis}"]
        for split in ("val_render", "val_photo"):
            out[f"{kind}/{split}/x"], out[f"{kind}/{split}/y"] = data[f"{kind}/{split}/x"], data[f"{kind}/{split}/y"]
    return out


def heads_of(which: str, layout) -> dict:
    """The networks to train: the space classifier's (``space``, ``heads_for``) or Cheops' scarab
    network's (``scarab``, ``vision.scarab_network.scarab_heads``)."""
    if which == "scarab":
        from vision.scarab_network import scarab_heads

        return scarab_heads(layout)
    from vision.space_classifier import heads_for

    return heads_for(layout)


# ------------------------------------------------------------------ model
def make_net(in_ch: int, outputs: int, width: int):
    import torch.nn as nn

    def block(a: int, b: int) -> list:
        return [nn.Conv2d(a, b, 3, padding=1, bias=False), nn.BatchNorm2d(b), nn.ReLU(inplace=True)]

    w = width
    return nn.Sequential(
        nn.BatchNorm2d(in_ch),  # inputs in [0, 1] of very different spreads: normalised once
        *block(in_ch, w), nn.MaxPool2d(2),
        *block(w, 2 * w), nn.MaxPool2d(2),
        *block(2 * w, 4 * w), nn.MaxPool2d(2),
        *block(4 * w, 4 * w),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(4 * w, 64), nn.ReLU(inplace=True), nn.Dropout(0.2), nn.Linear(64, outputs))


def loss_and_hits(head, logits, y):
    """Cross-entropy, and per sample whether the whole space is right."""
    import torch.nn.functional as F

    if head.mode == "single":
        return F.cross_entropy(logits, y[:, 0]), logits.argmax(1) == y[:, 0]
    g, k = len(head.groups), head.max_count + 1
    lg = logits.view(-1, g, k)
    loss = F.cross_entropy(lg.reshape(-1, k), y[:, :g].reshape(-1)) * g
    return loss, (lg.argmax(2) == y[:, :g]).all(1)


def augment(x, rng_t):
    """Board-plane symmetries (a piece lies any way round, a lean goes any way), a shift of a
    pixel or two (registration), and the frame's brightness and contrast a little off."""
    import torch

    k = int(torch.randint(4, (1,), generator=rng_t))
    x = torch.rot90(x, k, (2, 3))
    if torch.rand(1, generator=rng_t) < 0.5:
        x = torch.flip(x, (3,))
    dx, dy = (int(v) for v in torch.randint(-2, 3, (2,), generator=rng_t))
    x = torch.roll(x, (dy, dx), (2, 3))
    n = x.shape[0]
    gain = 1 + 0.12 * (torch.rand(n, 1, 1, 1, generator=rng_t) - 0.5)
    x[:, 0:3] = (x[:, 0:3] * gain).clamp(0, 1)
    x[:, 0:3] += 0.015 * torch.randn(x[:, 0:3].shape, generator=rng_t)
    return x


def evaluate(net, head, x, y, batch: int = 512) -> float:
    import torch

    if not len(x):
        return float("nan")
    net.eval()
    hits = 0
    with torch.no_grad():
        for i in range(0, len(x), batch):
            xb = torch.from_numpy(x[i:i + batch].astype(np.float32) / 255.0)
            yb = torch.from_numpy(y[i:i + batch])
            _, h = loss_and_hits(head, net(xb), yb)
            hits += int(h.sum())
    return hits / len(x)


def train_kind(kind: str, head, data: dict, args: argparse.Namespace, in_ch: int):
    import torch

    torch.manual_seed(args.seed)
    rng_t = torch.Generator().manual_seed(args.seed)
    x, y = data[f"{kind}/train/x"], data[f"{kind}/train/y"]
    src = y[:, -1]
    # photoreal crops are few but the domain that matters: drawn as often as ``photo_share`` of a batch
    w = np.where(src == PHOTOREAL, args.photo_share / max(1, (src == PHOTOREAL).sum()),
                 (1 - args.photo_share) / max(1, (src == RENDER).sum()))
    w = torch.from_numpy(w / w.sum())
    net = make_net(in_ch, head.outputs, args.width)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    steps = args.steps.get(kind, args.default_steps)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps)
    best, best_state, history = (-1.0, -1.0), None, []
    t0, tot, seen, hits = time.time(), 0.0, 0, 0
    for step in range(1, steps + 1):
        net.train()
        idx = torch.multinomial(w, args.batch, replacement=True, generator=rng_t).numpy()
        idx.sort()
        xb = augment(torch.from_numpy(x[idx].astype(np.float32) / 255.0), rng_t)
        yb = torch.from_numpy(y[idx])
        loss, h = loss_and_hits(head, net(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        tot += float(loss.detach()) * len(idx)
        seen += len(idx)
        hits += int(h.sum())
        if step % args.eval_every and step != steps:
            continue
        vp = evaluate(net, head, data[f"{kind}/val_photo/x"], data[f"{kind}/val_photo/y"])
        vr = evaluate(net, head, data[f"{kind}/val_render/x"], data[f"{kind}/val_render/y"])
        # photoreal and rendered validation weigh alike: the photoreal table is the domain that
        # matters but has few crops (144 dragon spaces), so alone it picks by noise
        score = (vr if np.isnan(vp) else (vp + vr) / 2, vr)
        history.append({"step": step, "loss": round(tot / seen, 5), "train": round(hits / seen, 5),
                        "val_photoreal": round(vp, 5), "val_render": round(vr, 5)})
        log(f"{kind} step {step}/{steps}: loss {tot / seen:.4f} train {hits / seen:.4f} "
            f"val photoreal {vp:.4f} val render {vr:.4f} ({time.time() - t0:.0f} s)")
        t0, tot, seen, hits = time.time(), 0.0, 0, 0
        if score >= best:
            best = score
            best_state = {k: v.clone() for k, v in net.state_dict().items()}
            for hst in history:
                hst.pop("chosen", None)
            history[-1]["chosen"] = True
    net.load_state_dict(best_state)
    net.eval()
    return net, history


def export(net, kind: str, in_ch: int, px: int, path: Path) -> None:
    import torch

    dummy = torch.zeros(1, in_ch, px, px)
    torch.onnx.export(net, dummy, str(path), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=13, dynamo=False)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.train_space_classifier", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="model folder (default: vision/models/space_classifier for china-a, else "
                                  "vision/models/space_classifier-<board>, the folder the reader loads for it)")
    ap.add_argument("--board", default="china-a")
    ap.add_argument("--heads", choices=("space", "scarab"), default="space",
                    help="the space classifier's networks, or the scarab network's (vision.scarab_network: Cheops' "
                         "pyramid, a scarab of each colour, nothing or a tile; the price columns' dots, nothing or a "
                         "scarab; model vision/models/scarab_network)")
    ap.add_argument("--positions", choices=("layout", "game", "mix"), default="layout",
                    help="the rendered tables' boards: from the layout's holds (vision.scenes.random_board), from random "
                         "games (game_position), or half each")
    ap.add_argument("--tables", type=int, default=60, help="randomised rendered tables")
    ap.add_argument("--frames-per-table", type=int, default=20)
    ap.add_argument("--val-tables", type=int, default=8, help="rendered tables held back for model selection")
    ap.add_argument("--photoreal", help="tuning split(s), comma-separated ('' for none; default: the board's committed "
                                        "one, China's evalsets/photoreal-china-a/tune)")
    ap.add_argument("--val-photoreal", default="t01", help="tables held back for model selection: t01 (first set) or SET#t01")
    ap.add_argument("--keep-empty", type=float, default=0.4, help="share of empty rendered spaces kept")
    ap.add_argument("--site-steps", type=int, default=2400, help="training steps (batches) of the site network")
    ap.add_argument("--dragon-steps", type=int, default=4500, help="... and of the dragon network")
    ap.add_argument("--steps", default="", help="other space kinds' steps, e.g. district=2400,city=1500")
    ap.add_argument("--default-steps", type=int, default=2400, help="steps of a space kind not named otherwise")
    ap.add_argument("--eval-every", type=int, default=300, help="steps between validations (checkpoints)")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--width", type=int, default=12)
    ap.add_argument("--photo-share", type=float, default=0.3)
    ap.add_argument("--seed", type=int, default=20261125)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (one is fastest on a busy machine)")
    ap.add_argument("--cache", default=str(ROOT / "data" / "space_classifier" / "crops.npz"))
    ap.add_argument("--data-only", action="store_true", help="build (or check) the cached data and stop")
    ap.add_argument("--only", help="train only this space kind's network, keeping the others in --out")
    args = ap.parse_args(argv)
    steps = {"site": args.site_steps, "dragon": args.dragon_steps}
    for item in filter(None, (v.strip() for v in args.steps.split(","))):
        kind, _, n = item.partition("=")
        steps[kind.strip()] = int(n)
    args.steps = steps
    if args.photoreal is None:
        args.photoreal = PHOTOREAL_TUNE.get(args.board, "")
    if args.out is None:  # China's model is the default one; another board's has its own folder
        from vision.space_classifier import DEFAULT_MODEL, own_model_dir

        args.out = str(DEFAULT_MODEL if args.board == "china-a" else own_model_dir(args.board))
        if args.heads == "scarab":
            from vision.scarab_network import MODEL_DIR

            args.out = str(MODEL_DIR)
    if any("heldout" in Path(p).parts for p in photoreal_sets(args.photoreal)):
        raise SystemExit("the held-out split is never used for training")
    data = build_data(args)
    if args.data_only:
        return 0
    import torch

    from vision.layout import load_layout
    from vision.space_classifier import FORMAT
    from vision.space_crops import channels

    torch.set_num_threads(args.threads)
    layout = load_layout(args.board)
    heads = heads_of(args.heads, layout)
    from vision.enrolment import piece_types

    owners = tuple(sorted({str(p.owner) for p in piece_types(layout)}))
    in_ch = channels(len(owners))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    old = json.loads((out / "model.json").read_text("utf-8")) if args.only and (out / "model.json").is_file() else None
    meta = {"format": FORMAT, "board": layout.id, "owners": list(owners), "heads": {}, "training": {
        "command": "python -m tools.train_space_classifier " + " ".join(argv if argv is not None else sys.argv[1:]),
        "arguments": {k: v for k, v in vars(args).items() if k not in ("out", "cache", "steps")},
        "torch": torch.__version__, "data": {k: int(len(v)) for k, v in data.items() if k.endswith("/x")},
        "selection": "best mean validation accuracy of photoreal tuning table(s) " + repr(args.val_photoreal)
                     + " and the last " + str(args.val_tables) + " rendered tables, never trained on; "
                     "the photoreal held-out split was not used"}}
    if old is not None:  # the other networks stay, each with the record of the run that trained it
        meta["heads"] = {k: {**v, "training": v.get("training", old["training"])}
                         for k, v in old["heads"].items() if k != args.only}
    for kind, head in heads.items():
        if args.only and kind != args.only:
            continue
        t0 = time.time()
        net, history = train_kind(kind, head, data, args, in_ch)
        onnx = out / f"{kind}.onnx"
        export(net, kind, in_ch, SPECS[kind][1], onnx)
        meta["heads"][kind] = {"onnx": onnx.name, "crop": {"size_mm": SPECS[kind][0], "px": SPECS[kind][1]},
                               "head": head.to_json(), "history": history, "minutes": round((time.time() - t0) / 60, 1),
                               "training": meta["training"]}
        log(f"{kind}: exported {onnx} ({onnx.stat().st_size / 1e3:.0f} kB)")
    (out / "model.json").write_text(json.dumps(meta, indent=1) + "\n", "utf-8")
    log(f"wrote {out / 'model.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
