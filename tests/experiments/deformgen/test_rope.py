"""The spring-dashpot rope against analytic cases: a spring's period, damping decay, friction stopping
distance, rest length at equilibrium, and the watchdog that catches a time step too large for the springs."""

import math

import numpy as np
import pytest
import torch

from experiments.deformgen.rope import RopeParams, RopeSim, SimulationError


def pair(stretch=0.025, **kw):
    """Two particles joined by one spring of rest length 0.02, the second pulled out to `stretch`."""
    sim = RopeSim(RopeParams(n_particles=2, friction=0.0, drag=0.0, dashpot=0.0, **kw))
    x = torch.tensor([[[0.0, 0.0], [stretch, 0.0]]], dtype=torch.float64)
    return sim, x, torch.zeros_like(x)


def extension_series(sim, x, v, steps):
    out = []
    for _ in range(steps):
        x, v = sim.step(x, v)
        out.append(float(x[0, 1, 0] - x[0, 0, 0]) - sim.p.spacing)
    return np.array(out)


def test_single_spring_period_matches_two_pi_sqrt_reduced_mass_over_k():
    # relative coordinate: (m/2) x'' = -k x, so T = 2 pi sqrt(m / (2 k)) = 14.0496 ms for m = 0.02, k = 2000
    sim, x, v = pair(stretch_k=2000.0, mass=0.02, dt=1e-5)
    e = extension_series(sim, x, v, 6000)
    up = np.where((e[:-1] < 0) & (e[1:] >= 0))[0]
    period = np.diff(up).mean() * sim.p.dt
    assert period == pytest.approx(2 * math.pi * math.sqrt(0.02 / (2 * 2000.0)), rel=2e-3)


def test_dashpot_decays_the_amplitude_at_rate_c_over_m():
    # (m/2) x'' + c x' + k x = 0: the envelope decays as exp(-(c/m) t), c/m = 0.2 / 0.02 = 10 1/s
    sim = RopeSim(RopeParams(n_particles=2, friction=0.0, drag=0.0, dashpot=0.2, stretch_k=2000.0, mass=0.02, dt=1e-5))
    x = torch.tensor([[[0.0, 0.0], [0.025, 0.0]]], dtype=torch.float64)
    e = extension_series(sim, x, torch.zeros_like(x), 20000)
    peaks = [i for i in range(1, len(e) - 1) if e[i - 1] < e[i] >= e[i + 1] and e[i] > 0]
    rate = -np.log(e[peaks[5]] / e[peaks[0]]) / ((peaks[5] - peaks[0]) * sim.p.dt)
    assert rate == pytest.approx(10.0, rel=0.02)


def test_drag_multiplies_the_kinetic_energy_by_exp_minus_two_drag_t():
    sim = RopeSim(RopeParams(n_particles=3, friction=0.0, drag=2.0, dashpot=0.5, dt=1e-3))
    x = sim.straight()
    v = torch.zeros_like(x)
    v[..., 0] = 0.3                      # the rope translates rigidly: springs stay at rest
    e0 = float(sim.energy(x, v)[0])
    x, v = sim.simulate(x, v, 500)
    assert float(sim.energy(x, v)[0]) == pytest.approx(e0 * math.exp(-2 * 2.0 * 0.5), rel=1e-9)


def test_friction_stops_a_sliding_rope_after_v_squared_over_two_mu_g():
    sim = RopeSim(RopeParams(n_particles=3, friction=0.4, drag=0.0, dt=1e-4))
    x = sim.straight()
    v = torch.zeros_like(x)
    v[..., 1] = 1.0
    x1, v1 = sim.simulate(x, v, 5000)
    assert float(v1.abs().max()) == 0.0
    assert float(x1[0, 0, 1] - x[0, 0, 1]) == pytest.approx(1.0 / (2 * 0.4 * 9.81), rel=2e-3)


def test_settling_returns_every_spring_to_its_rest_length():
    sim = RopeSim(RopeParams(n_particles=10, friction=0.0, drag=5.0, dt=1e-3))
    x = sim.straight() * 1.3                 # every spring stretched by 30 %
    x, v = sim.settle(x, max_steps=20000, tol=1e-7)
    stretch, bend = sim.spring_lengths(x)
    assert torch.allclose(stretch, torch.full_like(stretch, 0.02), atol=1e-6)
    assert torch.allclose(bend, torch.full_like(bend, 0.04), atol=1e-6)
    assert float(sim.energy(x, v)[0]) < 1e-9


def test_energy_is_conserved_without_losses_at_a_stable_time_step():
    sim = RopeSim(RopeParams(n_particles=10, friction=0.0, drag=0.0, dashpot=0.0, dt=1e-4))
    x = sim.straight() + 0.002 * torch.randn(1, 10, 2, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    v = torch.zeros_like(x)
    e0 = float(sim.energy(x, v)[0])
    x, v = sim.simulate(x, v, 3000)
    assert float(sim.energy(x, v)[0]) == pytest.approx(e0, rel=0.05)


def test_a_time_step_past_the_stability_bound_is_caught():
    params = RopeParams(n_particles=10, friction=0.0, drag=0.0, dashpot=0.0, dt=0.02)
    assert params.dt > params.stable_dt()
    sim = RopeSim(params)
    x = sim.straight() + 0.002 * torch.randn(1, 10, 2, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    with pytest.raises(SimulationError, match="sim.dt=0.02 is too large"):
        sim.simulate(x, torch.zeros_like(x), 300)


def test_the_held_particle_follows_the_gripper():
    sim = RopeSim(RopeParams(n_particles=5, dt=1e-3))
    x = sim.straight(batch=2)
    held = torch.tensor([0, -1])
    start = x[:, 0].clone()
    to = start + torch.tensor([0.05, 0.0], dtype=torch.float64)
    x1, _ = sim.simulate(x, torch.zeros_like(x), 100, held, start, to)
    assert torch.allclose(x1[0, 0], to[0])
    assert torch.allclose(x1[1], x[1])       # the rope no gripper holds stays at rest
