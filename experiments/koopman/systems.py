"""The four test systems of Deep-Koopman-KANDy (arXiv 2605.06000, abstract; definitions as in the KANDy
repository's examples): Lorenz (RK4), the Chirikov standard map, the Ikeda map and the Arnold cat map.

Every `step` maps an (n, d) float64 array of states to the next states; torus maps wrap into their
fundamental domain ([0, 2π)² for the standard map, [0, 1)² for the cat map).
"""

from __future__ import annotations

import numpy as np


def lorenz_rhs(s: np.ndarray, sigma: float = 10.0, rho: float = 28.0, beta: float = 8.0 / 3.0) -> np.ndarray:
    """x' = σ(y − x), y' = x(ρ − z) − y, z' = xy − βz."""
    x, y, z = s[..., 0], s[..., 1], s[..., 2]
    return np.stack([sigma * (y - x), x * (rho - z) - y, x * y - beta * z], axis=-1)


def rk4_step(f, s: np.ndarray, dt: float) -> np.ndarray:
    """One classical fourth-order Runge–Kutta step of s' = f(s)."""
    k1 = f(s)
    k2 = f(s + 0.5 * dt * k1)
    k3 = f(s + 0.5 * dt * k2)
    k4 = f(s + dt * k3)
    return s + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)


def lorenz_step(s: np.ndarray, dt: float = 0.01, sigma: float = 10.0, rho: float = 28.0,
                beta: float = 8.0 / 3.0) -> np.ndarray:
    return rk4_step(lambda u: lorenz_rhs(u, sigma, rho, beta), s, dt)


def standard_map(s: np.ndarray, K: float = 0.5) -> np.ndarray:
    """Chirikov: p' = p + K sin θ, θ' = θ + p' (both mod 2π); state (θ, p)."""
    theta, p = s[..., 0], s[..., 1]
    p_next = p + K * np.sin(theta)
    return np.stack([np.mod(theta + p_next, 2 * np.pi), np.mod(p_next, 2 * np.pi)], axis=-1)


def ikeda_map(s: np.ndarray, u: float = 0.9) -> np.ndarray:
    """t = 0.4 − 6/(1 + x² + y²); x' = 1 + u(x cos t − y sin t), y' = u(x sin t + y cos t)."""
    x, y = s[..., 0], s[..., 1]
    t = 0.4 - 6.0 / (1.0 + x * x + y * y)
    return np.stack([1.0 + u * (x * np.cos(t) - y * np.sin(t)), u * (x * np.sin(t) + y * np.cos(t))], axis=-1)


def cat_map(s: np.ndarray) -> np.ndarray:
    """Arnold's cat map (x, y) → (2x + y, x + y) mod 1: hyperbolic, mixing, no finite Koopman closure."""
    x, y = s[..., 0], s[..., 1]
    return np.stack([np.mod(2 * x + y, 1.0), np.mod(x + y, 1.0)], axis=-1)


# name → (step, default parameters, sampler of initial states, period of each coordinate or None)
SYSTEMS = {
    "lorenz": (lorenz_step, {"dt": 0.01, "sigma": 10.0, "rho": 28.0, "beta": 8.0 / 3.0},
               lambda rng, n: rng.uniform([-15, -20, 5], [15, 20, 40], size=(n, 3)), None),
    "standard": (standard_map, {"K": 0.5},
                 lambda rng, n: rng.uniform(0, 2 * np.pi, size=(n, 2)), 2 * np.pi),
    "ikeda": (ikeda_map, {"u": 0.9}, lambda rng, n: rng.uniform(-0.5, 1.5, size=(n, 2)), None),
    "cat": (cat_map, {}, lambda rng, n: rng.uniform(0, 1, size=(n, 2)), 1.0),
}


def trajectories(system: str, n_trajectories: int, steps: int, burn_in: int, seed: int,
                 params: dict | None = None) -> np.ndarray:
    """(n_trajectories, steps + 1, d) float64 orbits from random initial states, after `burn_in` steps."""
    if system not in SYSTEMS:
        raise ValueError(f"system '{system}' is not one of {sorted(SYSTEMS)}")
    step, defaults, sample, _ = SYSTEMS[system]
    unknown = set(params or {}) - set(defaults)
    if unknown:
        raise ValueError(f"system '{system}' has no parameters {sorted(unknown)}; it takes {sorted(defaults)}")
    kwargs = {**defaults, **(params or {})}
    rng = np.random.default_rng(seed)
    s = sample(rng, n_trajectories)
    for _ in range(burn_in):
        s = step(s, **kwargs)
    out = [s]
    for _ in range(steps):
        s = step(s, **kwargs)
        out.append(s)
    return np.stack(out, axis=1)
