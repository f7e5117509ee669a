"""scripts/bench/gpu_check.py (the prepared GPU device-group check) runs its CPU arms end to end in --smoke."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "bench" / "gpu_check.py"


def test_a_second_check_moves_the_first_checks_run_aside(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPT.parent))
    from gpu_check import fresh_run_dir

    first = tmp_path / "runs" / "fp32"
    first.mkdir(parents=True)
    (first / "metrics.json").write_text('{"perf/step_ms": 1.0}')
    assert fresh_run_dir(tmp_path, "fp32") == first and not first.exists()
    (moved,) = (tmp_path / "runs").iterdir()
    assert moved.name.startswith("fp32-") and (moved / "metrics.json").read_text() == '{"perf/step_ms": 1.0}'
    assert fresh_run_dir(tmp_path, "bf16") == tmp_path / "runs" / "bf16"  # nothing there: nothing moved


@pytest.mark.slow  # four short reprolab-train processes, ~30 s
def test_smoke_runs_every_cpu_arm_and_reports_ratios(tmp_path):
    proc = subprocess.run([sys.executable, str(SCRIPT), "--out", str(tmp_path), "--smoke"], capture_output=True,
                          text=True, timeout=600, env={"OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    report = json.loads((tmp_path / "gpu_check.json").read_text())
    assert set(report["results"]) == {"fp32", "bf16", "adamw", "delta_adamw"}
    assert all(r["rc"] == 0 and r["perf/step_ms"] > 0 for r in report["results"].values())
    assert report["results"]["adamw"]["perf/tokens_per_s"] > 0
    assert set(report["ratios"]) == {"bf16 / fp32", "DeltaAdamW / AdamW"} and report["device"] == "cpu"
