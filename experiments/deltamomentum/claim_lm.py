"""Claim check 2: a tiny Llama on real text, AdamW vs DeltaAdamW, same LR sweep, several seeds.

A plain PyTorch loop (faster than the trainer for a 0.1M-parameter model on one core): byte tokens of
TinyShakespeare (or any text through ``TextFileDataModule``), warm-up + cosine schedule, validation
cross-entropy on a fixed held-out slice every ``eval_every`` steps. "Steps saved" (the paper's metric)
= 1 − s_Δ/s_A with s_A = AdamW's total steps and s_Δ the first evaluation where DeltaAdamW's validation
loss ≤ AdamW's terminal loss (same seed, each at its own best LR). If DeltaAdamW never gets there we
report the mirror image, −(1 − s_A'/s_Δ), s_A' = AdamW's first step at DeltaAdamW's terminal loss.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F

from experiments.deltamomentum.data import TextFileDataModule
from experiments.deltamomentum.model import LlamaLM
from reprolab.optim.delta import DeltaAdamW
from reprolab.optim.schedules import warmup_cosine


def lm_data(data_dir: str, path: str = "tinyshakespeare/input.txt", seq_len: int = 64, batch: int = 16):
    dm = TextFileDataModule(data_dir, path, vocab_size=257, seq_len=seq_len, batch_size=batch,
                            max_eval_windows=64)
    dm.setup()
    return dm


def build_lm_optimizer(name: str, model, lr: float, eta: float, **delta_kw):
    if name == "adamw":
        return torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.95), weight_decay=0.0)
    return DeltaAdamW(model, lr=lr, betas=(0.9, 0.95), weight_decay=0.0, eta=eta, **delta_kw)


def train_lm(dm, name: str, lr: float, seed: int, *, steps=300, eval_every=20, eta=0.5, d_model=64,
             n_layer=2, n_head=4, mup_base_width=None, delta_kw=None) -> dict:
    """Train and return {"steps": [...], "val": [...], "train": [...]} (val at step 0, eval_every, …)."""
    torch.manual_seed(seed)
    model = LlamaLM(257, d_model, n_layer, n_head, max_seq_len=dm.seq_len, mup_base_width=mup_base_width)
    opt = build_lm_optimizer(name, model, lr, eta, **(delta_kw or {}))
    sched = warmup_cosine(opt, steps, warmup_steps=steps // 15, min_lr_ratio=0.1)
    gen = torch.Generator().manual_seed(seed)
    train = dm.splits["train"]
    val_x, val_y = (torch.stack(t) for t in zip(*[dm.splits["val"][i] for i in range(len(dm.splits["val"]))],
                                                strict=True))
    curve = {"steps": [], "val": [], "train": []}

    def evaluate(step):
        model.eval()
        with torch.no_grad():
            curve["val"].append(F.cross_entropy(model(val_x).flatten(0, 1), val_y.flatten()).item())
        curve["steps"].append(step)
        model.train()

    evaluate(0)
    for step in range(1, steps + 1):
        idx = torch.randint(len(train), (dm.batch_size,), generator=gen).tolist()
        x, y = (torch.stack(t) for t in zip(*[train[i] for i in idx], strict=True))
        loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
        loss.backward()
        opt.step()
        opt.zero_grad()
        sched.step()
        curve["train"].append(loss.item())
        if not math.isfinite(loss.item()):
            curve["val"].append(math.inf)
            curve["steps"].append(step)
            break
        if step % eval_every == 0:
            evaluate(step)
    return curve


def first_step_below(curve: dict, level: float) -> float:
    for s, v in zip(curve["steps"], curve["val"], strict=True):
        if v <= level:
            return float(s)
    return math.inf


def steps_saved(adamw: dict, delta: dict) -> float:
    """1 − s_Δ/s_A (positive: DeltaAdamW reached AdamW's terminal loss early); mirrored when it never did."""
    s_a = adamw["steps"][-1]
    s_d = first_step_below(delta, adamw["val"][-1])
    if math.isfinite(s_d):
        return 1.0 - s_d / s_a
    s_a_prime = first_step_below(adamw, delta["val"][-1])
    return -(1.0 - s_a_prime / delta["steps"][-1])


def lr_sweep(dm, seeds, lrs, **kw) -> dict:
    """Curves for both optimizers at every LR and seed; best LR = lowest mean terminal validation loss."""
    out = {}
    for name in ("adamw", "delta_adamw"):
        runs = {lr: [train_lm(dm, name, lr, s, **kw) for s in seeds] for lr in lrs}
        best = min(lrs, key=lambda lr: np.mean([r["val"][-1] for r in runs[lr]]))
        out[name] = {"runs": runs, "best_lr": best}
    best_a, best_d = out["adamw"]["best_lr"], out["delta_adamw"]["best_lr"]
    out["steps_saved"] = [steps_saved(a, d) for a, d in
                          zip(out["adamw"]["runs"][best_a], out["delta_adamw"]["runs"][best_d], strict=True)]
    return out


ABLATIONS = {
    "eta 0.25": dict(eta=0.25),
    "eta 0.5 (default)": dict(eta=0.5),
    "eta 1.0": dict(eta=1.0),
    "gated form": dict(eta=0.5, delta_kw=dict(gated=True)),
    "kappa 1-beta+eta": dict(eta=0.5, delta_kw=dict(kappa="1-beta+eta")),
    "eta_scale trace, eta 0.5": dict(eta=0.5, delta_kw=dict(eta_scale="trace")),
}


def ablation(dm, seeds, lr: float, variants=ABLATIONS, **kw) -> dict:
    """Terminal validation loss of DeltaAdamW variants (open choices) at one lr, against AdamW there."""
    out = {"adamw": [train_lm(dm, "adamw", lr, s, **kw)["val"][-1] for s in seeds]}
    for label, options in variants.items():
        out[label] = [train_lm(dm, "delta_adamw", lr, s, **options, **kw)["val"][-1] for s in seeds]
    return out
