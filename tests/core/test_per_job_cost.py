"""The per-job and per-step cost fixes change what is computed, never the numbers: each is checked by what it
does (calls made, files parsed), not by a time."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch
from omegaconf import OmegaConf
from torch.utils.data import DataLoader, Subset, TensorDataset

from reprolab.callbacks import FiniteLossGuard, LostRankExit
from reprolab.config.compose import compose
from reprolab.data.tensor_loader import tensor_loader
from reprolab.results.sweep_report import build_report
from reprolab.run import device as device_module
from reprolab.run.device import world_size
from reprolab.run.folder import mask_saved_config
from reprolab.run.loggers import log_config
from reprolab.run.trainer import build_callbacks
from tests.core.results.run_folders import make_run


class CountingTensors(TensorDataset):
    calls = 0

    def __getitem__(self, index):
        CountingTensors.calls += 1
        return super().__getitem__(index)


class RecordingTensors(TensorDataset):
    def __init__(self, *tensors):
        super().__init__(*tensors)
        self.indices = []

    def __getitem__(self, index):
        self.indices.append(index)
        return super().__getitem__(index)


def _batches(loader: DataLoader, seed: int) -> tuple[list[list[torch.Tensor]], torch.Tensor]:
    """Two epochs' batches, and torch's global RNG state after them."""
    torch.manual_seed(seed)
    return [list(batch) for epoch in range(2) for batch in loader], torch.get_rng_state()


@pytest.mark.parametrize(("batch_size", "shuffle", "drop_last"), [(4, True, False), (4, True, True), (5, False, False)])
def test_tensor_loader_yields_the_default_loaders_batches_one_fetch_each(batch_size, shuffle, drop_last):
    data = CountingTensors(torch.randn(18, 3), torch.arange(18.0))
    expected, rng_expected = _batches(DataLoader(data, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last), 3)
    CountingTensors.calls = 0
    got, rng_got = _batches(tensor_loader(data, batch_size, shuffle=shuffle, drop_last=drop_last), 3)
    assert CountingTensors.calls == len(got) == len(expected)
    for ours, theirs in zip(got, expected, strict=True):
        assert all(torch.equal(a, b) for a, b in zip(ours, theirs, strict=True))
    assert torch.equal(rng_got, rng_expected)  # the global RNG advanced alike: later draws do not move


def test_tensor_loader_fetches_with_one_index_tensor_and_reads_a_subset_as_the_default_loader_does():
    data = RecordingTensors(torch.randn(20, 3), torch.arange(20.0))
    subset = Subset(Subset(data, list(range(19, -1, -1))), [0, 3, 5, 6, 7, 9, 11, 12, 15, 16, 18])
    expected, rng_expected = _batches(DataLoader(subset, batch_size=3, shuffle=True), 5)
    data.indices.clear()
    got, rng_got = _batches(tensor_loader(subset, 3, shuffle=True), 5)
    assert len(data.indices) == len(got)  # one gather a batch, with a tensor: no Python int per row
    assert all(isinstance(index, torch.Tensor) and index.dtype == torch.long for index in data.indices)
    for ours, theirs in zip(got, expected, strict=True):
        assert all(torch.equal(a, b) for a, b in zip(ours, theirs, strict=True))
    assert torch.equal(rng_got, rng_expected)


def test_tensor_loader_refuses_what_the_default_loader_refuses():
    empty = TensorDataset(torch.zeros(0, 2))
    for kwargs in ({"batch_size": 0}, {"batch_size": 2, "shuffle": True}):
        with pytest.raises(ValueError):
            DataLoader(empty if kwargs.get("shuffle") else TensorDataset(torch.zeros(3, 2)), **kwargs)
        with pytest.raises(ValueError):
            tensor_loader(empty if kwargs.get("shuffle") else TensorDataset(torch.zeros(3, 2)), **kwargs)
    assert list(tensor_loader(empty, 2)) == list(DataLoader(empty, batch_size=2)) == []


def test_tensor_loader_over_a_repeated_subset_gives_the_full_batch_each_step():
    data = TensorDataset(torch.randn(6, 2), torch.randn(6))
    repeated = Subset(data, list(range(6)) * 3)
    batches = list(tensor_loader(repeated, 6))
    assert len(batches) == 3 and all(torch.equal(b[0], data.tensors[0]) for b in batches)


def test_cpu_runs_skip_the_nvml_check_at_every_adam_step(monkeypatch):
    monkeypatch.setenv(device_module.NVML_CHECK, "1")  # what `import lightning` sets
    loads = []
    monkeypatch.setattr(torch.cuda, "_raw_device_count_nvml", lambda: loads.append(1) or -1)
    model = torch.nn.Linear(3, 1)
    optimizer = torch.optim.Adam(model.parameters())
    model(torch.randn(2, 3)).sum().backward()
    optimizer.step()
    assert loads  # the NVML check ran at the step
    device_module.apply_device_settings(OmegaConf.create({"accelerator": "cpu"}))
    loads.clear()
    for _ in range(3):
        optimizer.step()
    assert loads == [] and device_module.NVML_CHECK not in os.environ


def test_gpu_runs_keep_lightnings_nvml_check(monkeypatch):
    monkeypatch.setenv(device_module.NVML_CHECK, "1")
    device_module.apply_device_settings(OmegaConf.create({"accelerator": "gpu"}))
    assert os.environ[device_module.NVML_CHECK] == "1"


def test_sweep_report_reads_status_and_overrides_but_no_config(tmp_path):
    make_run(tmp_path / "0", config={"seed": 0}, metrics={"test/acc": 1.0}, overrides=["seed=0"])
    make_run(tmp_path / "1", config={"seed": 1}, error="ConfigError: bad", overrides=["seed=1"])
    make_run(tmp_path / "2", config={"seed": 2}, overrides=["seed=2"])
    for run in ("0", "1", "2"):  # a config the report would have to parse now fails to parse
        (tmp_path / run / ".hydra" / "config.yaml").write_text("{unparseable: [\n")
        (tmp_path / run / ".hydra" / "hydra.yaml").write_text("{unparseable: [\n")
    report = build_report(tmp_path)
    assert (report["n_finished"], report["n_failed"], report["n_incomplete"]) == (1, 1, 1)
    assert report["failed"] == [{"run": "1", "overrides": ["seed=1"], "error": "ConfigError: bad"}]
    assert [e["run"] for e in report["finished"] + report["incomplete"]] == ["0", "2"]


def test_saved_config_without_a_secret_marker_is_not_parsed_or_rewritten(tmp_path, monkeypatch):
    (tmp_path / "config.yaml").write_text("seed: 1\nlr: 0.1\n")
    (tmp_path / "overrides.yaml").write_text("- +my_token=s3cr3t\n")
    parsed = []
    load = OmegaConf.load
    monkeypatch.setattr(OmegaConf, "load", staticmethod(lambda path: parsed.append(path.name) or load(path)))
    mask_saved_config(tmp_path)
    assert parsed == ["overrides.yaml"]
    assert "s3cr3t" not in (tmp_path / "overrides.yaml").read_text()


def test_config_is_not_resolved_for_hyperparameters_when_there_is_no_logger():
    log_config([], OmegaConf.create({"x": "${oc.env:REPROLAB_NO_SUCH_VARIABLE}"}))  # resolving would raise


@pytest.mark.parametrize(("device", "kept"), [("cpu", False), ("ddp_cpu", True)])
def test_lost_rank_callback_only_where_there_is_another_rank(device, kept, tmp_path):
    cfg = compose([f"device={device}"], output_dir=tmp_path)
    callbacks = build_callbacks(cfg.callbacks, with_loggers=False, processes=world_size(cfg.device))
    assert any(isinstance(c, LostRankExit) for c in callbacks) is kept
    assert any(isinstance(c, FiniteLossGuard) for c in callbacks)


def test_a_jobs_config_is_resolved_once_for_its_checks_and_its_sweep_hash(tmp_path, monkeypatch):
    from reprolab.cli.train import check_config
    from reprolab.sweeps.callback import config_hash, decide_job

    cfg = compose(["experiment=cifar10/small_sgd_cpu"], output_dir=tmp_path / "run")
    resolving = []
    to_container = OmegaConf.to_container
    monkeypatch.setattr(OmegaConf, "to_container",
                        lambda *args, **kwargs: resolving.append(kwargs.get("resolve")) or to_container(*args, **kwargs))
    resolved = check_config(cfg)
    decide_job(cfg, tmp_path / "run", resolved=resolved)
    assert resolving.count(True) == 1  # was 3: the interpolation check, the value check, the sweep's config hash
    monkeypatch.undo()
    assert config_hash(cfg, resolved) == config_hash(cfg)  # the same hash: a rerun sweep still skips finished jobs


def test_a_numeric_csv_is_parsed_once_while_unchanged_and_each_caller_gets_its_own_copy(tmp_path, monkeypatch):
    from reprolab.data import tables

    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2\n3,4\n")
    opened = []
    monkeypatch.setattr(tables, "open", lambda *a, **k: opened.append(a[0]) or open(*a, **k), raising=False)
    first = tables.read_numeric_csv(path, ["b"], hint="-")
    first[0, 0] = 99.0  # a caller's own copy: the next read does not see it
    np.testing.assert_array_equal(tables.read_numeric_csv(path, ["b"], hint="-"), [[2.0], [4.0]])
    assert len(opened) == 1
    tables.read_numeric_csv(path, ["a"], hint="-")  # other columns: another read
    path.write_text("a,b\n1,2\n3,4\n5,6\n")  # the file changed: read again
    np.testing.assert_array_equal(tables.read_numeric_csv(path, ["b"], hint="-"), [[2.0], [4.0], [6.0]])
    assert len(opened) == 3


@pytest.mark.parametrize("values", [[0.5], [1.0, float("nan")], [float("inf")], [2.0, -float("inf"), 1.0], [3.0, 4.0]])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("size", [1, 100])  # below and above SMALL: Python floats, then torch's own check
def test_the_finite_loss_check_answers_as_torch_for_any_loss(values, dtype, size):
    from reprolab.callbacks.finite_loss import all_finite

    loss = torch.tensor(values * size, dtype=dtype, requires_grad=True) * 1  # a loss with a graph behind it
    for shaped in (loss, loss[0], loss.reshape(len(values), size)):
        assert all_finite(shaped) is bool(torch.isfinite(shaped).all())
