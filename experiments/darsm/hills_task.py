"""Train on the duct, test on the periodic hills: `DarsmDuctTask` whose test cases may be hills.

Training and validation are the duct task's, unchanged (the adjoint arm trains on AR 1 exactly as the duct
claims do). Every hills case is solved from the fixed initial state of `hills.Hills` with its own PTC settings
(`hills_dt0`, `hills_max_iters`: separated flow needs a smaller first step than the duct) and scored by
`hills_metrics`: u_rel_l2, v_rel_l2 (relative L2 of u/U_b and v/U_b against the DNS), the separation and
reattachment points x_sep, x_reatt beside the DNS's (x_sep_dns, x_reatt_dns) and their distances
(separation_error, reattachment_error, in h); means over the hills are logged as `<stage>/<metric>_hills`.
A hills solve that stops above `tol` logs nan errors and an infinite residual (no score from an unconverged solve).
"""

from __future__ import annotations

import math

import torch

from experiments.darsm.duct_task import DarsmDuctTask
from experiments.darsm.hills_data import make_hills
from experiments.darsm.hills_metrics import recirculation, relative_l2, wall_tangential
from experiments.darsm.solver import NotConverged, newton_solve

HILLS_METRICS = ("u_rel_l2", "v_rel_l2", "separation_error", "reattachment_error")


class DarsmHillsTask(DarsmDuctTask):
    def __init__(self, model, optimizer, scheduler=None, hills_dx: float = 0.25, hills_ny: int = 32,
                 hills_stretch: float = 2.0, hills_re: float = 5600.0, upwind: float = 1.0, hills_dt0: float = 0.1,
                 hills_max_iters: int = 150, **duct):
        super().__init__(model, optimizer, scheduler, **duct)
        self.hills_settings = {"dx": hills_dx, "ny": hills_ny, "stretch": hills_stretch, "re": hills_re,
                               "upwind": upwind}
        self.hills_solver = dict(self.solver, dt0=hills_dt0, max_iters=hills_max_iters)
        self._hills: dict[str, object] = {}

    def geometry(self, case: dict):
        if case.get("kind") != "hills":
            return super().geometry(case)
        if case["name"] not in self._hills:
            self._hills[case["name"]] = make_hills(case["alpha"], case["length"], case["top"],
                                                   transport=self.transport, device=self.device, **self.hills_settings)
        return self._hills[case["name"]]

    def solve(self, case: dict, warm: bool):
        if case.get("kind") != "hills":
            return super().solve(case, warm)
        hills = self.geometry(case)
        return newton_solve(self.residual(hills), hills.initial_state(), n_vars=hills.n_vars,
                            jacobian_fn=hills.jacobian, **self.hills_solver)

    def _hills_metrics(self, case: dict) -> tuple[dict, float]:
        hills = self.geometry(case)
        try:
            q, info = self.solve(case, warm=False)
        except NotConverged:
            return {name: float("nan") for name in HILLS_METRICS}, float("inf")
        u, v = hills.velocity(hills.split(q)[0])
        x, length = hills.mesh.x1.cpu().numpy(), hills.mesh.length
        sep, reatt = recirculation(x, wall_tangential(hills, u, v), length)
        sep_dns, reatt_dns = recirculation(x, wall_tangential(hills, case["u"], case["v"]), length)
        return {"u_rel_l2": float(relative_l2(hills, u, case["u"])), "v_rel_l2": float(relative_l2(hills, v, case["v"])),
                "x_sep": sep, "x_reatt": reatt, "x_sep_dns": sep_dns, "x_reatt_dns": reatt_dns,
                "separation_error": abs(sep - sep_dns), "reattachment_error": abs(reatt - reatt_dns)}, info.residual

    def _evaluate(self, batch, stage: str) -> None:
        ducts = [case for case in batch if case.get("kind") != "hills"]
        hills = [case for case in batch if case.get("kind") == "hills"]
        if ducts:
            super()._evaluate(ducts, stage)
        if not hills:
            return
        rows, worst = [], 0.0
        with torch.no_grad():
            for case in hills:
                metrics, residual = self._hills_metrics(case)
                rows.append(metrics)
                worst = max(worst, residual)
                for key, value in metrics.items():
                    self.log(f"{stage}/{case['name']}/{key}", value, batch_size=1)
        for key in HILLS_METRICS:
            values = [row[key] for row in rows]
            self.log(f"{stage}/{key}_hills", sum(values) / len(values), batch_size=1)
        self.log(f"{stage}/hills_converged", sum(not math.isnan(r["u_rel_l2"]) for r in rows) / len(rows), batch_size=1)
        self.log(f"{stage}/hills_residual_max", worst, batch_size=1)
