"""The DeformGen rope datamodule: one arm's generated demos for behaviour cloning, and the shared test states.

`setup` builds the simulator, the routing task and the source demo, runs the arm's generator
(`demos.generate`) with the run's seed, and cuts the demos into (observation, action) pairs, or with
`chunk` k > 0 (ACT) into (observation, next k actions, is_pad) triples; demos are split train/val by episode. The test split is three sets of initial states, drawn with `test_seed` from
`test_process` (never from the arm's own `process` or seed), so every arm is scored on the very same
states: DG's own process (`impulse`), the rigid grid (`grid`, uniform in its box) and an independent
process no generator uses (`drag`). The reference code evaluates each mode on mode-specific test states
(`test200/<mode>_state_paths.txt`), which favours each generator on its own states; here all arms meet all
three sets.
"""

from __future__ import annotations

import dataclasses
import hashlib

import lightning as L
import torch
from omegaconf import DictConfig, OmegaConf
from torch.utils.data import DataLoader, TensorDataset

from experiments.deformgen.demos import Generator, generate
from experiments.deformgen.plans import Expert
from experiments.deformgen.rope import RopeParams, RopeSim
from experiments.deformgen.routing import Gripper, RopeEnv, Slot
from experiments.deformgen.states import PROCESSES, StateProcess, make_states
from reprolab.cli.errors import ConfigError
from reprolab.models.act import action_chunks
from reprolab.models.diffusion_policy import dp_windows


def build(cls, values) -> object:
    """A frozen dataclass from a config mapping (lists become tuples); unknown keys are a ConfigError."""
    values = OmegaConf.to_container(values) if isinstance(values, DictConfig) else dict(values or {})
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - names)
    if unknown:
        raise ConfigError(f"{cls.__name__} has no option(s) {unknown}; known: {sorted(names)}")
    return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in values.items()})


def check_obs_steps(obs_steps: int, chunk: int) -> int:
    """`data.obs_steps`: 0 (one observation per sample: the MLP, ACT) or Diffusion Policy's T_o, with a chunk."""
    if obs_steps < 0 or (obs_steps and chunk < 1):
        raise ConfigError(f"data.obs_steps must be 0 or, with data.chunk >= 1, Diffusion Policy's n_obs_steps; "
                          f"got obs_steps={obs_steps}, chunk={chunk}")
    return obs_steps


def fingerprint(states: torch.Tensor) -> str:
    """A short hash of a state tensor: equal for equal states, so arms can be checked to share test sets."""
    return hashlib.sha256(states.double().numpy().round(9).tobytes()).hexdigest()[:12]


