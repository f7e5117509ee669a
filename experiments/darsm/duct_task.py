"""The DARSM duct task: the channel task's solve/adjoint/training step on the duct quadrant (`duct.Duct`).

`mode`: adjoint (a posteriori, gradient by the discrete adjoint at the converged solve) | unrolled (AD through
`unroll_iterations` PTC iterates per step, continued from the last, as the channel's) | none (the baseline
ARSM with WJ's constants, or closure=linear: the isotropic control with no secondary flow). The loss per
training duct is e_U^2 + secondary_weight e_sec^2, the relative L2 errors of U/U_b and of (V, W)/U_b against
the DNS interpolated onto the nodes (`duct_data`); the secondary flow has its own term because it is ~2 % of
U and would vanish in a pooled error. Every evaluation solve starts from the same fixed initial state.
Logged per duct: u_rel_l2, sec_rel_l2, corner_flow (model) and corner_flow_dns (its sign: flow toward the
corner along the bisector), corner_sign_match (0 when the model has no secondary flow), vortex_offset (mean distance of the two corner vortices'
centres from the DNS's, in h; only when the model has a secondary flow); and their means over the train and
unseen ducts.
"""

from __future__ import annotations

import numpy as np
import torch

from experiments.darsm.duct import Duct
from experiments.darsm.duct_metrics import corner_flow, relative_l2, velocities, vortex_centres
from experiments.darsm.solver import NotConverged
from experiments.darsm.task import DarsmChannelTask
from reprolab.cli.errors import ConfigError

NO_FLOW = 1e-9   # |corner_flow| / U_b below this is no secondary flow (round-off): its sign matches nothing


class DarsmDuctTask(DarsmChannelTask):
    def __init__(self, model, optimizer, scheduler=None, mode: str = "adjoint", closure: str = "arsm",
                 transport: str = "wilcox1988", ny: int = 24, nz: int = 24, stretch: float = 2.0,
                 secondary_weight: float = 1.0, tol: float = 1e-10, max_iters: int = 150, dt0: float = 1.0,
                 growth: float = 2.0, warm_dt0: float = 1e6, unroll_iterations: int = 10, unroll_warm_start: bool = True):
        if mode not in ("adjoint", "unrolled", "none"):
            raise ConfigError(f"task.mode '{mode}' is not built for the duct; one of adjoint, unrolled, none")
        if secondary_weight < 0:
            raise ConfigError(f"task.secondary_weight must be >= 0; got {secondary_weight}")
        super().__init__(model, optimizer, scheduler, mode=mode, closure=closure, transport=transport, tol=tol,
                         max_iters=max_iters, dt0=dt0, growth=growth, warm_dt0=warm_dt0,
                         unroll_iterations=unroll_iterations, unroll_warm_start=unroll_warm_start)
        self.ny, self.nz, self.stretch, self.secondary_weight = ny, nz, stretch, secondary_weight
        self._ducts: dict[tuple, Duct] = {}

    def geometry(self, case: dict) -> Duct:
        key = (case["re_tau"], case["aspect"])
        if key not in self._ducts:
            self._ducts[key] = Duct(case["re_tau"], aspect=case["aspect"], ny=self.ny, nz=self.nz,
                                    stretch=self.stretch, transport=self.transport, device=self.device)
        return self._ducts[key]

    def errors(self, duct: Duct, q: torch.Tensor, case: dict) -> tuple[torch.Tensor, torch.Tensor]:
        vel = velocities(duct, q)
        return relative_l2(duct, vel, case, ["U"]), relative_l2(duct, vel, case, ["V", "W"])

    def prediction_loss(self, duct: Duct, q: torch.Tensor, case: dict) -> torch.Tensor:
        e_u, e_sec = self.errors(duct, q, case)
        return e_u ** 2 + self.secondary_weight * e_sec ** 2

    def _case_metrics(self, case: dict) -> tuple[dict, float]:
        duct = self.geometry(case)
        try:
            q, info = self.solve(case, warm=False)
        except NotConverged:
            return {"u_rel_l2": float("nan"), "sec_rel_l2": float("nan")}, float("inf")
        e_u, e_sec = self.errors(duct, q, case)
        vel = velocities(duct, q)
        flow, flow_dns = corner_flow(duct, vel), corner_flow(duct, case)
        out = {"u_rel_l2": float(e_u), "sec_rel_l2": float(e_sec), "corner_flow": flow, "corner_flow_dns": flow_dns,
               "corner_sign_match": float(abs(flow) > NO_FLOW and np.sign(flow) == np.sign(flow_dns))}
        if float(duct.split(q)[3].abs().max()) > 1e-12:
            offset = np.linalg.norm(vortex_centres(duct, vel) - vortex_centres(duct, case), axis=1)
            out["vortex_offset"] = float(offset.mean())
        return out, info.residual

    def _evaluate(self, batch, stage: str) -> None:
        groups, worst = {"train": [], "unseen": []}, 0.0
        with torch.no_grad():
            for case in batch:
                metrics, residual = self._case_metrics(case)
                worst = max(worst, residual)
                groups["unseen" if case["unseen"] else "train"].append(metrics)
                for key, value in metrics.items():
                    self.log(f"{stage}/{case['name']}/{key}", value, batch_size=1)
        for group, rows in groups.items():
            for key in ("u_rel_l2", "sec_rel_l2", "corner_sign_match"):
                values = [row[key] for row in rows if key in row]
                if values:
                    self.log(f"{stage}/{key}_{group}", sum(values) / len(values), batch_size=1)
        self.log(f"{stage}/solve_residual_max", worst, batch_size=1)
        if groups["train"]:
            self.log(f"{stage}/loss", sum(r["u_rel_l2"] ** 2 + self.secondary_weight * r["sec_rel_l2"] ** 2
                                          for r in groups["train"]), batch_size=1)
