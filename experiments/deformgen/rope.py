"""A spring–dashpot rope, vectorised over a batch of ropes (B, N, D) in torch: planar on a table (D = 2,
`sim.dim=2`, the default) or in space over a ground plane z = 0 (D = 3), one code path for both.

The spring–mass model DeformGen simulates with (PhysTwin, `qqtt/model/diff_simulator/spring_mass_warp.py`,
which the reference code's `sim/physics/phystwin.py` drives): every spring pulls with a Hooke force
k (|d| − L) d̂ plus a dashpot c ((v_j − v_i)·d̂) d̂ along its axis, each velocity is multiplied by
exp(−dt · drag) per step, and semi-implicit Euler integrates (v ← v + F/m dt, x ← x + v dt). Stretch
springs join neighbours (i, i+1), bending springs (i, i+2). A kinematic gripper holds one particle per
rope: that particle's position and velocity are the gripper's (in 3-D it can lift it off the ground).

The planar table (D = 2): Coulomb friction takes μ g dt of speed per step and never reverses a velocity,
so a rope at rest stays put unless its springs pull harder than friction holds.

The ground (D = 3), PhysTwin's `integrate_ground_collision`: gravity g pulls along −z; a particle whose
step would carry it below z = 0 while moving down is in contact: its normal velocity v_z becomes
−e v_z (e = `sim.restitution`, 0: the inward velocity is removed), its tangential velocity v_t is scaled by
max(0, 1 − μ (1 + e) |v_z| / |v_t|) (Coulomb friction in impulse form: the tangential impulse is at most μ
times the normal one), and it moves with the old velocity until the time of impact −z / v_z and with the new
one after, so it lands on the plane, never below. A particle resting on the ground loses v_z = g dt a step,
so the friction takes μ g dt of speed, the planar rule again. PhysTwin ignores contacts slower than 1e-4 m/s;
here every downward one counts (with dt below 1e-5 s, g dt is under that threshold and a resting rope would
sink), and a particle found below the plane (only a kinematic gripper can put it there) is set back on it.

A time step too large for the springs makes explicit integration gain energy without a sound; every
call of `simulate` checks the particle speeds and raises `SimulationError` (naming the stable bound
2/ω_max, ω_max = 2 √(k_max / m)) before a blown-up state reaches the data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from reprolab.cli.errors import ConfigError, ReprolabError


class SimulationError(ReprolabError):
    """The integration blew up (non-finite or runaway speeds): the time step is too large for the springs."""


@dataclass(frozen=True)
class RopeParams:
    """Physical constants of the rope (SI units); every field is a `sim.*` config key."""

    n_particles: int = 30
    spacing: float = 0.02          # rest length of a stretch spring, m
    mass: float = 0.02             # per particle, kg
    stretch_k: float = 2000.0      # N/m
    bend_k: float = 100.0          # N/m, springs (i, i+2)
    dashpot: float = 2.0           # N s/m along each spring
    drag: float = 1.0              # 1/s: v *= exp(-dt * drag) per step
    friction: float = 0.5          # Coulomb coefficient against the table / ground
    gravity: float = 9.81          # m/s^2: in 2-D it sets the friction force mu m g, in 3-D it pulls along -z
    dt: float = 1e-3               # s
    max_speed: float = 20.0        # m/s: above this the state is declared blown up
    dim: int = 2                   # 2: planar rope on a table; 3: rope in space over the ground z = 0
    restitution: float = 0.0       # 3-D only: normal velocity after a ground contact is -restitution * before

    def __post_init__(self):
        if self.dim not in (2, 3):
            raise ConfigError(f"sim.dim={self.dim!r}; choose 2 (a planar rope on a table) or 3 (a rope over the "
                              f"ground plane z = 0)")
        if not 0.0 <= self.restitution <= 1.0:
            raise ConfigError(f"sim.restitution={self.restitution!r}; it must lie in [0, 1]")

    def stable_dt(self) -> float:
        """The explicit-Euler stability bound 2/ω_max of the stiffest mode of a free chain."""
        k = max(self.stretch_k, self.bend_k)
        return 2.0 / (2.0 * math.sqrt(2.0 * k / self.mass))


def planar(xy: torch.Tensor, dim: int) -> torch.Tensor:
    """Vectors (…, 2) in the table plane as (…, dim): z = 0 in 3-D, unchanged in 2-D."""
    return xy if dim == 2 else torch.cat([xy, xy.new_zeros(*xy.shape[:-1], dim - 2)], -1)


def chain_springs(n: int, spacing: float, stretch_k: float, bend_k: float):
    """The chain's springs as (offset, rest length, stiffness): stretch (i, i+1) and, from 3 particles on,
    bending (i, i+2)."""
    if n < 2:
        raise ValueError(f"a rope needs >= 2 particles; got {n}")
    return [(1, spacing, stretch_k)] + ([(2, 2 * spacing, bend_k)] if n >= 3 and bend_k > 0 else [])


class RopeSim:
    """Batched integration of `RopeParams` ropes; `x`, `v` are (B, N, D) tensors (float64 by default), D = `dim`."""

    def __init__(self, params: RopeParams):
        self.p = params
        self.n = params.n_particles
        self.dim = params.dim
        self.springs = chain_springs(self.n, params.spacing, params.stretch_k, params.bend_k)

    def straight(self, centre=(0.0, 0.0), angle: float = 0.0, batch: int = 1) -> torch.Tensor:
        """A straight rope at rest along `angle` (in the x-y plane) through `centre`: (batch, N, D). In 3-D a
        centre (x, y) puts the rope on the ground (z = 0)."""
        centre = tuple(centre)
        if len(centre) not in (2, self.dim):
            raise ConfigError(f"a rope centre needs 2 or sim.dim={self.dim} coordinates; got {list(centre)}")
        centre = centre + (0.0,) * (self.dim - len(centre))
        s = (torch.arange(self.n, dtype=torch.float64) - (self.n - 1) / 2) * self.p.spacing
        axes = [s * math.cos(angle), s * math.sin(angle)] + [torch.zeros_like(s)] * (self.dim - 2)
        line = torch.stack(axes, 1) + torch.tensor(centre, dtype=torch.float64)
        return line.expand(batch, -1, -1).clone()

    def spring_lengths(self, x: torch.Tensor) -> list[torch.Tensor]:
        """Per spring family, the (B, N - offset) current lengths."""
        return [(x[:, o:] - x[:, :-o]).norm(dim=-1) for o, _, _ in self.springs]

    def forces(self, x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """Spring + dashpot forces on every particle, (B, N, D): f = (k (|d| − L) + c (v_rel · d̂)) d̂."""
        out = torch.zeros_like(x)
        for o, rest, k in self.springs:
            d = x[:, o:] - x[:, :-o]
            length = d.norm(dim=-1, keepdim=True).clamp_min(1e-9)
            u = d / length
            v_rel = ((v[:, o:] - v[:, :-o]) * u).sum(-1, keepdim=True)
            f = (k * (length - rest) + self.p.dashpot * v_rel) * u
            out[:, :-o] += f
            out[:, o:] -= f
        return out

    def energy(self, x: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        """Kinetic + spring potential (+ in 3-D gravitational potential m g z) energy per rope, (B,)."""
        potential = sum(0.5 * k * ((length - rest) ** 2).sum(-1)
                        for length, (_, rest, k) in zip(self.spring_lengths(x), self.springs, strict=True))
        if self.dim == 3:
            potential = potential + self.p.mass * self.p.gravity * x[..., 2].sum(-1)
        return 0.5 * self.p.mass * (v ** 2).sum((-1, -2)) + potential

    def ground(self, x: torch.Tensor, v: torch.Tensor):
        """The 3-D position update x ← x + v dt against the ground z = 0 (PhysTwin's
        `integrate_ground_collision`): contact, restitution, impulse-form Coulomb friction, time of impact."""
        p = self.p
        z, vz = x[..., 2], v[..., 2]
        hit = (z + vz * p.dt < 0) & (vz < 0)
        vt = v[..., :2]
        keep = (1.0 - p.friction * (1.0 + p.restitution) * (-vz) / vt.norm(dim=-1).clamp_min(1e-12)).clamp_min(0.0)
        bounced = torch.cat([vt * keep[..., None], (-p.restitution * vz)[..., None]], -1)
        v_new = torch.where(hit[..., None], bounced, v)
        toi = torch.where(hit, (-z / vz.where(hit, -torch.ones_like(vz))).clamp(0.0, p.dt), torch.zeros_like(z))
        x_new = x + v * toi[..., None] + v_new * (p.dt - toi)[..., None]
        x_new[..., 2] = torch.where(hit, x_new[..., 2].clamp_min(0.0), x_new[..., 2])   # one found below: back on
        return x_new, v_new

    def step(self, x, v, held=None, grip_from=None, grip_to=None):
        """One semi-implicit Euler step. `held` (B,) long: the gripped particle (-1: none); the gripper moves
        from `grip_from` to `grip_to` (B, D) during the step and carries the held particle with it."""
        p = self.p
        rows = None
        if held is not None and bool((held >= 0).any()):
            rows = torch.nonzero(held >= 0).squeeze(1)
            cols = held[rows]
            x = x.clone()
            v = v.clone()
            grip_v = (grip_to[rows] - grip_from[rows]) / p.dt
            x[rows, cols] = grip_from[rows]
            v[rows, cols] = grip_v
        v = v + self.forces(x, v) * (p.dt / p.mass)
        if self.dim == 3:
            v = v - torch.tensor([0.0, 0.0, p.gravity * p.dt], dtype=v.dtype)
        v = v * math.exp(-p.dt * p.drag)
        if self.dim == 3:
            x, v = self.ground(x, v)
        else:
            if p.friction > 0:
                speed = v.norm(dim=-1, keepdim=True)
                v = v * (1.0 - p.friction * p.gravity * p.dt / speed.clamp_min(1e-12)).clamp_min(0.0)
            x = x + v * p.dt
        if rows is not None:
            x[rows, cols] = grip_to[rows]
            v[rows, cols] = grip_v
        return x, v

    def simulate(self, x, v, steps: int, held=None, grip_from=None, grip_to=None):
        """`steps` steps with the gripper moving linearly from `grip_from` to `grip_to`; checks for blow-up."""
        for s in range(steps):
            a = None if grip_from is None else grip_from + (grip_to - grip_from) * (s / steps)
            b = None if grip_from is None else grip_from + (grip_to - grip_from) * ((s + 1) / steps)
            x, v = self.step(x, v, held, a, b)
        self.check(v)
        return x, v

    def settle(self, x, v=None, max_steps: int = 3000, tol: float = 1e-3, chunk: int = 100):
        """Simulate with no gripper until every particle is slower than `tol` m/s (or `max_steps`); v = 0 after."""
        v = torch.zeros_like(x) if v is None else v
        for _ in range(0, max_steps, chunk):
            x, v = self.simulate(x, v, chunk)
            if float(v.norm(dim=-1).max()) < tol:
                break
        return x, torch.zeros_like(v)

    def check(self, v: torch.Tensor) -> None:
        top = float(v.norm(dim=-1).max()) if v.numel() else 0.0
        if not math.isfinite(top) or top > self.p.max_speed:
            raise SimulationError(
                f"rope simulation blew up (max particle speed {top:.3g} m/s > sim.max_speed={self.p.max_speed}): "
                f"sim.dt={self.p.dt} is too large for the springs; use sim.dt < {self.p.stable_dt():.2g} s")
