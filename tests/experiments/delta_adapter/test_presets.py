"""Delta-Adapter presets: each adapter arm changes one thing of the single-pair preset; the three stages run
through the trainer, the later ones loading the earlier ones' run folders; a missing or mismatched stage is
one line."""

from pathlib import Path

import numpy as np
import pytest
from omegaconf import OmegaConf
from PIL import Image

from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.cli.train import run
from reprolab.config.compose import compose

ARM_CHANGES = {
    "pair_of_pairs_cpu": ("data", {"protocol": "pair_of_pairs"}),
    "target_visible_cpu": ("model", {"delta_input": "target"}),
    "no_consistency_cpu": ("task", {"consistency_weight": 0.0}),
    "no_layernorm_cpu": ("model", {"layernorm": False}),
    "k1_cpu": ("model", {"num_tokens": 1}),
    "k16_cpu": ("model", {"num_tokens": 16}),
    "k64_cpu": ("model", {"num_tokens": 64}),
    "identity_cpu": ("trainer", {"max_steps": 0}),
}
GROUPS = ("data", "model", "task", "trainer", "optimizer")


def test_each_adapter_arm_changes_one_thing_of_single_pair(tmp_path):
    base = compose(["experiment=delta_adapter/single_pair_cpu"], output_dir=tmp_path)
    assert base.data.protocol == "single_pair" and base.model.num_tokens == 4 and base.task.consistency_weight > 0
    for name, (group, change) in ARM_CHANGES.items():
        cfg = compose([f"experiment=delta_adapter/{name}"], output_dir=tmp_path)
        for other in GROUPS:
            expected = {**base[other], **change} if other == group else dict(base[other])
            assert dict(cfg[other]) == expected, (name, other)
        assert cfg.setting == name


def test_the_tta_arms_reload_single_pair_of_the_same_seed_and_only_test(tmp_path):
    base = compose(["experiment=delta_adapter/single_pair_cpu", "seed=2"], output_dir=tmp_path)
    off = compose(["experiment=delta_adapter/tta_off_cpu", "seed=2"], output_dir=tmp_path)
    tta = compose(["experiment=delta_adapter/tta_cpu", "seed=2"], output_dir=tmp_path)
    assert off.task.init_from.endswith("logs/claims/delta_adapter/adapter/single_pair_cpu-2")
    assert off.trainer.max_steps == tta.trainer.max_steps == 0 and off.task.tta_steps == 0 < tta.task.tta_steps
    assert tta.task.tta_lr == base.optimizer.lr
    for other in ("data", "model", "optimizer"):
        assert dict(off[other]) == dict(base[other]) == dict(tta[other]), other
    assert {k: v for k, v in tta.task.items() if k != "tta_steps"} == {k: v for k, v in off.task.items() if k != "tta_steps"}


def write_folder(root: Path, per_class: int = 2) -> Path:
    rng = np.random.default_rng(0)
    for split in ("train", "test"):
        for c in range(10):
            folder = root / split / f"class{c}"
            folder.mkdir(parents=True)
            for i in range(per_class):
                Image.fromarray(rng.integers(0, 256, (32, 32, 3), dtype=np.uint8)).save(folder / f"{i}.png")
    return root


FAST = ["logger=none", "print_config=false", "trainer.max_steps=2", "data.batch_size=4", "data.eval_batch_size=4",
        "data.n_test=4"]


def run_stage(overrides: list[str], folder: Path) -> dict:
    """A run that leaves its composed config where reprolab-train's Hydra app does (`.hydra/config.yaml`)."""
    cfg = compose(overrides, output_dir=folder)
    (folder / ".hydra").mkdir(parents=True)
    OmegaConf.save(cfg, folder / ".hydra" / "config.yaml")
    return run(cfg)


def test_the_three_stages_run_through_the_trainer(tmp_path):
    data = [f"data.source.data_dir={write_folder(tmp_path / 'images')}"]
    encoder = tmp_path / "encoder"
    out = run_stage(["experiment=delta_adapter/encoder_cpu", *FAST, *data], encoder)
    assert 0 <= out["test/view_retrieval"] <= 1
    editor = tmp_path / "editor"
    assert run_stage(["experiment=delta_adapter/editor_cpu", *FAST, *data], editor)["test/identity_psnr"] > 0
    stages = [f"task.encoder_from={encoder}", f"task.editor_from={editor}"]
    metrics = run(compose(["experiment=delta_adapter/single_pair_cpu", *FAST, *data, *stages], output_dir=tmp_path / "a"))
    for split in ("seen", "unseen"):
        for name in ("psnr", "ssim", "dir_cos", "leakage", "pixel_leakage", "copy_psnr"):
            assert np.isfinite(metrics[f"test/{split}/{name}"]), (split, name)
    test_only = ["trainer.max_steps=0", f"task.init_from={tmp_path / 'a'}"]   # FAST's 2 steps off again
    reloaded = run(compose(["experiment=delta_adapter/tta_off_cpu", *FAST, *data, *stages, *test_only],
                           output_dir=tmp_path / "off"))
    assert all(reloaded[k] == metrics[k] for k in metrics if k.startswith("test/"))   # the tested weights, reloaded
    adapted = run(compose(["experiment=delta_adapter/tta_cpu", *FAST, *data, *stages, *test_only, "task.tta_steps=2"],
                          output_dir=tmp_path / "tta"))
    assert adapted["test/unseen/psnr"] != metrics["test/unseen/psnr"] and np.isfinite(adapted["test/unseen/dir_cos"])
    with pytest.raises(ConfigError, match="model.editor_depth"):
        run(compose(["experiment=delta_adapter/single_pair_cpu", *FAST, *data, *stages, "model.editor_depth=2"],
                    output_dir=tmp_path / "b"))


def test_a_missing_stage_is_one_line(tmp_path):
    cfg = compose(["experiment=delta_adapter/single_pair_cpu", *FAST, "task.encoder_from=null"], output_dir=tmp_path / "a")
    with pytest.raises(ConfigError, match="task.encoder_from is not set; .* or a task.encoder module"):
        run(cfg)
    cfg = compose(["experiment=delta_adapter/single_pair_cpu", *FAST, f"task.encoder_from={tmp_path}/none",
                   f"task.editor_from={tmp_path}/none"], output_dir=tmp_path / "b")
    with pytest.raises(DatasetNotFoundError, match="run the encoder"):
        run(cfg)
