"""Monitor transfer from model A to model B through A's probe-visible quotient or through A's full state.

A map G: whitened h_B → target is fitted by the trainer on `n_pairs` unlabelled paired inputs only
(target = A's quotient coordinates, or A's whitened full state for the full-state ridge baseline). A's
monitors are then read on G(h_B) of the test inputs and scored against the labelled oracle, a probe of the
same family fitted on B with labels. Covered monitors read only A's quotient; uncovered ones do not.
"""

from __future__ import annotations

import lightning as L
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset
from torchmetrics.functional.classification import binary_auroc

from experiments.probes.digits import as_images, digits_images
from experiments.probes.quotient import in_digits, least_squares_probe, probe_scores, visible_basis
from experiments.probes.sources import load_source, readout_inputs, untrained_source
from experiments.probes.whitening import FittedInputMap
from reprolab.data.digits import fake_digits_arrays
from reprolab.errors import ConfigError
from reprolab.task import Task

TARGETS = ("quotient", "full")


def whitened(h_train: torch.Tensor, *others: torch.Tensor) -> list[torch.Tensor]:
    white = FittedInputMap(h_train.shape[1], "whiten").double().fit(h_train)
    return [white(h) for h in (h_train, *others)]


class TransferDataModule(L.LightningDataModule):
    """Paired unlabelled (whitened h_B, target) for fitting; (whitened h_B, digit) of the test split for scoring."""

    def __init__(self, sources_dir: str, source_a: str, source_b: str, seed: int = 0, b_seed_offset: int = 1,
                 target: str = "quotient", n_pairs: int = 200, n_val_pairs: int = 200, bank_digits=(0, 1, 2, 3, 4),
                 covered_monitors=((0, 1), (2, 3), (4,), (0, 2, 4)),
                 uncovered_monitors=((5, 6), (7, 8), (9,), (5, 7, 9)), probe_ridge: float = 1e-3,
                 data_dir: str = "data", download: bool = False):
        super().__init__()
        if target not in TARGETS:
            raise ConfigError(f"data.target={target!r}; choose quotient (A's probe-visible quotient) or full")
        if n_pairs < 2:
            raise ConfigError(f"data.n_pairs={n_pairs}; the map needs at least 2 paired inputs")
        self.sources = (source_a, source_b)
        self.run_a = f"{sources_dir}/{source_a}_seed{seed}"
        self.run_b = f"{sources_dir}/{source_b}_seed{seed + b_seed_offset}"
        self.target, self.n_pairs, self.n_val_pairs, self.seed = target, n_pairs, n_val_pairs, seed
        self.bank_digits, self.probe_ridge = list(bank_digits), probe_ridge
        self.monitors = {"covered": [list(m) for m in covered_monitors], "uncovered": [list(m) for m in uncovered_monitors]}
        self.data_dir, self.download = data_dir, download

    def setup(self, stage: str | None = None) -> None:
        (model_a, cfg_a), (model_b, _) = load_source(self.run_a), load_source(self.run_b)
        self.fit_quotient(model_a, model_b, *digits_images(cfg_a.data.source, self.data_dir, self.download))

    def fake_setup(self, stage: str | None = None) -> None:
        """The two source presets' networks untrained, on random pixels of their source's sizes (reprolab.data.fake)."""
        (model_a, cfg_a), (model_b, _) = (untrained_source(f"probes/{s}") for s in self.sources)
        self.fit_quotient(model_a, model_b, *as_images(*fake_digits_arrays(cfg_a.data.source)))

    def fit_quotient(self, model_a, model_b, x, y, x_test, y_test) -> None:
        self.y_test = y_test
        a, a_test = whitened(readout_inputs(model_a, x), readout_inputs(model_a, x_test))
        b, b_test = whitened(readout_inputs(model_b, x), readout_inputs(model_b, x_test))
        bank = torch.stack([least_squares_probe(a, y == d, self.probe_ridge)[:-1] for d in self.bank_digits], 1)
        self.basis = visible_basis(bank)                           # [d_A, k]: A's probe-visible quotient
        self.readouts = {g: [self.readout(a, y, m, g) for m in ms] for g, ms in self.monitors.items()}
        self.source_auroc = {g: self.mean_auroc(self.as_target(a_test), g) for g in self.monitors}
        self.oracle_auroc = {g: torch.stack([binary_auroc(
            probe_scores(b_test, least_squares_probe(b, in_digits(y, m), self.probe_ridge)), in_digits(self.y_test, m).long())
            for m in ms]).mean().item() for g, ms in self.monitors.items()}
        order = torch.randperm(len(y), generator=torch.Generator().manual_seed(self.seed))  # the paired inputs: no labels
        fit, val = order[: self.n_pairs], order[self.n_pairs: self.n_pairs + self.n_val_pairs]
        target = self.as_target(a)
        self.pairs = TensorDataset(b[fit].float(), target[fit].float())
        self.val_pairs = TensorDataset(b[val].float(), target[val].float())
        self.test_set = TensorDataset(b_test.float(), self.y_test)
        self.dims = (b.shape[1], target.shape[1])

    def as_target(self, a: torch.Tensor) -> torch.Tensor:
        return a @ self.basis if self.target == "quotient" else a

    def readout(self, a, y, digits, group) -> torch.Tensor:
        """A's monitor for `digits` as a linear readout [w; c] of the target space (quotient or full)."""
        fit_on = a @ self.basis if group == "covered" else a    # covered monitors read only the quotient
        probe = least_squares_probe(fit_on, in_digits(y, digits), self.probe_ridge)
        w, c = probe[:-1], probe[-1:]
        if group == "covered" and self.target == "full":
            w = self.basis @ w
        if group == "uncovered" and self.target == "quotient":
            w = self.basis.T @ w                                # all the quotient lets through
        return torch.cat([w, c]).float()

    def mean_auroc(self, target_scores: torch.Tensor, group: str) -> float:
        return torch.stack([binary_auroc(probe_scores(target_scores.float(), r), in_digits(self.y_test, m).long())
                            for r, m in zip(self.readouts[group], self.monitors[group], strict=True)]).mean().item()

    def train_inputs(self) -> torch.Tensor:
        return self.pairs.tensors[0]

    def train_dataloader(self):
        return DataLoader(self.pairs, batch_size=len(self.pairs))

    def val_dataloader(self):
        return DataLoader(self.val_pairs, batch_size=len(self.val_pairs))

    def test_dataloader(self):
        return DataLoader(self.test_set, batch_size=len(self.test_set))


