"""A rerun sweep into the same folder skips finished jobs, resumes killed ones, starts the rest, and
reruns a job whose config changed (instant stand-in training)."""

from __future__ import annotations

import json

from lightning.pytorch.utilities import rank_zero_only
from lightning.pytorch.utilities.exceptions import SIGTERMException
from omegaconf import OmegaConf

import tests.core.sweeps.fake_train as fake_train
from reprolab.sweeps.callback import HASH_FILE, config_hash, decide_job, legacy_config_hash
from tests.core.sweeps.test_multirun import sweep_args


def counted_sweep(tmp_path, monkeypatch, capsys, *extra: str) -> tuple[list, str]:
    """Run the sweep; returns the (lr, seed, ckpt_path) of each job that trained, and the summary line."""
    calls, real = [], fake_train.__dict__["fake_run"]

    def counting_run(cfg):
        calls.append((float(cfg.optimizer.lr), int(cfg.seed), cfg.ckpt_path))
        return real(cfg)

    monkeypatch.setattr(fake_train, "fake_run", counting_run)
    assert fake_train.run_train_cli(monkeypatch, *sweep_args(tmp_path, *extra)) == 0
    monkeypatch.setattr(fake_train, "fake_run", real)
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("sweep jobs:")]
    assert len(lines) == 1
    return calls, lines[0]


def test_rerun_skips_finished_jobs_and_resumes_the_one_with_only_a_checkpoint(tmp_path, monkeypatch, capsys):
    grid = ("optimizer.lr=0.01,0.1", "seed=0,1")
    calls, line = counted_sweep(tmp_path, monkeypatch, capsys, *grid)
    assert len(calls) == 4 and line == "sweep jobs: 0 skipped, 0 resumed, 4 started"
    sweep = tmp_path / "sweep"
    before = {r: (sweep / r / "metrics.json").read_text() for r in "0123"}

    (sweep / "2" / "metrics.json").unlink()  # job 2 was killed after its checkpoint
    (sweep / "2" / "checkpoints").mkdir()
    (sweep / "2" / "checkpoints" / "last.ckpt").write_bytes(b"fake")
    calls, line = counted_sweep(tmp_path, monkeypatch, capsys, *grid)
    assert line == "sweep jobs: 3 skipped, 1 resumed, 0 started"
    assert calls == [(0.1, 0, str(sweep / "2" / "checkpoints" / "last.ckpt"))]
    assert {r: (sweep / r / "metrics.json").read_text() for r in "0123"} == before
    report = json.loads((sweep / "sweep_report.json").read_text())
    assert (report["n_finished"], report["n_failed"], report["n_incomplete"]) == (4, 0, 0)

    calls, line = counted_sweep(tmp_path, monkeypatch, capsys, *grid, "resume=false")
    assert len(calls) == 4 and all(c[2] is None for c in calls)
    assert line == "sweep jobs: 0 skipped, 0 resumed, 4 started"


def test_decisions_are_counted_in_nested_sweep_subdirs(tmp_path, monkeypatch, capsys):
    nested = ("seed=0,1", "hydra.sweep.subdir=s${seed}/run")
    assert counted_sweep(tmp_path, monkeypatch, capsys, *nested)[1] == "sweep jobs: 0 skipped, 0 resumed, 2 started"
    assert counted_sweep(tmp_path, monkeypatch, capsys, *nested)[1] == "sweep jobs: 2 skipped, 0 resumed, 0 started"


def test_a_job_whose_config_changed_is_rerun_not_reused(tmp_path, monkeypatch, capsys):
    counted_sweep(tmp_path, monkeypatch, capsys, "optimizer.lr=0.01,0.1")
    sweep = tmp_path / "sweep"
    old = json.loads((sweep / "1" / "metrics.json").read_text())
    calls, line = counted_sweep(tmp_path, monkeypatch, capsys, "optimizer.lr=0.01,0.2")
    assert line == "sweep jobs: 1 skipped, 0 resumed, 1 started"
    assert calls == [(0.2, 0, None)]
    new = json.loads((sweep / "1" / "metrics.json").read_text())
    assert new["test/acc"] == fake_train.fake_test_acc(0.2, 0) != old["test/acc"]
    (aside,) = sweep.joinpath("1").glob("replaced-*/metrics.json")  # kept, out of the run's way
    assert json.loads(aside.read_text()) == old


def cfg_of(lr: float, out: str = "/a") -> OmegaConf:
    return OmegaConf.create({"optimizer": {"lr": lr}, "seed": 0, "ckpt_path": None, "print_config": False,
                             "paths": {"output_dir": out}})


def test_config_hash_ignores_where_files_go_but_not_what_is_trained():
    assert config_hash(cfg_of(0.1, "/a")) == config_hash(cfg_of(0.1, "/elsewhere"))
    assert config_hash(cfg_of(0.1)) != config_hash(cfg_of(0.2))


def test_config_hash_ignores_cache_folders_at_any_depth():
    """A cache added or moved (data.cache_dir, data.decoded_cache_dir) keeps finished jobs finished."""
    plain, cached = cfg_of(0.1), cfg_of(0.1)
    cached.data = {"cache_dir": "/c", "decoded_cache_dir": "/c/img", "batches": [{"cache_dir": "/d"}]}
    plain.data = {"batches": [{}]}
    assert config_hash(cached) == config_hash(plain)
    cached.data.cache_size = 3  # only cache *folders* are left out
    assert config_hash(cached) != config_hash(plain)


