"""Selection without test: out-of-fold scores, the accuracy threshold, and the sklearn task fitted with no validation set."""

from __future__ import annotations

import lightning as L
import numpy as np
import pytest
import torch
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import f1_score
from sklearn.model_selection import StratifiedKFold
from torch.utils.data import DataLoader, TensorDataset

from reprolab.cli.errors import ConfigError
from reprolab.metrics.binary import BinaryMetrics, binary_metrics
from reprolab.tasks.sklearn_estimator import BatchFeatures, SklearnEstimatorTask
from reprolab.tasks.sklearn_selection import accuracy_threshold, cross_validated_proba, threshold_report


def test_accuracy_threshold_by_hand():
    # cuts -eps, 0.25, 0.5, 0.75, 0.9+eps give accuracies 2/4, 3/4, 2/4, 3/4, 2/4: the tie goes to the first cut
    # closest to 0.5
    assert accuracy_threshold([0.1, 0.4, 0.6, 0.9], [0, 1, 0, 1]) == pytest.approx(0.25)
    assert accuracy_threshold([0.2, 0.3, 0.7, 0.8], [0, 0, 1, 1]) == pytest.approx(0.5)
    assert accuracy_threshold([0.6, 0.7, 0.8, 0.9], [0, 0, 1, 1]) == pytest.approx(0.75)


def test_threshold_report_at_a_given_cut_and_the_oracle_cut():
    probs, labels = np.array([0.1, 0.4, 0.45, 0.6, 0.9]), np.array([0, 0, 1, 1, 1])
    report = threshold_report(probs, labels, threshold=0.5, prefix="test/")
    assert report["test/accuracy_at_threshold"] == pytest.approx(4 / 5)
    assert report["test/f1_macro_at_threshold"] == pytest.approx(f1_score(labels, probs >= 0.5, average="macro"))
    assert report["test/oracle_accuracy"] == 1.0 and report["test/oracle_threshold"] == pytest.approx(0.425)
    assert "test/accuracy_at_threshold" not in threshold_report(probs, labels, None, prefix="test/")


def test_cross_validated_proba_is_each_fold_fitted_without_its_rows():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(60, 3))
    y = (x[:, 0] + 0.5 * rng.normal(size=60) > 0).astype(int)
    expected = np.zeros(60)
    for fit_rows, held in StratifiedKFold(4, shuffle=True, random_state=7).split(x, y):
        expected[held] = clone(LogisticRegression()).fit(x[fit_rows], y[fit_rows]).predict_proba(x[held])[:, 1]
    np.testing.assert_allclose(cross_validated_proba(LogisticRegression(), x, y, folds=4, seed=7), expected)


class NoValidation(L.LightningDataModule):
    """120 training rows, no validation set (as with data.val_fraction=0), 60 test rows."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(1)
        x = torch.randn(180, 4, generator=g)
        y = ((x[:, 0] - x[:, 1] + torch.randn(180, generator=g)) > 0).long()
        self.train, self.test = (x[:120], y[:120]), (x[120:], y[120:])

    def train_dataloader(self):
        return DataLoader(TensorDataset(*self.train), batch_size=32)

    def val_dataloader(self):
        return DataLoader(TensorDataset(torch.zeros(0, 4), torch.zeros(0, dtype=torch.long)), batch_size=32)

    def test_dataloader(self):
        return DataLoader(TensorDataset(*self.test), batch_size=32)


def test_no_carve_fit_logs_cv_scores_and_tests_at_the_cv_threshold(tmp_path):
    data = NoValidation()
    task = SklearnEstimatorTask(LogisticRegression(), featurizer=BatchFeatures([0]), metrics=BinaryMetrics,
                                label_key=1, cv_folds=5, cv_seed=3, threshold_from="cv")
    trainer = L.Trainer(max_epochs=1, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False, default_root_dir=tmp_path)
    trainer.fit(task, datamodule=data)
    x, y = (t.numpy() for t in data.train)
    oof = cross_validated_proba(LogisticRegression(), x, y, folds=5, seed=3)
    assert float(trainer.callback_metrics["cv/auroc"]) == pytest.approx(binary_metrics(oof, y)["auroc"], abs=1e-6)
    cut = accuracy_threshold(oof, y)
    assert float(trainer.callback_metrics["cv/threshold"]) == pytest.approx(cut)
    logged = trainer.test(task, datamodule=data, verbose=False)[0]
    probs = LogisticRegression().fit(x, y).predict_proba(data.test[0].numpy())[:, 1]  # fitted on ALL training rows
    assert logged["test/auroc"] == pytest.approx(binary_metrics(probs, data.test[1].numpy())["auroc"], abs=1e-6)
    assert logged["test/accuracy_at_threshold"] == pytest.approx(np.mean((probs >= cut) == data.test[1].numpy()))


def test_selection_configuration_errors():
    with pytest.raises(ConfigError, match="threshold_from"):
        SklearnEstimatorTask(LogisticRegression(), metrics=BinaryMetrics, threshold_from="test")
    with pytest.raises(ConfigError, match="cv_folds >= 2"):
        SklearnEstimatorTask(LogisticRegression(), metrics=BinaryMetrics, threshold_from="cv")
    with pytest.raises(ConfigError, match="positive_proba"):
        SklearnEstimatorTask(LogisticRegression(), metrics=BinaryMetrics, cv_folds=3, prediction="label")
