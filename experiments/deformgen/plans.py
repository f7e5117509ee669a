"""Gripper plans: the scripted expert's source demonstration, its warped copies, and open-loop replay.

A plan is a pose per control step (position, yaw): (x, y, yaw) in 2-D, (x, y, z, yaw) in 3-D, (B, T + 1, D + 1),
and a grip command per step, (B, T): an
approach from the home pose to the grasp pose, `dwell_steps` open and `close_steps` closed there, then the
manipulation (through the slot) and the release, which the warps move (the reference's approach /
grasp / manipulation phases of `add_approach_phase`: the approach is re-interpolated to the warped grasp).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from experiments.deformgen.routing import RopeEnv, tangents
from experiments.deformgen.warp import warp_poses, wrap
from reprolab.cli.errors import ConfigError


@dataclass(frozen=True)
class Expert:
    """The scripted expert: grasp particle `grasp_index`, pull it to `entry` (before the slot, along its
    axis) and on through the slot to `exit`, open, hold. Points are in slot coordinates (u, w), in 3-D (u, w, height): the expert lifts the rope's end."""

    grasp_index: int = 0
    entry: tuple[float, ...] = (0.12, 0.0)
    exit: tuple[float, ...] = (-0.10, 0.0)
    approach_steps: int = 13
    dwell_steps: int = 3            # open at the grasp pose before closing: a policy closing early still grasps
    close_steps: int = 3
    leg1_steps: int = 15
    leg2_steps: int = 17
    release_steps: int = 9

    @property
    def horizon(self) -> int:
        return (self.approach_steps + self.dwell_steps + self.close_steps + self.leg1_steps + self.leg2_steps
                + self.release_steps)


def lerp(a: torch.Tensor, b: torch.Tensor, steps: int) -> torch.Tensor:
    """`steps` poses after `a`, ending at `b` (B, steps, P); yaw (the last entry) takes the short way round."""
    s = torch.arange(1, steps + 1, dtype=a.dtype)[None, :, None] / steps
    d = b - a
    d = torch.cat([d[..., :-1], wrap(d[..., -1:])], -1)
    return a[:, None] + s * d[:, None]


def approach(home: torch.Tensor, grasp: torch.Tensor, expert: Expert) -> torch.Tensor:
    """Home → grasp, then `dwell_steps` + `close_steps` at the grasp: (B, approach + dwell + close + 1, P) poses."""
    b = grasp.shape[0]
    home = home.expand(b, -1)
    return torch.cat([home[:, None], lerp(home, grasp, expert.approach_steps),
                      grasp[:, None].expand(-1, expert.dwell_steps + expert.close_steps, -1)], 1)


def grip_commands(expert: Expert, batch: int) -> torch.Tensor:
    e = expert
    closed = e.close_steps + e.leg1_steps + e.leg2_steps
    return torch.cat([torch.zeros(e.approach_steps + e.dwell_steps), torch.ones(closed),
                      torch.zeros(e.release_steps)]).expand(batch, -1)


def expert_plan(env: RopeEnv, source: torch.Tensor, expert: Expert) -> tuple[torch.Tensor, torch.Tensor]:
    """The source demonstration on the source state (1, N, D): poses (1, T + 1, D + 1), grips (1, T)."""
    if expert.horizon != env.horizon:
        raise ValueError(f"the expert's plan has {expert.horizon} steps but the episode {env.horizon}")
    if not 0 <= expert.grasp_index < source.shape[1]:
        raise ValueError(f"expert.grasp_index={expert.grasp_index} is not a particle of a {source.shape[1]}-particle rope")
    dim = source.shape[-1]
    if len(expert.entry) != dim or len(expert.exit) != dim:
        raise ConfigError(f"data.expert.entry / exit need sim.dim={dim} coordinates (along, across"
                          f"{', height' if dim == 3 else ''}); got {list(expert.entry)}, {list(expert.exit)}")
    slot = env.slot
    c, s = math.cos(slot.angle), math.sin(slot.angle)
    to_world = lambda uw: torch.tensor(  # noqa: E731
        [slot.centre[0] + uw[0] * c - uw[1] * s, slot.centre[1] + uw[0] * s + uw[1] * c, *uw[2:]], dtype=torch.float64)
    p = source[0, expert.grasp_index]
    t = tangents(source)[0, expert.grasp_index]
    home = torch.tensor(env.gripper.home, dtype=torch.float64)[None]
    normal = torch.atan2(t[0], -t[1])                                  # closing axis along the rope normal,
    turn = wrap(2 * (normal - home[0, -1])) / 2                        # the one of its two senses nearest home
    grasp = torch.cat([p, (home[0, -1] + turn)[None]])[None]
    entry = torch.cat([to_world(expert.entry), grasp[0, -1:]])[None]
    exit_ = torch.cat([to_world(expert.exit), grasp[0, -1:]])[None]
    manip = torch.cat([lerp(grasp, entry, expert.leg1_steps), lerp(entry, exit_, expert.leg2_steps),
                       exit_[:, None].expand(-1, expert.release_steps, -1)], 1)
    poses = torch.cat([approach(home, grasp, expert), manip], 1)
    return poses, grip_commands(expert, 1)


def manipulation_start(expert: Expert) -> int:
    """Index of the grasp pose that begins the manipulation phase in a plan's poses."""
    return expert.approach_steps + expert.dwell_steps + expert.close_steps


def warp_plan(env: RopeEnv, poses, grips, source, states, expert: Expert, **warp) -> tuple[torch.Tensor, torch.Tensor]:
    """The source plan warped to each state (B, N, D): re-approach to the warped grasp, warped manipulation."""
    m = manipulation_start(expert)
    grasp, manip = warp_poses(poses[0, m:], poses[0, m], source[0], states, **warp)
    home = torch.tensor(env.gripper.home, dtype=torch.float64)[None]
    new = torch.cat([approach(home, grasp, expert)[:, :-1], manip], 1)
    return new, grips.expand(states.shape[0], -1)


class ReplayPolicy:
    """Open-loop replay of plans (B, T + 1, P) / (B, T): action_t = poses[t + 1] − poses[t], grip_t."""

    def __init__(self, poses: torch.Tensor, grips: torch.Tensor):
        d = poses[:, 1:] - poses[:, :-1]
        self.actions = torch.cat([d[..., :-1], wrap(d[..., -1:]), grips[..., None].to(d.dtype)], -1)

    def __call__(self, obs, t: int) -> torch.Tensor:
        return self.actions[:, t]
