"""Every probes preset runs through the trainer on one batch; transfer loads finished source runs (weights only)."""

from pathlib import Path

import pytest
from hydra.utils import instantiate
from omegaconf import OmegaConf

from reprolab.cli.errors import DatasetNotFoundError
from reprolab.cli.train import run
from reprolab.config.compose import CONF_DIR, compose

PRESETS = sorted(p.stem for p in (CONF_DIR / "experiment" / "probes").glob("*.yaml"))
QUIET = ["device=cpu", "logger=none", "print_config=false"]


def one_run(name: str, out: Path, *extra: str) -> dict:
    cfg = compose([f"experiment=probes/{name}", *QUIET, *extra], output_dir=out)
    (out / ".hydra").mkdir(parents=True, exist_ok=True)
    OmegaConf.save(cfg, out / ".hydra" / "config.yaml", resolve=True)   # what a reprolab-train run leaves behind
    return run(cfg)


@pytest.mark.parametrize("model", ["probe_linear", "probe_quadratic", "probe_cp", "probe_l1", "probe_relu"])
def test_synthetic_preset_one_batch_for_each_probe(model, tmp_path):
    metrics = one_run("synthetic_cpu", tmp_path, f"model={model}", "debug=fdr", "data.n_train=200", "data.affine=true")
    assert 0.0 <= metrics["test/auroc"] <= 1.0


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("sources")
    for name, seed in (("digits_source_a_cpu", 0), ("digits_source_b_cpu", 1), ("digits_wide_source_a_cpu", 0),
                       ("digits_wide_source_b_cpu", 1)):
        metrics = one_run(name, root / f"{name}_seed{seed}", f"seed={seed}", "debug=limit")
        assert 0.0 <= metrics["test/acc"] <= 1.0
    return root


def test_tree_control_is_a_depth_limited_sklearn_tree_through_the_trainer(tmp_path):
    metrics = one_run("synthetic_tree_cpu", tmp_path, "data.task=circle", "data.n_train=300", "model.max_depth=2")
    assert 0.5 < metrics["test/auroc"] <= 1.0
    cfg = compose(["experiment=probes/synthetic_tree_cpu"])
    assert cfg.model._target_ == "sklearn.tree.DecisionTreeClassifier" and cfg.model.max_depth == 6


@pytest.mark.parametrize("extra", [["model.target=quotient"], ["model.target=full"],
                                   ["model.target=full", "model/alignment=procrustes"],
                                   ["model.target=full", "model/alignment=cca"],
                                   ["model=probe_oracle", "data.n_pairs=null"], ["model=probe_source"]])
def test_transfer_arms_run_through_the_sklearn_task(sources, tmp_path, extra):
    metrics = one_run("transfer_cpu", tmp_path, f"data.sources_dir={sources}", "data.n_pairs=50", *extra)
    for group in ("covered", "uncovered"):
        assert 0.0 <= metrics[f"test/auroc_{group}"] <= 1.0


@pytest.mark.parametrize("extra", [["model.target=quotient"], ["model.target=full", "model.alignment.alpha_per_target=true"],
                                   ["model=probe_oracle", "data.n_pairs=null"]])
def test_wide_transfer_arms_run_through_the_sklearn_task(sources, tmp_path, extra):
    metrics = one_run("transfer_wide_cpu", tmp_path, f"data.sources_dir={sources}", *extra)
    assert 0.0 <= metrics["test/auroc_covered"] <= 1.0


def test_wide_setting_is_wider_than_its_pairs_and_picks_alpha_from_them():
    cfg = compose(["experiment=probes/transfer_wide_cpu"])
    assert cfg.model.alignment._target_ == "sklearn.linear_model.RidgeCV" and not cfg.model.alignment.alpha_per_target
    widths = [compose([f"experiment=probes/{cfg.data[k]}"]).model.hidden for k in ("source_a", "source_b")]
    assert widths == [1024, 768] and cfg.data.n_pairs == 50


def test_chosen_alphas_refits_each_wide_arm_on_the_grid(sources):
    from experiments.probes.chosen_alphas import ARMS, chosen_alphas

    alphas = chosen_alphas(0, 50, f"data.sources_dir={sources}")
    grid = compose(["experiment=probes/transfer_wide_cpu"]).model.alignment.alphas
    assert list(alphas) == list(ARMS) and all(min(grid) <= a <= max(grid) for a in alphas.values())
    assert alphas["quotient, one alpha"] in grid and alphas["full, one alpha"] in grid


def test_transfer_pairs_only_n_pairs_inputs_of_b(sources):
    cfg = compose(["experiment=probes/transfer_cpu", f"data.sources_dir={sources}", "data.n_pairs=30"])
    dm = instantiate(cfg.data)
    dm.setup()
    train = dm.splits["train"]
    assert (~train["b"].isnan().any(1)).sum().item() == 30 and not train["a"].isnan().any()
    assert not dm.splits["test"]["b"].isnan().any()


def test_transfer_without_source_runs_is_one_clear_line(tmp_path):
    with pytest.raises(DatasetNotFoundError, match="has no .hydra/config.yaml; run its source sweep first"):
        one_run("transfer_cpu", tmp_path / "t", f"data.sources_dir={tmp_path}")


def test_paper_presets_ask_for_a_gpu_and_wandb():
    for name in ("mnist_source_a", "mnist_source_b", "mnist_transfer"):
        cfg = compose([f"experiment=probes/{name}"])
        assert cfg.device.accelerator == "gpu" and "wandb" in cfg.logger
    assert compose(["experiment=probes/mnist_source_b"]).model.hidden == 384


def test_mnist_source_without_data_is_one_clear_line(tmp_path):
    with pytest.raises(DatasetNotFoundError, match="has no MNIST; run 'make data-mnist'"):
        one_run("mnist_source_a", tmp_path, f"paths.data_dir={tmp_path}", "device=cpu", "logger=none", "debug=fdr")


def test_every_preset_is_tested():
    assert set(PRESETS) == {"synthetic_cpu", "synthetic_tree_cpu", "digits_source_a_cpu", "digits_source_b_cpu", "transfer_cpu",
                            "digits_wide_source_a_cpu", "digits_wide_source_b_cpu", "transfer_wide_cpu",
                            "mnist_source_a", "mnist_source_b", "mnist_transfer"}
