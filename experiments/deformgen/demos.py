"""Demonstration generators: states from a process, the source demo warped to each, the replay filter.

One generator is one arm of the paper's comparison (Table 1 of the project page: 1 Source, SMG*, DG*, DG):
`states` names the state process (`states.py`), `warp` the trajectory warp (`warp.py`), and
`replay_filter` keeps only the warped demos whose open-loop replay succeeds (DeformGen §3.3, "replayed
to retain only executable trajectories"). Candidates are drawn in batches until exactly `n_demos` pass,
so every arm trains on the same number of demos whatever its acceptance rate.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from experiments.deformgen.plans import Expert, ReplayPolicy, expert_plan, warp_plan
from experiments.deformgen.routing import RopeEnv
from experiments.deformgen.states import StateProcess, make_states
from experiments.deformgen.warp import MODES
from reprolab.cli.errors import ConfigError, ReprolabError


class GenerationError(ReprolabError):
    """An arm could not produce its demos within the candidate budget."""


@dataclass(frozen=True)
class Generator:
    states: str = "impulse"         # source | impulse | grid | noise
    warp: str = "field"             # field (DG) | local_rigid (DG*) | none (replay the source plan as is)
    grasp_k: int = 5
    manip_k: int = 99999            # the released config's "very large k"
    decay: str = "linear"           # none | linear
    replay_filter: bool = True


def source_demo(env: RopeEnv, source: torch.Tensor, expert: Expert):
    """The scripted expert's plan on the source state; it must succeed (else the task geometry is wrong)."""
    poses, grips = expert_plan(env, source, expert)
    out = env.rollout(source, ReplayPolicy(poses, grips))
    if not bool(out["success"][0]):
        raise ConfigError("the scripted expert fails on the source state: set data.expert, data.slot and data.sim "
                          "values nearer the preset's")
    return poses, grips, out


def generate(env: RopeEnv, source, expert: Expert, gen: Generator, proc: StateProcess, n_demos: int,
             batch: int, max_candidates: int, rng: torch.Generator) -> dict:
    """`n_demos` demos (obs (n, T, D), act (n, T, 4), states (n, N, 2)) and the acceptance statistics."""
    if gen.warp not in (*MODES, "none"):
        raise ConfigError(f"data.generator.warp={gen.warp!r}; choose one of {', '.join((*MODES, 'none'))}")
    poses, grips, src_out = source_demo(env, source, expert)
    if gen.states == "source":
        return {"obs": src_out["obs"][:1].expand(n_demos, -1, -1), "act": src_out["act"][:1].expand(n_demos, -1, -1),
                "states": source.expand(n_demos, -1, -1), "tried": 1, "accepted": 1}
    kept, tried, accepted = {"obs": [], "act": [], "states": []}, 0, 0
    while accepted < n_demos:
        if tried >= max_candidates:
            raise GenerationError(
                f"generator {gen.states}/{gen.warp} kept {accepted} of {tried} candidates, short of data.n_demos="
                f"{n_demos}; raise data.max_candidates or loosen the state process")
        states = make_states(gen.states, env.sim, source, batch, rng, proc)
        if gen.warp == "none":
            plan = (poses.expand(batch, -1, -1), grips.expand(batch, -1))
        else:
            plan = warp_plan(env, poses, grips, source, states, expert, mode=gen.warp, grasp_k=gen.grasp_k,
                             manip_k=gen.manip_k, decay=gen.decay)
        out = env.rollout(states, ReplayPolicy(*plan))
        keep = out["success"] if gen.replay_filter else torch.ones(batch, dtype=torch.bool)
        for key, value in (("obs", out["obs"]), ("act", out["act"]), ("states", states)):
            kept[key].append(value[keep])
        tried, accepted = tried + batch, accepted + int(keep.sum())
    demos = {k: torch.cat(v)[:n_demos] for k, v in kept.items()}
    return {**demos, "tried": tried, "accepted": accepted}
