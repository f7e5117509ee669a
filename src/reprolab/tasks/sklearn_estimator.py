"""A scikit-learn estimator as a reprolab task: fit once on the datamodule's training set, score val/test like a network.

The estimator (`model`, any sklearn classifier composed from config by `_target_`) reads the SAME datamodule as
the networks: the first training epoch gathers every training batch through `featurizer` (batch → [B, F]
features; in the loader's order, which a forest's bootstrap depends on) and fits once at its end, with no optimizer (manual optimisation, `optimizer: null`). Validation and
test batches are featurized the same way and scored by the SAME metric collection the paper's network task
logs (`metrics`, a factory called with `prefix="val/"` / `"test/"`), so a forest and a network sit in one sweep
and one `reprolab-table`.

Without a validation carve (`data.val_fraction=0` where a datamodule allows it) the estimator is fitted on every
training row; `cv_folds` > 0 then gives it held-out scores all the same (`cv/auroc`, ...: out-of-fold predictions
on the training rows, `sklearn_selection.py`) to compare configurations on, and `threshold_from` (`cv` | `val`)
picks a decision threshold on those held-out scores, never on test (`test/accuracy_at_threshold`). A search
estimator (e.g. `GridSearchCV`, which chooses on CV inside its fit) logs its numeric choice as `cv/best_<param>`.

Under `trainer.fast_dev_run` (`debug=fdr`) the estimator is fitted on the one batch Lightning runs and `cv_folds` is
capped at 2 (`FAST_DEV_RUN_FOLDS`): a smoke test of every path, not a result (a boosting grid inside 5-fold CV cost a
preset's smoke test ~35 s).

Nothing is pickled into the checkpoint: a fitted estimator is rebuilt by refitting (its `random_state` comes
from the run's seed, so the refit is the same model), which a checkpoint loaded elsewhere (`reprolab-eval`)
does on first use from the datamodule's training loader.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import lightning as L
import numpy as np
import torch
from sklearn.base import clone

from reprolab.cli.errors import ConfigError
from reprolab.metrics.binary import binary_metrics
from reprolab.tasks.sklearn_selection import accuracy_threshold, cross_validated_proba, threshold_report

PREDICTIONS = ("positive_proba", "proba", "label")
FAST_DEV_RUN_FOLDS = 2
THRESHOLD_SOURCES = (None, "cv", "val")


class BatchFeatures:
    """The generic featurizer: the batch's `keys` (dict keys or tuple positions), flattened per sample and
    concatenated as float32 columns."""

    def __init__(self, keys: Sequence[str | int] = (0,)):
        self.keys = tuple(keys)

    def __call__(self, batch) -> np.ndarray:
        parts = [torch.as_tensor(batch[k]).reshape(len(batch[k]), -1).float() for k in self.keys]
        return torch.cat(parts, dim=1).cpu().numpy()


class SklearnEstimatorTask(L.LightningModule):
    # by design (reprolab.run.job_logging.expected_warnings): no optimizer, and no validation rows where the preset
    # selects by cross-validation (`data.val_fraction: 0`); an empty training loader is refused when it fits
    expected_warnings = ("`LightningModule.configure_optimizers` returned `None`",
                         "Total length of `DataLoader` across ranks is zero")

    def __init__(self, model, optimizer=None, scheduler=None, featurizer: Callable | None = None,
                 metrics: Callable | None = None, label_key: str | int = "label",
                 prediction: str = "positive_proba", cv_folds: int = 0, cv_seed: int = 0,
                 threshold_from: str | None = None):
        super().__init__()
        if not hasattr(model, "fit") or not hasattr(model, "predict"):
            raise ConfigError(f"task=sklearn_estimator needs a scikit-learn estimator as `model`, got "
                              f"{type(model).__name__}: set model._target_ to e.g. sklearn.ensemble.RandomForestClassifier")
        if optimizer is not None or scheduler is not None:
            raise ConfigError("a scikit-learn estimator is fitted without an optimizer: set optimizer=null scheduler=null")
        if prediction not in PREDICTIONS:
            raise ConfigError(f"task.prediction must be one of {PREDICTIONS}, got {prediction!r}")
        if threshold_from not in THRESHOLD_SOURCES:
            raise ConfigError(f"task.threshold_from must be one of {THRESHOLD_SOURCES}, got {threshold_from!r}")
        if threshold_from == "cv" and cv_folds < 2:
            raise ConfigError("task.threshold_from=cv needs task.cv_folds >= 2")
        if (cv_folds or threshold_from) and prediction != "positive_proba":
            raise ConfigError("task.cv_folds / task.threshold_from score a positive class: set task.prediction=positive_proba")
        if metrics is None:
            raise ConfigError("task.metrics must name the metric factory of the paper's network task "
                              "(e.g. reprolab.metrics.binary.BinaryMetrics, _partial_: true)")
        self.automatic_optimization = False
        self.estimator = model
        self.featurizer = featurizer or BatchFeatures()
        self.label_key, self.prediction = label_key, prediction
        self.metrics = torch.nn.ModuleDict({stage: metrics(prefix=f"{stage}/") for stage in ("val", "test")})
        self.cv_folds, self.cv_seed, self.threshold_from = cv_folds, cv_seed, threshold_from
        self.fitted = False
        self._features: list[np.ndarray] = []
        self._labels: list[np.ndarray] = []
        self.selection: dict[str, float] = {}  # cv/* and the chosen threshold, logged when training ends
        self._scored: dict[str, tuple[list, list]] = {"val": ([], []), "test": ([], [])}

    def configure_optimizers(self):
        return None

    def _labels_of(self, batch) -> np.ndarray:
        return torch.as_tensor(batch[self.label_key]).cpu().numpy()

    def training_step(self, batch, batch_idx):
        if not self.fitted:  # first epoch: gather; the fit happens once, at the end of it
            self._features.append(np.asarray(self.featurizer(batch)))
            self._labels.append(self._labels_of(batch))

    def on_train_epoch_end(self) -> None:
        self.trainer.should_stop = True  # one pass is a fit; further epochs would only repeat validation
        self._ensure_fitted()  # already done when a validation loop ran; not when there is no validation set
        if self.selection:
            self.log_dict(self.selection)

    def _fit_gathered(self) -> None:
        if not self._features:
            raise ConfigError(f"the training loader gave no rows to fit {type(self.estimator).__name__} on: its "
                              "training split is empty; check the data config (split fractions, filters) and the data files")
        features, labels = np.concatenate(self._features), np.concatenate(self._labels)
        self._features, self._labels = [], []
        if self.cv_folds:
            oof = cross_validated_proba(self.estimator, features, labels, self._folds(), self.cv_seed)
            self.selection = {f"cv/{k}": v for k, v in binary_metrics(oof, labels).items()}
            if self.threshold_from == "cv":
                self.selection["cv/threshold"] = accuracy_threshold(oof, labels)
        self.estimator = clone(self.estimator).fit(features, labels)
        self.fitted = True
        best = getattr(self.estimator, "best_params_", None) or {}  # a search estimator (GridSearchCV): its choice
        self.selection.update({f"cv/best_{k}": float(v) for k, v in best.items() if isinstance(v, int | float)})

    def _folds(self) -> int:
        smoke = self._trainer is not None and bool(self.trainer.fast_dev_run)
        return min(self.cv_folds, FAST_DEV_RUN_FOLDS) if smoke else self.cv_folds

    def _ensure_fitted(self) -> None:
        """Fit on what the training epoch gathered; when nothing was gathered (a loaded checkpoint), refit from
        the datamodule's training loader."""
        if self.fitted:
            return
        if not self._features:
            for batch in self.trainer.datamodule.train_dataloader():
                self.training_step(batch, 0)
        self._fit_gathered()

    def on_validation_epoch_start(self) -> None:
        if not self.trainer.sanity_checking:
            self._ensure_fitted()

    def on_test_epoch_start(self) -> None:
        self._ensure_fitted()

    def predict_batch(self, batch) -> torch.Tensor:
        """The estimator's output for a batch in the form the metrics take (`prediction`)."""
        features = np.asarray(self.featurizer(batch))
        if self.prediction == "label":
            return torch.as_tensor(self.estimator.predict(features))
        proba = torch.as_tensor(self.estimator.predict_proba(features), dtype=torch.float32)
        return proba[:, 1] if self.prediction == "positive_proba" else proba

    def _evaluate(self, batch, stage: str) -> None:
        if not self.fitted:  # the sanity check before training: nothing to score yet
            return
        labels = torch.as_tensor(self._labels_of(batch)).long()
        predictions = self.predict_batch(batch)
        self.metrics[stage].update(predictions, labels)
        self.log_dict(self.metrics[stage], on_step=False, on_epoch=True, prog_bar=stage == "val")
        if self.prediction == "positive_proba":
            self._scored[stage][0].append(predictions.numpy())
            self._scored[stage][1].append(labels.numpy())

    def _scores(self, stage: str) -> tuple[np.ndarray, np.ndarray] | None:
        probs, labels = self._scored[stage]
        self._scored[stage] = ([], [])
        return (np.concatenate(probs), np.concatenate(labels)) if probs else None

    def on_validation_epoch_end(self) -> None:
        scored = self._scores("val")
        if scored is not None and self.threshold_from == "val":
            self.selection["val/threshold"] = accuracy_threshold(*scored)

    def on_test_epoch_end(self) -> None:
        """Test scored at the threshold chosen on held-out training scores, and the oracle cut (reported only)."""
        scored = self._scores("test")
        if scored is not None and self.threshold_from:
            self.log_dict(threshold_report(*scored, self.selection.get(f"{self.threshold_from}/threshold"), prefix="test/"))

    def validation_step(self, batch, batch_idx):
        self._evaluate(batch, "val")

    def test_step(self, batch, batch_idx):
        self._evaluate(batch, "test")
