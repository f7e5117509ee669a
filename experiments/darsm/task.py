"""The DARSM channel task: every training step runs the steady RANS solve (no training loop of our own).

`mode` is the arm:
  adjoint   loss on the converged solve, gradient by the discrete adjoint (`adjoint.attach_fixed_point`);
  unrolled  loss on the last of `unroll_iterations` PTC iterates, gradient by AD through all of them;
  offline   a priori fit: the ARSM's anisotropy at the truth's own invariants against the truth's anisotropy
            (no solver in training; the solver only scores it);
  none      no training (the baseline ARSM with WJ's constants, or the linear closure).
`closure`: arsm (the network's implicit ARSM) | linear (nu_t = k/omega). The a posteriori loss is the sum
over training cases of ||U - U_truth||^2 / ||U_truth||^2 (quadrature weights on [0, 1]). Validation and
test solve every case from the same fixed initial state (one fixed point per closure, whatever the seed)
and log test/<case>/u_rel_l2, their means over train and unseen cases, and the largest solve residual.
"""

from __future__ import annotations

import time

import torch

from experiments.darsm.adjoint import attach_fixed_point, unrolled_solve
from experiments.darsm.channel import TRANSPORT, Channel, ImplicitARSM, LinearEddyViscosity
from experiments.darsm.solver import NotConverged, newton_solve, rms
from reprolab.cli.errors import ConfigError
from reprolab.tasks.base import Task

MODES = ("adjoint", "unrolled", "offline", "none")


