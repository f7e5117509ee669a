"""The known-noise filter: Lightning's "fewer batches than the logging interval" warning is false for our runs
(the interval counts the run's steps, not an epoch's), so it is dropped, and the runs still log at that interval;
and the warnings a task's design makes true every time (`expected_warnings`) are dropped for that task only."""

from __future__ import annotations

import csv
import warnings

import lightning as L
import pytest
import torch
from lightning.pytorch.loggers import CSVLogger
from omegaconf import OmegaConf
from sklearn.ensemble import RandomForestClassifier
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from reprolab.cli.errors import ConfigError
from reprolab.run.job_logging import expected_warnings, silence_known_noise
from reprolab.tasks.sklearn_estimator import SklearnEstimatorTask
from tests.core.test_sklearn_estimator import TinyBinary, make_task, trainer

MESSAGE = "is smaller than the logging interval"


class TinyRegression(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(2, 1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.mse_loss(self.net(x), y)
        self.log("train/loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


def fit_short_epochs(log_dir, silenced: bool) -> list[str]:
    """4 epochs of 3 batches, log_every_n_steps=5; the warnings it raised."""
    data = DataLoader(TensorDataset(torch.randn(12, 2), torch.randn(12, 1)), batch_size=4)
    short = L.Trainer(max_epochs=4, log_every_n_steps=5, logger=CSVLogger(log_dir, name="", version=""),
                      enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if silenced:
            silence_known_noise()
        short.fit(TinyRegression(), data)
    return [str(w.message) for w in caught]


def test_lightning_raises_it_for_short_epochs(tmp_path):
    assert any(MESSAGE in m for m in fit_short_epochs(tmp_path, silenced=False))


def test_silenced_and_the_run_still_logs_every_5_steps(tmp_path):
    caught = fit_short_epochs(tmp_path, silenced=True)
    assert not any(MESSAGE in m for m in caught)
    with open(tmp_path / "metrics.csv") as f:
        steps = [int(row["step"]) for row in csv.DictReader(f) if row.get("train/loss")]
    assert steps == [4, 9]  # global steps 5 and 10 of 12, across epoch boundaries


class ExpectsFoo:
    expected_warnings = ("foo is expected",)


def test_expected_warnings_are_silenced_only_inside_and_only_theirs():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with expected_warnings(ExpectsFoo()):
            warnings.warn("foo is expected here", UserWarning, stacklevel=1)
            warnings.warn("bar is not", UserWarning, stacklevel=1)
        warnings.warn("foo is expected again", UserWarning, stacklevel=1)
        with expected_warnings(object()):  # a task that declares none
            warnings.warn("foo is expected by another task only", UserWarning, stacklevel=1)
    assert [str(w.message) for w in caught] == ["bar is not", "foo is expected again",
                                                "foo is expected by another task only"]


class NoValidationRows(TinyBinary):
    def val_dataloader(self):
        return DataLoader(TensorDataset(torch.zeros(0, 5), torch.zeros(0, dtype=torch.long)), batch_size=4)


@pytest.mark.parametrize("silenced", [False, True])
def test_a_forest_with_no_validation_rows_declares_lightnings_warnings(tmp_path, silenced):
    """Lightning's own messages, matched by the task's prefixes: absent with them, present without."""
    task = make_task(RandomForestClassifier(n_estimators=5, random_state=0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with expected_warnings(task if silenced else object()):
            trainer(tmp_path).fit(task, datamodule=NoValidationRows())
    messages = " | ".join(str(w.message) for w in caught)
    for prefix in SklearnEstimatorTask.expected_warnings:
        assert (prefix in messages) != silenced, messages
    assert task.fitted


class NoTrainingRows(TinyBinary):
    def train_dataloader(self):
        return DataLoader(TensorDataset(torch.zeros(0, 5), torch.zeros(0, dtype=torch.long)), batch_size=4)


def test_an_empty_training_loader_is_still_refused_in_one_line(tmp_path):
    """Silencing "Total length of DataLoader is zero" for the estimator hides no empty training split."""
    task, data = make_task(RandomForestClassifier(n_estimators=5, random_state=0)), NoTrainingRows()
    fit_trainer = trainer(tmp_path)
    with expected_warnings(task):
        fit_trainer.fit(task, datamodule=data)
        with pytest.raises(ConfigError, match="gave no rows to fit RandomForestClassifier on: its training split is empty"):
            fit_trainer.test(task, datamodule=data)


@pytest.mark.parametrize("declared", [True, False])
def test_a_run_fits_and_tests_inside_its_tasks_expected_warnings(tmp_path, monkeypatch, declared):
    """`reprolab.cli.train.run` scopes the task's declaration around fit and test (the parametrisation shows it can fail)."""
    import reprolab.cli.train as train

    task = make_task(RandomForestClassifier(n_estimators=5, random_state=0))
    if not declared:
        monkeypatch.setattr(task, "expected_warnings", ())
    monkeypatch.setattr(train, "build_run", lambda cfg, resolved=None: (NoValidationRows(), task, trainer(tmp_path)))
    cfg = OmegaConf.create({"seed": 0, "paths": {"output_dir": str(tmp_path)}})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        metrics = train.run(cfg)
    messages = " | ".join(str(w.message) for w in caught)
    assert ("returned `None`" in messages) != declared and ("Total length of `DataLoader`" in messages) != declared
    assert 0.5 < metrics["test/auroc"] <= 1 and (tmp_path / "metrics.json").is_file()
