"""The duct datamodule on McConkey et al.'s square ducts (`mcconkey`): `DuctDataModule` with their cases and reader.

Cases `DUCT_<Re_b>` (Pinelli et al. 2010's DNS on the RANS mesh), each folded onto the quadrant and interpolated
onto the model's nodes exactly as closure-challenge's ducts are (`duct_data.interpolate_case`). Default split:
train on Re_b 1100, 1500, 2205 (Re_tau ~80-147 by Dean's correlation), test on 2900 and 3500 (~187-221): unseen,
higher Reynolds numbers. `fake_setup` (reprolab.data.fake) replaces the files by `synthetic_duct_case`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from experiments.darsm.duct_data import DuctDataModule
from experiments.darsm.mcconkey import duct_geometry, duct_quadrant, load_case

FAKE_CELLS = 48   # cells per side of the fake full section (2304 cells)


def synthetic_duct_case(cells: int = FAKE_CELLS, half_width: float = 0.5) -> dict[str, np.ndarray]:
    """A full square section [-a, a]^2 of cell centres in a McConkey case's fields: a smooth U with no slip at the
    walls and a cross flow of corner-vortex parity (V odd in y, W odd in z); for the fake datamodule and tests."""
    edges = np.linspace(-half_width, half_width, cells + 1)
    c = 0.5 * (edges[1:] + edges[:-1])
    y, z = (a.ravel() for a in np.meshgrid(c, c, indexing="ij"))
    s, t = y / half_width, z / half_width
    U = (1 - s ** 4) * (1 - t ** 4)
    cross = 0.02 * (1 - s ** 2) * (1 - t ** 2)
    wall = half_width - np.maximum(np.abs(y), np.abs(z))
    case = {"Cx": np.zeros_like(y), "Cy": y, "Cz": z, "Ux": U, "Uy": np.zeros_like(y), "Uz": np.zeros_like(y),
            "k": 0.01 * U, "wallDistance": wall}
    return {**case, "U_ref": np.stack([U, cross * s * t ** 2, cross * t * s ** 2], 1)}


class McConkeyDuctDataModule(DuctDataModule):
    half_height = 1.0   # duct_quadrant's coordinates are already in h

    def __init__(self, data_dir: str | Path, train_cases=("DUCT_1100", "DUCT_1500", "DUCT_2205"),
                 test_cases=("DUCT_2900", "DUCT_3500"), model: str = "komegasst", re_tau: dict | None = None,
                 ny: int = 24, nz: int = 24, stretch: float = 2.0):
        super().__init__(train_cases, test_cases, ny=ny, nz=nz, stretch=stretch)
        self.data_dir, self.model, self.re_tau = Path(data_dir), model, dict(re_tau or {})
        for name in self.train_cases + self.test_cases:
            duct_geometry(name, self.re_tau)       # a bad case name fails here, before any file is read

    def case_geometry(self, name: str) -> tuple[float, float]:
        return duct_geometry(name, self.re_tau)

    def read(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        return duct_quadrant(load_case(self.data_dir, name, self.model))

    def fake_setup(self, stage: str | None = None) -> None:
        """Every case from `synthetic_duct_case` (the dataset's fields and shapes), through the real fold."""
        self.read = lambda name: duct_quadrant(synthetic_duct_case())
        super().setup(stage)
