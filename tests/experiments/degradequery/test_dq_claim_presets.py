"""The claim check's arms: each preset runs a batch through reprolab-train; the forests read the networks' batches;
claims.yaml parses and names only presets and sweep folders that `make claim-degradequery` makes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from experiments.degradequery.features import TupleFingerprintFeatures
from reprolab.claims.spec import load_claims
from reprolab.cli.errors import ConfigError
from reprolab.cli.train import run
from reprolab.config.compose import CONF_DIR, REPO_ROOT, compose

ARMS = ["main", "no_pretrain", "molecule_only", "rf_tuple", "gbm_tuple", "rf_molecule", "lgbm_tuple", "main_refit",
        "xgb_tuple", "cat_tuple", "stack_tuple", "lgbm_tuple_parts", "net_grid"]
SMALL = {"rf_tuple": ["model.estimator.n_estimators=5"], "rf_molecule": ["model.n_estimators=5"], "lgbm_tuple": ["model.n_estimators=5"],
         "lgbm_tuple_parts": ["model.n_estimators=5"],
         "xgb_tuple": ["model.estimator.n_estimators=5", "task.cv_folds=2"],
         "cat_tuple": ["model.estimator.iterations=5", "task.cv_folds=2"],
         "stack_tuple": ["task.cv_folds=2"] + [f"model.estimators.{name}.{key}=5" for name, key in (("forest", "estimator.n_estimators"),
                         ("boosting", "_args_.1.max_iter"), ("lightgbm", "n_estimators"), ("xgboost", "n_estimators"))]}
TARGETS = (REPO_ROOT / "experiments" / "degradequery" / "targets.mk").read_text()


@pytest.mark.parametrize("arm", ARMS)
def test_claim_arm_runs_one_batch_through_the_trainer(arm, protac8k_dir, tmp_path, request):
    extra = ["++data.split=target_e3"] if arm == "no_pretrain" else []  # the holdout sweep's override, once
    extra += [f"pretrain_run={request.getfixturevalue('pretrain_run')}"] if arm.startswith(("main", "net_grid")) else []
    extra += SMALL.get(arm, [])
    if arm == "main_refit":  # stage 1 of the refit: a carve-select run whose best checkpoint is from epoch 1
        (tmp_path / "select" / "checkpoints").mkdir(parents=True)
        torch.save({"epoch": 1}, tmp_path / "select" / "checkpoints" / "best-001-000010.ckpt")
        extra += [f"select_run={tmp_path / 'select'}"]
    cfg = compose([f"experiment=degradequery/{arm}", "debug=fdr", "logger=none", "print_config=false",
                   f"paths.data_dir={protac8k_dir}", *extra], output_dir=tmp_path)
    metrics = run(cfg)
    assert {"test/auroc", "test/accuracy", "test/f1_macro"} <= set(metrics)
    assert metrics["setting"] == arm and (tmp_path / "metrics.json").is_file()
    if arm == "lgbm_tuple_parts":  # the part kinds reach the estimator: 3 part fingerprints + 7 linker descriptors
        assert cfg.data.mol_tables[-4:] == ["warhead_ecfp", "linker_ecfp", "e3_ligand_ecfp", "linker_descriptors"]
    if arm in ("main", "rf_tuple", "lgbm_tuple", "xgb_tuple", "stack_tuple"):  # a threshold chosen on validation (networks) or CV (estimators)
        assert 0 < metrics["val/threshold" if arm == "main" else "cv/threshold"] < 1
        assert {"test/accuracy_at_threshold", "test/oracle_accuracy"} <= set(metrics)
    if arm in ("xgb_tuple", "cat_tuple"):  # the grid point chosen on CV inside the fit is logged
        assert {"cv/best_max_depth", "cv/best_learning_rate"} <= set(metrics) if arm == "xgb_tuple" else "cv/best_depth" in metrics
    if arm == "main_refit":
        assert metrics["refit/epochs"] == 2 and "val/auroc" not in metrics


def test_fingerprint_features_are_the_dense_bits_then_one_hot_target_and_e3():
    # molecule 0 has bits {1, 3}, molecule 1 has bit {0}; on-bit tables are padded with fp_bits (= 4)
    batch = {"mol": torch.tensor([[1, 3], [0, 4]]), "target": torch.tensor([2, 0]), "e3": torch.tensor([1, 1])}
    features = TupleFingerprintFeatures(fp_bits=4, num_targets=3, num_e3s=2)(batch)
    np.testing.assert_array_equal(features, [[0, 1, 0, 1, 0, 0, 1, 0, 1], [1, 0, 0, 0, 1, 0, 0, 0, 1]])
    molecule_only = TupleFingerprintFeatures(fp_bits=4, num_targets=3, num_e3s=2, with_tuple=False)(batch)
    np.testing.assert_array_equal(molecule_only, features[:, :4])
    with pytest.raises(ConfigError, match="mol_encoder=ecfp"):
        TupleFingerprintFeatures()({"mol": {"x": torch.zeros(2)}, "target": batch["target"], "e3": batch["e3"]})


def test_claims_file_names_existing_presets_and_the_claim_sweeps():
    claims = load_claims("degradequery")
    assert claims.paper == "degradequery" and claims.command == "make claim-degradequery"
    for claim in claims.claims:
        if claim.is_meta:
            continue
        for run_folder in claim.runs:
            assert f"hydra.sweep.dir=$(DQ_RUNS)/{run_folder}" in TARGETS, run_folder
        for arm in (claim.treatment, claim.baseline or {}):
            settings = arm.get("setting", [])
            for setting in settings if isinstance(settings, list) else [settings]:
                assert (Path(CONF_DIR) / "experiment" / "degradequery" / f"{setting}.yaml").is_file(), setting
        assert claim.paired or claim.threshold is not None


@pytest.mark.parametrize("arm", ["net_grid", "net_grid_nopt"])
def test_network_grid_point_names_its_width_dropout_and_pretraining(arm):
    cfg = compose([f"experiment=degradequery/{arm}", "model.hidden=512", "model.dropout=0.1"])
    assert cfg.grid_point == f"h512_do0.1_{arm}"
    pretrained = cfg.task.pretrained_ckpt
    assert (pretrained is None) == (arm == "net_grid_nopt")
    assert arm == "net_grid_nopt" or str(pretrained).endswith("pretrain_grid/h512/official-0")
