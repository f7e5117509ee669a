"""The duct's truth: the DNS mean velocity that PyPI's `closure-challenge` 0.3.1 ships (MIT licence).

Its `ground_truth_test.npz` holds, per case, 1000 scattered points `<case>/coords` (x, y, z in metres) and the
mean velocity `<case>/U` (U, V, W) of a duct quadrant: centre at (0, 0), walls at y = h and z = AR h with
h = 1 mm (AR_1_Ret_360, AR_3_Ret_360 and AR_14_Ret_180 are the three ducts). Each case is interpolated onto
the model's nodes (piecewise linear on the points, their mirror images in the symmetry planes and the no-slip
walls; nearest value outside their hull) and each velocity divided by the bulk velocity of the interpolated U. The package's README forbids training or
validating on its cases for a challenge score: nothing here is, or may be reported as, a challenge score.
Install: `pip install -e '.[darsm]'` (or `pip install closure-challenge==0.3.1`).
"""

from __future__ import annotations

import re
from importlib import resources

import numpy as np
import torch
from scipy.interpolate import griddata

from experiments.darsm.data import CaseSplits
from experiments.darsm.duct import Duct
from reprolab.cli.errors import ConfigError
from reprolab.config.extras import require

HALF_HEIGHT = 1e-3          # metres: closure-challenge's duct half-height h
CASE = re.compile(r"^AR_(\d+)_Ret_(\d+)$")
EXACT_ASPECT = {14.0: 14.4}   # the name rounds: AR_14's points reach z = 14.4 h (Vinuesa et al. 2014's AR 14.4 duct)


def parse_case(name: str) -> tuple[float, float]:
    """'AR_3_Ret_360' -> (aspect 3, Re_tau 360); 'AR_14_Ret_180' -> (14.4, 180)."""
    match = CASE.match(name)
    if match is None:
        raise ConfigError(f"duct case '{name}' is not of the form AR_<aspect>_Ret_<re_tau>, e.g. AR_1_Ret_360")
    aspect = float(match.group(1))
    return EXACT_ASPECT.get(aspect, aspect), float(match.group(2))


def read_closure_challenge(name: str) -> tuple[np.ndarray, np.ndarray]:
    """(coords (N, 3), U (N, 3)) of one closure-challenge case, from the file the package ships."""
    package = require("closure_challenge", "darsm")
    with resources.as_file(resources.files(package) / "data" / "ground_truth_test.npz") as path:
        raw = np.load(path)
        if f"{name}/coords" not in raw:
            cases = sorted({k.split("/")[0] for k in raw.files})
            raise ConfigError(f"closure-challenge has no case '{name}'; it has {', '.join(cases)}")
        return raw[f"{name}/coords"], raw[f"{name}/U"]


def interpolate_case(duct: Duct, coords: np.ndarray, U: np.ndarray, half_height: float = HALF_HEIGHT) -> dict:
    """Scattered (x, y, z) -> (U, V, W) / U_bulk on the duct's unknown nodes (float64 tensors (ny, nz))."""
    y, z = coords[:, 1] / half_height, coords[:, 2] / half_height
    if y.max() > 1.0 + 1e-9 or z.max() > duct.aspect + 1e-9 or min(y.min(), z.min()) < -1e-9:
        raise ConfigError(f"DNS points leave the quadrant [0, 1] x [0, {duct.aspect:g}] (in h = {half_height} m): "
                          "wrong aspect ratio or half-height for this case")
    yn, zn = duct.y.cpu().numpy(), duct.z.cpu().numpy()
    wall = np.concatenate([np.stack([np.ones_like(zn), zn], 1), np.stack([yn, np.full_like(yn, duct.aspect)], 1)])
    points = np.concatenate([np.stack([y, z], 1), wall])
    values = np.concatenate([U, np.zeros((len(wall), 3))])
    mirrors = [(sy, sz) for sy in (1, -1) for sz in (1, -1)]     # the symmetry planes: V odd in y, W odd in z
    points = np.concatenate([points * np.array([sy, sz]) for sy, sz in mirrors])
    values = np.concatenate([values * np.array([1, sy, sz]) for sy, sz in mirrors])
    yy, zz = np.meshgrid(yn[:-1], zn[:-1], indexing="ij")
    nodes = np.stack([yy.ravel(), zz.ravel()], 1)
    linear = griddata(points, values, nodes, method="linear")
    nearest = griddata(points, values, nodes, method="nearest")
    field = np.where(np.isnan(linear), nearest, linear).reshape(*yy.shape, 3)
    out = {n: torch.as_tensor(field[..., i], dtype=torch.float64) for i, n in enumerate("UVW")}
    ub = (duct.weight * out["U"]).sum() / duct.aspect
    return {n: v / ub for n, v in out.items()}


class DuctDataModule(CaseSplits):
    """Train on `train_cases` (also validation), test on those and `test_cases`; one batch = every case of a split."""

    def __init__(self, train_cases=("AR_1_Ret_360",), test_cases=("AR_3_Ret_360", "AR_14_Ret_180"), ny: int = 24,
                 nz: int = 24, stretch: float = 2.0, reader=None):
        super().__init__()
        if not train_cases or not test_cases:
            raise ConfigError("data.train_cases and data.test_cases each need at least one duct case")
        if set(train_cases) & set(test_cases):
            raise ConfigError(f"data.train_cases and data.test_cases share {sorted(set(train_cases) & set(test_cases))}: "
                              "a duct is either trained on or held out")
        self.train_cases, self.test_cases = list(train_cases), list(test_cases)
        self.train_keys, self.test_keys = self.train_cases, self.test_cases
        self.ny, self.nz, self.stretch, self.reader = ny, nz, stretch, reader   # None: read_closure_challenge
        self.cases: dict[str, dict] = {}

    half_height = HALF_HEIGHT   # the unit of `read`'s coordinates: metres per h (McConkeyDuctDataModule's are in h)

    def case_geometry(self, name: str) -> tuple[float, float]:
        """(aspect, Re_tau) of a case name; another source of ducts overrides this and `read`."""
        return parse_case(name)

    def read(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(coords (N, 3): x, y, z in units of `half_height`, U (N, 3)) of one case's quadrant."""
        return (self.reader or read_closure_challenge)(name)

    def setup(self, stage: str | None = None) -> None:
        for name in self.train_cases + self.test_cases:
            if name not in self.cases:
                self.cases[name] = self.build_case(name)

    def build_case(self, name: str) -> dict:
        """One case's dict: its geometry and its truth on the nodes."""
        aspect, re_tau = self.case_geometry(name)
        duct = Duct(re_tau, aspect=aspect, ny=self.ny, nz=self.nz, stretch=self.stretch)
        truth = interpolate_case(duct, *self.read(name), half_height=self.half_height)
        return {"name": name.lower(), "aspect": aspect, "re_tau": re_tau, "unseen": name in self.test_cases, **truth}
