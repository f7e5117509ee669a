"""The Lightning path: presets compose, a fast_dev_run trains/tests through reprolab.cli.train, clear errors."""

import pytest
import torch
from hydra.utils import instantiate

from experiments.degradequery.datamodule import Protac8KDataModule
from experiments.degradequery.model import DegradeQuery
from experiments.degradequery.pretrain_task import CounterfactualPretrainTask
from experiments.degradequery.task import DegradeQueryTask
from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.config.compose import compose

PRESETS = ["main", "no_pretrain", "molecule_only", "scaffold", "target_e3", "main_sequences", "main_gin"]
PRETRAIN_PRESETS = ["pretrain", "pretrain_gin", "pretrain_sequences"]


@pytest.mark.parametrize("preset", PRESETS)
def test_presets_compose_and_instantiate(preset, tmp_path):
    cfg = compose([f"experiment=degradequery/{preset}", f"paths.data_dir={tmp_path}"], output_dir=tmp_path)
    assert cfg.monitor.metric == "val/auroc" and cfg.paper == "degradequery" and cfg.setting == preset
    model = instantiate(cfg.model)
    task = instantiate(cfg.task, model=model, optimizer=instantiate(cfg.optimizer), scheduler=None)
    assert isinstance(task, DegradeQueryTask) and task.model.use_tuple == (preset != "molecule_only")
    assert bool(task.pretrained_ckpt) == (preset not in ("no_pretrain", "molecule_only"))
    with pytest.raises(DatasetNotFoundError, match="prepare_protac8k"):
        instantiate(cfg.data).setup("fit")


def test_fast_dev_run_through_the_shared_trainer(protac8k_dir, tmp_path):
    from reprolab.cli.train import run

    cfg = compose(["experiment=degradequery/no_pretrain", "debug=fdr", f"paths.data_dir={protac8k_dir}", "logger=none"],
                  output_dir=tmp_path)
    metrics = run(cfg)
    assert {"test/auroc", "test/accuracy", "test/f1_macro", "test/precision", "test/recall"} <= set(metrics)
    assert (tmp_path / "metrics.json").is_file()


def test_configuration_errors():
    with pytest.raises(ConfigError, match="scaffold"):
        Protac8KDataModule("data", split="random")
    task = DegradeQueryTask(DegradeQuery(fp_bits=16, num_targets=4, num_e3s=2, hidden=8, dim=4), optimizer=torch.optim.AdamW)
    with pytest.raises(ConfigError, match="data=protac8k"):
        task.training_step((torch.zeros(2, 3, 32, 32), torch.zeros(2)), 0)


@pytest.mark.parametrize("preset", PRETRAIN_PRESETS)
def test_pretrain_presets_match_their_fine_tuning_model(preset, tmp_path):
    """Stage 1 trains the same model as the preset that loads it, on the corpus datamodule, 500 steps of 128."""
    cfg = compose([f"experiment=degradequery/{preset}", f"paths.data_dir={tmp_path}"], output_dir=tmp_path)
    fine_tune = compose([f"experiment=degradequery/{preset.replace('pretrain', 'main')}", f"paths.data_dir={tmp_path}"],
                        output_dir=tmp_path)
    assert cfg.model == fine_tune.model and cfg.data.mol_encoder == fine_tune.data.mol_encoder
    assert cfg.trainer.max_steps == 500 and cfg.data.batch_size == 128 and cfg.optimizer.lr == 1e-3
    assert isinstance(instantiate(cfg.task, model=instantiate(cfg.model), optimizer=instantiate(cfg.optimizer)),
                      CounterfactualPretrainTask)
    assert fine_tune.task.pretrained_ckpt.endswith(f"/{preset}/official-0")
