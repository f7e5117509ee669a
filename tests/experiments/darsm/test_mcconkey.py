"""McConkey et al.'s loader on small .npy files written in the dataset's layout (no network): the fold onto the
quadrant by hand, the shape checks, both reference layouts, the duct datamodule and a periodic-hills case."""

import numpy as np
import pytest
import torch

from experiments.darsm.mcconkey import (
    RANS_FIELDS,
    dean_re_tau,
    duct_geometry,
    duct_quadrant,
    hills_alpha,
    hills_case,
    load_case,
)
from experiments.darsm.mcconkey_duct import McConkeyDuctDataModule, synthetic_duct_case
from reprolab.cli.errors import ConfigError, CorruptDataError, DatasetNotFoundError

pytestmark = pytest.mark.usefixtures("float64_default")


def write_case(root, case, fields, model="komegasst", layout="labels"):
    """`fields` (RANS_FIELDS + U_ref) as the dataset's files: <model>/<model>_<case>_<f>.npy and the reference."""
    (root / model).mkdir(parents=True, exist_ok=True)
    for name in RANS_FIELDS:
        np.save(root / model / f"{model}_{case}_{name}.npy", fields[name])
    if layout == "labels":
        (root / "labels").mkdir(exist_ok=True)
        np.save(root / "labels" / f"{case}_U.npy", fields["U_ref"])
    else:   # the later release: REF/REF_<case>_Ux.npy, ... one component each
        (root / "REF").mkdir(exist_ok=True)
        for i, c in enumerate("xyz"):
            np.save(root / "REF" / f"REF_{case}_U{c}.npy", fields["U_ref"][:, i])


def four_by_four():
    """A full section [-1, 1]^2 of 4 x 4 cells (centres +-0.25, +-0.75; wall distance 0.25 at the wall cells)."""
    c = np.array([-0.75, -0.25, 0.25, 0.75])
    y, z = (a.ravel() for a in np.meshgrid(c, c, indexing="ij"))
    U = 1.0 - np.maximum(np.abs(y), np.abs(z))          # peak at the four central cells
    U[(y == 0.25) & (z == 0.25)] += 0.1                   # one of them the largest
    fields = {"Cx": np.full(16, 3.0), "Cy": y, "Cz": z, "Ux": U, "Uy": 0 * y, "Uz": 0 * y, "k": 0 * y + 0.1,
              "wallDistance": 1.0 - np.maximum(np.abs(y), np.abs(z))}
    return {**fields, "U_ref": np.stack([U, 0.1 * y, 0.2 * z], 1)}


def test_full_section_folds_onto_the_quadrant_by_hand():
    coords, U = duct_quadrant(four_by_four())
    # centre (0, 0) (the middle of [-1, 1], nearest the peak at (0.25, 0.25)); h = 0.75 + 0.25 = 1
    assert sorted(set(coords[:, 1])) == [0.25, 0.75] and sorted(set(coords[:, 2])) == [0.25, 0.75]
    i = 1   # the cell (y, z) = (-0.75, -0.25): V = -0.075 toward -y, W = -0.05: both away from the centre
    assert coords[i].tolist() == [3.0, 0.75, 0.25] and U[i].tolist() == pytest.approx([0.25, 0.075, 0.05])
    assert (U[:, 1:] >= 0).all()


def test_quadrant_mesh_folds_like_the_full_section():
    full = synthetic_duct_case(cells=8)
    keep = (full["Cy"] > 0) & (full["Cz"] > 0)
    quadrant = {k: v[keep] for k, v in full.items()}
    quadrant["Cy"], quadrant["Cz"] = quadrant["Cy"] + 2.0, quadrant["Cz"] - 1.0   # another origin: centre (2, -1)
    a, b = (np.unique(np.concatenate(duct_quadrant(c), 1).round(12), axis=0) for c in (full, quadrant))
    assert a.shape == (16, 6) and np.allclose(a, b)      # the full section's 64 cells fold onto the 16 of one quadrant
    assert a[:, 1:3].min() == pytest.approx(1 / 8) and a[:, 1:3].max() == pytest.approx(7 / 8)


def test_a_section_that_is_not_square_is_one_line_error():
    case = four_by_four()
    case["Cz"] = case["Cz"] * 2
    with pytest.raises(ConfigError, match="not a square"):
        duct_quadrant(case)


