"""A secret-looking override is masked in every file the run writes, not only in printed output."""

from __future__ import annotations

import json

from reprolab.run.folder import mask_saved_config, write_error, write_metrics
from reprolab.run.loggers import mask_text, redact
from tests.core.cli import run_cli, small_run_args


def test_mask_text_masks_assignments_only_of_secret_keys():
    assert mask_text("+my_api_token=abc123,seed=1") == "+my_api_token=***,seed=1"
    assert mask_text("{'password': 'hunter2', 'lr': 0.1}") == "{'password': '***', 'lr': 0.1}"
    assert mask_text("WANDB_API_KEY: k0 tokens seen") == "WANDB_API_KEY: *** tokens seen"


def test_words_that_only_contain_a_marker_are_not_secrets():
    """A run's saved config must keep `data.tokenizer` and token counts: masking them makes the run unrepeatable."""
    cfg = {"data": {"tokenizer": "bytes", "n_tokens": 5, "hf_token": "x", "authToken": "y"}, "WANDB_API_KEY": "k"}
    assert redact(cfg) == {"data": {"tokenizer": "bytes", "n_tokens": 5, "hf_token": "***", "authToken": "***"},
                           "WANDB_API_KEY": "***"}
    assert mask_text("data.tokenizer=bytes data.max_tokens=9 +hf_token=abc") == \
        "data.tokenizer=bytes data.max_tokens=9 +hf_token=***"


def test_error_metrics_and_saved_config_are_masked(tmp_path):
    write_error(tmp_path, "ConfigError: bad value in my_secret=s3cr3t")
    write_metrics(tmp_path, {"test/acc": 0.5, "api_key": "s3cr3t", "cmd": "x my_token=s3cr3t"})
    (tmp_path / "overrides.yaml").write_text("- +my_api_token=s3cr3t\n- seed=1\n")
    (tmp_path / "config.yaml").write_text("seed: 1\nlogger:\n  wandb:\n    api_key: s3cr3t\n")
    mask_saved_config(tmp_path)
    for path in tmp_path.iterdir():
        assert "s3cr3t" not in path.read_text(), path.name
    assert json.loads((tmp_path / "metrics.json").read_text())["test/acc"] == 0.5
    assert "seed=1" in (tmp_path / "overrides.yaml").read_text()


def test_secret_override_never_reaches_a_run_file(tmp_path, cifar_folder):
    run_dir = tmp_path / "run"
    result = run_cli("reprolab-train", *small_run_args(run_dir, cifar_folder, "debug=fdr", "+my_api_token=abc123"))
    assert result.returncode == 0, result.stderr[-2000:]
    files = [p for p in run_dir.rglob("*") if p.is_file()]
    assert any(p.name == "overrides.yaml" for p in files) and any(p.name == "metrics.json" for p in files)
    leaked = [str(p.relative_to(run_dir)) for p in files if b"abc123" in p.read_bytes()]
    assert leaked == []
    assert "my_api_token=***" in (run_dir / ".hydra" / "overrides.yaml").read_text()
