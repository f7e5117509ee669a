"""Counterfactual pretraining as a trainer stage: its loss, its hand-over to fine-tuning, the missing-stage error."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from experiments.degradequery.data import load_protac8k
from experiments.degradequery.inputs import TupleInputs
from experiments.degradequery.model import DegradeQuery
from experiments.degradequery.pretrain import KINDS, CounterfactualSampler
from experiments.degradequery.pretrain_task import CounterfactualPretrainTask
from experiments.degradequery.task import DegradeQueryTask
from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.cli.train import run
from reprolab.config.compose import compose

# (mol, target, e3): five observed tuples over 4 targets x 2 E3s, so every kind of corruption has unobserved options
OBSERVED = np.array([[0, 0, 0], [1, 0, 0], [2, 1, 0], [3, 0, 1], [4, 1, 1]])


def test_training_step_is_bce_of_observed_vs_each_corruption_kind(tiny_dir):
    model = DegradeQuery(fp_bits=64, num_targets=4, num_e3s=2, hidden=8, dim=4).eval()  # eval: no dropout draw
    inputs = TupleInputs(load_protac8k(tiny_dir, fp_bits=64))
    task = CounterfactualPretrainTask(model, optimizer=torch.optim.AdamW)
    task._trainer = SimpleNamespace(datamodule=SimpleNamespace(
        inputs=inputs, tuples=lambda: OBSERVED, num_targets=4, num_e3s=2, setup=lambda stage: None))
    torch.manual_seed(7)  # the sampler's seed is the run's seed
    task.setup("fit")
    task.log = lambda *args, **kwargs: None
    loss = task.training_step(torch.from_numpy(OBSERVED), 0)

    # reference: each tuple scored on its own through model.compatibility, the same corruptions (same seed)
    sampler = CounterfactualSampler(OBSERVED, 4, 2, "frequency", seed=7)
    with torch.no_grad():
        pos = model.compatibility(**inputs(OBSERVED))
        expected = F.binary_cross_entropy_with_logits(pos, torch.ones(5))
        for kind in KINDS:
            _, corrupted = sampler.corrupt(OBSERVED, kind)
            assert len(corrupted) > 0 and not sampler.is_observed(corrupted).any()
            neg = model.compatibility(**inputs(corrupted))
            expected = expected + F.binary_cross_entropy_with_logits(neg, torch.zeros(len(neg))) / 3
    torch.testing.assert_close(loss.detach(), expected)
    loss.backward()  # the loss reaches the encoder and the compatibility head, not the degradation head
    assert model.compat_head.weight.grad is not None and model.classifier[-1].weight.grad is None


def test_pretraining_configuration_errors():
    molecule_only = DegradeQuery(fp_bits=16, num_targets=4, num_e3s=2, hidden=8, dim=4, use_tuple=False)
    with pytest.raises(ConfigError, match="pretrain model=degradequery"):
        CounterfactualPretrainTask(molecule_only, optimizer=torch.optim.AdamW)
    with pytest.raises(ConfigError, match="'frequency' or 'uniform'"):
        CounterfactualPretrainTask(DegradeQuery(fp_bits=16, num_targets=4, num_e3s=2, hidden=8, dim=4),
                                   optimizer=torch.optim.AdamW, sampling="random")


def test_missing_pretraining_run_is_one_line_naming_the_command(protac8k_dir, tmp_path):
    cfg = compose(["experiment=degradequery/main", "debug=fdr", "logger=none", "print_config=false",
                   f"paths.data_dir={protac8k_dir}", f"pretrain_run={tmp_path / 'absent'}"], output_dir=tmp_path / "run")
    with pytest.raises(DatasetNotFoundError) as caught:
        run(cfg)
    message = str(caught.value)
    assert "\n" not in message and "make pretrain-degradequery" in message and "absent" in message


def test_fine_tuning_starts_from_the_pretrained_encoder(pretrain_run, protac8k_dir, tmp_path):
    pretrained = torch.load(pretrain_run / "checkpoints" / "last.ckpt", map_location="cpu", weights_only=True)["state_dict"]
    base = ["experiment=degradequery/main", "logger=none", "print_config=false", "seed=3", f"paths.data_dir={protac8k_dir}",
            "trainer.max_epochs=1", "+trainer.limit_train_batches=1", "+trainer.limit_val_batches=1",
            "+trainer.limit_test_batches=1", "trainer.enable_progress_bar=false", "optimizer.lr=0.0"]  # lr 0: weights stay
    finals = {}
    for name, stage1 in (("pretrained", pretrain_run), ("scratch", "null")):
        out = tmp_path / name
        run(compose([*base, f"pretrain_run={stage1}"], output_dir=out))
        finals[name] = torch.load(out / "checkpoints" / "last.ckpt", map_location="cpu", weights_only=True)["state_dict"]
    for key in ("model.target.weight", "model.molecule.first.weight", "model.compat_head.weight"):
        torch.testing.assert_close(finals["pretrained"][key], pretrained[key])
        assert not torch.equal(finals["scratch"][key], pretrained[key]), key
    # the degradation head is not pretrained: it keeps the fine-tuning run's own initialisation
    torch.testing.assert_close(finals["pretrained"]["model.classifier.2.weight"], finals["scratch"]["model.classifier.2.weight"])


def test_molecule_only_model_takes_no_pretrained_run():
    molecule_only = DegradeQuery(fp_bits=16, num_targets=4, num_e3s=2, hidden=8, dim=4, use_tuple=False)
    with pytest.raises(ConfigError, match="pretrained_ckpt=null"):
        DegradeQueryTask(molecule_only, optimizer=torch.optim.AdamW, pretrained_ckpt="logs/x")
