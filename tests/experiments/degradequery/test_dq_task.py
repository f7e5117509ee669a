"""The Lightning path: presets compose, a fast_dev_run trains/tests through reprolab.train, clear errors."""

import pytest
import torch
from hydra.utils import instantiate

from experiments.degradequery.datamodule import Protac8KDataModule
from experiments.degradequery.model import DegradeQuery
from experiments.degradequery.task import DegradeQueryTask
from reprolab.config import compose
from reprolab.errors import ConfigError, DatasetNotFoundError

PRESETS = ["main", "no_pretrain", "molecule_only", "scaffold", "target_e3", "main_sequences", "main_gin"]


@pytest.mark.parametrize("preset", PRESETS)
def test_presets_compose_and_instantiate(preset, tmp_path):
    cfg = compose([f"experiment=degradequery/{preset}", f"paths.data_dir={tmp_path}"], output_dir=tmp_path)
    assert cfg.monitor.metric == "val/auroc" and cfg.paper == "degradequery" and cfg.setting == preset
    model = instantiate(cfg.model)
    task = instantiate(cfg.task, model=model, optimizer=instantiate(cfg.optimizer), scheduler=None)
    assert isinstance(task, DegradeQueryTask) and task.model.use_tuple == (preset != "molecule_only")
    with pytest.raises(DatasetNotFoundError, match="prepare_protac8k"):
        instantiate(cfg.data).setup("fit")


def test_fast_dev_run_through_the_shared_trainer(protac8k_dir, tmp_path):
    from reprolab.train import run

    cfg = compose(["experiment=degradequery/main", "debug=fdr", f"paths.data_dir={protac8k_dir}", "logger=none"],
                  output_dir=tmp_path)
    metrics = run(cfg)
    assert {"test/auroc", "test/accuracy", "test/f1_macro", "test/precision", "test/recall"} <= set(metrics)
    assert (tmp_path / "metrics.json").is_file()


def test_configuration_errors():
    with pytest.raises(ConfigError, match="scaffold"):
        Protac8KDataModule("data", split="random")
    molecule_only = DegradeQuery(fp_bits=16, num_targets=4, num_e3s=2, hidden=8, dim=4, use_tuple=False)
    with pytest.raises(ConfigError, match="pretrain_steps=0"):
        DegradeQueryTask(molecule_only, optimizer=torch.optim.AdamW, pretrain_steps=10)
    task = DegradeQueryTask(DegradeQuery(fp_bits=16, num_targets=4, num_e3s=2, hidden=8, dim=4), optimizer=torch.optim.AdamW)
    with pytest.raises(ConfigError, match="data=protac8k"):
        task.training_step((torch.zeros(2, 3, 32, 32), torch.zeros(2)), 0)


def test_pretraining_flag_is_checkpointed_so_resume_skips_it():
    task = DegradeQueryTask(DegradeQuery(fp_bits=16, num_targets=4, num_e3s=2, hidden=8, dim=4), optimizer=torch.optim.AdamW)
    assert "pretrained" in task.state_dict() and not bool(task.pretrained)
    task.pretrained.fill_(True)
    restored = DegradeQueryTask(DegradeQuery(fp_bits=16, num_targets=4, num_e3s=2, hidden=8, dim=4), optimizer=torch.optim.AdamW)
    restored.load_state_dict(task.state_dict())
    restored.on_fit_start()  # returns before touching a trainer: nothing to pretrain again
    assert bool(restored.pretrained) and restored.pretrain_losses == []
