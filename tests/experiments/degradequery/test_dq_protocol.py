"""Issue 14 §2: the sklearn baselines' protocol (no carve), select-then-refit, molecule tables, the search arms."""

from __future__ import annotations

import sys

import lightning as L
import numpy as np
import pytest
import torch
from hydra.utils import instantiate
from lightning.pytorch.demos.boring_classes import BoringModel
from omegaconf import OmegaConf
from sklearn.ensemble import StackingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier

from experiments.degradequery import boosting
from experiments.degradequery.datamodule import Protac8KDataModule
from experiments.degradequery.ensemble import FoldStack, named
from experiments.degradequery.features import NamesSeenInTraining, TupleFingerprintFeatures
from experiments.degradequery.mol_tables import mol_tables
from experiments.degradequery.refit import EpochsOfSelection, selected_epochs
from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.config.compose import compose

from .conftest import tiny_records

# each protocol ablation changes rf_tuple (or gbm_tuple) back in exactly these config keys
ABLATIONS = {
    "rf_tuple_carve": ("rf_tuple", {"data.val_fraction", "task.cv_folds", "task.threshold_from"}),
    "rf_tuple_dedup": ("rf_tuple", {"data.conflicts", "task.cv_folds", "task.threshold_from"}),
    "rf_tuple_300": ("rf_tuple", {"model.estimator.n_estimators", "task.cv_folds", "task.threshold_from"}),
    "gbm_tuple_carve": ("gbm_tuple", {"data.val_fraction", "task.cv_folds", "task.threshold_from"}),
}


def _flat(cfg) -> dict:
    return {k: v for k, v in _leaves(OmegaConf.to_container(cfg, resolve=False))}


