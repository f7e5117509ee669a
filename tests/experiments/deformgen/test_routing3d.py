"""The routing task in 3-D (sim.dim=3): the clip's height in the gate rule, a grasp needs the gripper down at the
rope, the scripted expert lifts the rope's end and routes it, the state processes keep the rope on the ground, the
warp moves 3-D waypoints, and mismatched pose sizes are one clear error."""

import math

import pytest
import torch

from experiments.deformgen.plans import Expert, ReplayPolicy, expert_plan
from experiments.deformgen.rope import RopeParams, RopeSim
from experiments.deformgen.routing import Gripper, RopeEnv, Slot
from experiments.deformgen.states import StateProcess, make_states
from experiments.deformgen.warp import warp_poses
from reprolab.cli.errors import ConfigError

D = torch.float64
EXPERT = Expert(entry=(0.12, 0.0, 0.04), exit=(-0.10, 0.0, 0.02))


def env3(**slot):
    sim = RopeSim(RopeParams(dim=3, stretch_k=1000.0, bend_k=50.0, friction=0.3, dashpot=1.0, dt=3e-3))
    return RopeEnv(sim, Slot(**slot), Gripper(home=(0.0, 0.2, 0.1, math.pi / 2)), horizon=EXPERT.horizon)


def line3(z, n=10):
    xs = -0.101 + 0.02 * torch.arange(n, dtype=D)
    return torch.stack([xs, torch.full_like(xs, 0.01), torch.full_like(xs, z)], -1)[None]


def test_a_spring_counts_at_a_gate_only_below_the_clip_height():
    slot = Slot(centre=(0.0, 0.0), height=0.03)
    assert slot.gate_crossings(line3(0.0)).tolist() == [[3, 3]]       # on the ground, through the slot
    assert slot.gate_crossings(line3(0.05)).tolist() == [[0, 0]]      # carried over the clip
    tilted = line3(0.0)
    tilted[..., 2] = 0.005 * torch.arange(10, dtype=D)     # rising 5 mm a particle: it meets the entry gate (between
    assert slot.gate_crossings(tilted).tolist() == [[3, 0]]  # particles 3 and 4) 1.8 cm up, the exit (6, 7) 3.3 cm up


def test_a_3d_grasp_needs_the_gripper_down_at_the_rope():
    e = env3()
    x = e.sim.straight((0.0, 0.45))
    end = x[0, 0]
    attempt = torch.tensor([True])
    at = lambda z: torch.tensor([[float(end[0]), float(end[1]), z, math.pi / 2]], dtype=D)  # noqa: E731
    assert e.try_grasp(x, at(0.0), attempt).tolist() == [0]
    assert e.try_grasp(x, at(0.01), attempt).tolist() == [0]           # within the 1.5 cm reach
    assert e.try_grasp(x, at(0.05), attempt).tolist() == [-1]          # above it, out of reach
    assert (e.obs_dim, e.action_dim) == (6 * 30 + 6, 5)


def test_the_3d_expert_lifts_the_rope_end_and_routes_it():
    e = env3()
    source = e.sim.straight((0.0, 0.45))
    poses, grips = expert_plan(e, source, EXPERT)
    assert poses.shape == (1, e.horizon + 1, 4)
    lift = poses[0, 13 + 3 + 3 + 15, 2]                               # the entry waypoint: 4 cm up
    assert float(lift) == pytest.approx(0.04)
    out = e.rollout(source, ReplayPolicy(poses, grips))
    assert bool(out["success"][0])
    assert out["obs"].shape == (1, e.horizon, e.obs_dim) and out["act"].shape == (1, e.horizon, 5)
    end_height = out["obs"][0, :, 2].double() * e.obs_scale             # particle 0's z, as the policy sees it
    assert float(end_height.max()) == pytest.approx(0.04, abs=1e-6)        # the held end was lifted 4 cm
    assert float(out["final"][..., 2].abs().max()) < 1e-9                 # released: back on the ground


@pytest.mark.parametrize("kind", ["impulse", "grid", "drag", "noise"])
def test_3d_state_processes_keep_the_rope_on_the_ground(kind):
    e = env3()
    source = e.sim.straight((0.0, 0.45))
    states = make_states(kind, e.sim, source, 3, torch.Generator().manual_seed(0), StateProcess(noise_std=0.005))
    assert states.shape == (3, 30, 3)
    assert float(states[..., 2].abs().max()) < 1e-9
    assert float((states - source)[..., :2].norm(dim=-1).max()) > 0.003   # they moved in the plane


def test_the_3d_warp_moves_waypoints_by_the_field_and_dgstar_keeps_heights():
    p = torch.stack([torch.linspace(-0.2, 0.2, 11, dtype=D), torch.zeros(11, dtype=D), torch.zeros(11, dtype=D)], -1)
    poses = torch.tensor([[-0.2, 0.0, 0.0, 1.5], [-0.3, 0.1, 0.04, 1.5], [-0.4, 0.2, 0.02, 1.5]], dtype=D)
    shift = torch.tensor([0.05, -0.02, 0.01], dtype=D)
    grasp, manip = warp_poses(poses, poses[0], p, (p + shift)[None], mode="field", decay="none")
    assert torch.allclose(grasp[0, :3], poses[0, :3] + shift, atol=1e-9)
    assert torch.allclose(manip[0, :, :3], poses[:, :3] + shift, atol=1e-9)
    assert torch.allclose(manip[0, :, 3], poses[:, 3], atol=1e-9)
    # a turn about z by 0.2 of the rope on the ground: DG* turns x-y and yaw, leaves the heights
    c, s = math.cos(0.2), math.sin(0.2)
    r = torch.tensor([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]], dtype=D)
    grasp, manip = warp_poses(poses, poses[0], p, (p @ r.T)[None], mode="local_rigid", decay="none")
    assert torch.allclose(manip[0, :, :3], poses[:, :3] @ r.T, atol=1e-9)
    assert torch.allclose(manip[0, :, 3], poses[:, 3] + 0.2, atol=1e-9)
    _, field = warp_poses(poses, poses[0], p, (p @ r.T)[None], mode="field", grasp_k=5, manip_k=5, decay="none")
    assert float(field[0, 0, 3]) == pytest.approx(1.7, abs=1e-9)        # the field's yaw turns with the rope


def test_pose_sizes_that_do_not_match_the_dimension_are_one_clear_error():
    sim = RopeSim(RopeParams(dim=3))
    with pytest.raises(ConfigError, match=r"data.gripper.home=.* needs sim.dim \+ 1 = 4 entries"):
        RopeEnv(sim, Slot(), Gripper())
    with pytest.raises(ConfigError, match=r"data.expert.entry / exit need sim.dim=3 coordinates"):
        expert_plan(env3(), sim.straight((0.0, 0.45)), Expert())
