"""Under hydra/launcher=submitit_local (each job in its own process, as on SLURM) a rerun sweep restores a skipped
run's `.hydra/` record, gives a set-aside run its own, and its end says the rerun notice that only the job's log
(`.submitit/<job>/*.out`) printed: two real sweeps of a 3-step regression preset, ~40 s on two busy cores."""

from __future__ import annotations

import pytest
import yaml

from reprolab.sweeps.finished_records import RECORD_FILES
from reprolab.sweeps.rehash import rehash
from tests.core.cli import run_cli


def sweep(tmp_path) -> list[str]:
    result = run_cli("reprolab-train", "-m", "hydra/launcher=submitit_local", "hydra.launcher.timeout_min=5",
                     "experiment=deltamomentum/regression_sgdm", "trainer.max_steps=3", "logger=none", "seed=0,1",
                     f"paths.root_dir={tmp_path}", f"hydra.sweep.dir={tmp_path / 'sweep'}", timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout.splitlines()


@pytest.mark.slow
def test_submitit_jobs_restore_records_set_them_aside_and_the_notice_reaches_the_sweep(tmp_path):
    folder = tmp_path / "sweep"
    assert sweep(tmp_path)[-1] == "sweep jobs: 0 skipped, 0 resumed, 2 started"
    config = folder / "0" / ".hydra" / "config.yaml"  # run 0: made before optimizer.nesterov existed
    saved = yaml.safe_load(config.read_text())
    del saved["optimizer"]["nesterov"]
    config.write_text(yaml.safe_dump(saved))
    assert rehash(folder / "0") == "rewritten"
    old0 = {name: (folder / "0" / ".hydra" / name).read_text() for name in RECORD_FILES}
    for name in RECORD_FILES:  # run 1: what only its own record has
        (folder / "1" / ".hydra" / name).write_text((folder / "1" / ".hydra" / name).read_text() + "# run 1\n")
    old1 = {name: (folder / "1" / ".hydra" / name).read_text() for name in RECORD_FILES}

    out = sweep(tmp_path)
    assert out[-1] == "sweep jobs: 1 skipped, 0 resumed, 1 started"
    assert {name: (folder / "1" / ".hydra" / name).read_text() for name in RECORD_FILES} == old1
    (aside,) = (folder / "0").glob("replaced-*")
    assert {name: (aside / ".hydra" / name).read_text() for name in RECORD_FILES} == old0
    assert "nesterov" in config.read_text()  # the job's new composition
    command = f"`python -m reprolab.sweeps.rehash {folder} --assume optimizer.nesterov=false`"
    (note,) = [line for line in out if line.startswith("note:")]
    assert note.startswith(f"note: finished runs in {folder} were re-run") and command in note
    logs = "".join(path.read_text() for path in folder.glob(".submitit/*/*_log.out"))
    assert f"note: finished runs in {folder} are re-run" in logs and command in logs  # the job's own line
