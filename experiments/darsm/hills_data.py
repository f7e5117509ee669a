"""The hills' truth: the DNS mean velocity of closure-challenge 0.3.1's four parameterised hills (MIT).

Cases `alpha_<a>_<L>_<H>`: slope factor a/10, domain length L/1000 and height H/1000 in hill heights
(alpha_05_4071_2024: alpha 0.5, L = 4.071, H = 2.024; Xiao et al. 2020's hill family with the flat length
and the channel height varied). Each ships 1000 scattered points (x, y, z) in h (z = 0: the flow is 2-D) and
(U, V, W). The package does not state the Reynolds number; we take Xiao et al.'s Re = 5600 on h and the crest
bulk velocity (`data.re`). Each case is interpolated onto the model's interior nodes (linear on the points,
their periodic images at x -/+ L and no-slip points on both walls; nearest value outside their hull) and divided
by the DNS's own crest bulk velocity (its mean flux per column over H - 1), the model's unit. The package's
README forbids training or validating on its cases for a challenge score: we only test on them, and nothing
here is, or may be reported as, a challenge score.
"""

from __future__ import annotations

import math
import re

import numpy as np
import torch
from scipy.interpolate import griddata

from experiments.darsm.channel import WILCOX_1988, KOmega
from experiments.darsm.duct_data import CASE as DUCT_CASE
from experiments.darsm.duct_data import DuctDataModule, read_closure_challenge
from experiments.darsm.hills import Hills
from experiments.darsm.hills_mesh import HillsMesh, hill_profile
from reprolab.cli.errors import ConfigError

CASE = re.compile(r"^alpha_(\d)(\d)_(\d+)_(\d+)$")


def parse_case(name: str) -> tuple[float, float, float]:
    """'alpha_05_4071_2024' -> (alpha 0.5, L 4.071, H 2.024)."""
    match = CASE.match(name)
    if match is None:
        raise ConfigError(f"hills case '{name}' is not of the form alpha_<a><b>_<L*1000>_<H*1000>, "
                          "e.g. alpha_05_4071_2024")
    a, b, length, top = match.groups()
    return float(f"{a}.{b}"), int(length) / 1000.0, int(top) / 1000.0


def interpolate_case(hills: Hills, coords: np.ndarray, U: np.ndarray) -> dict:
    """Scattered (x, y) -> (u, v) / U_b,crest on the interior nodes (float64 tensors (nx, ny - 1))."""
    mesh = hills.mesh
    L, H = mesh.length, mesh.top
    x, y = coords[:, 0], coords[:, 1]
    floor = hill_profile(torch.as_tensor(x, dtype=torch.float64), mesh.alpha, L, mesh.hill_height)[0].numpy()
    if x.min() < -1e-9 or x.max() > L + 1e-9 or y.max() > H + 1e-6 or (y < floor - 1e-3).any():
        raise ConfigError(f"DNS points leave the hills domain (alpha {mesh.alpha}, L {L}, H {H}): wrong case geometry")
    xw = np.linspace(0.0, L, 4 * mesh.nx, endpoint=False)
    yw = hill_profile(torch.as_tensor(xw), mesh.alpha, L, mesh.hill_height)[0].numpy()
    walls = np.concatenate([np.stack([xw, yw], 1), np.stack([xw, np.full_like(xw, H)], 1)])
    points = np.concatenate([np.stack([x, y], 1), walls])
    values = np.concatenate([U[:, :2], np.zeros((len(walls), 2))])
    points = np.concatenate([points + np.array([shift, 0.0]) for shift in (-L, 0.0, L)])
    values = np.concatenate([values] * 3)
    nodes = np.stack([mesh.x[:, 1:-1].reshape(-1).numpy(), mesh.y[:, 1:-1].reshape(-1).numpy()], 1)
    linear = griddata(points, values, nodes, method="linear")
    nearest = griddata(points, values, nodes, method="nearest")
    field = np.where(np.isnan(linear), nearest, linear).reshape(*hills.shape, 2)
    u, v = (torch.as_tensor(field[..., i], dtype=torch.float64) for i in range(2))
    ub = crest_bulk_velocity(hills, u)
    return {"u": u / ub, "v": v / ub}


def crest_bulk_velocity(hills: Hills, u: torch.Tensor) -> torch.Tensor:
    """The mean over columns of each column's flux int u dy (trapezoidal, no-slip walls), over H - 1."""
    y = hills.mesh.y
    u_e = torch.cat([torch.zeros_like(u[:, :1]), u, torch.zeros_like(u[:, :1])], 1)
    flux = (0.5 * (u_e[:, 1:] + u_e[:, :-1]) * (y[:, 1:] - y[:, :-1])).sum(1)
    return flux.mean() / hills.flux


def make_hills(alpha: float, length: float, top: float, dx: float, ny: int, stretch: float, re: float,
               transport: KOmega = WILCOX_1988, upwind: float = 1.0, device=None) -> Hills:
    """The discretised case: nx = the multiple of 9 (the reach-4 colouring's period) nearest above L / dx."""
    nx = 9 * math.ceil(length / (9 * dx))
    mesh = HillsMesh(alpha, nx=nx, ny=ny, length=length, top=top, stretch=stretch, device=device)
    return Hills(mesh, re=re, transport=transport, upwind=upwind)


class DuctToHillsDataModule(DuctDataModule):
    """Train (and validate) on closure-challenge's ducts (`train_cases`, as `DuctDataModule`), test on its hills
    (`test_cases`, `alpha_*`): the train-on-duct / test-on-hills split of the paper's abstract."""

    def __init__(self, train_cases=("AR_1_Ret_360",), test_cases=("alpha_15_13929_2024", "alpha_15_13929_4048"),
                 ny: int = 24, nz: int = 24, stretch: float = 2.0, hills_dx: float = 0.25, hills_ny: int = 32,
                 hills_stretch: float = 2.0, hills_re: float = 5600.0, reader=None):
        super().__init__(train_cases, test_cases, ny, nz, stretch, reader)
        bad = [name for name in train_cases if CASE.match(name)]
        if bad:
            raise ConfigError(f"data.train_cases {bad} are hills: this split trains on ducts and only tests on hills")
        self.hills = {"dx": hills_dx, "ny": hills_ny, "stretch": hills_stretch, "re": hills_re}

    def build_case(self, name: str) -> dict:
        if DUCT_CASE.match(name):
            return super().build_case(name)
        alpha, length, top = parse_case(name)  # neither form: the hills form's one-line error
        data = (self.reader or read_closure_challenge)(name)  # read first: an unknown case lists the known ones
        hills = make_hills(alpha, length, top, **self.hills)
        truth = interpolate_case(hills, *data)
        return {"name": name.lower(), "kind": "hills", "alpha": alpha, "length": length, "top": top,
                "unseen": True, **truth}
