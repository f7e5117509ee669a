"""Every experiment preset takes two optimizer steps and one validation batch on CPU, through `reprolab.cli.train.run`,
on its datamodule made fake (`+data/fake=on`: the paper's sample shapes, dtypes, label ranges and sequence lengths).

CPU stands in for the GPU group: fp32 for bf16, no torch.compile, no logger, no test stage, no loader workers,
no gradient accumulation, and batches of `SMALL_BATCH` samples (the per-sample shapes stay the paper's).
Datamodules that generate their own data run it; those that read the shared small datasets read them.

The two 370M LM presets (`deltamomentum/fineweb_370m_{adamw,delta}`: Llama 368.7M, sequence 1,024, AdamW /
DeltaAdamW as in the paper) run at a micro-batch of 1 (`LARGE`) and without the checkpoint callbacks: the model,
sequence and optimizer are the paper's. Parameters, gradients and AdamW state are ~6 GB, and a checkpoint of them
would add a multi-GB write per file to a smoke test.
Measured alone on the shared 2-core 23 GB machine (`/usr/bin/time -v pytest -m slow -k
<preset>`, one process each, 2026-11-30): AdamW peak RSS 10.1 GB, 72 s of CPU (65 user + 7 sys), 2.5 min
wall; DeltaAdamW peak RSS 13.7 GB, 109 s of CPU (91 + 18), 4.5 min wall. Check `free -g` first: ~14 GB must be free."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from hydra.utils import get_class
from omegaconf import open_dict

from reprolab.cli.errors import DatasetNotFoundError
from reprolab.cli.train import run
from reprolab.config.compose import CONF_DIR, REPO_ROOT, compose
from reprolab.data.fake import (
    FAKE_TARGET,
    FakeSamples,
    TensorSpec,
    fake_config,
    fake_datamodule,
    set_batch_size,
)
from reprolab.plan.jobs import STAND_IN_SPLIT
from tests.conftest import DATA_ROOT
from tests.core.test_presets import OFFLINE

PRESETS = sorted(p.relative_to(CONF_DIR / "experiment").with_suffix("").as_posix()
                 for p in (CONF_DIR / "experiment").rglob("*.yaml"))
SMALL_BATCH = 2
LARGE = {"deltamomentum/fineweb_370m_adamw", "deltamomentum/fineweb_370m_delta"}  # micro-batch 1, no checkpoint
TWO_STEPS = ["device=cpu", "logger=none", "print_config=false", "test_after_fit=false", *(f"++trainer.{k}={v}" for k, v in {
    "max_epochs": 1, "max_steps": 2, "limit_train_batches": 2, "limit_val_batches": 1, "num_sanity_val_steps": 0,
    "val_check_interval": "null", "check_val_every_n_epoch": 1, "accumulate_grad_batches": 1,
    "enable_progress_bar": "false", "enable_model_summary": "false"}.items())]
# Over ~15 s of CPU each (two steps + one val batch, measured on the shared 2-core machine): `make test-slow`.
SLOW = {"deltamomentum/fineweb_370m_adamw", "deltamomentum/fineweb_370m_delta",  # minutes, GBs: see the docstring
        "deltamomentum/fineweb_67m_adamw", "deltamomentum/fineweb_67m_delta",  # ~23 s each
        "degbins/nyuv2_x4", "degbins/nyuv2_x8", "degbins/nyuv2_x16",  # 17-50 s: 480x640 validation images
        "apt/nyuv2", "apt/cityscapes",  # SegNet-MTAN at 288x384 (nyuv2); cityscapes: ~35 s of one core
        "probes/mnist_transfer",  # 18 s: two MLPs read all 70,000 MNIST inputs
        "degradequery/pretrain_gin", "degradequery/main_gin",  # 10 s each: GIN over every PROTAC graph
        "darsm/duct_adjoint", "darsm/duct_mcconkey_adjoint"}  # 64 x 64 duct solves: 38 s of CPU per cold solve at 48 x 48


NEEDS = {"deepfakegenome/dfg_open_set": STAND_IN_SPLIT}  # what its reproduce target takes from the user (DFG_SPLIT)
NO_STEPS = ["++trainer.max_steps=0"]  # the prior-collapse analysis takes no optimizer step (it refuses any)
KEEP = {"dag_gp/chain_prior": NO_STEPS, "dag_gp/chain_prior_paper": NO_STEPS,
        **OFFLINE,  # no Hub here: the Qwen3 presets run Qwen3's class at tiny dims
        **{name: ["~callbacks.model_checkpoint", "~callbacks.last_checkpoint"] for name in LARGE}}


def two_step_config(name: str, tmp_path: Path):
    data_dir = [f"paths.data_dir={DATA_ROOT}"] if DATA_ROOT.is_dir() else []
    overrides = [f"experiment={name}", *NEEDS.get(name, []), *TWO_STEPS, *data_dir, *KEEP.get(name, [])]
    cfg = fake_config(compose(overrides, output_dir=tmp_path))
    with open_dict(cfg):
        set_batch_size(cfg.data, 1 if name in LARGE else SMALL_BATCH)
        if cfg.task.get("cv_folds"):  # k folds cannot split two batches of two rows; tests/core/test_sklearn_selection.py covers CV
            cfg.task.cv_folds, cfg.task.threshold_from = 0, None
    return cfg


@pytest.fixture
def smaller_dfg(monkeypatch):
    """DFG's fake table at 1 % of its 2M rows (the per-row setup costs seconds; sample shapes are unchanged)."""
    from experiments.deepfakegenome import data

    monkeypatch.setattr(data, "DFG_FAKES_PER_ALGORITHM", data.DFG_FAKES_PER_ALGORITHM // 100)
    monkeypatch.setattr(data, "DFG_REALS", data.DFG_REALS // 100)


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in PRESETS])
def test_preset_two_steps_on_fake_data(name, tmp_path, smaller_dfg):
    cfg = two_step_config(name, tmp_path)
    if cfg.device.name == "cpu" and not hasattr(get_class(cfg.data.real), "fake_setup"):
        pytest.skip("a CPU preset on data it generates: faking changes nothing, and test_presets.py's fast_dev_run runs it")
    try:
        metrics = run(cfg)
    except DatasetNotFoundError as err:  # a later stage whose earlier stage's runs are absent, or shared data absent
        pytest.skip(f"input absent: {err}")
    assert (tmp_path / "metrics.json").exists()
    validates = (KEEP.get(name) != NO_STEPS and not cfg.task.get("_target_", "").endswith("SklearnEstimatorTask")
                 and cfg.data.get("val_fraction") != 0 and not str(cfg.monitor.metric).startswith("train/")
                 and defines_val_dataloader(get_class(cfg.data.real)))
    assert any(k.startswith("val/") for k in metrics) or not validates, f"no validation metric: {sorted(metrics)}"


