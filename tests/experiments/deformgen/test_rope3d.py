"""The 3-D rope (sim.dim=3) against analytic cases: a spring's period along a tilted axis while falling, free
fall z0 − g t²/2 and a landing that never sinks, friction that holds a rope below μ m g and stops one sliding
after v²/2μg, a rope lifted by the gripper hanging with each spring stretched by the weight below it, the
dashpot's energy decay, restitution, and bad keys as one clear error."""

import math

import numpy as np
import pytest
import torch

from experiments.deformgen.rope import RopeParams, RopeSim
from reprolab.cli.errors import ConfigError

G = 9.81


def sim3(**kw):
    return RopeSim(RopeParams(dim=3, **{"friction": 0.0, "drag": 0.0, "dashpot": 0.0, **kw}))


def unit(*xyz):
    a = torch.tensor(xyz, dtype=torch.float64)
    return a / a.norm()


def pair_along(axis, stretch, z0=1.0, **kw):
    """Two particles joined by one spring (rest 0.02 m), `stretch` long along the 3-D `axis`, at height z0."""
    sim = sim3(n_particles=2, **kw)
    a = torch.tensor([0.0, 0.0, z0], dtype=torch.float64)
    x = torch.stack([a, a + stretch * axis])[None]
    return sim, x, torch.zeros_like(x)


def extensions(sim, x, v, steps):
    out, energies = [], []
    for _ in range(steps):
        x, v = sim.step(x, v)
        out.append(float((x[0, 1] - x[0, 0]).norm()) - sim.p.spacing)
        energies.append(float(sim.energy(x, v)[0]))
    return np.array(out), np.array(energies), x


def test_a_tilted_spring_oscillates_with_period_two_pi_sqrt_m_over_2k_while_it_falls():
    # the relative coordinate obeys (m/2) e'' = -k e whatever the axis; uniform gravity moves only the centre
    axis = unit(1.0, -2.0, 2.0)
    sim, x, v = pair_along(axis, 0.025, stretch_k=2000.0, mass=0.02, dt=1e-5)
    e, _, x_end = extensions(sim, x, v, 6000)
    up = np.where((e[:-1] < 0) & (e[1:] >= 0))[0]
    assert np.diff(up).mean() * sim.p.dt == pytest.approx(2 * math.pi * math.sqrt(0.02 / (2 * 2000.0)), rel=2e-3)
    d = x_end[0, 1] - x_end[0, 0]
    assert torch.allclose(d / d.norm(), axis, atol=1e-9)           # it stays on its axis


def test_free_fall_follows_z0_minus_g_t_squared_over_two_then_lands_on_the_ground():
    sim = sim3(n_particles=4, dt=1e-3)
    x = sim.straight((0.1, -0.2, 0.5))
    v = torch.zeros_like(x)
    n = 200                                   # 0.2 s: z = 0.5 - 0.196 > 0, before contact
    x1, v1 = sim.simulate(x, v, n)
    # semi-implicit Euler falls g dt^2 n (n + 1) / 2, which is g t^2 / 2 plus g t dt / 2
    assert torch.allclose(x1[..., 2], torch.full_like(x1[..., 2], 0.5 - G * 1e-6 * n * (n + 1) / 2), atol=1e-12)
    assert float(x1[0, 0, 2]) == pytest.approx(0.5 - G * 0.2 ** 2 / 2, abs=G * 0.2 * 1e-3 / 2 + 1e-12)
    assert torch.allclose(v1[..., 2], torch.full_like(v1[..., 2], -G * 0.2), atol=1e-12)
    assert torch.allclose(x1[..., :2], x[..., :2], atol=1e-12)
    x2, v2 = sim.simulate(x1, v1, 300)                 # it lands (~0.32 s) and stays
    assert float(x2[..., 2].min()) >= 0.0 and float(x2[..., 2].abs().max()) < 1e-12
    assert float(v2.abs().max()) < 1e-12


def test_a_rope_resting_on_the_ground_stays_put():
    sim = sim3(n_particles=8, friction=0.5, dashpot=2.0, drag=1.0, dt=1e-3)
    x = sim.straight((0.0, 0.3), angle=0.7)
    x1, v1 = sim.simulate(x, torch.zeros_like(x), 2000)
    assert torch.equal(x1, x) and float(v1.abs().max()) == 0.0


@pytest.mark.parametrize("pull,moves", [(0.005, False), (0.02, True)])
def test_friction_holds_a_spring_pull_below_mu_m_g_and_not_above(pull, moves):
    # one spring of k 10 N/m stretched by 5 mm pulls 0.05 N < mu m g = 0.5 * 0.02 * 9.81 = 0.098 N; by 2 cm, 0.2 N
    sim = sim3(n_particles=2, stretch_k=10.0, friction=0.5, dt=1e-3)
    x = torch.tensor([[[0.0, 0.0, 0.0], [0.02 + pull, 0.0, 0.0]]], dtype=torch.float64)
    x1, _ = sim.simulate(x, torch.zeros_like(x), 200)
    assert bool((x1 - x).abs().max() > 1e-6) == moves
    assert float(x1[..., 2].abs().max()) == 0.0


