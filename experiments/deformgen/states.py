"""Initial rope states: the processes that make augmented training states and the test-state sets.

- `impulse` (DeformGen's dynamics-based state augmentation, §3.1): kick a local neighbourhood of the
  rope (a Gaussian window of `width` particles around a random particle, speed U(speed) in a random
  direction), simulate `duration` seconds on the table, settle. `impulses` kicks in a row.
- `grid` (SMG*, the reference's `uniform-grid` / gridrigid states): the source rope moved rigidly by
  (tx, ty, θ) from a uniform grid (`grid_n` points per axis over ±`grid_xy`, ±`grid_deg`).
- `noise` (the per-particle-noise baseline): source + i.i.d. N(0, σ²) on every coordinate, not settled.
- `drag` (an independent process, for testing only): grasp a random particle, drag it along
  `drag_legs` random straight legs of up to `drag_reach` m each, release, settle.
- `source`: the source state itself.
Every process but `noise` returns settled states (zero velocity, checked against the energy watchdog).
In 3-D (`sim.dim=3`) every process acts in the table plane: kicks, drags, the grid's moves and the noise are
horizontal, and the rope settles on the ground under gravity.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from experiments.deformgen.rope import RopeSim, planar
from reprolab.cli.errors import ConfigError

PROCESSES = ("source", "impulse", "grid", "noise", "drag")


@dataclass(frozen=True)
class StateProcess:
    speed: tuple[float, float] = (0.5, 1.2)     # impulse: peak speed, m/s
    width: float = 2.0                          # impulse: Gaussian window, particles
    impulses: int = 2
    duration: float = 0.6                       # s simulated after each kick
    grid_xy: float = 0.08                       # grid: half-range of the translation, m
    grid_deg: float = 30.0                      # grid: half-range of the rotation
    grid_n: int = 5
    grid_random: bool = False                   # True: uniform in the grid's box (a test set)
    noise_std: float = 0.02                     # noise: m
    drag_legs: int = 2
    drag_reach: float = 0.12                    # m per leg
    drag_speed: float = 0.2                     # m/s


def rigid(source: torch.Tensor, tx, ty, theta) -> torch.Tensor:
    """The source (1, N, D) rotated by theta (B,) about its centroid's vertical and moved by (tx, ty)."""
    c = source.mean(1, keepdim=True)
    cos, sin = torch.cos(theta)[:, None], torch.sin(theta)[:, None]
    d = source - c
    rot = torch.stack([d[..., 0] * cos - d[..., 1] * sin, d[..., 0] * sin + d[..., 1] * cos], -1)
    if source.shape[-1] > 2:
        rot = torch.cat([rot, d[..., 2:].expand(rot.shape[0], -1, -1)], -1)
    return rot + c + planar(torch.stack([tx, ty], -1), source.shape[-1])[:, None]


def make_states(kind: str, sim: RopeSim, source: torch.Tensor, n: int, gen: torch.Generator,
                proc: StateProcess) -> torch.Tensor:
    """`n` states (n, N, D) of process `kind` from the source state (1, N, D)."""
    if kind not in PROCESSES:
        raise ConfigError(f"state process {kind!r}; choose one of {', '.join(PROCESSES)}")
    u = lambda *shape: torch.rand(*shape, generator=gen, dtype=torch.float64)  # noqa: E731
    if kind == "source":
        return source.expand(n, -1, -1).clone()
    if kind == "grid":
        if proc.grid_random:
            tx, ty, th = (2 * u(n) - 1) * proc.grid_xy, (2 * u(n) - 1) * proc.grid_xy, (2 * u(n) - 1) * proc.grid_deg
        else:
            axis = torch.linspace(-1, 1, proc.grid_n, dtype=torch.float64)
            pick = torch.randint(0, proc.grid_n, (n, 3), generator=gen)
            tx, ty, th = axis[pick[:, 0]] * proc.grid_xy, axis[pick[:, 1]] * proc.grid_xy, axis[pick[:, 2]] * proc.grid_deg
        return rigid(source, tx, ty, th * math.pi / 180)
    if kind == "noise":
        noise = torch.randn(n, source.shape[1], 2, generator=gen, dtype=torch.float64) * proc.noise_std
        return source + planar(noise, sim.dim)
    x = source.expand(n, -1, -1).clone()
    if kind == "impulse":
        idx = torch.arange(sim.n, dtype=torch.float64)
        for _ in range(proc.impulses):
            centre = u(n, 1) * (sim.n - 1)
            window = torch.exp(-0.5 * ((idx[None] - centre) / proc.width) ** 2)
            angle = u(n) * 2 * math.pi
            speed = proc.speed[0] + u(n) * (proc.speed[1] - proc.speed[0])
            kick = planar(torch.stack([torch.cos(angle), torch.sin(angle)], -1) * speed[:, None], sim.dim)
            v = window[..., None] * kick[:, None]
            x, v = sim.simulate(x, v, round(proc.duration / sim.p.dt))
            x, _ = sim.settle(x, v)
        return x
    # drag: an independent process
    held = torch.randint(0, sim.n, (n,), generator=gen)
    v = torch.zeros_like(x)
    rows = torch.arange(n)
    grip = x[rows, held].clone()
    for _ in range(proc.drag_legs):
        angle = u(n) * 2 * math.pi
        reach = u(n) * proc.drag_reach
        to = grip + planar(torch.stack([torch.cos(angle), torch.sin(angle)], -1) * reach[:, None], sim.dim)
        steps = max(1, round(proc.drag_reach / proc.drag_speed / sim.p.dt))
        x, v = sim.simulate(x, v, steps, held, grip, to)
        grip = to
    x, _ = sim.settle(x, v)
    return x


def displacement_rms(states: torch.Tensor, source: torch.Tensor) -> float:
    """Root-mean-square particle displacement from the source, a size for each process."""
    return float(((states - source) ** 2).sum(-1).mean().sqrt())
