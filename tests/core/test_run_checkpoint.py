"""`run_checkpoint` finds the checkpoint a finished run tested after its folder was moved or copied (metrics.json
records an absolute path), and the papers that read another run's weights go through it."""

from __future__ import annotations

import json

from experiments.heteroskedastic.posthoc import resolve_checkpoint
from reprolab.run.folder import run_checkpoint


def finished_run(run, best: str | None, files=("epoch=3-step=40.ckpt", "last.ckpt")):
    (run / "checkpoints").mkdir(parents=True)
    for name in files:
        (run / "checkpoints" / name).write_bytes(b"weights")
    (run / "metrics.json").write_text(json.dumps({"test/loss": 0.5, "best_ckpt": best}))
    return run


def test_a_moved_run_finds_its_best_checkpoint_in_its_own_folder(tmp_path):
    run = finished_run(tmp_path / "copied" / "0", best="/elsewhere/old-checkout/logs/0/checkpoints/epoch=3-step=40.ckpt")
    assert run_checkpoint(run) == run / "checkpoints" / "epoch=3-step=40.ckpt"
    assert resolve_checkpoint(str(run)) == run / "checkpoints" / "epoch=3-step=40.ckpt"


def test_the_recorded_path_when_the_run_folder_lacks_the_file(tmp_path):
    kept = tmp_path / "kept" / "best.ckpt"
    kept.parent.mkdir()
    kept.write_bytes(b"weights")
    run = finished_run(tmp_path / "run", best=str(kept), files=("last.ckpt",))
    assert run_checkpoint(run) == kept


def test_last_ckpt_without_a_best_one_and_a_missing_file_is_returned_for_the_caller_to_report(tmp_path):
    run = finished_run(tmp_path / "run", best=None)
    assert run_checkpoint(run) == run / "checkpoints" / "last.ckpt"
    assert run_checkpoint(tmp_path / "never_ran") == tmp_path / "never_ran" / "checkpoints" / "last.ckpt"
    gone = finished_run(tmp_path / "gone", best="/nowhere/epoch=9.ckpt", files=())
    assert run_checkpoint(gone) == gone / "checkpoints" / "epoch=9.ckpt"