def test_friction_stops_a_rope_sliding_on_the_ground_after_v_squared_over_two_mu_g():
    sim = sim3(n_particles=3, friction=0.4, dt=1e-4)
    x = sim.straight()
    v = torch.zeros_like(x)
    direction = unit(0.6, 0.8, 0.0)
    v[..., :] = direction
    x1, v1 = sim.simulate(x, v, 5000)
    assert float(v1.abs().max()) == 0.0
    travelled = x1[0, 0] - x[0, 0]
    assert float(travelled.norm()) == pytest.approx(1.0 / (2 * 0.4 * G), rel=2e-3)
    assert torch.allclose(travelled / travelled.norm(), direction, atol=1e-9)


def test_a_rope_lifted_by_the_gripper_hangs_with_each_spring_stretched_by_the_weight_below_it():
    # stretch springs only (bend_k 0: bending springs along a vertical line would share the load, statically
    # indeterminate). Spring i (particles i, i+1, counted from the held top) carries the N - 1 - i particles
    # below it, so its extension is (N - 1 - i) m g / k: 4.905e-4 m down to 9.81e-5 m for N 6, m 0.02, k 2000.
    n, m, k = 6, 0.02, 2000.0
    sim = sim3(n_particles=n, mass=m, stretch_k=k, bend_k=0.0, dashpot=1.0, drag=10.0, friction=0.5, dt=5e-4)
    x = sim.straight((0.0, 0.0))                                 # on the ground
    held = torch.tensor([0])
    grip = x[:, 0].clone()
    top = grip + torch.tensor([0.0, 0.0, 0.3], dtype=torch.float64)
    x, v = sim.simulate(x, torch.zeros_like(x), 1000, held, grip, top)      # lift the end 30 cm in 0.5 s
    assert torch.allclose(x[0, 0], top[0])
    for _ in range(40):                                                     # hold still until it stops swinging
        x, v = sim.simulate(x, v, 500, held, top, top)
        if float(v.norm(dim=-1).max()) < 1e-9:
            break
    assert float(v.norm(dim=-1).max()) < 1e-9
    stretch = sim.spring_lengths(x)[0][0] - sim.p.spacing
    want = torch.tensor([(n - 1 - i) * m * G / k for i in range(n - 1)], dtype=torch.float64)
    assert torch.allclose(stretch, want, rtol=1e-6, atol=1e-10)
    assert torch.allclose(x[0, :, :2], top[0, :2].expand(n, 2), atol=1e-9)     # it hangs plumb
    assert float(x[0, :, 2].min()) > 0.0                                         # clear of the ground


def test_the_dashpot_takes_energy_at_twice_c_over_m():
    # (m/2) e'' + c e' + k e = 0: the amplitude decays as exp(-(c/m) t), the energy at its peaks as exp(-2 (c/m) t)
    sim, x, v = pair_along(unit(0.0, 1.0, 1.0), 0.025, stretch_k=2000.0, mass=0.02, dashpot=0.2, gravity=0.0, dt=1e-5)
    e, energy, _ = extensions(sim, x, v, 9000)
    peaks = [i for i in range(1, len(e) - 1) if e[i - 1] < e[i] >= e[i + 1] and e[i] > 0]
    rate = -np.log(energy[peaks[5]] / energy[peaks[0]]) / ((peaks[5] - peaks[0]) * sim.p.dt)
    assert rate == pytest.approx(20.0, rel=0.02)


def test_restitution_sends_a_falling_particle_back_up_at_e_times_its_speed():
    sim = sim3(n_particles=2, restitution=0.5, dt=1e-4)
    x = sim.straight((0.0, 0.0, 0.05))
    v = torch.zeros_like(x)
    vz = []
    for _ in range(1500):
        x, v = sim.step(x, v)
        vz.append(float(v[0, 0, 2]))
        assert float(x[..., 2].min()) >= 0.0
    i = int(np.argmax(np.diff(vz)))                  # the bounce: gravity's g dt first, then v_z -> -e v_z
    assert vz[i + 1] == pytest.approx(-0.5 * (vz[i] - G * 1e-4), rel=1e-9)
    assert vz[i] == pytest.approx(-math.sqrt(2 * G * 0.05), rel=2e-3)     # it hit at sqrt(2 g h)


def test_bad_dimension_and_restitution_are_one_clear_error():
    with pytest.raises(ConfigError, match=r"sim.dim=4; choose 2 .* or 3"):
        RopeParams(dim=4)
    with pytest.raises(ConfigError, match=r"sim.restitution=1.5"):
        RopeParams(dim=3, restitution=1.5)
    with pytest.raises(ConfigError, match=r"2 or sim.dim=3 coordinates"):
        RopeSim(RopeParams(dim=3)).straight((0.0,))
