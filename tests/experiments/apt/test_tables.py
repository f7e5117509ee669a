"""The APT table plugin: Δm% against the single-task runs of the same table, matched by plain optimizer."""

from __future__ import annotations

import pytest

from experiments.apt.tables import KEY, derive_metrics
from reprolab.cli import table
from reprolab.results.runs import find_runs
from tests.core.results.run_folders import make_run

BENCHMARK = {"_target_": "experiments.apt.benchmarks.RegressionBenchmark", "task_names": ["heating", "cooling"]}


def _run(root, i, optimizer, seed, heating, cooling, single=None, weighting="pcgrad"):
    config = {"seed": seed, "paper": "apt", "setting": "claim_enb",
              "task": {"weighting": weighting, "single_task": single, "benchmark": BENCHMARK}}
    metrics = {"test/heating": heating, "test/cooling": cooling, "seed": seed, "paper": "apt"}
    make_run(root / str(i), config, metrics, choices={"optimizer": optimizer})


@pytest.fixture
def runs_dir(tmp_path):
    _run(tmp_path, 0, "adam", 0, 2.0, 9.0, single="heating")
    _run(tmp_path, 1, "adam", 1, 4.0, 9.0, single="heating")  # STL heating (adam) = 3.0
    _run(tmp_path, 2, "adam", 0, 9.0, 1.0, single="cooling")  # STL cooling (adam) = 1.0
    _run(tmp_path, 3, "adam", 0, 3.3, 1.1)  # +10 %, +10 % → Δm = +10
    _run(tmp_path, 4, "apt_adam", 0, 2.7, 0.9)  # compared with adam's STL: −10 %, −10 % → −10
    _run(tmp_path, 5, "muon", 0, 3.0, 1.0)  # no muon STL runs: no Δm
    return tmp_path


def test_delta_m_against_stl_runs_of_the_plain_optimizer(runs_dir):
    runs = find_runs([runs_dir])
    derive_metrics(runs)
    by_index = {r.path.name: r.metrics.get(KEY) for r in runs}
    assert by_index["3"] == pytest.approx(10.0) and by_index["4"] == pytest.approx(-10.0)
    assert by_index["5"] is None and all(by_index[i] is None for i in "012")


def test_reprolab_table_shows_it_per_method(runs_dir, capsys):
    assert table.main([str(runs_dir), "--group-by", "task.single_task", "optimizer", "--metric", KEY, "--no-curves"]) == 0
    lines = capsys.readouterr().out.splitlines()
    row = next(line for line in lines if line.startswith("| — | apt_adam |"))
    assert float(row.split("|")[3].split("±")[0]) == pytest.approx(-10.0) and row.endswith("| 1 |")
