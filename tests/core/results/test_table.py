"""reprolab-table on run folders with known numbers: seed means, failures listed, plugins,
RESULTS.md blocks and their refresh, curves."""

from __future__ import annotations

import math
import statistics
import sys
import types

import pytest

from reprolab.cli import table
from reprolab.results import aggregate, default_group_by, default_metrics, find_runs
from reprolab.results.aggregate import Cell
from reprolab.results.curves import group_curves
from reprolab.results.markdown import format_cell
from tests.core.results.run_folders import make_run, make_sweep

ACC = {"sgd": {0: 0.50, 1: 0.60, 2: 0.70}, "adamw": {0: 0.80, 1: 0.82, 2: 0.90}}


@pytest.fixture
def sweep(tmp_path):
    return make_sweep(tmp_path / "sweep", ACC)


def test_rows_are_the_swept_groups_with_seed_mean_std_n(sweep):
    runs = find_runs([sweep])
    assert len(runs) == 6 and all(r.finished for r in runs)
    assert default_group_by(runs) == ["optimizer"]  # seed varies too, but seeds are what we average
    assert default_metrics(runs) == ["test/acc"]
    rows = aggregate(runs, ["optimizer"], ["test/acc"])
    assert [r.key for r in rows] == [("adamw",), ("sgd",)]
    for row in rows:
        values = list(ACC[row.key[0]].values())
        cell = row.cells["test/acc"]
        assert cell.mean == pytest.approx(statistics.fmean(values)) and cell.n == 3
        assert cell.std == pytest.approx(statistics.stdev(values))


def test_markdown_table_and_command_line(sweep, tmp_path, capsys):
    out = tmp_path / "t.md"
    assert table.main([str(sweep), "--out", str(out), "--no-curves"]) == 0
    text = out.read_text()
    assert text in capsys.readouterr().out  # printed and written
    assert "| optimizer | test/acc | n |" in text
    assert "| adamw | 0.8400 ± 0.0529 | 3 |" in text and "| sgd | 0.6000 ± 0.1000 | 3 |" in text
    assert f"Made by `reprolab-table {sweep} --out {out} --no-curves`" in text


def test_group_by_config_key_and_where_filter(sweep, tmp_path):
    out = tmp_path / "t.md"
    table.main([str(sweep), "--group-by", "optimizer._target_", "seed", "--where", "seed=2", "--out", str(out),
                "--no-curves", "--metric", "val/acc"])
    text = out.read_text()
    assert "| optimizer._target_ | seed | val/acc | n |" in text
    assert "| adamw | 2 | 0.4500 | 1 |" in text and "| sgd | 2 | 0.3500 | 1 |" in text


def test_failed_and_unfinished_runs_are_counted_and_listed(sweep, tmp_path):
    make_run(sweep / "6", config={"seed": 3}, error="CorruptDataError: image 7.jpg is truncated",
             overrides=["optimizer=sgd", "seed=3"], choices={"optimizer": "sgd"})
    make_run(sweep / "7", config={"seed": 4}, overrides=["optimizer=sgd", "seed=4"], choices={"optimizer": "sgd"})
    out = tmp_path / "t.md"
    table.main([str(sweep), "--out", str(out), "--no-curves"])
    text = out.read_text()
    assert "6 finished, 2 not finished" in text
    assert "| optimizer | test/acc | n | failed |" in text and "| sgd | 0.6000 ± 0.1000 | 3 | 2 |" in text
    assert "failed: `" in text and "CorruptDataError: image 7.jpg is truncated" in text
    assert "incomplete (running or killed)" in text


def test_a_metric_some_seeds_lack_shows_its_own_n(tmp_path):
    for seed, metrics in enumerate([{"test/acc": 0.5}, {"test/acc": None}, {"test/acc": 0.7}]):
        make_run(tmp_path / str(seed), config={"seed": seed}, metrics=metrics, overrides=[f"seed={seed}"])
    rows = aggregate(find_runs([tmp_path]), [], ["test/acc"])
    assert rows[0].n_finished == 3 and rows[0].cells["test/acc"].n == 2  # a null (diverged) value is not averaged in
    assert format_cell(rows[0].cells["test/acc"], 3) == "0.6000 ± 0.1414 (n=2)"


