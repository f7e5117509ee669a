"""`reprolab-train`: compose → print → seed → instantiate → fit → test best → metrics.json.

    reprolab-train experiment=cifar10/small_sgd_cpu optimizer=adamw device=gpu
    reprolab-train -m experiment=a seed=0,1 --next -m experiment=b seed=0,1   # two sweeps, one process
"""

from __future__ import annotations

import os
import signal
import sys
from contextlib import nullcontext
from pathlib import Path

import hydra
import lightning as L
from hydra.core.hydra_config import HydraConfig
from hydra.errors import HydraException
from lightning.fabric.utilities.rank_zero import rank_zero_only
from lightning.pytorch.utilities.exceptions import SIGTERMException
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from reprolab.cli.closed_stdout import exit_closed_stdout, is_closed_pipe, quiet_on_closed_stdout
from reprolab.cli.errors import (
    CheckpointError,
    ConfigError,
    ReprolabError,
    RunFolderBusyError,
    from_instantiation,
    from_os_error,
    one_line,
    rejected_at_set_up,
)
from reprolab.cli.interrupt import exit_interrupted, was_interrupted, watch_sigint
from reprolab.cli.override_hints import (
    argument_error_line,
    multirun_flag_first,
    override_error_line,
    preset_options,
)
from reprolab.config.checks import check_targets, check_values
from reprolab.config.compose import CONF_DIR
from reprolab.config.paths import other_checkout_warning
from reprolab.config.print_tree import print_config_tree
from reprolab.run.build import build_run, build_task  # noqa: F401 - build_task: importable from here as before
from reprolab.run.device import check_device, check_world_size
from reprolab.run.folder import (
    as_floats,
    held_lock,
    lock_run_folder,
    mask_saved_config,
    merge_results,
    release_locks,
    write_error,
    write_metrics,
)
from reprolab.run.job_logging import expected_warnings
from reprolab.run.loggers import finish_loggers
from reprolab.run.provenance import git_commit, torch_threads
from reprolab.run.safe_load import check_checkpoint
from reprolab.sweeps.callback import end_failed_sweep, forget_sweep
from reprolab.sweeps.chain import SEPARATOR, run_chain
from reprolab.sweeps.job import in_multirun, resume_or_skip, sweep_value  # noqa: F401 - sweep_value: importable from here


def check_resume(cfg: DictConfig) -> None:
    """Refuse a missing, damaged or code-running `ckpt_path` before any set-up."""
    if cfg.get("ckpt_path"):
        check_checkpoint(cfg.ckpt_path)


def fit(cfg: DictConfig, trainer: L.Trainer, task: L.LightningModule, datamodule) -> dict[str, float]:
    try:
        trainer.fit(task, datamodule=datamodule, ckpt_path=cfg.get("ckpt_path"), weights_only=True)
    except RuntimeError as err:  # a checkpoint of another model: keys or shapes differ
        if not cfg.get("ckpt_path") or "Error(s) in loading state_dict" not in str(err):
            raise
        first = str(err).splitlines()[1].strip() if "\n" in str(err) else one_line(err)
        raise CheckpointError(f"checkpoint '{cfg.ckpt_path}' does not fit this model ({first}); resume with the "
                              "config it was trained with (its run's .hydra/config.yaml)") from err
    metrics = {k: v for k, v in as_floats(trainer.callback_metrics).items() if not k.startswith("test/")}
    ckpt = trainer.checkpoint_callback
    if getattr(ckpt, "best_model_score", None) is not None:
        metrics[f"best/{ckpt.monitor}"] = float(ckpt.best_model_score)
    return metrics


def trains(task: L.LightningModule) -> bool:
    """A task without a `training_step` (an evaluator: the zero-shot LLM agent of skillsonar) is tested only;
    Lightning's fit refuses it even at max_epochs=0."""
    return type(task).training_step is not L.LightningModule.training_step


def test_best(trainer: L.Trainer, task: L.LightningModule, datamodule) -> tuple[dict[str, float], str | None]:
    """Test the best checkpoint by the monitor (the final weights when there is none, e.g. fast_dev_run). A job of a
    `-m` sweep prints one `test: …` line instead of Lightning's "Test metric" table (48 tables flood a sweep)."""
    ckpt = trainer.checkpoint_callback
    best = getattr(ckpt, "best_model_path", None) or None
    sweep_job = in_multirun()
    results = as_floats(merge_results(trainer.test(task, datamodule=datamodule, ckpt_path=best, weights_only=True,
                                                   verbose=not sweep_job)))
    if sweep_job and trainer.is_global_zero:
        print("test: " + ", ".join(f"{name} {value:.4g}" for name, value in sorted(results.items())))
    return results, best


