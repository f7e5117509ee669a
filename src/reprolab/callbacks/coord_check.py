"""Coordinate check (Tensor Programs V, §D): activation and update scales per layer over the first steps.

On a fixed probe batch (the first training batch), before training and after each of the first `steps`
optimizer steps, records for every module whose name matches `modules` (fnmatch) the mean |h_t| of its
output and the mean |h_t − h_0|, and for every parameter the mean |W_t − W_{t−1}| of its update. Run
at several widths (a `-m` sweep over the model width), flat curves mean the parametrisation keeps
coordinates of constant size. Written to `<run>/coord_check.json`; `optimizer_attr` names an optimizer
attribute holding a {name: number} dict recorded at the last checked step (e.g. DeltaAdamW's
`key_scales`, the λ̂max of each key covariance).
"""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path

import lightning as L
import torch


def mean_abs(x: torch.Tensor) -> float:
    return float(x.detach().float().abs().mean())


class CoordinateCheck(L.Callback):
    def __init__(self, steps: int = 5, modules: list[str] | tuple[str, ...] = ("*",), input_index: int | None = 0,
                 filename: str = "coord_check.json", optimizer_attr: str | None = None):
        if steps < 1:
            raise ValueError(f"coord check steps must be ≥ 1, got {steps}")
        self.steps, self.patterns, self.input_index = steps, list(modules), input_index
        self.filename, self.optimizer_attr = filename, optimizer_attr
        self.probe = None
        self.record: dict = {}
        self.first: dict[str, torch.Tensor] = {}
        self.weights: dict[str, torch.Tensor] = {}

    def _modules(self, pl_module: L.LightningModule) -> dict[str, torch.nn.Module]:
        found = {name: m for name, m in pl_module.named_modules()
                 if name and any(fnmatch.fnmatchcase(name, p) for p in self.patterns)}
        if not found:
            raise ValueError(f"coord check: no module name matches {self.patterns}")
        return found

    @torch.no_grad()
    def _activations(self, pl_module: L.LightningModule) -> dict[str, torch.Tensor]:
        outputs, handles = {}, []
        for name, module in self._modules(pl_module).items():
            hook = (lambda n: lambda m, i, o: outputs.__setitem__(n, o.detach().clone()))(name)
            handles.append(module.register_forward_hook(hook))
        was_training = pl_module.training
        pl_module.eval()
        try:
            pl_module(self.probe)
        finally:
            pl_module.train(was_training)
            for h in handles:
                h.remove()
        return {n: o for n, o in outputs.items() if isinstance(o, torch.Tensor)}

    def _snapshot(self, pl_module: L.LightningModule) -> dict[str, torch.Tensor]:
        return {n: p.detach().clone() for n, p in pl_module.named_parameters() if p.requires_grad}

    def _measure(self, pl_module: L.LightningModule) -> None:
        acts = self._activations(pl_module)
        for name, h in acts.items():
            self.record["activation"].setdefault(name, []).append(mean_abs(h))
            self.record["activation_change"].setdefault(name, []).append(mean_abs(h - self.first[name]))

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        if self.probe is not None or trainer.global_step != 0:
            return
        probe = batch if self.input_index is None else batch[self.input_index]
        self.probe = probe.detach().clone()
        self.record = {"steps": [0], "activation": {}, "activation_change": {}, "update": {}}
        self.first = self._activations(pl_module)
        self._measure(pl_module)
        self.weights = self._snapshot(pl_module)

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        step = trainer.global_step
        if self.probe is None or step > self.steps or step == self.record["steps"][-1]:
            return  # past the checked steps, or an accumulation micro-batch that took no step
        weights = self._snapshot(pl_module)
        for name, w in weights.items():
            self.record["update"].setdefault(name, []).append(mean_abs(w - self.weights[name]))
        self.weights = weights
        self.record["steps"].append(step)
        self._measure(pl_module)
        if step == self.steps:
            self._write(trainer)

    def _write(self, trainer: L.Trainer) -> None:
        if self.optimizer_attr:
            values = getattr(trainer.optimizers[0], self.optimizer_attr, {}) or {}
            self.record[self.optimizer_attr] = {k: float(v) for k, v in values.items()}
        if trainer.is_global_zero:
            path = Path(trainer.default_root_dir) / self.filename
            path.write_text(json.dumps(self.record, indent=1))
