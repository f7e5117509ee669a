"""The routing task: gate crossings counted by hand, the routed-fraction success rule, the grasp rule,
and the scripted expert succeeding on the source state."""

import math

import torch

from experiments.deformgen.plans import Expert, ReplayPolicy, expert_plan
from experiments.deformgen.rope import RopeParams, RopeSim
from experiments.deformgen.routing import Gripper, RopeEnv, Slot


def line(x0, y, n=10, spacing=0.02):
    xs = x0 + spacing * torch.arange(n, dtype=torch.float64)
    return torch.stack([xs, torch.full_like(xs, y)], -1)[None]


def test_a_rope_through_the_slot_crosses_each_gate_with_one_stretch_and_two_bending_springs():
    slot = Slot(centre=(0.0, 0.0), half_length=0.03, half_width=0.025)
    rope = line(-0.101, 0.01)          # no particle exactly on a gate (x = -0.03 or 0.03)
    assert slot.gate_crossings(rope).tolist() == [[3, 3]]
    assert bool(slot.routed(rope)[0])
    assert slot.gate_crossings(line(-0.101, 0.03)).tolist() == [[0, 0]]   # beside the slot, outside its width
    assert slot.gate_crossings(line(-0.101 + 0.08, 0.0)).tolist() == [[0, 3]]   # through the exit gate only


def test_success_needs_three_routed_frames_in_the_last_seven_of_sixty():
    slot = Slot()
    flags = torch.zeros(4, 60, dtype=torch.bool)
    flags[0, -3:] = True               # 3 of the tail's ceil(60/9) = 7 frames: ceil(7 * 0.3) = 3 -> success
    flags[1, -2:] = True               # 2 -> failure
    flags[2, :50] = True               # routed earlier, not at the end -> failure
    flags[3, [-7, -5, -1]] = True
    assert slot.success(flags).tolist() == [True, False, False, True]


def env(**gripper):
    sim = RopeSim(RopeParams(stretch_k=1000.0, bend_k=50.0, friction=0.3, dashpot=1.0, dt=3e-3))
    return RopeEnv(sim, Slot(), Gripper(**gripper), horizon=Expert().horizon)


def test_a_grasp_needs_reach_and_an_aligned_closing_axis():
    e = env()
    x = e.sim.straight((0.0, 0.45))
    attempt = torch.tensor([True])
    at = lambda dx, yaw: torch.tensor([[float(x[0, 0, 0]) + dx, 0.45, yaw]], dtype=torch.float64)  # noqa: E731
    assert e.try_grasp(x, at(0.0, math.pi / 2), attempt).tolist() == [0]       # on the end particle, across the rope
    assert e.try_grasp(x, at(0.0, math.pi / 2 + math.radians(40)), attempt).tolist() == [-1]   # 40 deg off
    assert e.try_grasp(x, at(0.0, -math.pi / 2 + math.radians(20)), attempt).tolist() == [0]   # either sense
    assert e.try_grasp(x, at(-0.02, math.pi / 2), attempt).tolist() == [-1]    # out of reach
    assert e.try_grasp(x, at(0.0, math.pi / 2), torch.tensor([False])).tolist() == [-1]


def test_the_scripted_expert_routes_the_source_rope():
    e = env()
    source = e.sim.straight((0.0, 0.45))
    poses, grips = expert_plan(e, source, Expert())
    out = e.rollout(source, ReplayPolicy(poses, grips))
    assert bool(out["success"][0])
    assert out["obs"].shape == (1, e.horizon, e.obs_dim) and out["act"].shape == (1, e.horizon, 4)
    # the same plan on the rope moved 5 cm away misses its grasp and fails
    moved = source + torch.tensor([0.05, 0.0], dtype=torch.float64)
    assert not bool(e.rollout(moved, ReplayPolicy(poses, grips))["success"][0])