def test_cell_formatting():
    assert format_cell(Cell(0.91234, 0.00412, 3), 3) == "0.9123 ± 0.0041"
    assert format_cell(Cell(12.345, 0.5, 3), 3) == "12.35 ± 0.50"
    assert format_cell(Cell(12345.0, 321.0, 3), 3) == "12345 ± 321"
    assert format_cell(Cell(0.0, 16.667, 3), 3) == "0.00 ± 16.67"
    assert format_cell(Cell(math.nan, math.nan, 2), 2) == "nan (diverged)"
    assert format_cell(None, 3) == "—"


def delta_vs_sgd(runs):
    """A Δ%-style plugin: each run's test/acc relative to the mean of the sgd runs."""
    base = statistics.fmean(r.metrics["test/acc"] for r in runs if r.get("optimizer") == "sgd")
    for run in runs:
        if run.finished:
            run.metrics["delta_pct"] = 100.0 * (run.metrics["test/acc"] - base) / base


def test_plugin_adds_a_derived_metric_aggregated_over_seeds(sweep, tmp_path, monkeypatch):
    module = types.ModuleType("toy_tables")
    module.derive = delta_vs_sgd
    monkeypatch.setitem(sys.modules, "toy_tables", module)
    out = tmp_path / "t.md"
    table.main([str(sweep), "--plugin", "toy_tables:derive", "--out", str(out), "--no-curves"])
    text = out.read_text()
    assert "| optimizer | test/acc | delta_pct | n |" in text
    assert "| adamw | 0.8400 ± 0.0529 | 40.00 ± 8.82 | 3 |" in text  # (0.84 - 0.6) / 0.6 = 40 %
    assert "| sgd | 0.6000 ± 0.1000 | 0.00 ± 16.67 | 3 |" in text


def test_paper_plugin_found_by_convention(sweep, tmp_path, monkeypatch):
    module = types.ModuleType("experiments.toy.tables")
    module.derive_metrics = delta_vs_sgd
    monkeypatch.setitem(sys.modules, "experiments.toy.tables", module)
    out = tmp_path / "t.md"
    table.main([str(sweep), "--out", str(out), "--no-curves"])
    assert "delta_pct" in out.read_text()
    table.main([str(sweep), "--out", str(out), "--no-curves", "--no-paper-plugins"])
    assert "delta_pct" not in out.read_text()


