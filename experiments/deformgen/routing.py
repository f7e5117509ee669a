"""The rope-routing task: drag the rope through a fixed slot (the clip of the paper's `insert_rope` task).

Success follows the reference code's `rope_routed` rule (`experiments/replay.py`, `_evaluate_clip_success`):
a frame is *routed* when at least `min_crossings` springs cross the slot's entry gate AND its exit gate
inside the slot's width (the reference counts spring–plane intersections of the groove's two walls); an
episode succeeds when, in its last ⌈T · tail_ratio⌉ frames, at least ⌈tail · required_ratio⌉ are routed
(tail_ratio 1/9, required_ratio 0.3 as released).

`RopeEnv` runs a batch of episodes: a kinematic parallel gripper (x, y, yaw) moves by the commanded
(Δx, Δy, Δyaw) each control step and grasps, when it closes, the nearest particle within `grasp_radius`
if its closing axis lies within `yaw_tolerance_deg` of that particle's rope normal.

In 3-D (`sim.dim=3`) the gripper is (x, y, z, yaw) and moves by (Δx, Δy, Δz, Δyaw), its closing axis stays
horizontal, and the slot is a clip standing on the ground `height` m tall: a spring counts at a gate only
where it crosses it below that height (a rope carried over the clip is not routed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from experiments.deformgen.rope import RopeSim, planar
from reprolab.cli.errors import ConfigError


@dataclass(frozen=True)
class Slot:
    """The goal: a slot of half-length `half_length` along `angle` and half-width `half_width`."""

    centre: tuple[float, float] = (-0.45, 0.60)
    angle: float = 0.0
    half_length: float = 0.03
    half_width: float = 0.025
    min_crossings: int = 2
    tail_ratio: float = 1 / 9
    required_ratio: float = 0.3
    height: float = 0.03            # 3-D only: the clip's height above the ground, m

    def local(self, x: torch.Tensor) -> torch.Tensor:
        """Points in slot coordinates (u along the slot axis, w across it; in 3-D the height after them)."""
        c, s = math.cos(self.angle), math.sin(self.angle)
        d = x[..., :2] - torch.tensor(self.centre, dtype=x.dtype)
        return torch.cat([torch.stack([d[..., 0] * c + d[..., 1] * s, -d[..., 0] * s + d[..., 1] * c], -1),
                          x[..., 2:]], -1)

    def gate_crossings(self, x: torch.Tensor, offsets=(1, 2)) -> torch.Tensor:
        """(B, 2) numbers of springs (stretch and bending) crossing the entry (u = −h) and exit (u = +h) gates
        inside the slot (|w| ≤ half_width; in 3-D also below `height`)."""
        q = self.local(x)
        counts = torch.zeros(x.shape[0], 2, dtype=torch.long)
        for o in offsets:
            a, b = q[:, :-o], q[:, o:]
            for g, u_gate in enumerate((-self.half_length, self.half_length)):
                ua, ub = a[..., 0] - u_gate, b[..., 0] - u_gate
                crosses = (ua * ub <= 0) & (ua != ub)
                t = ua / (ua - ub).where(ua != ub, torch.ones_like(ua))
                w = a[..., 1] + t * (b[..., 1] - a[..., 1])
                inside = crosses & (w.abs() <= self.half_width)
                if q.shape[-1] > 2:
                    inside &= a[..., 2] + t * (b[..., 2] - a[..., 2]) <= self.height
                counts[:, g] += inside.sum(1)
        return counts

    def routed(self, x: torch.Tensor) -> torch.Tensor:
        """(B,) bool: the rope runs through the slot in this frame."""
        return (self.gate_crossings(x) >= self.min_crossings).all(1)

    def success(self, flags: torch.Tensor) -> torch.Tensor:
        """(B,) bool from (B, T) routed flags: enough routed frames in the tail window."""
        steps = flags.shape[1]
        tail = max(1, math.ceil(steps * self.tail_ratio))
        need = max(1, math.ceil(tail * self.required_ratio))
        return flags[:, -tail:].sum(1) >= need


@dataclass(frozen=True)
class Gripper:
    home: tuple[float, ...] = (0.0, 0.2, math.pi / 2)   # x, y, yaw of the closing axis (3-D: x, y, z, yaw)
    grasp_radius: float = 0.015
    yaw_tolerance_deg: float = 30.0
    max_step: float = 0.05          # m per control step
    max_turn: float = 0.3           # rad per control step


def tangents(x: torch.Tensor) -> torch.Tensor:
    """(B, N, D) unit tangents of the rope (central differences, one-sided at the ends)."""
    d = torch.cat([x[:, 1:2] - x[:, :1], x[:, 2:] - x[:, :-2], x[:, -1:] - x[:, -2:-1]], 1)
    return d / d.norm(dim=-1, keepdim=True).clamp_min(1e-12)


class RopeEnv:
    """Batched closed-loop episodes of `horizon` control steps of `control_dt` seconds each."""

    def __init__(self, sim: RopeSim, slot: Slot, gripper: Gripper, control_dt: float = 0.1, horizon: int = 60,
                 obs_scale: float = 0.5):
        self.sim, self.slot, self.gripper = sim, slot, gripper
        self.dim = sim.dim
        if len(gripper.home) != self.dim + 1:
            raise ConfigError(f"data.gripper.home={list(gripper.home)} needs sim.dim + 1 = {self.dim + 1} entries "
                              f"(position, yaw)")
        self.substeps = max(1, round(control_dt / sim.p.dt))
        self.horizon, self.obs_scale = horizon, obs_scale

    @property
    def action_dim(self) -> int:
        """D motion entries, dyaw, grip (> 0.5 closes): 4 in 2-D, 5 in 3-D."""
        return self.dim + 2

    @property
    def obs_dim(self) -> int:
        """2 D N rope coordinates, D gripper position, cos/sin yaw, time: 4 N + 5 in 2-D, 6 N + 6 in 3-D."""
        return 2 * self.dim * self.sim.n + self.dim + 3

    def observe(self, x, pose, t: int) -> torch.Tensor:
        """Policy input: rope particles in the world and relative to the gripper, gripper (x, y), all divided
        by obs_scale; cos/sin yaw; t / T. The gripper's own open/closed state is left out: in the demos the grip
        command equals it at every step but the one that closes, so a policy that sees it learns to copy it
        and never closes (the copycat shortcut of behaviour cloning)."""
        b = x.shape[0]
        parts = [x.reshape(b, -1) / self.obs_scale, (x - pose[:, None, :-1]).reshape(b, -1) / self.obs_scale,
                 pose[:, :-1] / self.obs_scale, torch.cos(pose[:, -1:]), torch.sin(pose[:, -1:]),
                 torch.full((b, 1), t / self.horizon, dtype=x.dtype)]
        return torch.cat(parts, 1).float()

    def try_grasp(self, x, pose, attempt) -> torch.Tensor:
        """(B,) particle index grasped by the rows in `attempt` (-1 where nothing is in reach and aligned)."""
        dist = (x - pose[:, None, :-1]).norm(dim=-1)
        near = dist.argmin(1)
        rows = torch.arange(x.shape[0])
        axis = planar(torch.stack([torch.cos(pose[:, -1]), torch.sin(pose[:, -1])], -1), self.dim)
        along = (tangents(x)[rows, near] * axis).sum(-1).abs()      # |cos(axis, tangent)|: 0 when normal
        ok = attempt & (dist[rows, near] <= self.gripper.grasp_radius)
        ok &= along <= math.sin(math.radians(self.gripper.yaw_tolerance_deg))
        return torch.where(ok, near, torch.full_like(near, -1))

    def clip(self, action: torch.Tensor) -> torch.Tensor:
        g, d = self.gripper, self.dim
        step = action[:, :d]
        norm = step.norm(dim=-1, keepdim=True).clamp_min(1e-12)
        step = step * (g.max_step / norm).clamp(max=1.0)
        return torch.cat([step, action[:, d:d + 1].clamp(-g.max_turn, g.max_turn),
                          (action[:, d + 1:d + 2] > 0.5).double()], 1)

    def rollout(self, x0: torch.Tensor, policy) -> dict:
        """Run `policy(obs, t) -> (B, action_dim) action` from settled states `x0`; returns observations, executed
        actions, routed flags per frame and success."""
        b = x0.shape[0]
        x, v = x0.double().clone(), torch.zeros_like(x0, dtype=torch.float64)
        pose = torch.tensor(self.gripper.home, dtype=torch.float64).expand(b, -1).clone()
        closed = torch.zeros(b, dtype=torch.bool)
        held = torch.full((b,), -1, dtype=torch.long)
        obs, acts, flags = [], [], []
        for t in range(self.horizon):
            o = self.observe(x, pose, t)
            a = self.clip(policy(o, t).double())
            close = a[:, -1] > 0.5
            grabbed = self.try_grasp(x, pose, close & ~closed)
            held = torch.where(close & ~closed, grabbed, torch.where(close, held, torch.full_like(held, -1)))
            closed = close
            new_pose = pose + a[:, :-1]
            x, v = self.sim.simulate(x, v, self.substeps, held, pose[:, :-1], new_pose[:, :-1])
            pose = new_pose
            obs.append(o)
            acts.append(a.float())
            flags.append(self.slot.routed(x))
        flags = torch.stack(flags, 1)
        return {"obs": torch.stack(obs, 1), "act": torch.stack(acts, 1), "routed": flags,
                "success": self.slot.success(flags), "final": x}
