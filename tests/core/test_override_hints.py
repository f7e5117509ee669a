"""An override Hydra cannot apply is one line saying what to write instead (`reprolab.override_hints`)."""

from __future__ import annotations

import pytest
from hydra import compose, initialize_config_dir

from reprolab.config import CONF_DIR
from reprolab.override_hints import override_error_line


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

    from reprolab import eval as reprolab_eval
    from tests.core.test_eval import saved_run

    ckpt = saved_run(tmp_path, ["experiment=cifar10/small_sgd_cpu"])
    torch.save({"state_dict": {}}, ckpt)
    with pytest.raises(SystemExit) as stop:
        reprolab_eval.main([f"ckpt_path={ckpt}", override])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and len(err) == 1 and err[0].startswith(line)
