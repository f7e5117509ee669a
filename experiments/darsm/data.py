"""The channel twin experiment's data: 'truth' profiles from a richer closure than the model can hold.

Truth = Wilcox (2006) k-omega transport (cross diffusion, its alpha, beta, sigma*) with a Gatski-Speziale-
type ARSM (A2 != 0) whose A1 is damped at low Re_t, A1 (1 - d exp(-Re_t / Re_d)). The model is Wilcox
(1988) k-omega with the network's ARSM: the ARSM part of the truth is in the network's reach, the
transport equations are not, so an a priori (offline) fit of the truth's anisotropy is well defined and
is not the same as the a posteriori fit of its velocity. Each case is solved once, on the model's grid,
from the fixed initial state; the cases are train Re_tau (also validation) and the unseen test Re_tau.
"""

from __future__ import annotations

import functools

import lightning as L
import torch
from torch.utils.data import DataLoader, Dataset

from experiments.darsm.channel import TRANSPORT, Channel, ConstantCoefficients, ImplicitARSM
from experiments.darsm.solver import NotConverged, newton_solve
from reprolab.cli.errors import ConfigError


def truth_closure(a2: float, a1_damping: float, damping_re_t: float) -> ImplicitARSM:
    values = {"A1": 1.2, "A2": a2, "A3": 1.8, "A4": 2.25}
    return ImplicitARSM(ConstantCoefficients(values, a1_damping=a1_damping, damping_re_t=damping_re_t))


def solve_truth_case(re_tau: float, n: int, stretch: float, truth: dict) -> dict:
    """One truth profile: U, k, omega, the model-side features and the truth's anisotropy tensor. Solved once per
    process for each (Re_tau, grid, truth, dtype): a sweep worker's later jobs and later presets reuse it."""
    return _solved_truth_case(float(re_tau), int(n), float(stretch), tuple(sorted(truth.items())), torch.get_default_dtype())


@functools.lru_cache(maxsize=64)
def _solved_truth_case(re_tau: float, n: int, stretch: float, truth_items: tuple, dtype: torch.dtype) -> dict:
    truth = dict(truth_items)
    channel = Channel(re_tau, n=n, stretch=stretch, transport=TRANSPORT[truth["transport"]])
    closure = truth_closure(truth["a2"], truth["a1_damping"], truth["damping_re_t"])
    q, info = newton_solve(lambda q: channel.residual(q, closure), channel.initial_state())
    f = channel.features(q)
    _, a, _ = closure.anisotropy(f)
    return {"name": f"re{int(round(re_tau))}", "re_tau": float(re_tau), "q": q, "U": f["U"], "k": f["k"],
            "w": f["w"], "s": f["s"], "re_t": f["re_t"], "a": a, "truth_iterations": info.iterations}


class _Cases(Dataset):
    """One item: every case of a split (each step sees all of them; a steady solve per case)."""

    def __init__(self, cases: list[dict]):
        self.cases = cases

    def __len__(self) -> int:
        return 1

    def __getitem__(self, index: int) -> list[dict]:
        return self.cases


class CaseSplits(L.LightningDataModule):
    """Train (and validate) on the cases keyed `train_keys`, test on those and `test_keys`, from `self.cases`."""

    train_keys: list
    test_keys: list
    cases: dict

    def _loader(self, keys: list) -> DataLoader:
        return DataLoader(_Cases([self.cases[k] for k in keys]), batch_size=None, collate_fn=lambda c: c)

    def train_dataloader(self):
        return self._loader(self.train_keys)

    def val_dataloader(self):
        return self._loader(self.train_keys)

    def test_dataloader(self):
        return self._loader(self.train_keys + self.test_keys)


class ChannelTwinDataModule(CaseSplits):
    def __init__(self, train_re_tau=(180.0, 360.0), test_re_tau=(1800.0,), n: int = 96, stretch: float = 3.5,
                 truth: dict | None = None, steps_per_epoch: int = 1):
        super().__init__()
        if not train_re_tau or not test_re_tau:
            raise ValueError("data.train_re_tau and data.test_re_tau each need at least one Re_tau")
        self.train_re_tau, self.test_re_tau = [float(r) for r in train_re_tau], [float(r) for r in test_re_tau]
        self.train_keys, self.test_keys = self.train_re_tau, self.test_re_tau
        self.n, self.stretch, self.steps_per_epoch = n, stretch, steps_per_epoch
        self.truth = dict(truth or {"transport": "wilcox2006", "a2": 0.3, "a1_damping": 0.1, "damping_re_t": 20.0})
        if self.truth["transport"] not in TRANSPORT:
            raise ValueError(f"data.truth.transport '{self.truth['transport']}' unknown; one of {sorted(TRANSPORT)}")
        self.cases: dict[float, dict] = {}

    def setup(self, stage: str | None = None) -> None:
        with torch.no_grad():
            for re_tau in self.train_re_tau + self.test_re_tau:
                if re_tau not in self.cases:
                    try:
                        self.cases[re_tau] = solve_truth_case(re_tau, self.n, self.stretch, self.truth)
                    except NotConverged as err:  # its advice (solver.max_iters) is the task's, not the truth's
                        stopped = str(err).split(";")[0]
                        raise ConfigError(f"the truth profile at Re_tau {re_tau:g} does not converge with "
                                          f"data.truth={self.truth}, data.n={self.n}, data.stretch={self.stretch} "
                                          f"({stopped}); use values nearer the preset's") from err

