"""scripts/bench/delta_step.py: the analytic FLOP count by hand, the accumulation composition, the preset mode."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from reprolab.models.llama import LlamaLM

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "bench" / "delta_step.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("delta_step", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["delta_step"] = module
    spec.loader.exec_module(module)
    return module


def test_analytic_overhead_by_hand(bench):
    """d 8, 1 block, SwiGLU hidden 64 (8/3·8 rounded up to 64), vocab 16, 4 tokens of a 4-token sequence.
    Linear weights: Q/K/V/O 4·64, gate/up 2·512, down 512, head 128 → 1920; base 6·4·1920 + 12·4·4·8 = 47616.
    Grams (QKV, O, gate/up shared; down): 2·4·(64 + 64 + 64 + 4096) = 34304. Recalls (no head):
    4·2·8·64 + 2·2·64·64 + 2·8·64² = 86016. λ̂: eigvalsh for every d ≤ 256, 4/3·(3·8³ + 64³)."""
    f = bench.analytic_overhead(LlamaLM(16, 8, 1, 2, max_seq_len=4), tokens=4, seq_len=4)
    assert (f["base"], f["gram"], f["recall"]) == (47616, 34304, 86016)
    assert f["lambda"] == pytest.approx(4 / 3 * (3 * 8 ** 3 + 64 ** 3))
    assert f["overhead"] == pytest.approx((34304 + 86016 + f["lambda"]) / 47616)
    assert f["overhead_syrk"] == pytest.approx((34304 / 2 + 86016 + f["lambda"]) / 47616)


def test_composed_overhead_weights_the_micro_batches(bench):
    adamw, delta = {"fb": 1.0, "opt": 0.5}, {"fb": 1.1, "opt": 1.5}
    assert bench.composed_overhead(adamw, delta, 1) == pytest.approx(2.6 / 1.5 - 1)
    assert bench.composed_overhead(adamw, delta, 10) == pytest.approx(12.5 / 10.5 - 1)
    assert bench.composed_overhead(adamw, delta, 1e9) == pytest.approx(0.1)  # only the per-token part is left


def test_preset_mode_composes_both_arms_and_prints_every_row(bench, capsys, monkeypatch):
    for owner, name in ((bench.key_hooks.KeyCapture, "_hook"), (bench.DeltaMomentumBase, "lambda_max"),
                        (bench.DeltaMomentumBase, "recall")):
        monkeypatch.setattr(owner, name, getattr(owner, name))  # main() times them; undone after the test
    bench.main(["--preset", "lm_tiny", "--micro-batch", "2", "--steps", "2", "--rounds", "1", "--warmup", "1"])
    out = capsys.readouterr().out
    assert "micro-batch 2×64 tokens" in out and "1,024 tokens per optimizer step = 8 such micro-batches" in out
    assert len([line for line in out.splitlines() if line.startswith("| ") and "%** [" in line]) == 3
    assert "ssyrk" in out and "analytic llama_67m" in out
    with pytest.raises(SystemExit, match="no_such_setting_adamw.yaml"):
        bench.main(["--preset", "no_such_setting"])