def user_overrides() -> list[str]:
    """The command line's overrides but the preset's name: what a value rejected at set-up is put down to."""
    if not HydraConfig.initialized():
        return []
    task = OmegaConf.to_container(HydraConfig.get().overrides.task, resolve=False)  # `lr=${nope}` is text here
    return [o for o in task if not o.startswith(("experiment=", "print_config="))]


def resolved_config(cfg: DictConfig):
    return lambda: OmegaConf.to_container(cfg, resolve=True) if OmegaConf.is_config(cfg) else None


def run(cfg: DictConfig, resolved: dict | None = None) -> dict[str, float]:
    """Train and test one configuration; returns the metrics also written to `metrics.json`. `resolved`: `cfg`
    already resolved (check_config's), logged as the hyper-parameters instead of resolving it again. A value of
    the command line that a constructor, Lightning's loop set-up, the first step or an evaluation stage rejects is a
    ConfigError (errors.from_rejection)."""
    check_resume(cfg)
    with rejected_at_set_up(user_overrides, resolved_config(cfg)):
        datamodule, task, trainer = build_run(cfg, resolved)
    with expected_warnings(task), rejected_at_set_up(user_overrides, resolved_config(cfg), lambda: trainer.global_step > 0):
        metrics = fit(cfg, trainer, task, datamodule) if trains(task) else {}
        if cfg.get("test_after_fit", True):
            test_metrics, best = test_best(trainer, task, datamodule)
            metrics.update(test_metrics)
            metrics["best_ckpt"] = best
    metrics.update({"seed": cfg.seed, "paper": cfg.get("paper"), "setting": cfg.get("setting"), "git_commit": git_commit(),
                    "torch_threads": torch_threads()})
    if trainer.is_global_zero:
        written = write_metrics(cfg.paths.output_dir, metrics)
        if not in_multirun():  # a sweep's folders are in its sweep_report.json
            print(f"metrics written to {written}")
    finish_loggers(trainer.loggers)
    return metrics


def run_until_sigterm(cfg: DictConfig, resolved: dict | None = None) -> dict[str, float]:
    """`run`; a SIGTERM (Lightning stops at the next step, checkpoints get written) exits 143, not 0, and the
    requeue signal (callbacks/requeue.py: last.ckpt of that step written) exits 128 + its number (SIGUSR2: 140)."""
    try:
        return run(cfg, resolved)
    except SIGTERMException as stop:
        signum = getattr(stop, "signum", signal.SIGTERM)  # RequeueRequested: the scheduler's requeue signal
        last = Path(cfg.paths.output_dir) / "checkpoints" / "last.ckpt"
        print(f"stopped by {signal.Signals(signum).name}; resume with ckpt_path={last} (a -m sweep rerun into the same folder "
              "resumes by itself)", file=sys.stderr)
        sys.exit(128 + signum)


def hold_run_folder(cfg: DictConfig):
    """The run folder's lock (taken by `RunFolderLock` before Hydra wrote there, or now: a multirun job, an
    in-process call); a folder another run writes to ends this one with one line (no error.txt there).
    A DDP rank that rank 0 launched into rank 0's folder runs under rank 0's lock."""
    if rank_zero_only.rank != 0:
        return nullcontext()
    try:
        return held_lock(cfg.paths.output_dir) or lock_run_folder(cfg.paths.output_dir)
    except RunFolderBusyError as err:
        if in_multirun():
            raise
        print(f"error: {one_line(err)}", file=sys.stderr)
        sys.exit(err.exit_code)


def mask_hydra_files() -> None:
    """No secret passed as an override stays in plain text in the run folder's `.hydra/`."""
    if HydraConfig.initialized() and HydraConfig.get().output_subdir is not None:
        runtime = HydraConfig.get().runtime
        mask_saved_config(Path(runtime.output_dir) / HydraConfig.get().output_subdir)


@hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="train")
def hydra_main(cfg: DictConfig) -> float | None:
    with hold_run_folder(cfg):
        mask_hydra_files()
        return _main(cfg)


def check_config(cfg: DictConfig) -> dict:
    """Every interpolation resolves, common values have their type and range, every `_target_` takes its keys,
    and the device exists: checked before the tree is printed or anything built. Returns the resolved config
    (a container), which the sweep's config hash reuses instead of resolving it again."""
    try:
        resolved = OmegaConf.to_container(cfg, resolve=True)
    except OmegaConfBaseException as err:
        needed = f" (needed by {err.full_key})" if getattr(err, "full_key", None) else ""
        raise ConfigError(f"{one_line(err)}{needed}; fix that override, or pick a group option this preset can use") from None
    check_values(cfg, resolved)
    check_targets(cfg)
    check_device(cfg.device)
    check_world_size(cfg)
    return resolved


_ONE_LINE = {"errors": False}  # set by `main`: an unexpected error is one line too (not when HYDRA_FULL_ERROR=1)


