"""DegradeQuery network, its sparse fingerprint fast path, counterfactual sampling and pretraining."""

from functools import partial

import lightning as L
import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader

from experiments.degradequery.data import load_protac8k
from experiments.degradequery.inputs import TupleInputs, on_bit_table
from experiments.degradequery.model import DegradeQuery, FingerprintEncoder
from experiments.degradequery.pretrain import CounterfactualSampler, counterfactual_loss
from experiments.degradequery.pretrain_task import CounterfactualPretrainTask


def test_sparse_first_layer_equals_dense_reference():
    torch.manual_seed(0)
    fps = (torch.rand(7, 64) < 0.2).to(torch.uint8).numpy()
    fps[3] = 0  # a molecule with no bit on
    enc = FingerprintEncoder(64, 16, 8, dropout=0.5, input_dropout=0.3).eval()
    table = on_bit_table(fps)
    assert torch.allclose(enc(table), enc.forward_dense(torch.from_numpy(fps)), atol=1e-5)


def test_on_bit_table_round_trips():
    fps = np.array([[0, 1, 1, 0], [1, 0, 0, 0], [0, 0, 0, 0]], dtype=np.uint8)
    assert on_bit_table(fps).tolist() == [[1, 2], [0, 4], [4, 4]]


def test_molecule_only_ignores_target_and_e3():
    model = DegradeQuery(fp_bits=32, num_targets=5, num_e3s=3, hidden=16, dim=8, use_tuple=False).eval()
    fp = torch.randint(0, 33, (4, 6))
    a = model(fp, torch.tensor([0, 1, 2, 3]), torch.tensor([0, 0, 1, 2]))
    b = model(fp, torch.tensor([4, 4, 4, 4]), torch.tensor([2, 2, 2, 2]))
    assert torch.equal(a, b)
    full = DegradeQuery(fp_bits=32, num_targets=5, num_e3s=3, hidden=16, dim=8).eval()
    assert not torch.equal(full(fp, torch.tensor([0, 1, 2, 3]), torch.zeros(4, dtype=torch.long)),
                           full(fp, torch.tensor([4, 4, 4, 4]), torch.zeros(4, dtype=torch.long)))


def _observed(n_mol=40, n_targets=6, n_e3s=3):
    """Each molecule binds target (mol % n_targets) and E3 (mol % n_e3s), plus a second target for even molecules."""
    rows = [[m, m % n_targets, m % n_e3s] for m in range(n_mol)]
    rows += [[m, (m + 1) % n_targets, m % n_e3s] for m in range(0, n_mol, 2)]
    return np.array(rows, dtype=np.int64)


@pytest.mark.parametrize("kind", ["target", "e3", "both"])
def test_corruptions_are_unobserved_and_change_only_their_slot(kind):
    obs = _observed()
    sampler = CounterfactualSampler(obs, 6, 3, seed=0)
    kept, bad = sampler.corrupt(obs, kind)
    assert len(kept) > 0.8 * len(obs) and not sampler.is_observed(bad).any()
    assert (bad[:, 0] == obs[kept, 0]).all()
    if kind == "target":
        assert (bad[:, 2] == obs[kept, 2]).all()
    if kind == "e3":
        assert (bad[:, 1] == obs[kept, 1]).all()


def test_sampler_rejects_unknown_sampling():
    with pytest.raises(ValueError, match="frequency"):
        CounterfactualSampler(_observed(), 6, 3, sampling="zipf")


class _Bundle:
    def __init__(self, n_mol=40, bits=48):
        rng = np.random.default_rng(0)
        self.fingerprints = (rng.random((n_mol, bits)) < 0.15).astype(np.uint8)
        self.fingerprints[np.arange(n_mol), np.arange(n_mol) % bits] = 1
        self.target_seq = self.e3_seq = None


class _Corpus(L.LightningDataModule):
    """The pretraining corpus datamodule's interface over made-up tuples."""

    def __init__(self, obs, inputs):
        super().__init__()
        self.obs, self.inputs, self.num_targets, self.num_e3s = obs, inputs, 6, 3

    def tuples(self):
        return self.obs

    def train_dataloader(self):
        return DataLoader(torch.from_numpy(self.obs), batch_size=32, shuffle=True, drop_last=True)


def test_pretraining_through_lightning_learns_to_tell_observed_from_corrupted():
    torch.manual_seed(0)
    obs, inputs = _observed(), TupleInputs(_Bundle())
    model = DegradeQuery(fp_bits=48, num_targets=6, num_e3s=3, hidden=64, dim=16, dropout=0.0, input_dropout=0.0)
    sampler = CounterfactualSampler(obs, 6, 3, seed=1)
    before = counterfactual_loss(model.eval(), inputs, sampler, obs).item()
    task = CounterfactualPretrainTask(model, optimizer=partial(torch.optim.AdamW, lr=3e-3, weight_decay=1e-4))
    trainer = L.Trainer(max_steps=150, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False, accelerator="cpu")
    trainer.fit(task, datamodule=_Corpus(obs, inputs))
    after = counterfactual_loss(model.eval(), inputs, sampler, obs).item()
    assert trainer.global_step == 150 and after < 0.5 * before


def test_inputs_reject_wrong_shape(tiny_dir):
    inputs = TupleInputs(load_protac8k(tiny_dir, fp_bits=64))
    with pytest.raises(ValueError, match=r"\[n, 3\]"):
        inputs(np.zeros((4, 2), dtype=np.int64))
