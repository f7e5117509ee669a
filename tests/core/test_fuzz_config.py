"""The config fuzzer (scripts/fuzz_config.py, `make fuzz-config`) and the error layer it holds to (issue 46): a
command line a library or our code refuses at set-up ends in one `error:` line naming the override, exit 2."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import weakref

import pytest
import torch
from lightning.pytorch.utilities.exceptions import MisconfigurationException

from reprolab.cli.errors import ConfigError, from_rejection, rejected_at_set_up
from tests.core.cli import PYTHONPATH, REPO_ROOT

SCRIPT = REPO_ROOT / "scripts" / "fuzz_config.py"
SMALL = ["heteroskedastic/mve_cpu", "delightful/reversal_cpu", "deltamomentum/regression_sgdm"]


def load_fuzzer():
    spec = importlib.util.spec_from_file_location("fuzz_config", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_config"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def raised(fn):
    try:
        fn()
    except BaseException as err:  # noqa: BLE001 - the error with its traceback, as the run wrapper sees it
        return err
    raise AssertionError("did not raise")


def eval_prompts(min_length):
    return [n for n in range(min_length, 4)]


def test_a_value_our_code_rejects_at_set_up_names_its_override():
    err = raised(lambda: eval_prompts(1.5))  # TypeError in the line that reads min_length
    mapped = from_rejection(err, ["debug=fdr", "data.min_length=1.5"])
    assert isinstance(mapped, ConfigError) and mapped.exit_code == 2
    assert str(mapped).startswith("data.min_length=1.5: rejected by core/test_fuzz_config.py eval_prompts()")
    assert "TypeError: 'float' object cannot be interpreted as an integer" in str(mapped)


def test_lightning_names_the_config_key_beside_the_override():
    def check():
        raise MisconfigurationException("`val_check_interval` (250) must be less than or equal to the number of the "
                                        "training batches (8). If you want to disable validation set `limit_val_batches`")

    config = {"trainer": {"val_check_interval": 250, "limit_val_batches": 2}}
    mapped = from_rejection(raised(check), ["+trainer.limit_train_batches=8"], config, setting_up=False)
    assert isinstance(mapped, ConfigError)  # Lightning's MisconfigurationException: a config error at any step
    assert str(mapped).startswith("+trainer.limit_train_batches=8, the config's trainer.val_check_interval=250: ")
    assert "limit_val_batches=2" not in str(mapped)  # the advice sentence names keys that are not the cause


def our_own_check():
    raise RuntimeError("our own bug")


def negative_width(width):
    return torch.empty(width, 3)  # torch's native code refuses it, from our line


def test_a_native_op_refusing_a_value_names_its_override():
    mapped = from_rejection(raised(lambda: negative_width(-6)), ["model.width=-6"])
    assert isinstance(mapped, ConfigError)
    assert str(mapped).startswith("model.width=-6: rejected by core/test_fuzz_config.py negative_width() (RuntimeError: ")
    assert "negative dimension -6" in str(mapped)


def rr_window(csum, local_beats):
    return csum[local_beats]  # an index our line takes from the config: numpy's IndexError for a fraction


def test_an_index_of_the_wrong_kind_names_the_override_the_line_reads():
    import numpy as np

    err = raised(lambda: rr_window(np.arange(4), np.array([5.5])))
    mapped = from_rejection(err, ["debug=fdr", "data.local_beats=5.5"])  # only the override the line reads
    assert isinstance(mapped, ConfigError)
    assert str(mapped).startswith("data.local_beats=5.5: rejected by core/test_fuzz_config.py rr_window() (IndexError")


def test_a_swapped_data_group_is_named_whatever_it_breaks():
    class SachsDataModule:
        pass

    err = raised(lambda: SachsDataModule().world)
    mapped = from_rejection(err, ["debug=fdr", "data=dag_gp_sachs"])
    assert isinstance(mapped, ConfigError)
    assert str(mapped).startswith("data=dag_gp_sachs: this preset's code cannot use it (rejected by ")
    assert "AttributeError: 'SachsDataModule' object has no attribute 'world'" in str(mapped)
    assert "pick a data option made for this preset's task" in str(mapped)
    assert from_rejection(err, ["data=dag_gp_sachs"], setting_up=False) is err  # after the first step: a bug


class Layer:
    pass


def build_layers(n_layer, built):
    layers = []
    for _ in range(n_layer):
        layers.append(Layer())
        built.append(weakref.ref(layers[-1]))
        if len(layers) == 3:
            raise MemoryError  # as a ModuleList of 10^12 blocks does under the fuzzer's address-space limit


def test_a_model_that_ran_out_of_memory_is_freed_before_its_error_is_built():
    built = []
    with pytest.raises(ConfigError, match=r"^model.n_layer=10\*\*12: needs more memory than this run may take") as caught:
        with rejected_at_set_up(lambda: ["model.n_layer=10**12"]):
            build_layers(10**12, built)
    assert len(built) == 3 and all(ref() is None for ref in built)  # the traceback kept no half-built model
    assert caught.value.__cause__.__traceback__ is not None  # ... but still says where it was raised


def test_a_preset_as_shipped_that_fails_stays_a_bug():
    err = raised(lambda: eval_prompts(1.5))
    assert from_rejection(err, []) is err


def test_after_the_first_step_or_of_another_kind_our_error_stays_a_bug():
    err = raised(lambda: eval_prompts(1.5))
    assert from_rejection(err, ["data.min_length=1.5"], setting_up=False) is err
    runtime = raised(our_own_check)
    assert from_rejection(runtime, ["data.min_length=1.5"]) is runtime
    missing = raised(lambda: object().world)  # an AttributeError of ours without a swapped group: a bug
    assert from_rejection(missing, ["data.min_length=1.5"]) is missing
    disk = OSError(28, "No space left on device")
    assert from_rejection(disk, ["data.min_length=1.5"]) is disk  # from_os_error's: exit 4


def test_draws_are_fixed_by_the_seed_and_cover_every_kind():
    fuzz = load_fuzzer()
    presets = fuzz.survey(SMALL)
    assert sorted(p.name for p in presets) == sorted(SMALL)
    first, again, other = (fuzz.draw_cases(presets, 80, seed) for seed in (0, 0, 1))
    assert [c.args for c in first] == [c.args for c in again] != [c.args for c in other]
    assert {c.kind for c in first} == set(fuzz.KINDS)
    assert all(c.args[0].startswith("experiment=") and ("debug=fdr" in c.args) == (c.mode == "fdr") for c in first)


def run_fuzzer(tmp_path, *args: str) -> dict:
    out = tmp_path / "fuzz.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "--presets", *SMALL, "--json", str(out), *args], cwd=REPO_ROOT,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": PYTHONPATH, "OMP_NUM_THREADS": "1"},
                          capture_output=True, text=True, timeout=1200)
    assert "outcomes:" in done.stdout, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.returncode == 0, done.stdout[-3000:]
    return json.loads(out.read_text())


@pytest.mark.slow
def test_a_small_draw_ends_in_runs_or_one_error_line(tmp_path):
    cases = run_fuzzer(tmp_path, "--n", "10", "--seed", "0")["cases"]
    assert len(cases) == 10 and all(c["outcome"].startswith("ok") or c["outcome"] in ("exit 2", "exit 3", "exit 4") for c in cases)


@pytest.mark.slow
def test_forked_cases_end_as_fresh_reprolab_train_processes_do(tmp_path):
    """The fast path (cases forked from one warmed interpreter) against the reference (a real process each)."""
    forked = run_fuzzer(tmp_path, "--n", "4", "--seed", "3")["cases"]
    fresh = run_fuzzer(tmp_path, "--n", "4", "--seed", "3", "--fresh")["cases"]
    assert [(c["rc"], c["error_line"]) for c in forked] == [(c["rc"], c["error_line"]) for c in fresh]
