"""DeformGen presets: each claim arm differs from DG in one generator key; the claim preset runs through the
trainer on a tiny budget; paper presets compose for a GPU + W&B, run one batch on generated data, and the
released-data loader reads LeRobot parquet frames (written here) and names its download when they are absent."""

from pathlib import Path

import numpy as np
import pytest

from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.cli.train import run
from reprolab.config.compose import CONF_DIR, compose
from reprolab.data.fake import fake_config

# a CPU preset run through the trainer in seconds: two demos, two test states per set
SMALL_RUN = ["logger=none", "print_config=false", "data.n_demos=2", "data.gen_batch=4", "data.n_test=2"]

PRESETS = sorted(p.stem for p in (CONF_DIR / "experiment" / "deformgen").glob("*.yaml"))
ARM_CHANGES = {
    "source_cpu": {"states": "source", "warp": "none"},
    "smg_cpu": {"states": "grid"},
    "dgstar_cpu": {"warp": "local_rigid"},
    "noise_cpu": {"states": "noise"},
    "dg_k5_cpu": {"manip_k": 5},
}


def test_each_arm_changes_one_thing_of_dg():
    dg = compose(["experiment=deformgen/dg_cpu"])
    assert dict(dg.data.generator) == {"states": "impulse", "warp": "field", "grasp_k": 5, "manip_k": 99999,
                                       "decay": "linear", "replay_filter": True}
    for name, change in ARM_CHANGES.items():
        cfg = compose([f"experiment=deformgen/{name}"])
        assert dict(cfg.data.generator) == {**dg.data.generator, **change}, name
        assert cfg.data.test_process == dg.data.test_process and cfg.data.n_demos == dg.data.n_demos
        assert cfg.trainer.max_steps == dg.trainer.max_steps and cfg.setting == name


def test_the_claim_preset_runs_through_the_trainer(tmp_path):
    cfg = compose(["experiment=deformgen/dg_cpu", "logger=none", "print_config=false", "data.n_demos=2",
                   "data.gen_batch=4", "data.n_test=2", "trainer.max_steps=3"], output_dir=tmp_path)
    metrics = run(cfg)
    for name in ("impulse", "grid", "drag"):
        assert 0.0 <= metrics[f"test/success_{name}"] <= 100.0
    assert metrics["test/n_demos"] == 2.0


def test_the_3d_preset_is_dg_with_the_3d_keys_and_runs_through_the_trainer(tmp_path):
    dg, dg3 = compose(["experiment=deformgen/dg_cpu"]), compose(["experiment=deformgen/dg3d_cpu"])
    assert dg3.data.generator == dg.data.generator and dg3.trainer.max_steps == dg.trainer.max_steps
    assert (dg3.data.sim.dim, dg3.model.in_features, dg3.model.num_classes) == (3, 6 * 30 + 6, 5)
    assert {k: v for k, v in dg3.data.sim.items() if k not in ("dim", "restitution")} == dg.data.sim
    metrics = run(compose(["experiment=deformgen/dg3d_cpu", *SMALL_RUN, "trainer.max_steps=3"], output_dir=tmp_path))
    assert metrics["test/n_demos"] == 2.0 and 0.0 <= metrics["test/success_drag"] <= 100.0
    with pytest.raises(ConfigError, match="set model.num_classes=5"):
        run(compose(["experiment=deformgen/dg3d_cpu", *SMALL_RUN, "model.num_classes=4", "trainer.max_steps=3"],
                    output_dir=tmp_path / "four"))


@pytest.mark.parametrize("name", [p for p in PRESETS if p.startswith("rope_")])
def test_paper_presets_ask_for_a_gpu_and_wandb_and_run_one_fake_batch(name, tmp_path):
    cfg = compose([f"experiment=deformgen/{name}"])
    assert cfg.device.accelerator == "gpu" and "wandb" in cfg.logger and cfg.data.episodes == 1000
    fake = compose([f"experiment=deformgen/{name}", "device=cpu", "logger=none", "debug=fdr",
                    "print_config=false", "data.episodes=120", "data.frames_per_episode=4", "data.num_workers=0",
                    *(["data.batch_size=4"] if name.endswith(("_act", "_dp")) else []),   # the paper's sizes: 4 rows
                    *(["model.inference_steps=2"] if name.endswith("_dp") else [])],     # 2 of DDPM's 100 steps on CPU
                   output_dir=tmp_path)
    assert run(fake_config(fake))["test/action_mse"] > 0   # what +data/fake=on does on the command line


def write_lerobot(folder: Path, episodes=6, frames=5, state_dim=3, action_dim=2):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    out = folder / "data" / "chunk-000"
    out.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for e in range(episodes):
        table = pa.table({"observation.state": [rng.normal(size=state_dim).tolist() for _ in range(frames)],
                          "action": [rng.normal(size=action_dim).tolist() for _ in range(frames)],
                          "episode_index": [e] * frames})
        pq.write_table(table, out / f"episode_{e:06d}.parquet")


def test_the_lerobot_loader_reads_frames_and_splits_by_episode(tmp_path):
    from experiments.deformgen.lerobot_data import LeRobotDemoDataModule

    write_lerobot(tmp_path / "rope" / "train1000_txy")
    dm = LeRobotDemoDataModule(str(tmp_path), mode="txy", val_episodes=1, test_episodes=1)
    dm.prepare_data()
    dm.setup()
    assert [len(dm.splits[s]) for s in ("train", "val", "test")] == [20, 5, 5]
    assert dm.splits["train"].tensors[0].shape[1] == 3 and dm.splits["train"].tensors[1].shape[1] == 2


def test_missing_released_data_is_one_line_naming_the_download(tmp_path):
    cfg = compose(["experiment=deformgen/rope_dg", "device=cpu", "logger=none", "print_config=false",
                   f"paths.data_dir={tmp_path}"], output_dir=tmp_path)
    with pytest.raises(DatasetNotFoundError, match="run 'make data-deformgen'"):
        run(cfg)
