"""McConkey, Yee & Lien (2021), "A curated dataset for data-driven turbulence modelling", Scientific Data 8, 255
(CC BY 4.0; Kaggle `ryleymcconkey/ml-turbulence-dataset`, fetched by `mcconkey_fetch`). Per case, a RANS solution
and the DNS/LES reference interpolated onto the same RANS cells, one numpy file per field:

    <root>/<model>/<model>_<case>_<field>.npy    RANS (model komegasst, komega, kepsilon, kepsilonphitf): Cx, Cy,
                                                 Cz (cell centres), Ux, Uy, Uz, k, wallDistance, ... each (N,)
    <root>/labels/<case>_<field>.npy             the reference: U (N, 3) (or Ux, Uy, Uz), k, b, tau, ...

(a later release names the reference `REF/REF_<case>_<field>.npy`, as its REF.csv names columns `REF_*`; both are
read, in that order). Cases: square ducts `DUCT_<Re_b>` (Pinelli et al. 2010, Re_b = 2h U_b / nu from 1100 to
3500; streamwise x, cross-section (y, z)) and periodic hills `PHLL_case_<alpha>` (Xiao et al. 2020, slope factor
alpha 0.5-1.5, e.g. PHLL_case_1p0; streamwise x, wall-normal y); the bumps, converging-diverging channels and the
curved step are not read here.

A duct case is given to `duct_data.DuctDataModule`'s interface, a quadrant in units of h with the centre at (0, 0)
(`duct_quadrant`): the centre is the point of the section's extent (its middle or an end, per axis) nearest the
streamwise-velocity peak, so a full section, a half or a quadrant mesh all fold onto one quadrant; the extent is
the cell centres' plus the smallest wall distance (the wall-adjacent half cell) at each end. Re_tau of `DUCT_<Re_b>`
is Dean's (1978) correlation Re_tau = 0.175 Re_b^(7/8) (147 at Re_b 2205, where Uhlmann et al. 2007 report 150),
unless `re_tau` names it. `hills_case` loads a periodic-hills case; the hills solver (`hills.py`, README "Periodic
hills") is wired to closure-challenge's hills, not yet to these.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from reprolab.cli.errors import ConfigError, CorruptDataError, DatasetNotFoundError

KAGGLE_DATASET = "ryleymcconkey/ml-turbulence-dataset"
MODELS = ("komegasst", "komega", "kepsilon", "kepsilonphitf")
REFERENCE = ("labels/{case}_{field}.npy", "REF/REF_{case}_{field}.npy")
DUCT = re.compile(r"^DUCT_(\d+)$")
HILLS = re.compile(r"^PHLL_case_(\d)p(\d+)$")
RANS_FIELDS = ("Cx", "Cy", "Cz", "Ux", "Uy", "Uz", "k", "wallDistance")
SQUARE_TOLERANCE = 0.02   # a DUCT case's folded section must be square to 2 % (its aspect ratio is 1)


def fetch_hint(root: Path | str, case: str) -> str:
    return f"run `make data-mcconkey MCCONKEY_CASES={case}` (Kaggle API token needed) or set paths.data_dir; root {root}"


def dean_re_tau(re_b: float) -> float:
    """Dean (1978): Re_tau = 0.175 Re_b^(7/8), Re_b = 2h U_b / nu."""
    return 0.175 * re_b ** 0.875


def duct_geometry(name: str, re_tau: dict | None = None) -> tuple[float, float]:
    """'DUCT_2205' -> (aspect 1, Re_tau: `re_tau[name]` if given, else Dean's correlation at Re_b 2205)."""
    match = DUCT.match(name)
    if match is None:
        raise ConfigError(f"McConkey duct case '{name}' is not of the form DUCT_<Re_b>, e.g. DUCT_2205")
    return 1.0, float((re_tau or {}).get(name, dean_re_tau(float(match.group(1)))))


def hills_alpha(name: str) -> float:
    """'PHLL_case_1p2' -> the hill's slope factor 1.2."""
    match = HILLS.match(name)
    if match is None:
        raise ConfigError(f"McConkey hills case '{name}' is not of the form PHLL_case_<a>p<b>, e.g. PHLL_case_1p0")
    return float(f"{match.group(1)}.{match.group(2)}")


def _load(path: Path) -> np.ndarray:
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError) as err:
        raise CorruptDataError(f"{path} is not a readable .npy file ({err}); fetch it again (make data-mcconkey)") from err


