"""The paper-scale QM9 presets: composition, the MPNN's exposed latents, the carved hold-out, and a one-batch
run of each stage on CPU with a stand-in for APT's QM9 module (the real one needs the 0.5 GB download)."""

import json

import pytest
import torch

from experiments.heteroskedastic.data_graph import GraphHoldoutDataModule
from reprolab.cli.errors import ConfigError
from reprolab.cli.train import run
from reprolab.config.compose import compose

pytest.importorskip("torch_geometric")
from tests.experiments.heteroskedastic.fake_qm9 import FakeQM9DataModule  # noqa: E402

FAKE = ["data.base._target_=tests.experiments.heteroskedastic.fake_qm9.FakeQM9DataModule", "data.num_workers=0", "data.batch_size=8", "device=cpu",
        "logger=none", "trainer.max_epochs=1", "print_config=false", "seed=0"]


def test_holdout_is_carved_from_train_and_the_target_kept():
    dm = GraphHoldoutDataModule(FakeQM9DataModule(), target=6, holdout_fraction=0.25, batch_size=4)
    dm.setup()
    assert [len(dm.sets[k]) for k in ("train", "holdout", "val", "test")] == [30, 10, 8, 8]
    train_ids = {id(g) for g in dm.sets["train"].graphs}
    assert not train_ids & {id(g) for g in dm.sets["holdout"].graphs}
    full = dm.base.sets["train"]
    assert all(any(g is f for f in full) for g in dm.sets["holdout"].graphs)
    assert dm.sets["holdout"][0].y.shape == (1, 1) and dm.target_std == pytest.approx(1600.0)
    with pytest.raises(ConfigError, match="data.target"):
        GraphHoldoutDataModule(FakeQM9DataModule(), target=11).setup()


@pytest.mark.parametrize("arm", ["qm9_mve", "qm9_beta_nll", "qm9_faithful"])
def test_end_to_end_qm9_presets_run_one_epoch(arm, tmp_path):
    metrics = run(compose([f"experiment=heteroskedastic/{arm}", *FAKE], output_dir=tmp_path))
    assert torch.isfinite(torch.tensor(metrics["test/nll"])) and "best/val/nll" in metrics


@pytest.mark.parametrize("layers,ensemble", [("all", False), ("last", False), ("all", True), ("none", False)])
def test_qm9_mean_then_posthoc(layers, ensemble, tmp_path):
    mean = run(compose(["experiment=heteroskedastic/qm9_mean", *FAKE], output_dir=tmp_path / "qm9-0"))
    assert "test/nll" not in mean
    cfg = compose(["experiment=heteroskedastic/qm9_posthoc", *FAKE, f"mean_runs={tmp_path}", f"task.layers={layers}",
                   f"task.ensemble={ensemble}"], output_dir=tmp_path / "posthoc")
    metrics = run(cfg)
    assert metrics["test/rmse"] == pytest.approx(mean["test/rmse"], rel=1e-5)
    assert torch.isfinite(torch.tensor(metrics["test/nll"]))
    assert json.loads((tmp_path / "qm9-0" / "metrics.json").read_text())["best_ckpt"]
