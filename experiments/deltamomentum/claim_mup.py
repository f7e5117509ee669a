"""Claim check 4: μP coordinate check over five widths with DeltaAdamW, and the best η per width.

The tiny Llama in μP (base width 32, d_head 16 fixed, hidden LR ∝ 1/width through MuLinear multipliers,
logits × base/width) on TinyShakespeare bytes. Coordinate check: for a fixed probe batch, the mean
|h_t − h_0| per coordinate of the last block's output and of the logits after t DeltaAdamW steps
(flat across width = μP holds with the delta memory in place), plus λ̂max of the hidden key covariances
(what eta_scale="lmax" divides by: it grows with width, so a raw η would not transfer). Best η per
width: the lowest mean training loss over the last steps of a short run, from one η grid.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F

from experiments.deltamomentum.model import LlamaLM
from reprolab.optim.delta import DeltaAdamW

WIDTHS = (32, 64, 128, 256, 512)


def batches(dm, seed: int, n: int):
    gen = torch.Generator().manual_seed(seed)
    train = dm.splits["train"]
    for _ in range(n):
        idx = torch.randint(len(train), (dm.batch_size,), generator=gen).tolist()
        yield (torch.stack(t) for t in zip(*[train[i] for i in idx], strict=True))


def mup_model(width: int, seed: int, seq_len: int) -> LlamaLM:
    torch.manual_seed(seed)
    return LlamaLM(257, width, n_layer=2, n_head=width // 16, max_seq_len=seq_len, mup_base_width=32)


def probe(model: LlamaLM, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(last block's output, logits) on ``x`` in eval mode, without capturing keys."""
    captured = {}
    handle = model.blocks[-1].register_forward_hook(lambda m, i, o: captured.__setitem__("h", o.detach()))
    model.eval()
    with torch.no_grad():
        logits = model(x)
    model.train()
    handle.remove()
    return captured["h"], logits


def coordinate_check(dm, seed=0, steps=5, lr=1e-2, eta=0.5, widths=WIDTHS) -> dict:
    out = {}
    probe_x, _ = next(batches(dm, 10_000, 1))
    for width in widths:
        model = mup_model(width, seed, dm.seq_len)
        opt = DeltaAdamW(model, lr=lr, betas=(0.9, 0.95), weight_decay=0.0, eta=eta)
        h0, z0 = probe(model, probe_x)
        for x, y in batches(dm, seed, steps):
            F.cross_entropy(model(x).flatten(0, 1), y.flatten()).backward()
            opt.step()
            opt.zero_grad()
        h, z = probe(model, probe_x)
        hidden = [float(v) for k, v in opt.key_scales.items() if k.endswith((".q", ".o", ".gate", ".down"))]
        out[width] = {"h0": h0.abs().mean().item(), "dh": (h - h0).abs().mean().item(),
                      "dlogits": (z - z0).abs().mean().item(), "lmax_hidden": float(np.mean(hidden))}
    return out


def best_eta(dm, etas=(0.0, 0.25, 0.5, 1.0), seed=0, steps=40, lr=1e-2, widths=WIDTHS, tail=10) -> dict:
    out = {}
    for width in widths:
        losses = {}
        for eta in etas:
            model = mup_model(width, seed, dm.seq_len)
            opt = DeltaAdamW(model, lr=lr, betas=(0.9, 0.95), weight_decay=0.0, eta=eta)
            trace = []
            for x, y in batches(dm, seed, steps):
                loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
                loss.backward()
                opt.step()
                opt.zero_grad()
                trace.append(loss.item())
            losses[eta] = float(np.mean(trace[-tail:]))
        out[width] = {"losses": losses, "best_eta": min(losses, key=losses.get)}
    return out