def _leaves(tree, prefix=""):
    for key, value in tree.items():
        if isinstance(value, dict) and value:
            yield from _leaves(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


@pytest.mark.parametrize("ablation", sorted(ABLATIONS))
def test_protocol_ablations_change_one_choice(ablation, tmp_path):
    base, keys = ABLATIONS[ablation]
    a, b = (_flat(compose([f"experiment=degradequery/{p}"], output_dir=tmp_path)) for p in (ablation, base))
    changed = {k for k in set(a) | set(b) if a.get(k) != b.get(k)} - {"setting", "tags"}
    assert changed == keys


def test_sklearn_presets_fit_every_training_record(tmp_path):
    cfg = compose(["experiment=degradequery/rf_tuple"], output_dir=tmp_path)
    assert cfg.data.val_fraction == 0 and cfg.data.conflicts == "keep" and cfg.model.estimator.n_estimators == 500
    assert cfg.task.cv_folds == 5 and cfg.task.threshold_from == "cv" and cfg.monitor.metric == "cv/auroc"


def test_no_carve_keeps_every_labelled_training_record(tiny_dir):
    dm = Protac8KDataModule(str(tiny_dir), val_fraction=0, conflicts="keep")
    dm.setup("fit")
    records = tiny_records()
    assert len(dm.split.val) == 0 and len(dm.split.train) == int((records.split_seed111 == "train").sum())
    assert len(dm.val_dataloader()) == 0


def test_names_seen_in_training_drops_only_unset_name_columns():
    # 3 bit columns (bit 2 never set: kept), 3 target slots (slot 1 unset) and 2 E3 slots (slot 1 unset)
    x = np.array([[1, 0, 0, 1, 0, 0, 1, 0], [0, 1, 0, 0, 0, 1, 1, 0], [1, 1, 0, 1, 0, 0, 1, 0], [0, 0, 0, 0, 0, 1, 1, 0]])
    y = np.array([1, 0, 1, 0])
    model = NamesSeenInTraining(LogisticRegression(), num_targets=3, num_e3s=2).fit(x, y)
    assert model.keep_.tolist() == [True, True, True, True, False, True, True, False]
    by_hand = LogisticRegression().fit(x[:, model.keep_], y)
    np.testing.assert_allclose(model.predict_proba(x), by_hand.predict_proba(x[:, model.keep_]))


def test_molecule_tables_by_hand():
    # ethanol: Morgan radius 2 counts = 3 atoms + 3 distinct radius-1 environments (radius 2 adds none); 3 atom pairs
    table = mol_tables(("CCO",), ("ecfp_count", "atom_pair", "maccs"), 4096)
    assert table.shape == (1, 4096 + 4096 + 167)
    assert table[0, :4096].sum() == 6 and table[0, 4096:8192].sum() == 3
    from rdkit import Chem
    from rdkit.Chem import Descriptors

    descriptors = mol_tables(("CCO",), ("descriptors",))
    assert descriptors[0, list(Descriptors.CalcMolDescriptors(Chem.MolFromSmiles("CCO"))).index("MolWt")] == pytest.approx(46.069, abs=1e-3)
    with pytest.raises(ConfigError, match="unknown kinds"):
        mol_tables(("CCO",), ("ecfp6",))


def test_featurizer_puts_the_molecule_tables_between_bits_and_names():
    batch = {"mol": torch.tensor([[1, 4]]), "target": torch.tensor([0]), "e3": torch.tensor([1]), "mol_x": torch.tensor([[7.0, 8.0]])}
    features = TupleFingerprintFeatures(fp_bits=4, num_targets=2, num_e3s=2, with_mol_tables=True)(batch)
    np.testing.assert_array_equal(features, [[0, 1, 0, 0, 7, 8, 1, 0, 0, 1]])
    with pytest.raises(ConfigError, match="data.mol_tables"):
        TupleFingerprintFeatures(with_mol_tables=True)({k: v for k, v in batch.items() if k != "mol_x"})


def test_datamodule_serves_molecule_tables(tiny_dir):
    dm = Protac8KDataModule(str(tiny_dir), val_fraction=0, mol_tables=["maccs"])
    dm.setup("fit")
    batch = next(iter(dm.train_dataloader()))
    assert batch["mol_x"].shape == (len(batch["label"]), 167) and batch["mol_x"].sum() > 0


def test_refit_takes_the_epoch_count_of_the_selected_checkpoint(tmp_path):
    with pytest.raises(DatasetNotFoundError, match="claim-degradequery-official"):
        selected_epochs(tmp_path)
    (tmp_path / "checkpoints").mkdir()
    torch.save({"epoch": 2, "state_dict": {}}, tmp_path / "checkpoints" / "best-002-000030.ckpt")
    assert selected_epochs(tmp_path) == 3
    trainer = L.Trainer(max_epochs=50, limit_train_batches=2, limit_val_batches=0, logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False, callbacks=[EpochsOfSelection(str(tmp_path))])
    trainer.fit(BoringModel())
    assert trainer.current_epoch == 3 and float(trainer.callback_metrics["refit/epochs"]) == 3


@pytest.mark.parametrize("option", ["lightgbm", "xgboost", "catboost"])
def test_boosting_library_missing_is_one_line(option, monkeypatch):
    monkeypatch.setitem(sys.modules, option, None)
    with pytest.raises(ConfigError, match=rf"model={option} needs {option}: pip install -e '\.\[degradequery\]'"):
        getattr(boosting, f"{option}_classifier")()


@pytest.mark.parametrize("arm", ["xgb_tuple", "cat_tuple", "stack_tuple"])
def test_search_arms_change_only_the_model_of_rf_tuple(arm, tmp_path):
    a, b = (_flat(compose([f"experiment=degradequery/{p}"], output_dir=tmp_path)) for p in (arm, "rf_tuple"))
    changed = {k for k in set(a) | set(b) if a.get(k) != b.get(k)} - {"setting", "tags"}
    assert changed and all(k.startswith("model.") for k in changed)
    model = instantiate(compose([f"experiment=degradequery/{arm}", "seed=7"], output_dir=tmp_path).model)
    if arm == "stack_tuple":
        assert [name for name, _ in model.estimators] == ["forest", "boosting", "lightgbm", "xgboost"]
        assert model.cv_folds == 3 and model.seed == 7 and model.estimators[0][1].estimator.n_estimators == 300
    else:  # every grid key is a parameter of the estimator, and the inner folds are seeded by the run
        assert set(model.param_grid) <= set(model.estimator.get_params()) and model.cv.random_state == 7


def _two_classes(n=90, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4))
    return x, (x[:, 0] + 0.7 * rng.normal(size=n) > 0).astype(int)


def test_fold_stack_is_scikit_learns_stack_on_seeded_stratified_folds():
    x, y = _two_classes()
    bases = {"tree": DecisionTreeClassifier(max_depth=2, random_state=0), "logistic": LogisticRegression()}
    ours = FoldStack(named(**bases), LogisticRegression(), cv_folds=3, seed=5).fit(x, y)
    reference = StackingClassifier(list(bases.items()), final_estimator=LogisticRegression(), stack_method="predict_proba",
                                   cv=StratifiedKFold(3, shuffle=True, random_state=5)).fit(x, y)
    np.testing.assert_allclose(ours.predict_proba(x), reference.predict_proba(x))
    np.testing.assert_allclose(ours.final_estimator_.coef_, reference.final_estimator_.coef_)


def test_fold_stack_shrinks_its_folds_to_the_rows_it_has():
    x, y = _two_classes(12)
    y[:] = 0
    y[:2] = 1  # two rows of the rare class: two folds, not three
    stack = FoldStack(named(logistic=LogisticRegression()), LogisticRegression(), cv_folds=3).fit(x, y)
    assert stack.cv.n_splits == 2
    y[1] = 0  # one row: in-sample probabilities, with a warning
    with pytest.warns(UserWarning, match="1 training row"):
        FoldStack(named(logistic=LogisticRegression()), LogisticRegression(), cv_folds=3).fit(x, y)
