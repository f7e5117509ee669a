"""The scikit-learn task: through the trainer it gives what the estimator fitted by hand gives, on the same rows."""

from __future__ import annotations

import lightning as L
import numpy as np
import pytest
import torch
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from torch.utils.data import DataLoader, TensorDataset

from reprolab.cli.errors import ConfigError
from reprolab.metrics.binary import BinaryMetrics, binary_metrics
from reprolab.tasks.sklearn_estimator import BatchFeatures, SklearnEstimatorTask


class TinyBinary(L.LightningDataModule):
    """A made-up two-class problem: 120 / 40 / 60 rows of 5 features, labels from a noisy linear rule."""

    def __init__(self, batch_size: int = 16):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        x = torch.randn(220, 5, generator=g)
        y = ((x[:, 0] - 0.5 * x[:, 1] + 0.8 * torch.randn(220, generator=g)) > 0).long()
        self.parts = {"train": (x[:120], y[:120]), "val": (x[120:160], y[120:160]), "test": (x[160:], y[160:])}
        self.batch_size = batch_size

    def _loader(self, part: str) -> DataLoader:
        return DataLoader(TensorDataset(*self.parts[part]), batch_size=self.batch_size)

    def train_dataloader(self):
        return self._loader("train")  # in order: a forest's bootstrap depends on the row order it is given

    def val_dataloader(self):
        return self._loader("val")

    def test_dataloader(self):
        return self._loader("test")


def make_task(estimator) -> SklearnEstimatorTask:
    return SklearnEstimatorTask(estimator, featurizer=BatchFeatures([0]), metrics=BinaryMetrics, label_key=1)


def trainer(tmp_path) -> L.Trainer:
    return L.Trainer(max_epochs=3, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                     enable_model_summary=False, default_root_dir=tmp_path)


@pytest.mark.parametrize("estimator", [RandomForestClassifier(n_estimators=20, random_state=0),
                                       HistGradientBoostingClassifier(max_iter=20, random_state=0)])
def test_trainer_score_equals_the_estimator_fitted_and_scored_by_hand(estimator, tmp_path):
    data, task = TinyBinary(), make_task(estimator)
    fit_trainer = trainer(tmp_path)
    fit_trainer.fit(task, datamodule=data)
    assert fit_trainer.current_epoch == 1  # one pass fits; max_epochs=3 does not refit or repeat
    val_auroc = float(fit_trainer.callback_metrics["val/auroc"])
    logged = fit_trainer.test(task, datamodule=data, verbose=False)[0]

    by_hand = estimator.__class__(**estimator.get_params()).fit(*(t.numpy() for t in data.parts["train"]))
    x_test, y_test = data.parts["test"]
    expected = binary_metrics(by_hand.predict_proba(x_test.numpy())[:, 1], y_test.numpy())
    assert {k.removeprefix("test/"): v for k, v in logged.items()} == pytest.approx(expected, abs=1e-6)
    x_val, y_val = data.parts["val"]
    val = binary_metrics(by_hand.predict_proba(x_val.numpy())[:, 1], y_val.numpy())
    assert val_auroc == pytest.approx(val["auroc"], abs=1e-6)


def test_an_unfitted_task_refits_from_the_training_loader_when_tested(tmp_path):
    data = TinyBinary()
    fitted = make_task(LogisticRegression())
    trainer(tmp_path).fit(fitted, datamodule=data)
    expected = trainer(tmp_path).test(fitted, datamodule=data, verbose=False)[0]
    fresh = make_task(LogisticRegression())  # as after loading a checkpoint: nothing gathered, nothing fitted
    assert trainer(tmp_path).test(fresh, datamodule=data, verbose=False)[0] == pytest.approx(expected)
    np.testing.assert_allclose(fresh.estimator.coef_, fitted.estimator.coef_)


def test_configuration_errors():
    with pytest.raises(ConfigError, match="scikit-learn estimator"):
        SklearnEstimatorTask(torch.nn.Linear(2, 1), metrics=BinaryMetrics)
    with pytest.raises(ConfigError, match="optimizer=null"):
        SklearnEstimatorTask(LogisticRegression(), optimizer=torch.optim.SGD, metrics=BinaryMetrics)
    with pytest.raises(ConfigError, match="task.prediction"):
        SklearnEstimatorTask(LogisticRegression(), metrics=BinaryMetrics, prediction="logits")
    with pytest.raises(ConfigError, match="task.metrics"):
        SklearnEstimatorTask(LogisticRegression())


def test_batch_features_flatten_and_concatenate_keys():
    batch = {"a": torch.ones(2, 2, 2), "b": torch.tensor([3, 4])}
    assert BatchFeatures(["a", "b"])(batch).tolist() == [[1] * 4 + [3], [1] * 4 + [4]]


def test_a_search_estimator_logs_its_numeric_choice(tmp_path):
    from sklearn.model_selection import GridSearchCV

    data = TinyBinary()
    search = GridSearchCV(LogisticRegression(), {"C": [1e-4, 10.0], "fit_intercept": [True, False]}, scoring="roc_auc", cv=3)
    fit_trainer = trainer(tmp_path)
    fit_trainer.fit(make_task(search), datamodule=data)
    by_hand = GridSearchCV(**search.get_params(deep=False)).fit(*(t.numpy() for t in data.parts["train"]))
    assert float(fit_trainer.callback_metrics["cv/best_C"]) == pytest.approx(by_hand.best_params_["C"])
    assert float(fit_trainer.callback_metrics["cv/best_fit_intercept"]) == float(by_hand.best_params_["fit_intercept"])


def test_a_fast_dev_run_cross_validates_on_two_folds_and_a_real_fit_on_all(tmp_path, monkeypatch):
    """debug=fdr is a smoke test: the out-of-fold path runs, on at most 2 folds; a real run keeps its cv_folds."""
    import reprolab.tasks.sklearn_estimator as module

    folds = []
    real = module.cross_validated_proba
    monkeypatch.setattr(module, "cross_validated_proba", lambda est, x, y, k, seed: folds.append(k) or real(est, x, y, k, seed))
    for fast in (True, False):
        task = SklearnEstimatorTask(LogisticRegression(), featurizer=BatchFeatures([0]), metrics=BinaryMetrics,
                                    label_key=1, cv_folds=5, threshold_from="cv")
        smoke = L.Trainer(fast_dev_run=True, logger=False, enable_progress_bar=False, enable_model_summary=False,
                          default_root_dir=tmp_path) if fast else trainer(tmp_path)
        smoke.fit(task, datamodule=TinyBinary(batch_size=120 if fast else 16))
        assert 0 <= task.selection["cv/auroc"] <= 1 and "cv/threshold" in task.selection
    assert folds == [2, 5]
