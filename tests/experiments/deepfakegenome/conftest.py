"""A small forgery zoo (scikit-learn photos, no shared folder needed), built once per test session."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiments.deepfakegenome.zoo_build import build_zoo

SMALL_ZOO = {"photos_dir": None, "num_algorithms": 10, "seed": 3, "per_algorithm": {"train": 6, "val": 2, "test": 8}}


@pytest.fixture(scope="session")
def zoo_data_dir(tmp_path_factory):
    """A data_dir holding `forgery_zoo/`: 10 algorithms (2 per family) over scikit-learn's sample photos."""
    data_dir = tmp_path_factory.mktemp("dfg_data")
    build_zoo(data_dir / "forgery_zoo", **SMALL_ZOO)
    return data_dir


@pytest.fixture(scope="session")
def zoo_root(zoo_data_dir) -> Path:
    """The session's small zoo tree (`forgery_zoo/<its settings' digest>/`)."""
    return build_zoo(zoo_data_dir / "forgery_zoo", **SMALL_ZOO)


@pytest.fixture(scope="session")
def small_zoo() -> dict:
    """The settings of the session's small zoo (build_zoo keyword arguments)."""
    return dict(SMALL_ZOO)