def unexpected_line(err: BaseException) -> str:
    return f"unexpected {type(err).__name__}: {one_line(err)}; rerun with HYDRA_FULL_ERROR=1 for the traceback"


def _main(cfg: DictConfig) -> float | None:
    try:
        with rejected_at_set_up(user_overrides):
            resolved = check_config(cfg)
        if cfg.get("print_config", True):
            print_config_tree(cfg)
        done = resume_or_skip(cfg, resolved)
        if done is not None:
            return sweep_value(cfg, done)
        unchanged = resolved.get("ckpt_path") == cfg.get("ckpt_path")  # a resumed job's ckpt_path was set since
        return sweep_value(cfg, run_until_sigterm(cfg, resolved if unchanged else None))
    except Exception as caught:
        err = from_os_error(from_instantiation(caught))  # a rejected config value → ConfigError, a full disk → StorageError
        user_error = isinstance(err, ReprolabError)
        if not user_error and not _ONE_LINE["errors"]:
            raise
        write_error(cfg.paths.output_dir, f"{type(err).__name__}: {one_line(err)}")
        if is_closed_pipe(caught):  # stdout closed by its reader (`| head`): the whole command ends, 141
            exit_closed_stdout()
        if in_multirun():  # the sweeper records the failure and goes on with the other runs
            if err is caught:
                raise
            raise err from caught
        print(f"error: {one_line(err) if user_error else unexpected_line(err)}", file=sys.stderr)
        sys.exit(err.exit_code if user_error else 1)


_OURS = "REPROLAB_SET_HYDRA_FULL_ERROR"


@quiet_on_closed_stdout
def main() -> None:
    """`reprolab-train`: every error ends with one line on stderr and exit 2 (bad config or input: Hydra's own
    errors included), 3 (non-finite loss), 4 (output not writable, disk full) or 1 (unexpected: a bug);
    `HYDRA_FULL_ERROR=1` shows the traceback. `… --next …` runs several calls in this one process (sweep_chain)."""
    if SEPARATOR in sys.argv:
        sys.exit(run_chain(main_one, sys.argv))
    main_one()


def main_one() -> None:
    sys.argv = multirun_flag_first(sys.argv)
    wrong = argument_error_line(sys.argv[1:], "reprolab-train")
    if wrong:
        print(f"error: {wrong}; see `reprolab-train --help`", file=sys.stderr)
        sys.exit(2)
    elsewhere = other_checkout_warning("reprolab-train")
    if elsewhere:
        print(elsewhere, file=sys.stderr)
    watch_sigint()
    ours = os.environ.get(_OURS) == "1"  # a DDP rank started by a run that set HYDRA_FULL_ERROR itself
    if os.environ.get("HYDRA_FULL_ERROR") == "1" and not ours:
        hydra_main()
        return
    os.environ.update({"HYDRA_FULL_ERROR": "1", _OURS: "1"})  # let Hydra's exceptions reach us instead of printing them
    _ONE_LINE["errors"] = True
    try:
        hydra_main()
    except (HydraException, OmegaConfBaseException) as err:
        text = " ".join(str(err).split("Config search path")[0].split())  # Hydra's advice (the options of a group, `+key=`) is on later lines
        hint = override_error_line(err, sys.argv[1:])  # a typo's nearest key instead of Hydra's `+key=` advice
        print(f"error: {hint or text + preset_options(text)}; see `reprolab-train --help` or the group's options under "
              "conf/", file=sys.stderr)
        sys.exit(2)
    except (KeyboardInterrupt, SystemExit) as stop:
        if was_interrupted(stop):
            exit_interrupted()
        raise
    except Exception as caught:  # noqa: BLE001 — before the job: the run folder's lock or creation; else a bug
        if is_closed_pipe(caught):  # stdout closed by its reader (`| head`): quiet_on_closed_stdout ends it
            raise
        end_failed_sweep()  # a -m sweep with a failed job: its report and decisions lines first
        hint = override_error_line(caught, sys.argv[1:])  # `group=null`, `-m` with `--cfg`: Hydra's ValueErrors
        if hint:
            print(f"error: {hint}", file=sys.stderr)
            sys.exit(2)
        err = from_os_error(caught)
        print(f"error: {one_line(err) if isinstance(err, ReprolabError) else unexpected_line(err)}", file=sys.stderr)
        sys.exit(err.exit_code if isinstance(err, ReprolabError) else 1)
    finally:
        _ONE_LINE["errors"] = False
        forget_sweep()
        release_locks()
        for name in ("HYDRA_FULL_ERROR", _OURS):  # in-process callers (tests, notebooks) keep their environment
            os.environ.pop(name, None)


if __name__ == "__main__":
    main()