def rans_field(root: Path, case: str, field: str, model: str = "komegasst") -> np.ndarray:
    path = Path(root) / model / f"{model}_{case}_{field}.npy"
    if not path.is_file():
        raise DatasetNotFoundError(f"McConkey file {path.relative_to(root)} not found: {fetch_hint(root, case)}")
    return _load(path)


def reference_field(root: Path, case: str, field: str) -> np.ndarray:
    tried = [Path(root) / pattern.format(case=case, field=field) for pattern in REFERENCE]
    for path in tried:
        if path.is_file():
            return _load(path)
    raise DatasetNotFoundError(f"McConkey reference {' or '.join(str(p.relative_to(root)) for p in tried)} not found: "
                               f"{fetch_hint(root, case)}")


def reference_velocity(root: Path, case: str) -> np.ndarray:
    """The reference mean velocity (N, 3): `U`, else `Ux`, `Uy`, `Uz` stacked."""
    try:
        return reference_field(root, case, "U")
    except DatasetNotFoundError:
        return np.stack([reference_field(root, case, f"U{c}") for c in "xyz"], 1)


def load_case(root: Path | str, case: str, model: str = "komegasst") -> dict[str, np.ndarray]:
    """One case: the RANS cell centres and fields `RANS_FIELDS` and the reference velocity `U_ref` (N, 3), every
    array checked to hold N cells (the dataset's shapes) and to be finite."""
    root = Path(root)
    if model not in MODELS:
        raise ConfigError(f"McConkey RANS model '{model}' unknown; one of {', '.join(MODELS)}")
    if not root.is_dir():
        raise DatasetNotFoundError(f"McConkey data folder {root} not found: {fetch_hint(root, case)}")
    out = {field: rans_field(root, case, field, model) for field in RANS_FIELDS}
    out["U_ref"] = reference_velocity(root, case)
    n = len(out["Cx"])
    for name, array in out.items():
        expected = (n, 3) if name == "U_ref" else (n,)
        if array.shape != expected:
            raise CorruptDataError(f"McConkey {case} {name} has shape {array.shape}, expected {expected} (the case's "
                                   f"{n} cells): a partial or mixed download; fetch the case again")
        if not np.isfinite(array).all():
            raise CorruptDataError(f"McConkey {case} {name} has non-finite values; fetch the case again")
    return out


def duct_quadrant(case: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """A duct case as `DuctDataModule.read` gives one: coords (N, 3) = (x, y, z) in h, centre (0, 0), walls y = z = 1,
    and U (N, 3) = (U, V, W) of the reference with V, W signed away from the centre (the quadrant's sense)."""
    yz, U = np.stack([case["Cy"], case["Cz"]], 1), case["U_ref"]
    if np.ptp(case["Cx"]) > 1e-6 * np.ptp(yz):
        raise ConfigError("the McConkey duct mesh is not a cross-section (Cx varies): not a fully developed duct case")
    half_cell = case["wallDistance"].min()                    # the wall-adjacent cells' centres lie half a cell in
    lo, hi, peak = yz.min(0) - half_cell, yz.max(0) + half_cell, yz[np.argmax(U[:, 0])]
    candidates = np.stack([lo, 0.5 * (lo + hi), hi])          # per axis: an end of the section or its middle
    centre = candidates[np.abs(candidates - peak).argmin(0), [0, 1]]
    offset = yz - centre
    h = np.maximum(hi - centre, centre - lo)                  # from the centre to the far wall
    if abs(h[1] / h[0] - 1.0) > SQUARE_TOLERANCE:
        raise ConfigError(f"the McConkey duct section folds to {h[0]:.4g} x {h[1]:.4g}, not a square: its centre was "
                          "not found (the streamwise-velocity peak should be at the duct's centre)")
    sign = np.where(offset >= 0, 1.0, -1.0)
    coords = np.concatenate([case["Cx"][:, None] / h[0], np.abs(offset) / h[0]], 1)
    return coords, np.stack([U[:, 0], U[:, 1] * sign[:, 0], U[:, 2] * sign[:, 1]], 1)


def hills_case(root: Path | str, case: str, model: str = "komegasst") -> dict[str, np.ndarray | float]:
    """A periodic-hills case for a future 2-D solver: the loaded fields plus `alpha`, the streamwise/wall-normal
    plane `xy` (N, 2) and the reference in-plane velocity `U_ref_xy` (N, 2) (the flow is statistically 2-D)."""
    alpha = hills_alpha(case)
    out = load_case(root, case, model)
    return {**out, "alpha": alpha, "xy": np.stack([out["Cx"], out["Cy"]], 1), "U_ref_xy": out["U_ref"][:, :2]}
