"""A job that runs in its own process (submitit's launchers) restores a skipped run's `.hydra/` record and gives a
set-aside run its record from the file the sweep's process wrote at its start; its rerun notice reaches the sweep's
end. Here the job's fresh process is stood in for by emptying the modules' memory once the sweep has started
(test_finished_records_slow.py runs real submitit_local jobs)."""

from __future__ import annotations

import pytest
import yaml
from lightning.fabric.utilities.rank_zero import rank_zero_only

import reprolab.sweeps.finished_records as finished_records
import reprolab.sweeps.rerun_notice as rerun_notice
import tests.core.sweeps.fake_train as fake_train
from reprolab.sweeps.callback import Sweep
from reprolab.sweeps.finished_records import RECORD_FILES, remember_finished, saved_record
from reprolab.sweeps.rehash import rehash
from tests.core.sweeps.test_multirun import sweep_args

GRID = ("seed=0,1",)
RECORDS = ".finished_records.json.gz"


@pytest.fixture
def jobs_in_fresh_processes(monkeypatch):
    """What a job process started by submitit has: none of the sweep process's memory."""
    real = Sweep.on_multirun_start

    def start_then_forget(self, config, **kwargs):
        real(self, config, **kwargs)
        finished_records._SAVED.clear()
        getattr(finished_records, "_READ_FROM", [None])[0] = None
        rerun_notice._TOLD.clear()

    monkeypatch.setattr(Sweep, "on_multirun_start", start_then_forget)


def mark(run, line: str) -> dict[str, str]:
    for name in RECORD_FILES:
        path = run / ".hydra" / name
        path.write_text(path.read_text() + line)
    return {name: (run / ".hydra" / name).read_text() for name in RECORD_FILES}


def test_a_job_in_its_own_process_restores_and_sets_aside_with_the_records(tmp_path, monkeypatch, capsys,
                                                                              jobs_in_fresh_processes):
    folder = tmp_path / "sweep"
    assert fake_train.run_train_cli(monkeypatch, *sweep_args(tmp_path, *GRID)) == 0
    old0, old1 = mark(folder / "0", "# run 0\n"), mark(folder / "1", "# run 1\n")
    (folder / "0" / "config_hash").write_text("0" * 64 + "\n")  # another config's run: set aside and re-run
    capsys.readouterr()

    assert fake_train.run_train_cli(monkeypatch, *sweep_args(tmp_path, *GRID)) == 0
    assert "sweep jobs: 1 skipped, 0 resumed, 1 started" in capsys.readouterr().out
    assert {name: (folder / "1" / ".hydra" / name).read_text() for name in RECORD_FILES} == old1
    (aside,) = (folder / "0").glob("replaced-*")
    assert {name: (aside / ".hydra" / name).read_text() for name in RECORD_FILES} == old0
    assert (folder / RECORDS).stat().st_size < 8000  # two runs' three files, 16 kB as text


def test_a_notice_from_a_job_in_its_own_process_is_said_at_the_sweeps_end(tmp_path, monkeypatch, capsys,
                                                                           jobs_in_fresh_processes):
    folder = tmp_path / "sweep"
    assert fake_train.run_train_cli(monkeypatch, *sweep_args(tmp_path, *GRID)) == 0
    for run in ("0", "1"):  # made before optimizer.nesterov existed
        path = folder / run / ".hydra" / "config.yaml"
        saved = yaml.safe_load(path.read_text())
        del saved["optimizer"]["nesterov"]
        path.write_text(yaml.safe_dump(saved))
        assert rehash(folder / run) == "rewritten"
    capsys.readouterr()

    real_end = Sweep.on_multirun_end  # the sweep's process printed none of its jobs' notices

    def end_in_the_sweeps_process(self, config, **kwargs):
        rerun_notice._TOLD.clear()
        real_end(self, config, **kwargs)

    monkeypatch.setattr(Sweep, "on_multirun_end", end_in_the_sweeps_process)
    assert fake_train.run_train_cli(monkeypatch, *sweep_args(tmp_path, *GRID)) == 0
    out = capsys.readouterr().out.splitlines()
    live = [line for line in out if line.startswith(f"note: finished runs in {folder} are re-run")]
    after = [line for line in out if line.startswith(f"note: finished runs in {folder} were re-run")]
    assert len(live) == 1 and "(optimizer.nesterov=true)" in live[0]  # the job's (in its log under submitit)
    assert len(after) == 1 and "(optimizer.nesterov=true)" in after[0] and "replaced-*/" in after[0]
    assert f"`python -m reprolab.sweeps.rehash {folder} --assume optimizer.nesterov=true`" in after[0]
    assert out.index(after[0]) == len(out) - 2 and out[-1] == "sweep jobs: 0 skipped, 0 resumed, 2 started"


def test_the_records_file_follows_each_sweep_start_and_only_rank_0_writes_it(tmp_path, monkeypatch):
    run = tmp_path / "sweep" / "0"
    (run / ".hydra").mkdir(parents=True)
    for name in ("config.yaml", "hydra.yaml", "metrics.json", "config_hash"):
        (run / (f".hydra/{name}" if name.endswith(".yaml") else name)).write_text(f"{name}\n")
    monkeypatch.setattr(rank_zero_only, "rank", 1, raising=False)
    remember_finished(tmp_path / "sweep")
    assert not (tmp_path / "sweep" / RECORDS).exists()

    monkeypatch.setattr(rank_zero_only, "rank", 0)
    remember_finished(tmp_path / "sweep")
    finished_records._SAVED.clear()  # another process: it reads the file
    getattr(finished_records, "_READ_FROM", [None])[0] = None
    assert saved_record(run, tmp_path / "sweep") == {"config.yaml": "config.yaml\n", "hydra.yaml": "hydra.yaml\n"}
    (run / "metrics.json").unlink()  # no finished run at the next sweep's start: no file, nothing read
    remember_finished(tmp_path / "sweep")
    assert not (tmp_path / "sweep" / RECORDS).exists() and saved_record(run, tmp_path / "sweep") is None


@pytest.mark.parametrize("content", [b"not gzip at all", b"\x1f\x8b\x08\x00truncated", None])
def test_an_unreadable_records_file_warns_once_and_the_job_goes_on_without_it(tmp_path, capsys, content):
    import gzip

    folder = tmp_path / "sweep"
    folder.mkdir()
    (folder / RECORDS).write_bytes(content if content is not None else gzip.compress(b'["a list"]'))
    finished_records._SAVED.clear()
    finished_records._READ_FROM[0] = None
    assert saved_record(folder / "0", folder) is None
    assert saved_record(folder / "1", folder) is None  # read once: one warning, not one a job
    err = capsys.readouterr().err
    assert err.count("warning: ") == 1 and "is unreadable" in err and "Rerunning the sweep rewrites the file" in err
