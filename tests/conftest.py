"""Shared fixtures: the shared real datasets folder, and small composed configs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("REPROLAB_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """`../shared/data` next to the checkout (small real datasets); skip where a clone lacks it."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared datasets folder {SHARED_DATA} is absent (set REPROLAB_SHARED_DATA)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def cifar_folder(data_dir: Path) -> Path:
    path = data_dir / "cifar10-jpeg-subset"
    if not path.is_dir():
        pytest.skip(f"{path} is absent")
    return path