class DarsmChannelTask(Task):
    def __init__(self, model, optimizer, scheduler=None, mode: str = "adjoint", closure: str = "arsm",
                 transport: str = "wilcox1988", n: int = 64, stretch: float = 3.5, test_re_tau=(),
                 tol: float = 1e-11, max_iters: int = 200, dt0: float = 1.0, growth: float = 3.0,
                 unroll_iterations: int = 10, unroll_warm_start: bool = True, warm_dt0: float = 1e6):
        super().__init__(model, optimizer, scheduler)
        if mode not in MODES:
            raise ConfigError(f"task.mode '{mode}' unknown; one of {', '.join(MODES)}")
        if closure not in ("arsm", "linear"):
            raise ConfigError(f"task.closure '{closure}' unknown; one of arsm, linear")
        if closure == "linear" and mode != "none":
            raise ConfigError("task.closure=linear has no parameters to train; set task.mode=none")
        if transport not in TRANSPORT:
            raise ConfigError(f"task.transport '{transport}' unknown; one of {', '.join(sorted(TRANSPORT))}")
        if unroll_iterations < 1:
            raise ConfigError(f"task.unroll_iterations must be >= 1; got {unroll_iterations}")
        self.mode, self.closure_name, self.transport = mode, closure, TRANSPORT[transport]
        self.n, self.stretch, self.test_re_tau = n, stretch, {float(r) for r in test_re_tau}
        self.solver = {"tol": tol, "max_iters": max_iters, "dt0": dt0, "growth": growth}
        self.unroll_iterations, self.unroll_warm_start = unroll_iterations, unroll_warm_start
        self.warm_dt0 = warm_dt0
        self.closure = ImplicitARSM(self.model) if closure == "arsm" else LinearEddyViscosity()
        self._channels: dict[float, Channel] = {}
        self._warm: dict[float, torch.Tensor] = {}
        if mode == "none":
            self.automatic_optimization = False

    def geometry(self, case: dict) -> Channel:
        """The discretisation a case is solved on (`initial_state`, `residual`, `jacobian`, `n_vars`)."""
        return self.channel(case["re_tau"])

    def channel(self, re_tau: float) -> Channel:
        if re_tau not in self._channels:
            self._channels[re_tau] = Channel(re_tau, n=self.n, stretch=self.stretch, transport=self.transport,
                                             device=self.device)
        return self._channels[re_tau]

    def residual(self, geometry):
        return lambda q: geometry.residual(q, self.closure)

    def solve(self, case: dict, warm: bool):
        geometry = self.geometry(case)
        start = self._warm.get(case["name"]) if warm else None
        settings = dict(self.solver, dt0=self.warm_dt0) if start is not None else self.solver
        q, info = newton_solve(self.residual(geometry), geometry.initial_state() if start is None else start,
                               n_vars=geometry.n_vars, jacobian_fn=geometry.jacobian, **settings)
        if warm:
            self._warm[case["name"]] = q
        return q, info

    @staticmethod
    def relative_error(channel: Channel, U: torch.Tensor, U_truth: torch.Tensor) -> torch.Tensor:
        return torch.sqrt((channel.weight * (U - U_truth) ** 2).sum() / (channel.weight * U_truth ** 2).sum())

    def prediction_loss(self, channel: Channel, q: torch.Tensor, case: dict) -> torch.Tensor:
        return self.relative_error(channel, channel.split(q)[0], case["U"]) ** 2

    def _case_loss(self, case: dict) -> torch.Tensor:
        channel = self.geometry(case)
        if self.mode == "offline":
            f = {"s": case["s"], "re_t": case["re_t"]}
            _, a, _ = self.closure.anisotropy(f)
            return ((a - case["a"]) ** 2).sum(dim=(-1, -2)).mean() / (case["a"] ** 2).sum(dim=(-1, -2)).mean()
        if self.mode == "adjoint":
            q_star, _ = self.solve(case, warm=True)
            q = attach_fixed_point(self.residual(channel), q_star, jacobian_fn=channel.jacobian)
        else:
            start = self._warm.get(case["name"]) if self.unroll_warm_start else None
            q0 = channel.initial_state() if start is None else start
            q = unrolled_solve(self.residual(channel), q0, self.unroll_iterations, self.solver["dt0"],
                               self.solver["growth"], n_vars=channel.n_vars, jacobian_fn=channel.jacobian)
            self._warm[case["name"]] = q.detach()
            self.log(f"train/{case['name']}/unrolled_residual", rms(self.residual(channel)(q.detach())),
                     on_step=True, on_epoch=False, batch_size=1)
        return self.prediction_loss(channel, q, case)

    def training_step(self, batch, batch_idx):
        if self.mode == "none":
            return None
        started = time.process_time()
        loss = sum(self._case_loss(case) for case in batch)
        self.log("train/loss", loss, on_step=True, on_epoch=False, prog_bar=True, batch_size=1)
        self.log("train/step_cpu_s", time.process_time() - started, on_step=True, on_epoch=False, batch_size=1)
        return loss

    def _evaluate(self, batch, stage: str) -> None:
        errors, worst = {"train": [], "unseen": []}, 0.0
        with torch.no_grad():
            for case in batch:
                channel = self.channel(case["re_tau"])
                try:
                    q, info = self.solve(case, warm=False)
                except NotConverged:
                    q, info = None, None
                error = float("nan") if q is None else float(self.relative_error(channel, channel.split(q)[0], case["U"]))
                worst = max(worst, float("inf") if info is None else info.residual)
                group = "unseen" if case["re_tau"] in self.test_re_tau else "train"
                errors[group].append(error)
                self.log(f"{stage}/{case['name']}/u_rel_l2", error, batch_size=1)
                if q is not None:
                    self.log(f"{stage}/{case['name']}/bulk_velocity", float(channel.bulk_velocity(q)), batch_size=1)
        for group, values in errors.items():
            if values:
                self.log(f"{stage}/u_rel_l2_{group}", sum(values) / len(values), batch_size=1)
        self.log(f"{stage}/solve_residual_max", worst, batch_size=1)
        if errors["train"]:
            self.log(f"{stage}/loss", sum(e ** 2 for e in errors["train"]), batch_size=1)

    def validation_step(self, batch, batch_idx):
        self._evaluate(batch, "val")

    def test_step(self, batch, batch_idx):
        self._evaluate(batch, "test")
