"""The hills' scores: relative L2, the recirculation bubble from the wall shear's sign changes, the DNS
interpolation (on a synthetic field the test writes) and, where closure-challenge is installed, its four hills."""

import importlib.util

import numpy as np
import pytest
import torch

from experiments.darsm.hills import Hills
from experiments.darsm.hills_data import crest_bulk_velocity, interpolate_case, parse_case
from experiments.darsm.hills_mesh import HillsMesh
from experiments.darsm.hills_metrics import recirculation, relative_l2
from reprolab.cli.errors import ConfigError

pytestmark = pytest.mark.usefixtures("float64_default")


def test_recirculation_finds_the_longest_negative_run_with_interpolated_crossings():
    x = np.arange(10.0)
    ut = np.array([1.0, 0.5, -0.5, -1.0, -1.0, -0.5, 0.5, 1.0, -0.1, 1.0])   # bubble 1.5 .. 5.5, and a blip at 8
    assert recirculation(x, ut, 10.0) == pytest.approx((1.5, 5.5))
    wrapped = np.roll(ut, 7)                                                  # the same bubble across x = L
    assert recirculation(x, wrapped, 10.0) == pytest.approx((8.5, 2.5))
    assert all(np.isnan(recirculation(x, np.ones(10), 10.0)))
    with pytest.raises(ValueError, match="negative everywhere"):
        recirculation(x, -np.ones(10), 10.0)


def test_parse_case_and_bad_names():
    assert parse_case("alpha_05_4071_2024") == (0.5, 4.071, 2.024)
    assert parse_case("alpha_15_13929_4048") == (1.5, 13.929, 4.048)
    with pytest.raises(ConfigError, match="alpha_<a><b>"):
        parse_case("PHLL_case_1p0")


def test_a_test_case_of_neither_form_or_unknown_names_the_forms_or_the_known_cases():
    from experiments.darsm.hills_data import DuctToHillsDataModule

    def reader(name):
        raise ConfigError(f"closure-challenge has no case '{name}'; it has alpha_15_13929_2024")

    data = DuctToHillsDataModule(reader=reader)
    with pytest.raises(ConfigError, match="alpha_<a><b>.*e.g. alpha_05_4071_2024"):
        data.build_case("hills")
    with pytest.raises(ConfigError, match="no case 'alpha_99_1_2'; it has alpha_15"):  # read before the mesh is built
        data.build_case("alpha_99_1_2")


def _synthetic(hills):
    """A smooth periodic field with no-slip walls, sampled at 1500 scattered points, scaled by 2.5."""
    mesh = hills.mesh
    gen = np.random.default_rng(0)
    xs = gen.uniform(0, mesh.length, 1500)
    from experiments.darsm.hills_mesh import hill_profile
    floor = hill_profile(torch.as_tensor(xs), mesh.alpha, mesh.length)[0].numpy()
    ys = floor + gen.uniform(0, 1, 1500) * (mesh.top - floor)

    def field(x, y, yb):
        zeta = (y - yb) / (mesh.top - yb)
        return np.stack([2.5 * zeta * (1 - zeta) * (1 + 0.2 * np.cos(2 * np.pi * x / mesh.length)),
                         0.3 * zeta * (1 - zeta) * np.sin(2 * np.pi * x / mesh.length), 0 * x], -1)

    return np.stack([xs, ys, 0 * xs], 1), field(xs, ys, floor), field


def test_interpolation_recovers_a_smooth_field_in_crest_bulk_units():
    hills = Hills(HillsMesh(1.0, nx=27, ny=20), re=5600.0)
    coords, U, field = _synthetic(hills)
    truth = interpolate_case(hills, coords, U)
    m = hills.mesh
    exact = field(m.x[:, 1:-1].numpy(), m.y[:, 1:-1].numpy(), m.y[:, :1].numpy())
    ub = float(crest_bulk_velocity(hills, torch.as_tensor(exact[..., 0])))
    assert float(crest_bulk_velocity(hills, truth["u"])) == pytest.approx(1.0, abs=1e-12)
    assert float(relative_l2(hills, truth["u"], torch.as_tensor(exact[..., 0] / ub))) < 0.02
    assert float(relative_l2(hills, truth["v"], torch.as_tensor(exact[..., 1] / ub))) < 0.05
    with pytest.raises(ConfigError, match="leave the hills domain"):
        interpolate_case(hills, coords + np.array([0.0, 5.0, 0.0]), U)


@pytest.mark.skipif(importlib.util.find_spec("closure_challenge") is None,
                    reason="closure-challenge not installed (pip install -e '.[darsm]')")
@pytest.mark.parametrize("name", ["alpha_05_4071_2024", "alpha_15_13929_4048"])
def test_closure_challenge_hills_interpolate_to_a_dns_like_field(name):
    from experiments.darsm.duct_data import read_closure_challenge

    alpha, length, top = parse_case(name)
    hills = Hills(HillsMesh(alpha, nx=36, ny=24, length=length, top=top), re=5600.0)
    truth = interpolate_case(hills, *read_closure_challenge(name))
    u = truth["u"]
    assert float(u.max()) > 1.0 and float(u.min()) < 0.0           # a jet over the crest and a recirculation
    assert float(truth["v"].abs().max()) < float(u.abs().max())