def test_both_reference_layouts_load_the_same(tmp_path):
    case = four_by_four()
    write_case(tmp_path / "a", "DUCT_1100", case)
    write_case(tmp_path / "b", "DUCT_1100", case, layout="REF")
    a, b = load_case(tmp_path / "a", "DUCT_1100"), load_case(tmp_path / "b", "DUCT_1100")
    assert np.array_equal(a["U_ref"], b["U_ref"]) and np.array_equal(a["U_ref"], case["U_ref"])


def test_a_field_of_another_length_is_one_line_error(tmp_path):
    case = four_by_four()
    case["k"] = case["k"][:-1]
    write_case(tmp_path, "DUCT_1100", case)
    with pytest.raises(CorruptDataError, match=r"k has shape \(15,\), expected \(16,\)"):
        load_case(tmp_path, "DUCT_1100")


def test_absent_data_names_the_make_target(tmp_path):
    with pytest.raises(DatasetNotFoundError, match="make data-mcconkey MCCONKEY_CASES=DUCT_3500"):
        load_case(tmp_path / "nowhere", "DUCT_3500")
    write_case(tmp_path, "DUCT_1100", four_by_four())
    (tmp_path / "labels" / "DUCT_1100_U.npy").unlink()
    with pytest.raises(DatasetNotFoundError, match=r"labels/DUCT_1100_Ux.npy or REF/REF_DUCT_1100_Ux.npy not found"):
        load_case(tmp_path, "DUCT_1100")


def test_case_names_and_dean_re_tau():
    assert dean_re_tau(2205.0) == pytest.approx(0.175 * 2205 ** 0.875) and 146 < dean_re_tau(2205.0) < 148
    assert duct_geometry("DUCT_2205") == (1.0, pytest.approx(dean_re_tau(2205.0)))
    assert duct_geometry("DUCT_2205", {"DUCT_2205": 150}) == (1.0, 150.0)
    assert hills_alpha("PHLL_case_1p2") == 1.2 and hills_alpha("PHLL_case_0p5") == 0.5
    with pytest.raises(ConfigError, match="DUCT_<Re_b>"):
        duct_geometry("AR_1_Ret_360")
    with pytest.raises(ConfigError, match="PHLL_case_<a>p<b>"):
        hills_alpha("PHLL_1p0")


def test_datamodule_reads_the_files_like_closure_challenge(tmp_path):
    for case in ("DUCT_1100", "DUCT_3500"):
        write_case(tmp_path, case, synthetic_duct_case(cells=24))
    dm = McConkeyDuctDataModule(tmp_path, train_cases=["DUCT_1100"], test_cases=["DUCT_3500"], ny=8, nz=8)
    dm.setup()
    train, test = dm.cases["DUCT_1100"], dm.cases["DUCT_3500"]
    assert (train["name"], train["unseen"], test["unseen"]) == ("duct_1100", False, True)
    assert train["re_tau"] == pytest.approx(dean_re_tau(1100.0)) and train["aspect"] == 1.0
    assert train["U"].shape == (8, 8) and float(train["U"].max()) > 1.0 > float(train["U"].min()) > 0
    V = train["V"]   # folded: away from the centre, >= 0 but for interpolation noise at the symmetry plane
    assert float(V.min()) > -0.1 * float(V.max()) > -1 and torch.allclose(V, train["W"].T, atol=1e-4)   # y <-> z
    with pytest.raises(ConfigError, match="DUCT_<Re_b>"):
        McConkeyDuctDataModule(tmp_path, test_cases=["AR_3_Ret_360"])


def test_periodic_hills_case_loads(tmp_path):
    n = 30
    rng = np.random.default_rng(0)
    case = {name: rng.uniform(0.1, 1.0, n) for name in RANS_FIELDS} | {"U_ref": rng.normal(size=(n, 3))}
    write_case(tmp_path, "PHLL_case_1p0", case)
    hills = hills_case(tmp_path, "PHLL_case_1p0")
    assert hills["alpha"] == 1.0 and hills["xy"].shape == (n, 2) and np.array_equal(hills["xy"][:, 1], case["Cy"])
    assert np.array_equal(hills["U_ref_xy"], case["U_ref"][:, :2])
