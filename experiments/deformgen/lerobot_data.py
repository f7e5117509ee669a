"""The released DeformGen datasets (Hugging Face `Zili2002/DeformGen-Datasets`), state → action pairs for BC.

Layout (the reference README, "Download Released Data"): `<root>/<case>/train1000_<mode>/` for case rope |
sloth | cloth3 and mode yawonly (DG) | txy (DG*) | gridrigid (SMG*), each a LeRobot v2 dataset whose
`data/chunk-*/episode_*.parquet` files hold one row per frame with `observation.state`, `action` and
`episode_index` columns (the camera streams are videos beside them; this loader reads the low-dimensional
columns only). `prepare_data` downloads the one case/mode folder with `huggingface_hub.snapshot_download`
when `download` is true. Episodes are split into train / val / test by `episode_index`. With `chunk` k > 0
(ACT) every frame gives (state, the next k actions of its own episode, is_pad): `action_chunks` per episode,
zero-padded past its last frame with is_pad True there, episodes never mixed; with `obs_steps` T_o too (Diffusion
Policy), (the last T_o states, `chunk` actions from t − T_o + 1, is_pad) per frame, edge-padded within its episode. The closed-loop
success of the paper needs the reference's PhysTwin + Gaussian-splatting simulator (`experiments/eval_policy.py`),
which this project does not carry: at paper scale the test metric is the held-out action error.
"""

from __future__ import annotations

from pathlib import Path

import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

from experiments.deformgen.data import check_obs_steps
from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.config.extras import require
from reprolab.models.act import action_chunks
from reprolab.models.diffusion_policy import dp_windows

CASES = ("rope", "sloth", "cloth3")
MODES = ("yawonly", "txy", "gridrigid")


class LeRobotDemoDataModule(L.LightningDataModule):
    def __init__(self, root: str, case: str = "rope", mode: str = "yawonly", download: bool = False,
                 repo_id: str = "Zili2002/DeformGen-Datasets", state_key: str = "observation.state",
                 action_key: str = "action", state_dim: int = 8, action_dim: int = 8, episodes: int = 1000,
                 frames_per_episode: int = 480, val_episodes: int = 50, test_episodes: int = 50,
                 batch_size: int = 256, seed: int = 0, num_workers: int = 0, chunk: int = 0, obs_steps: int = 0):
        super().__init__()
        if case not in CASES or mode not in MODES:
            raise ConfigError(f"data.case={case!r} / data.mode={mode!r}; choose a case of {CASES} and a mode of {MODES}")
        self.root, self.case, self.mode, self.download, self.repo_id = Path(root), case, mode, download, repo_id
        self.state_key, self.action_key = state_key, action_key
        self.state_dim, self.action_dim = state_dim, action_dim
        self.episodes, self.frames, self.n_val, self.n_test = episodes, frames_per_episode, val_episodes, test_episodes
        self.batch_size, self.seed, self.num_workers = batch_size, seed, num_workers
        if chunk < 0:
            raise ConfigError(f"data.chunk must be 0 (state -> action pairs) or the policy's chunk length k; got {chunk}")
        self.chunk, self.obs_steps = chunk, check_obs_steps(obs_steps, chunk)
        self.splits: dict[str, TensorDataset] = {}

    @property
    def folder(self) -> Path:
        return self.root / self.case / f"train1000_{self.mode}"

    def prepare_data(self) -> None:
        if any(self.folder.glob("data/*/*.parquet")):
            return
        if not self.download:
            raise DatasetNotFoundError(
                f"no LeRobot episodes under {self.folder}/data; run 'make data-deformgen' or set data.download=true")
        hub = require("huggingface_hub", "deformgen")
        hub.snapshot_download(self.repo_id, repo_type="dataset", local_dir=str(self.root),
                              allow_patterns=[f"{self.case}/train1000_{self.mode}/*"])

    def read(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(states, actions, episode indices) of every frame, from the parquet files."""
        pq = require("pyarrow.parquet", "deformgen")
        files = sorted(self.folder.glob("data/*/*.parquet"))
        if not files:
            raise DatasetNotFoundError(f"no LeRobot episodes under {self.folder}/data; run 'make data-deformgen'")
        cols = [self.state_key, self.action_key, "episode_index"]
        tables = [pq.read_table(f, columns=cols).to_pydict() for f in files]
        missing = [c for c in cols if c not in tables[0]]
        if missing:
            raise DatasetNotFoundError(f"{files[0]} has no column(s) {missing}; set data.state_key / data.action_key")
        stack = lambda key: torch.tensor(np.concatenate([np.asarray(t[key], dtype=np.float32) for t in tables]))  # noqa: E731
        return stack(self.state_key), stack(self.action_key), stack("episode_index").long()

    def _chunked(self, states, actions, episodes):
        """(states, chunks (n, k, A), is_pad (n, k), episodes), the frames grouped by episode in their order; with
        `obs_steps`, states (n, T_o, D) and Diffusion Policy's action windows."""
        order = torch.argsort(episodes, stable=True)
        states, actions, episodes = states[order], actions[order], episodes[order]
        counts = torch.unique_consecutive(episodes, return_counts=True)[1].tolist()
        if self.obs_steps:
            parts = [dp_windows(s[None], a[None], self.obs_steps, self.chunk)
                     for s, a in zip(states.split(counts), actions.split(counts), strict=True)]
            return (*(torch.cat([p[i][0] for p in parts]) for i in range(3)), episodes)
        parts = [action_chunks(a[None], self.chunk) for a in actions.split(counts)]
        return states, torch.cat([c[0] for c, _ in parts]), torch.cat([p[0] for _, p in parts]), episodes

    def _split(self, states, actions, episodes) -> None:
        tensors = (states, actions)
        if self.chunk:
            *tensors, episodes = self._chunked(states, actions, episodes)
        ids = torch.unique(episodes)
        if len(ids) <= self.n_val + self.n_test:
            raise ConfigError(f"{len(ids)} episodes cannot give {self.n_val} val + {self.n_test} test episodes")
        order = ids[torch.randperm(len(ids), generator=torch.Generator().manual_seed(self.seed))]
        parts = {"val": order[:self.n_val], "test": order[self.n_val:self.n_val + self.n_test],
                 "train": order[self.n_val + self.n_test:]}
        for name, chosen in parts.items():
            mask = torch.isin(episodes, chosen)
            self.splits[name] = TensorDataset(*(t[mask] for t in tensors))

    def setup(self, stage: str | None = None) -> None:
        if not self.splits:
            self._split(*self.read())

    def fake_setup(self, stage: str | None = None) -> None:
        """Random frames of the configured shapes, `episodes` × `frames_per_episode` (for `+data/fake=on`)."""
        if self.splits:
            return
        g = torch.Generator().manual_seed(self.seed)
        n = self.episodes * self.frames
        episodes = torch.arange(self.episodes).repeat_interleave(self.frames)
        self._split(torch.randn(n, self.state_dim, generator=g), torch.randn(n, self.action_dim, generator=g), episodes)

    def train_dataloader(self) -> DataLoader:
        return DataLoader(self.splits["train"], batch_size=self.batch_size, shuffle=True, num_workers=self.num_workers)

    def val_dataloader(self) -> DataLoader:
        return DataLoader(self.splits["val"], batch_size=self.batch_size, num_workers=self.num_workers)

    def test_dataloader(self) -> DataLoader:
        return DataLoader(self.splits["test"], batch_size=self.batch_size, num_workers=self.num_workers)
