"""Claim-check machinery: steps saved, steps to target, horizons vs τᵢ, the FLOP model; the claim smoke run."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

from experiments.deltamomentum.claim_lm import first_step_below, steps_saved
from experiments.deltamomentum.claim_regression import memory_horizons, steps_to_target
from experiments.deltamomentum.model import LlamaLM

REPO = Path(__file__).resolve().parents[3]


def curve(vals, every=10):
    return {"steps": [i * every for i in range(len(vals))], "val": vals}


def test_steps_saved_is_one_minus_first_crossing_over_total_and_mirrored_when_never_reached():
    adamw = curve([5, 4, 3, 2.5, 2.2])  # terminal 2.2 at step 40
    delta = curve([5, 3.5, 2.1, 2.0, 1.9])  # ≤ 2.2 first at step 20
    assert first_step_below(delta, 2.2) == 20
    assert steps_saved(adamw, delta) == pytest.approx(0.5)
    worse = curve([5, 4.5, 4, 3.5, 3.0])  # never reaches 2.2; AdamW reached 3.0 at step 20
    assert steps_saved(adamw, worse) == pytest.approx(-0.5)
    assert math.isinf(first_step_below(worse, 1.0))


def test_regression_reaches_target_and_divergence_is_infinite():
    assert steps_to_target("delta_sgd", 0.2, 0, max_steps=300) < 100
    assert math.isinf(steps_to_target("sgdm", 4.0, 0, max_steps=100))


def test_measured_memory_horizons_follow_tau():
    h = memory_horizons([0], d=8, steps=40, batch=512)
    for measured, tau in zip(h["measured"], h["tau"], strict=True):
        assert measured == pytest.approx(tau, rel=0.1)
    assert max(h["tau"]) / min(h["tau"]) > 5  # frequent directions forget much faster


def test_bench_flop_model_per_block():
    spec = importlib.util.spec_from_file_location("bench", REPO / "scripts/bench/delta_step.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    model = LlamaLM(257, d_model=96, n_layer=2, n_head=4, max_seq_len=8)  # hidden = 256 = 8/3·96
    flops = bench.analytic_overhead(model, tokens=1024, seq_len=8)
    assert flops["block_asymptotic"] == pytest.approx(2 * (3 + (8 / 3) ** 2) / (6 * 12), rel=1e-6)
    assert 0 < flops["overhead"] < 1


@pytest.mark.claim
def test_claim_quick_smoke(tmp_path, data_dir):
    from experiments.deltamomentum.claim import main

    main(["--quick", "--seeds", "0,1", "--data-dir", str(data_dir), "--out", str(tmp_path)])
    text = (tmp_path / "claim.md").read_text()
    for section in ("1. Anisotropic", "2. Tiny Llama", "3. CIFAR-10", "4. μP"):
        assert section in text