def test_bad_plugin_and_missing_folder_are_one_line_errors(sweep, tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    cases = [
        (["--plugin", "no_colon"], "must look like 'package.module:function'"),
        (["--plugin", "reprolab.results.plugins:nope"], "has no function 'nope'"),
        (["--plugin", "experiments.no_such_paper.tables:derive_metrics"], "cannot import 'experiments.no_such_paper"),
    ]
    for extra, message in cases:
        assert table.main([str(sweep), *extra]) == 2
        assert message in capsys.readouterr().err
    assert table.main([str(tmp_path / "absent")]) == 2
    assert "error: no such runs folder" in capsys.readouterr().err
    assert table.main([str(tmp_path / "empty")]) == 2
    assert "error: no run folders (with .hydra/config.yaml)" in capsys.readouterr().err


def test_a_metric_or_key_the_runs_lack_is_one_line_naming_the_nearest(sweep, capsys):
    assert table.main([str(sweep), "--metric", "test/acc", "test/accc", "--no-curves"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: no finished run has metric test/accc; did you mean test/acc? (theirs: seed, test/acc, "
                   "val/acc)"]
    assert table.main([str(sweep), "--group-by", "optimzer", "--no-curves"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: no run has a group or config key optimzer; did you mean "
                                               "optimizer? (theirs: ")
    assert table.main([str(sweep), "--where", "optimizer=nope", "--no-curves"]) == 2
    assert capsys.readouterr().err == f"error: none of the 6 runs under {sweep} matches --where optimizer=nope\n"


def test_results_md_block_is_written_refreshed_and_kept(sweep, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    results = tmp_path / "paper" / "RESULTS.md"
    results.parent.mkdir()
    results.write_text("# Results\n\nHand-written prose stays.\n")
    table.main(["sweep", "--results", "paper/RESULTS.md", "--name", "toy"])
    text = results.read_text()
    assert text.startswith("# Results\n\nHand-written prose stays.\n")
    assert "<!-- reprolab-table: sweep --name toy -->" in text and "| adamw | 0.8400 ± 0.0529 | 3 |" in text
    assert "![toy_val_acc](figures/toy_val_acc.png)" in text and (results.parent / "figures" / "toy_val_acc.png").exists()

    make_run(sweep / "6", config={"seed": 3}, metrics={"test/acc": 1.0}, overrides=["optimizer=sgd", "seed=3"],
             choices={"optimizer": "sgd"})
    assert table.main(["--refresh", "paper/RESULTS.md"]) == 0
    refreshed = results.read_text()
    assert refreshed.count("<!-- reprolab-table:") == 1 and "| sgd | 0.7000 ± 0.2160 | 4 |" in refreshed
    assert refreshed.startswith("# Results\n\nHand-written prose stays.\n")

    (tmp_path / "sweep").rename(tmp_path / "gone")
    assert table.main(["--refresh", "paper/RESULTS.md"]) == 0
    assert results.read_text() == refreshed  # runs no longer on disk: the block is kept as it was


def test_curves_average_the_seeds_of_a_group(sweep, tmp_path):
    runs = find_runs([sweep])
    curves = group_curves(runs, ["optimizer"], "val/acc")
    assert curves[("sgd",)].loc[10, "mean"] == pytest.approx(0.30) and curves[("sgd",)].loc[10, "n"] == 3
    assert curves[("adamw",)].loc[10, "std"] == pytest.approx(statistics.stdev([0.40, 0.41, 0.45]))
    losses = group_curves(runs, ["optimizer"], "train/loss")  # read from its per-step column
    assert losses[("sgd",)].loc[9, "mean"] == pytest.approx(0.1)
    table.main([str(sweep), "--figures", str(tmp_path / "figs"), "--name", "t"])
    assert sorted(p.name for p in (tmp_path / "figs").iterdir()) == ["t_train_loss.png", "t_val_acc.png"]


def test_interpolations_needing_hydra_stay_raw(sweep):
    run = find_runs([sweep])[0]
    assert run.config["paths.output_dir"] == "${hydra:runtime.output_dir}"
    assert run.get("optimizer") == "sgd" and run.get("optimizer.lr") == 0.1 and run.get("seed") == 0


def test_one_run_shows_no_spread():
    assert format_cell(Cell(0.45, 0.0, 1), 1) == "0.4500"


def test_where_results_are_logged_never_defines_a_group(tmp_path):
    for i, logger in enumerate(["csv", "wandb", "tensorboard"]):
        make_run(tmp_path / str(i), config={"seed": i}, metrics={"test/acc": 0.5},
                 overrides=[f"logger={logger}", f"seed={i}", "print_config=false"], choices={"logger": logger})
    assert default_group_by(find_runs([tmp_path])) == []


def test_figures_are_named_after_the_runs_folder():
    assert table.default_name(["logs/tables/apt/enb_mtl"]) == "apt_enb_mtl"
    assert table.default_name(["logs/x/2026-11-29_16-00-00"]) == "x_2026_11_29_16_00_00"


def test_tensorboard_only_runs_have_curves(tmp_path):
    from torch.utils.tensorboard import SummaryWriter

    run_dir = make_run(tmp_path / "tb", config={"seed": 0}, metrics={"test/acc": 0.5})
    writer = SummaryWriter(str(run_dir / "tensorboard" / "version_0"))
    for step, value in [(0, 1.0), (10, 0.5), (20, 0.25)]:
        writer.add_scalar("val/loss", value, step)
    writer.close()
    (run,) = find_runs([tmp_path])
    curve = group_curves([run], [], "val/loss")[()]
    assert list(curve.index) == [0, 10, 20] and list(curve["mean"]) == pytest.approx([1.0, 0.5, 0.25])
