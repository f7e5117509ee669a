"""`scripts/bench/phase_cost.py` attributes each call's time to its innermost timed phase."""

from __future__ import annotations

import importlib.util
import sys
import types

from reprolab.config import REPO_ROOT

spec = importlib.util.spec_from_file_location("phase_cost", REPO_ROOT / "scripts/bench/phase_cost.py")
phase_cost = importlib.util.module_from_spec(spec)
sys.modules["phase_cost"] = phase_cost
spec.loader.exec_module(phase_cost)


def test_nested_phases_count_their_own_time_once():
    now = [0.0]
    phases = phase_cost.Phases(clock=lambda: now[0])
    box = types.SimpleNamespace()

    def inner(seconds):
        now[0] += seconds

    def outer():
        now[0] += 1.0
        box.inner(2.0)
        now[0] += 0.5
        box.inner(0.25)
        return "done"

    box.inner, box.outer = inner, outer
    phases.wrap(box, "inner", "inner")
    phases.wrap(box, "outer", "outer")
    assert box.outer() == "done"
    box.inner(4.0)
    assert phases.spent == {"outer": 1.5, "inner": 6.25}
    text = phase_cost.report(phases, imports=2.0, total=10.0)
    assert "inner" in text.splitlines()[1] and "other" in text and "0.25 s" in text  # 10 - 2 - 7.75 left over
