"""A run's `metrics.json` records the torch thread count it trained on: on CPU the same commit and seed give different
last digits on 1 and 2 threads (the cause of APT's digits claims moving between 6eb0926 and 5027fe6), so a rerun
must be able to tell which it was."""

import json

import pytest
import torch

from reprolab.cli.train import run
from reprolab.config.compose import compose


@pytest.mark.parametrize("threads", [1, 2])
def test_metrics_record_the_thread_count(threads, tmp_path):
    before = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        cfg = compose(["experiment=apt/claim_synthetic", "print_config=false", "optimizer=adam",
                       "trainer.max_steps=2", "logger=csv"], output_dir=tmp_path)
        returned = run(cfg)
    finally:
        torch.set_num_threads(before)
    assert returned["torch_threads"] == threads
    assert json.loads((tmp_path / "metrics.json").read_text())["torch_threads"] == threads
