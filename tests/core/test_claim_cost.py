"""The claim-cost benchmark times the trainer at the plain loop's protocol; the progress bar's `auto`."""

from __future__ import annotations

import importlib.util
import sys

from reprolab.config import REPO_ROOT, compose
from reprolab.trainer import progress_bar

spec = importlib.util.spec_from_file_location("claim_cost", REPO_ROOT / "scripts/bench/claim_cost.py")
claim_cost = sys.modules["claim_cost"] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(claim_cost)


def test_trainer_arm_composes_to_the_plain_loops_protocol(tmp_path):
    p = claim_cost.Protocol(optimizers=("delta_adamw",), lrs=(0.01,))
    overrides = [o for o in claim_cost.trainer_overrides(p, str(tmp_path), str(tmp_path)) if not o.startswith("hydra.")]
    cfg = compose(overrides)
    assert (cfg.data.seq_len, cfg.data.batch_size, cfg.data.max_eval_windows) == (p.seq_len, p.batch, p.eval_windows)
    assert (cfg.trainer.max_steps, cfg.trainer.val_check_interval, cfg.scheduler.warmup_steps) == (240, 10, 16)
    assert cfg.optimizer._target_.endswith("DeltaAdamW") and cfg.optimizer.lr == 0.01
    assert list(cfg.optimizer.betas) == [0.9, 0.95] and cfg.optimizer.weight_decay == 0.0 and cfg.optimizer.eta == 0.5
    assert (cfg.model.d_model, cfg.model.n_layer, cfg.model.n_head) == (64, 2, 4)


def test_progress_bar_auto_follows_the_terminal(monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    assert progress_bar("auto") is False and progress_bar(True) is True
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert progress_bar("auto") is True and progress_bar(False) is False


def test_checkouts_removes_only_the_worktrees_it_made(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(claim_cost.subprocess, "run", lambda cmd, **kwargs: calls.append(cmd))
    with claim_cost.checkouts({"before": "main"}, tmp_path) as trees:
        trees["after"] = REPO_ROOT  # what paper_cost adds: the caller's own checkout
    removed = [cmd[-1] for cmd in calls if cmd[:3] == ["git", "worktree", "remove"]]
    assert removed == [str(tmp_path / "before")]  # never the checkout the benchmark runs from