class DeformGenDataModule(L.LightningDataModule):
    def __init__(self, sim=None, slot=None, gripper=None, expert=None, generator=None, process=None,
                 test_process=None, source_centre=(0.0, 0.45), control_dt: float = 0.1, horizon: int = 60,
                 n_demos: int = 100, gen_batch: int = 100, max_candidates: int = 5000, val_fraction: float = 0.1,
                 test_sets=("impulse", "grid", "drag"), n_test: int = 100, test_seed: int = 2026,
                 batch_size: int = 256, seed: int = 0, num_workers: int = 0, chunk: int = 0, obs_steps: int = 0):
        super().__init__()
        self.sim = RopeSim(build(RopeParams, sim))
        self.env = RopeEnv(self.sim, build(Slot, slot), build(Gripper, gripper), control_dt, horizon)
        self.expert = build(Expert, expert)
        self.generator = build(Generator, generator)
        self.process = build(StateProcess, process)
        self.test_process = build(StateProcess, test_process)
        self.test_names = tuple(test_sets)
        bad = [s for s in self.test_names if s not in PROCESSES]
        if bad:
            raise ConfigError(f"data.test_sets {bad} are not state processes; choose from {', '.join(PROCESSES)}")
        if n_demos < 1 or n_test < 1:
            raise ConfigError(f"data.n_demos and data.n_test must be >= 1; got {n_demos}, {n_test}")
        self.source_centre = tuple(source_centre)
        self.n_demos, self.gen_batch, self.max_candidates = n_demos, gen_batch, max_candidates
        self.val_fraction, self.n_test, self.test_seed = val_fraction, n_test, test_seed
        self.batch_size, self.seed, self.num_workers = batch_size, seed, num_workers
        if chunk < 0:
            raise ConfigError(f"data.chunk must be 0 (single actions, the MLP) or the policy's chunk length k; got {chunk}")
        self.chunk, self.obs_steps = chunk, check_obs_steps(obs_steps, chunk)
        self.splits: dict[str, TensorDataset] = {}

    @property
    def source(self) -> torch.Tensor:
        return self.sim.straight(self.source_centre)

    def prepare_data(self) -> None:
        """Nothing to download: the demos are simulated in `setup`."""

    def test_states(self) -> dict[str, torch.Tensor]:
        """The shared test sets, one (n_test, N, 2) tensor per name, from `test_seed` and `test_process` only."""
        proc = dataclasses.replace(self.test_process, grid_random=True)
        out = {}
        for i, name in enumerate(self.test_names):
            rng = torch.Generator().manual_seed(self.test_seed * 1000 + i)
            out[name] = make_states(name, self.sim, self.source, self.n_test, rng, proc)
        return out

    def setup(self, stage: str | None = None) -> None:
        if self.splits:
            return
        rng = torch.Generator().manual_seed(self.seed)
        n = 1 if self.generator.states == "source" else self.n_demos
        demos = generate(self.env, self.source, self.expert, self.generator, self.process, n, self.gen_batch,
                         self.max_candidates, rng)
        self.stats = {"n_demos": float(n), "accept_rate": demos["accepted"] / demos["tried"],
                      "candidates": float(demos["tried"])}
        n_val = int(round(n * self.val_fraction))
        order = torch.randperm(n, generator=rng)
        val_idx, train_idx = (order[:n_val], order[n_val:]) if n_val > 0 else (order, order)
        pairs = self._chunk_pairs(demos) if self.chunk else lambda idx: TensorDataset(  # noqa: E731
            demos["obs"][idx].flatten(0, 1), demos["act"][idx].flatten(0, 1))
        self.splits = {"train": pairs(train_idx), "val": pairs(val_idx)}
        tests = self.test_states()
        self.fingerprints = {name: fingerprint(s) for name, s in tests.items()}
        ids = torch.cat([torch.full((len(s),), i) for i, s in enumerate(tests.values())])
        self.splits["test"] = TensorDataset(ids, torch.cat(list(tests.values())))

    def _chunk_pairs(self, demos):
        """For a chunking policy (ACT): (observation, the next `chunk` actions, is_pad) per step, padded past the
        episode's end with a mask, as ACT's training data is; with `obs_steps` T_o (Diffusion Policy): (the last T_o
        observations, `chunk` actions from t − T_o + 1, is_pad), edge-padded (`dp_windows`)."""
        if self.obs_steps:
            hist, seqs, is_pad = dp_windows(demos["obs"], demos["act"], self.obs_steps, self.chunk)
            return lambda idx: TensorDataset(hist[idx].flatten(0, 1), seqs[idx].flatten(0, 1), is_pad[idx].flatten(0, 1))
        chunks, is_pad = action_chunks(demos["act"], self.chunk)
        return lambda idx: TensorDataset(demos["obs"][idx].flatten(0, 1), chunks[idx].flatten(0, 1),
                                         is_pad[idx].flatten(0, 1))

    def train_dataloader(self) -> DataLoader:
        return DataLoader(self.splits["train"], batch_size=self.batch_size, shuffle=True, drop_last=False,
                          num_workers=self.num_workers)

    def val_dataloader(self) -> DataLoader:
        return DataLoader(self.splits["val"], batch_size=4096, num_workers=self.num_workers)

    def test_dataloader(self) -> DataLoader:
        """All test states in one batch: the closed-loop rollout of every test episode runs vectorised."""
        return DataLoader(self.splits["test"], batch_size=len(self.splits["test"]), num_workers=self.num_workers)