class LinearMap(nn.Module):
    """G(h_B) = M h_B + m. Its sizes depend on the loaded source runs, so it holds a 1 × 1 placeholder until the
    task's `setup` calls `build` (before the optimizer exists and before any checkpoint is restored).
    orthogonal=True constrains M to orthonormal columns (or rows): Procrustes alignment with a translation."""

    def __init__(self, orthogonal: bool = False):
        super().__init__()
        self.orthogonal = orthogonal
        self.linear = nn.Linear(1, 1)
        self.built = False

    def build(self, in_dim: int, out_dim: int) -> None:
        if self.built:
            return
        self.linear, self.built = nn.Linear(in_dim, out_dim), True
        nn.init.zeros_(self.linear.bias)
        if self.orthogonal:
            nn.utils.parametrizations.orthogonal(self.linear)
        else:
            nn.init.zeros_(self.linear.weight)

    def forward(self, x):
        return self.linear(x)


class TransferTask(Task):
    """Fit G by mean squared error + ridge·‖M‖² on the paired inputs; test: A's monitors on G(h_B) vs the oracle."""

    def __init__(self, model, optimizer, scheduler=None, ridge: float = 1e-3):
        super().__init__(model, optimizer, scheduler)
        self.ridge = ridge

    def setup(self, stage: str) -> None:
        self.model.build(*self.trainer.datamodule.dims)

    def _fit_loss(self, batch, stage):
        h_b, target = batch
        loss = ((self.model(h_b) - target) ** 2).sum(1).mean()
        self.log(f"{stage}/mse", loss, on_step=False, on_epoch=True)
        return loss

    def training_step(self, batch, batch_idx):
        penalty = 0.0 if self.model.orthogonal else self.ridge * (self.model.linear.weight ** 2).sum()
        return self._fit_loss(batch, "train") + penalty

    def validation_step(self, batch, batch_idx):
        self._fit_loss(batch, "val")

    def test_step(self, batch, batch_idx):
        h_b, _ = batch
        dm = self.trainer.datamodule
        predicted = self.model(h_b)
        for group in dm.monitors:
            transfer = dm.mean_auroc(predicted.detach().cpu(), group)
            self.log(f"test/auroc_{group}", transfer)
            self.log(f"test/oracle_{group}", dm.oracle_auroc[group])
            self.log(f"test/source_{group}", dm.source_auroc[group])
            self.log(f"test/gap_{group}", dm.oracle_auroc[group] - transfer)
