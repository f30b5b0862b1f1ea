"""Train the learned die reader and export it for ``vision.dice_classifier`` (ONNX run by OpenCV).

One command, fixed seed, in the training venv (torch is never a runtime dependency)::

    nice -n 10 .venv-train/bin/python -m tools.train_dice_classifier --out vision/models/dice_classifier

Data (``tools.dice_classifier_data``, cached in ``data/dice_classifier/crops.npz``; built with the
main venv's OpenCV if missing): crops the reader's own pipeline cuts around each die blob in rolls
of ``tools/dice_eval`` **tuning** seeds (tables 1000-1319; the benchmark's tuning tables 0.. stay
apart) and of the project's renderer (tables 1000-1059), at 1920, 2560 and 3840 px wide. The
held-out seeds are never read. Validation (model selection): the last ``--val-share`` of the tables of
each source, never trained on.

A small CNN (``make_net``), trained for ``--steps`` steps (or ``--minutes``), one torch thread;
of the checkpoints every ``--eval-every`` steps the one with the lowest validation log-loss is
exported with ``model.json``. The probability a value needs and when the network vetoes the pip
fits (``--min-probability``, ``--veto-probability``, ``--min-face-px``) were chosen on the
benchmark's tuning tables (``python -m bench dice -- --reader both``), not here.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.dice_classifier_data import FIRST_TABLE, cached, log  # noqa: E402

SOURCES = {"tune": 320, "own": 60}  # tables per source (the defaults of --tune-tables, --own-tables)


def make_net(in_ch: int, outputs: int, width: int):
    import torch.nn as nn

    def block(a: int, b: int) -> list:
        return [nn.Conv2d(a, b, 3, padding=1, bias=False), nn.BatchNorm2d(b), nn.ReLU(inplace=True)]

    w = width
    return nn.Sequential(
        *block(in_ch, w), *block(w, w), nn.MaxPool2d(2),          # 48 -> 24
        *block(w, 2 * w), nn.MaxPool2d(2),                        # 24 -> 12
        *block(2 * w, 4 * w), nn.MaxPool2d(2),                    # 12 -> 6
        *block(4 * w, 4 * w),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(4 * w, 64), nn.ReLU(inplace=True), nn.Dropout(0.2), nn.Linear(64, outputs))


def augment(x, g):
    """A mirror across the crop's vertical axis (the walls still lean down; the pip patterns are
    their own mirror images), a shift of a pixel or two, contrast a little off, sensor noise."""
    import torch

    n = x.shape[0]
    flip = torch.rand(n, generator=g) < 0.5
    x = torch.where(flip[:, None, None, None], torch.flip(x, (3,)), x)
    dx, dy = (int(v) for v in torch.randint(-2, 3, (2,), generator=g))
    x = torch.roll(x, (dy, dx), (2, 3))
    x = x * (0.8 + 0.4 * torch.rand(n, 1, 1, 1, generator=g))
    return x + 0.08 * torch.rand(n, 1, 1, 1, generator=g) * torch.randn(x.shape, generator=g)


def evaluate(net, x, y, batch: int = 512) -> tuple[float, float, np.ndarray]:
    """Log-loss, accuracy and the probabilities of the validation crops."""
    import torch
    import torch.nn.functional as F

    net.eval()
    probs = []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            probs.append(F.softmax(net(torch.from_numpy(x[i:i + batch].astype(np.float32))), 1).numpy())
    net.train()
    p = np.concatenate(probs)
    loss = float(-np.log(np.clip(p[np.arange(len(y)), y], 1e-9, 1)).mean())
    return loss, float((p.argmax(1) == y).mean()), p


def report(p: np.ndarray, y: np.ndarray, face: np.ndarray) -> None:
    """Right and wrong values on the validation dice (label > 0) at a few thresholds."""
    die = y > 0
    k, conf = p.argmax(1), p.max(1)
    for t in (0.9, 0.99, 0.999):
        said = die & (k > 0) & (conf >= t)
        right = said & (k == y)
        log(f"  p >= {t}: right {right.sum()}/{die.sum()} ({100 * right.sum() / max(1, die.sum()):.1f} %), "
            f"misread {(said & (k != y)).sum()}, no-die crops given a value {((y == 0) & (k > 0) & (conf >= t)).sum()}"
            f"/{(y == 0).sum()}")
    for lo, hi in ((0, 12), (12, 16), (16, 24), (24, 1e9)):
        sel = die & (face >= lo) & (face < hi)
        if sel.any():
            log(f"  face {lo}-{hi:g} px: argmax right {100 * (k[sel] == y[sel]).mean():.1f} % of {sel.sum()}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.train_dice_classifier")
    ap.add_argument("--out", default=str(ROOT / "vision" / "models" / "dice_classifier"))
    ap.add_argument("--cache", default=str(ROOT / "data" / "dice_classifier" / "crops.npz"))
    ap.add_argument("--per-table", type=int, default=25)
    ap.add_argument("--tune-tables", type=int, default=SOURCES["tune"], help="tools/dice_eval tuning tables to train on")
    ap.add_argument("--own-tables", type=int, default=SOURCES["own"], help="tables of the project's renderer to train on")
    ap.add_argument("--jitter", type=int, default=1, help="jittered crops per die blob, besides the plain one")
    ap.add_argument("--val-share", type=float, default=0.1, help="share of each source's tables (its last) kept for validation")
    ap.add_argument("--steps", type=int, default=6000)
    ap.add_argument("--minutes", type=float, default=22.0, help="stop training after this long")
    ap.add_argument("--stop-after", type=int, help="stop training after this step (the schedule still spans --steps)")
    ap.add_argument("--batch", type=int, default=96)
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--eval-every", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2, help="processes building the data")
    # chosen on the benchmark's tuning tables (tools/dice_eval tables 0-39, 1280-3840 px), not here
    ap.add_argument("--min-probability", type=float, default=0.95, help="a value alone needs this")
    ap.add_argument("--min-probability-small", type=float, default=0.99, help="... on a face under --small-face-px")
    ap.add_argument("--small-face-px", type=float, default=12.0)
    ap.add_argument("--min-face-px", type=float, default=9.0, help="no value for a narrower face (frame px)")
    ap.add_argument("--veto-probability", type=float, default=0.95,
                    help="the network this sure of another value (or of no die) overrules the pip fits: no value")
    args = ap.parse_args(argv)

    import torch
    import torch.nn.functional as F

    from vision.dice_classifier import CHANNELS, CLASSES, CROP_PX, CROP_SIDES, FORMAT

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    sources = {"tune": args.tune_tables, "own": args.own_tables}
    data = cached(Path(args.cache), sources, args.per_table, args.jitter, args.seed, args.workers)
    first_val = {s: FIRST_TABLE + n - int(round(args.val_share * n)) for s, n in sources.items()}
    src = np.where(data["source"] == 0, "tune", "own")
    val = np.array([t >= first_val[s] for s, t in zip(src, data["table"])])
    # validation: the plain crops only (the first of each blob's 1 + jitter)
    plain = np.zeros(len(val), bool)
    plain[::1 + args.jitter] = True
    xt, yt = data["x"][~val], data["y"][~val]
    xv, yv, fv = data["x"][val & plain], data["y"][val & plain], data["face_px"][val & plain]
    log(f"train {len(yt)} crops (classes {np.bincount(yt, minlength=7).tolist()}), "
        f"validation {len(yv)} ({np.bincount(yv, minlength=7).tolist()})")

    net = make_net(CHANNELS, len(CLASSES), args.width)
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.steps, pct_start=0.1)
    g = torch.Generator().manual_seed(args.seed)
    xt_t, yt_t = torch.from_numpy(xt), torch.from_numpy(yt)
    best, best_state, t0 = None, None, time.perf_counter()
    for step in range(1, args.steps + 1):
        idx = torch.randint(len(yt), (args.batch,), generator=g)
        xb = augment(xt_t[idx].float(), g)
        loss = F.cross_entropy(net(xb), yt_t[idx], label_smoothing=0.02)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        out_of_time = time.perf_counter() - t0 > args.minutes * 60 or step == args.stop_after
        if step % args.eval_every == 0 or step == args.steps or out_of_time:
            vl, va, _ = evaluate(net, xv, yv)
            log(f"step {step}: train loss {float(loss.detach()):.3f}, validation loss {vl:.4f}, accuracy {100 * va:.2f} %")
            if best is None or vl < best[0]:
                best = (vl, va, step)
                best_state = {k: v.clone() for k, v in net.state_dict().items()}
        if out_of_time:
            log(f"stopped at step {step} ({(time.perf_counter() - t0) / 60:.1f} minutes)")
            break
    net.load_state_dict(best_state)
    vl, va, p = evaluate(net, xv, yv)
    log(f"kept step {best[2]}: validation loss {vl:.4f}, accuracy {100 * va:.2f} %")
    report(p, yv, fv)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    net.eval()
    dummy = torch.zeros(1, CHANNELS, CROP_PX, CROP_PX)
    torch.onnx.export(net, dummy, str(out / "dice.onnx"), input_names=["crops"], output_names=["logits"],
                      dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}}, opset_version=13, dynamo=False)
    meta = {"format": FORMAT, "onnx": "dice.onnx", "classes": list(CLASSES),
            "crop": {"px": CROP_PX, "sides": CROP_SIDES, "channels": CHANNELS},
            "min_probability": args.min_probability, "veto_probability": args.veto_probability,
            "min_probability_small": args.min_probability_small, "small_face_px": args.small_face_px,
            "min_face_px": args.min_face_px,
            "trained": {"command": "python -m tools.train_dice_classifier " + " ".join(argv or sys.argv[1:]),
                        "sources": sources, "first_table": FIRST_TABLE, "val_share": args.val_share,
                        "train_crops": int(len(yt)), "val_crops": int(len(yv)), "step": best[2],
                        "val_loss": round(vl, 4), "val_accuracy": round(va, 4), "seed": args.seed}}
    (out / "model.json").write_text(json.dumps(meta, indent=1) + "\n", "utf-8")
    log(f"wrote {out / 'dice.onnx'} ({(out / 'dice.onnx').stat().st_size / 1024:.0f} KB) and model.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
