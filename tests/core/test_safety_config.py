"""Config values of the wrong type or range, unknown constructor arguments, and damaged numeric CSVs are
refused with one line (cheap checks: composed configs and small files; the CLI table is test_bad_input_table)."""

from __future__ import annotations

import numpy as np
import pytest

from experiments.heteroskedastic.datasets import ENERGY_FILE, energy
from reprolab.cli.errors import ConfigError, CorruptDataError
from reprolab.cli.override_hints import preset_options
from reprolab.cli.train import check_config
from reprolab.config.checks import check_targets, check_values
from reprolab.config.compose import compose
from reprolab.data.tables import read_numeric_csv
from tests.core.cli import run_cli

TINY = ["experiment=heteroskedastic/mve_cpu", "data=hetero_synthetic"]


@pytest.mark.parametrize(("override", "says"), [
    ("optimizer.lr=abc", "optimizer.lr='abc' is not valid: it must be a number ≥ 0"),
    ("optimizer.lr=-0.1", "optimizer.lr=-0.1 is not valid: it must be a number ≥ 0"),
    ("data.batch_size=0", "data.batch_size=0 is not valid: it must be an integer ≥ 1"),
    ("data.batch_size=-4", "data.batch_size=-4 is not valid"),
    ("data.batch_size=2.5", "data.batch_size=2.5 is not valid"),
    ("data.batch_size=true", "data.batch_size=True is not valid"),
    ("trainer.max_epochs=-2", "trainer.max_epochs=-2 is not valid: it must be an integer ≥ -1"),
    ("seed=-1", "seed=-1 is not valid"),
    ("optimizer.weight_decay=nan", "optimizer.weight_decay=nan is not valid"),
])
def test_values_of_the_wrong_type_or_range_are_refused(override, says):
    with pytest.raises(ConfigError) as caught:
        check_values(compose([*TINY, override]))
    assert str(caught.value).startswith(says)
    assert str(caught.value).count("; ") == 1 and "\n" not in str(caught.value)


def test_valid_values_pass_and_null_is_allowed():
    check_values(compose([*TINY, "optimizer.lr=0", "data.batch_size=7", "trainer.max_epochs=-1", "seed=3"]))
    check_values(compose([*TINY, "trainer.gradient_clip_val=null"]))


@pytest.mark.parametrize(("override", "says"), [
    ("+optimizer.lrr=0.1", "optimizer.lrr: torch.optim.Adam takes no argument 'lrr' (it takes: amsgrad, betas,"),
    ("+model.widthh=3", "model.widthh: experiments.heteroskedastic.model.RegressionMLP takes no argument 'widthh'"),
    ("+callbacks.model_checkpoint.every_n_epoch=2", "takes no argument 'every_n_epoch'"),
])
def test_a_key_the_constructor_does_not_take_names_it_and_the_valid_ones(override, says):
    with pytest.raises(ConfigError, match="drop it with ~") as caught:
        check_targets(compose([*TINY, override]))
    assert says in str(caught.value)


def test_a_target_that_does_not_import_is_refused():
    with pytest.raises(ConfigError, match=r"model._target_ 'nowhere.Model' cannot be imported"):
        check_targets(compose([*TINY, "model._target_=nowhere.Model"]))


def test_bad_value_on_the_command_line_exits_2_before_the_tree_is_printed(tmp_path):
    result = run_cli("reprolab-train", *TINY, f"hydra.run.dir={tmp_path}", "optimizer.lr=abc")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: optimizer.lr='abc' is not valid: it must be a number ≥ 0; fix it on the command line "
        "(optimizer.lr=...) or in the preset"]
    assert result.stdout.strip() == ""
    assert (tmp_path / "error.txt").read_text().startswith("ConfigError: optimizer.lr='abc'")


HEADER = "a,b,c\n"


@pytest.mark.parametrize(("body", "says"), [
    ("1,2,3\n4,5", "line 3 has 2 fields where the header has 3 (a cut or damaged file)"),
    ("1,2,3\n4,five,6\n", "line 3, column 'b': 'five' is not a number"),
    ("1,,3\n", "line 2, column 'b': '' is not a number"),
    ("1,nan,3\n", "line 2, column 'b': 'nan' is a missing or infinite value"),
    ("", "has no data rows"),
    ("1,2,3,4\n", "line 2 has 4 fields"),
])
def test_a_damaged_numeric_csv_is_refused_naming_file_line_and_column(tmp_path, body, says):
    path = tmp_path / "t.csv"
    path.write_text(HEADER + body)
    with pytest.raises(CorruptDataError) as caught:
        read_numeric_csv(path, hint="re-create it")
    text = str(caught.value)
    assert text.startswith(f"'{path}'") and says in text and text.endswith("; re-create it")


def test_a_numeric_csv_reads_the_columns_asked_in_their_order(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(HEADER + "1,2,3\n4,5.5,-6e-1\n\n")  # a blank last line is not a row
    np.testing.assert_array_equal(read_numeric_csv(path, ["c", "a"], hint="-"), [[3.0, 1.0], [-0.6, 4.0]])
    with pytest.raises(CorruptDataError, match=r"lacks the columns \['d'\]"):
        read_numeric_csv(path, ["a", "d"], hint="-")


def test_a_paper_loader_names_the_cut_file(tmp_path):
    """A data module reading a CSV uses the shared reader: a cut ENB2012 file is refused, not trained on NaNs."""
    path = tmp_path / ENERGY_FILE
    path.parent.mkdir(parents=True)
    path.write_text("X1,X2,X3,X4,X5,X6,X7,X8,Y1,Y2\n" + "0.98,514.5,294,110.25,7,2,0,0,15.55,21.33\n" * 3 + "0.98,51")
    with pytest.raises(CorruptDataError, match=r"line 5 has 2 fields .*; restore it with make data-energy-efficiency-enb2012"):
        energy(str(tmp_path))


def test_a_group_option_the_preset_cannot_use_names_the_key_that_needs_it():
    with pytest.raises(ConfigError, match=r"Interpolation key 'data.num_classes' not found \(needed by model.num_classes\); "
                                          "fix that override, or pick a group option this preset can use"):
        check_config(compose(["experiment=cifar10/small_sgd_cpu", "data=mtl_enb"]))


def test_an_experiment_typo_lists_the_papers_presets():
    hydra_text = "In 'train': Could not find 'experiment/heteroskedastic/mve_cpuu'"
    assert "heteroskedastic/mve_cpu, " in preset_options(hydra_text)
    assert preset_options("In 'train': Could not find 'experiment/nopaper/x'").startswith(" (papers with presets: apt, ")
    assert preset_options("Could not find 'model/x'") == ""


def test_an_experiment_typo_or_file_path_names_the_preset_to_write():
    assert preset_options("Could not find 'experiment/heteroskedastic/mve_cpuu'").startswith(
        "; did you mean experiment=heteroskedastic/mve_cpu? (its presets: heteroskedastic/")
    assert preset_options("Could not find 'experiment/conf/experiment/heteroskedastic/mve_cpu.yaml'") == (
        " (that is a file path: write experiment=heteroskedastic/mve_cpu)")
    assert preset_options("Could not find 'experiment/heteroskedastic/zzz'").startswith(" (its presets: ")