def defines_val_dataloader(cls: type) -> bool:
    """The datamodule (not Lightning's base class) has a validation split: stages that keep their final weights
    (delta_adapter's pre-training) have none."""
    return any("val_dataloader" in vars(c) for c in cls.__mro__ if not c.__module__.startswith("lightning"))


def test_every_gpu_preset_has_a_fake(tmp_path):
    """A paper-scale preset whose datamodule reads files must define `fake_setup` (else its two steps need the data)."""
    reads_files = []
    for name in [n for n in PRESETS if "/device: gpu" in (CONF_DIR / "experiment" / f"{n}.yaml").read_text()]:
        cfg = compose([f"experiment={name}"], output_dir=tmp_path)
        if any(k in cfg.data for k in ("data_dir", "sources_dir")):
            cls = get_class(cfg.data._target_)
            if not hasattr(cls, "fake_setup") and "base" not in cfg.data:
                reads_files.append(name)
    assert reads_files == [], reads_files


def test_fake_samples_are_lazy_reproducible_and_in_range():
    spec = (TensorSpec((3, 4, 5)), {"seg": TensorSpec((4, 5), torch.long, -1, 13)})
    data = FakeSamples(spec, 10**9, seed=3)
    (image, targets), again = data[123_456_789], data[123_456_789][0]
    assert len(data) == 10**9 and image.shape == (3, 4, 5) and torch.equal(image, again)
    assert targets["seg"].dtype == torch.long and -1 <= int(targets["seg"].min()) and int(targets["seg"].max()) < 13
    assert not torch.equal(data[0][0], data[1][0])
    assert len(data[[1, 2, 3]]) == 3
    with pytest.raises(IndexError):
        data[10**9]


def test_fake_override_composes_to_the_fake_target():
    cfg = compose(["experiment=apt/nyuv2", "+data/fake=on"])
    assert cfg.data._target_ == FAKE_TARGET and cfg.data.name == "nyuv2"


def test_unknown_real_datamodule_is_one_clear_line():
    from reprolab.cli.errors import ConfigError

    with pytest.raises(ConfigError, match="neither a class path nor a data option"):
        fake_datamodule(real="no_such_option")


def test_console_script_with_the_one_override(tmp_path):
    """`reprolab-train experiment=... +data/fake=on` end to end (the `${hydra:...}` lookup needs a real Hydra run)."""
    env = {**os.environ, "PYTHONPATH": f"{REPO_ROOT / 'src'}{os.pathsep}{REPO_ROOT}", "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "reprolab.cli.train", "experiment=probes/mnist_source_a", "+data/fake=on",
           "data.batch_size=2", "data.eval_batch_size=2", *TWO_STEPS, f"hydra.run.dir={tmp_path}"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "metrics.json").exists()
