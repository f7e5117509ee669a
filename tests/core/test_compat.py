"""The dependencies compat.py reaches into are installed inside the ranges it was tested on, and pyproject.toml
bounds each of them to that range."""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

from reprolab.deps import compat

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_installed_dependencies_are_inside_their_tested_ranges():
    assert compat.untested_versions() == []


def test_a_version_outside_its_range_is_named(monkeypatch):
    monkeypatch.setattr(compat, "version", lambda dist: "9.0.0")
    lines = compat.untested_versions()
    assert len(lines) == len(compat.TESTED)
    assert "lightning 9.0.0 is outside the tested range [2.6, 2.7)" in lines


def test_pyproject_bounds_each_reached_dependency_to_its_tested_range():
    requirements = tomllib.loads(PYPROJECT.read_text())["project"]["dependencies"]
    for dist, (low, high) in compat.TESTED.items():
        (spec,) = [r for r in requirements if re.match(rf"{re.escape(dist)}\s*[<>=]", r)]
        if "==" in spec:
            assert spec.split("==")[1].strip() == low
        else:
            assert f">={low}" in spec and f"<{high}" in spec, spec
