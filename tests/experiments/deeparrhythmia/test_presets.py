"""The presets through the trainer: CPU arms for one batch on the shared records, paper-scale arms composed for the
GPU and run for one batch on generated data of the real shapes (+data/fake=on), the agent preset composed."""

import pytest

from reprolab.cli.train import run
from reprolab.config.compose import compose
from reprolab.config.paths import data_root
from reprolab.data.fake import fake_config

CPU_ARMS = ["beat_cnn_cpu", "rr_cpu", "beat_rr_cpu", "rhythm_cpu", "context_cpu", "rich_cpu", "bigru_cpu", "router_cpu"]
PAPER_ARMS = ["ds2_beat_rr", "ds2_rr", "ds2_context", "ds2_rich", "ds2_bigru", "ds2_router"]
needs_data = pytest.mark.skipif(not (data_root() / "mitbih-tpcp-subset").is_dir(), reason="no mitbih-tpcp-subset")


@pytest.mark.parametrize("arm", CPU_ARMS)
def test_cpu_arms_compose_as_one_change_from_the_baseline(arm, tmp_path):
    cfg = compose([f"experiment=deeparrhythmia/{arm}"], output_dir=tmp_path)
    base = compose(["experiment=deeparrhythmia/beat_rr_cpu"], output_dir=tmp_path)
    assert cfg.setting == arm.removesuffix("_cpu") and cfg.data == base.data and cfg.device.name == "cpu"
    assert cfg.data.exclude == [102, 104, 107, 217] and cfg.data.protocol == "loro"


@needs_data
@pytest.mark.parametrize("arm", ["beat_rr_cpu", "bigru_cpu", "router_cpu"])
def test_cpu_arms_run_one_batch_on_the_shared_records(arm, tmp_path):
    cfg = compose([f"experiment=deeparrhythmia/{arm}", "debug=fdr", "data.test_record=100", "print_config=false",
                   f"paths.cache_dir={tmp_path / 'cache'}"], output_dir=tmp_path)
    metrics = run(cfg)
    for key in ("test/macro_f1", "test/v_f1", "test/confounder_not_v", "test/atrial_not_v"):
        assert 0.0 <= metrics[key] <= 1.0, (key, metrics)
    if arm == "router_cpu":
        assert "test/oracle/macro_f1" in metrics and 0 <= metrics["test/rich_fraction"] <= 1


@pytest.mark.parametrize("arm", PAPER_ARMS)
def test_paper_arms_are_gpu_ds1_to_ds2_and_run_one_fake_batch(arm, tmp_path):
    cfg = compose([f"experiment=deeparrhythmia/{arm}"], output_dir=tmp_path)
    assert cfg.device.name == "gpu" and "wandb" in cfg.logger
    assert cfg.data.source == "wfdb" and cfg.data.classes == "aami" and cfg.data.download
    assert len(cfg.data.train_records) == 22 and len(cfg.data.test_records) == 22
    assert not set(cfg.data.train_records) & set(cfg.data.test_records)
    if arm in ("ds2_beat_rr", "ds2_router"):
        cfg = fake_config(compose([f"experiment=deeparrhythmia/{arm}", "device=cpu", "logger=none", "debug=fdr",
                                   "print_config=false"], output_dir=tmp_path / "fake"))   # what +data/fake=on does
        metrics = run(cfg)
        assert "test/macro_f1" in metrics


def test_agent_preset_composes_for_a_gpu(tmp_path):
    cfg = compose(["experiment=deeparrhythmia/agent_vlm"], output_dir=tmp_path)
    assert cfg.model._target_.endswith("agent.VisionLanguagePolicy") and cfg.device.name == "gpu"
    assert cfg.trainer.max_epochs == 0 and cfg.task.evidence == "confidence"
    assert list(cfg.task.macro_classes) == ["N", "S", "V", "F"]


def test_bad_arm_inputs_fail_in_one_line(tmp_path):
    from reprolab.cli.errors import ConfigError
    from reprolab.run.build import build_task

    cfg = compose(["experiment=deeparrhythmia/beat_rr_cpu", "model.inputs=[beat,qrs]"], output_dir=tmp_path)
    with pytest.raises(Exception) as caught:
        build_task(cfg)
    err = caught.value
    while err.__cause__ is not None and not isinstance(err, ConfigError):
        err = err.__cause__
    assert "model.inputs must be a non-empty list" in str(err)
