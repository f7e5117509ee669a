"""An override Hydra cannot apply is one line saying what to write instead (`reprolab.cli.override_hints`)."""

from __future__ import annotations

import pytest
from hydra import compose, initialize_config_dir

from reprolab.cli.override_hints import argument_error_line, override_error_line
from reprolab.config.compose import CONF_DIR
from tests.core.cli import run_cli


def hydra_error(*overrides: str) -> BaseException:
    with initialize_config_dir(str(CONF_DIR), version_base="1.3"), pytest.raises(Exception) as caught:
        compose("train", overrides=list(overrides))
    return caught.value


def test_a_typo_in_a_key_names_the_nearest_key():
    line = override_error_line(hydra_error("trainer.max_step=5"))
    assert line == ("'trainer.max_step' is not a key of 'trainer'; did you mean trainer.max_steps? "
                    "(+trainer.max_step=… would add a new key)")
    assert "did you mean optimizer.lr?" in override_error_line(hydra_error("optimizer.lrr=0.1"))
    assert override_error_line(hydra_error("datta.batch_size=3")).startswith(
        "'datta' is not a key of the config; did you mean data?")


def test_a_key_with_no_near_name_lists_the_keys_beside_it():
    line = override_error_line(hydra_error("optimizer.zzzz=1"))
    assert line.startswith("'optimizer.zzzz' is not a key of 'optimizer' (its keys: _target_, _partial_, lr,")


def test_a_group_set_to_null_says_to_drop_it_with_a_tilde():
    args = ["experiment=heteroskedastic/mve_cpu", "scheduler=null", "seed=null"]
    line = override_error_line(hydra_error(*args), args)
    assert line == "scheduler=null: a config group is dropped with `~<group>`, not set to null; write ~scheduler"


def test_two_modes_at_once_say_to_give_one():
    hydra_says = ValueError("Only one of --run, --multirun, --cfg, --info and --shell_completion can be specified")
    assert override_error_line(hydra_says).startswith("-m (--multirun), --cfg and --info cannot be combined;")


def test_other_errors_are_left_to_the_caller():
    assert override_error_line(hydra_error("optimizer=adamm")) is None
    assert override_error_line(ValueError("something else")) is None


@pytest.mark.parametrize(("override", "line"), [
    ("trainer.max_step=5", "error: 'trainer.max_step' is not a key of 'trainer'; did you mean trainer.max_steps?"),
    ("scheduler=null", "error: scheduler=null: a config group is dropped with `~<group>`, not set to null; write ~scheduler"),
])
def test_reprolab_eval_prints_the_hint_and_exits_2(tmp_path, capsys, override, line):
    import torch

    from reprolab.cli import eval as reprolab_eval
    from tests.core.test_eval import saved_run

    ckpt = saved_run(tmp_path, ["experiment=cifar10/small_sgd_cpu"])
    torch.save({"state_dict": {}}, ckpt)
    with pytest.raises(SystemExit) as stop:
        reprolab_eval.main([f"ckpt_path={ckpt}", override])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and len(err) == 1 and err[0].startswith(line)


def test_an_override_written_as_a_flag_says_how_to_write_it():
    assert argument_error_line(["--experiment", "cifar10/small_sgd_cpu"], "reprolab-train") == (
        "--experiment is not an option of reprolab-train; settings are key=value overrides: "
        "experiment=cifar10/small_sgd_cpu")  # argparse would have read it as Hydra's --experimental-rerun
    assert argument_error_line(["x=1", "--seed=3"], "reprolab-eval").endswith("overrides: seed=3")
    assert argument_error_line(["--ckpt_path", "-m"], "reprolab-eval").endswith("overrides: ckpt_path=...")


def test_a_preset_named_without_its_key_says_experiment_equals():
    assert argument_error_line(["cifar10/small_sgd_cpu"], "reprolab-train") == (
        "'cifar10/small_sgd_cpu' names a preset; write experiment=cifar10/small_sgd_cpu")
    assert argument_error_line(["-m", "apt/claim_enb,apt/claim_synthetic"], "p").startswith("'apt/claim_enb,apt/claim_")
    assert argument_error_line(["cifar10/small_sgd_cpu"], "reprolab-eval", presets=False) is None


def test_hydras_own_flags_and_their_values_pass():
    for args in (["--cfg", "job", "experiment=x"], ["-cn", "cifar10/small_sgd_cpu"], ["--info", "searchpath"],
                 ["-m", "seed=0,1", "--next", "-m", "seed=2"], ["--help"], ["--hydra-help"], ["--config-name=train"]):
        assert argument_error_line(args, "reprolab-train") is None, args


def test_the_flag_error_is_one_line_and_exit_2_through_the_console_script():
    proc = run_cli("reprolab-train", "--experiment", "cifar10/small_sgd_cpu")  # was exit 1, "unexpected ValueError"
    assert (proc.returncode, proc.stderr) == (2, "error: --experiment is not an option of reprolab-train; settings are "
                                              "key=value overrides: experiment=cifar10/small_sgd_cpu; see "
                                              "`reprolab-train --help`\n")