def job_at(root: str, interval_s: int = 30, pretrain: str = "pre/0") -> OmegaConf:
    """A job whose checkout lies at `root`: it reads a pretraining run under its log folder."""
    return OmegaConf.create({
        "optimizer": {"lr": 0.1}, "seed": 0, "pretrain_run": f"{root}/logs/{pretrain}",
        "paths": {"root_dir": root, "log_dir": f"{root}/logs", "output_dir": f"{root}/logs/sweep/0"},
        "callbacks": {"last_checkpoint": {"dirpath": f"{root}/logs/sweep/0/checkpoints", "write_interval_s": interval_s},
                      "progress_log": {"interval_s": interval_s}, "requeue": {"signal_name": "SIGUSR2"}}})


def test_config_hash_survives_a_moved_checkout_and_operational_callbacks_but_not_another_input():
    assert config_hash(job_at("/home/a/reprolab")) == config_hash(job_at("/scratch/b/repro", interval_s=0))
    no_operational = job_at("/x")
    for key in ("progress_log", "requeue"):
        del no_operational.callbacks[key]
    assert config_hash(no_operational) == config_hash(job_at("/x"))
    assert config_hash(job_at("/x", pretrain="pre/1")) != config_hash(job_at("/x"))
    assert config_hash(job_at("/x")) != legacy_config_hash(job_at("/x"))


def test_a_hash_written_the_old_way_still_skips_and_is_rewritten(tmp_path):
    cfg, run = job_at("/x"), tmp_path / "run"
    run.mkdir()
    (run / "metrics.json").write_text("{}")
    (run / HASH_FILE).write_text(legacy_config_hash(cfg) + "\n")
    assert decide_job(cfg, run) == ("skipped", run / "metrics.json")
    assert (run / HASH_FILE).read_text().strip() == config_hash(cfg)
    other = job_at("/x", pretrain="pre/1")  # an old hash of another config is no match under either rule
    (run / HASH_FILE).write_text(legacy_config_hash(other) + "\n")
    assert decide_job(cfg, run) == ("started", None) and not (run / "metrics.json").exists()


def test_skip_resume_start_on_hand_made_run_folders(tmp_path):
    cfg = cfg_of(0.1)
    done, killed, other, old, fresh = (tmp_path / n for n in ("done", "killed", "other", "old", "fresh"))
    for d in (done, killed, other, old):
        d.mkdir()
    (done / "metrics.json").write_text("{}")
    (done / "checkpoints").mkdir()
    (done / "checkpoints" / "last.ckpt").write_bytes(b"x")
    (killed / "checkpoints").mkdir()
    (killed / "checkpoints" / "last.ckpt").write_bytes(b"x")
    (killed / "error.txt").write_text("KeyboardInterrupt\n")
    for d in (done, killed):
        (d / HASH_FILE).write_text(config_hash(cfg) + "\n")
    (other / "checkpoints").mkdir()
    (other / "checkpoints" / "last.ckpt").write_bytes(b"x")
    (other / HASH_FILE).write_text(config_hash(cfg_of(0.2)) + "\n")
    (other / "csv").mkdir()  # its curves go with it, not overwritten by the new run's logger
    (other / "csv" / "metrics.csv").write_text("step,loss\n")
    (other / ".hydra").mkdir()  # Hydra wrote this job's config here, and opened its log, before the job decides
    (other / "train.log").write_text("appended by this job\n")
    (old / "metrics.json").write_text("{}")  # finished before hashes were recorded: not trusted

    assert decide_job(cfg, done) == ("skipped", done / "metrics.json")
    assert decide_job(cfg, killed) == ("resumed", killed / "checkpoints" / "last.ckpt")
    assert not (killed / "error.txt").exists()
    assert decide_job(cfg, other) == ("started", None)
    assert not (other / "checkpoints").exists() and len(list(other.glob("replaced-*/checkpoints/last.ckpt"))) == 1
    assert len(list(other.glob("replaced-*/csv/metrics.csv"))) == 1 and not (other / "csv").exists()
    assert (other / "train.log").read_text() == "appended by this job\n" and (other / ".hydra").is_dir()
    assert decide_job(cfg, old) == ("started", None) and not (old / "metrics.json").exists()
    assert decide_job(cfg, fresh) == ("started", None)
    assert (fresh / HASH_FILE).read_text().strip() == config_hash(cfg)
    assert decide_job(cfg, done, resume=False) == ("started", None) and not (done / "metrics.json").exists()


def test_other_ranks_decide_alike_but_leave_the_folder_to_rank_0(tmp_path, monkeypatch):
    other = tmp_path / "other"
    (other / "checkpoints").mkdir(parents=True)
    (other / "checkpoints" / "last.ckpt").write_bytes(b"x")
    (other / HASH_FILE).write_text(config_hash(cfg_of(0.2)) + "\n")
    monkeypatch.setattr(rank_zero_only, "rank", 1)
    assert decide_job(cfg_of(0.1), other) == ("started", None)
    assert (other / "checkpoints" / "last.ckpt").is_file() and not list(other.glob("replaced-*"))
    monkeypatch.setattr(rank_zero_only, "rank", 0)
    assert decide_job(cfg_of(0.1), other) == ("started", None) and len(list(other.glob("replaced-*"))) == 1


def test_a_job_stopped_by_sigterm_exits_143_naming_its_checkpoint(tmp_path, monkeypatch, capsys):
    def stopped(cfg):
        raise SIGTERMException  # what Lightning raises at the next step after a SIGTERM

    monkeypatch.setattr(fake_train, "fake_run", stopped)
    assert fake_train.run_train_cli(monkeypatch, *sweep_args(tmp_path, "seed=0")) == 143
    last = tmp_path / "sweep" / "0" / "checkpoints" / "last.ckpt"
    assert f"stopped by SIGTERM; resume with ckpt_path={last}" in capsys.readouterr().err
