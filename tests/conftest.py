"""Shared fixtures: the data folder, resolved as the configs resolve it (reprolab.paths.data_root)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reprolab.paths import data_root

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_ROOT = data_root()   # $REPROLAB_DATA, else the shared folder beside the checkout, else ./data


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The data folder `paths.data_dir` resolves to; skip where it does not exist (a clone with no data)."""
    if not DATA_ROOT.is_dir():
        pytest.skip(f"data folder {DATA_ROOT} is absent (set REPROLAB_DATA or run make data-<name>)")
    return DATA_ROOT


@pytest.fixture(scope="session")
def cifar_folder(data_dir: Path) -> Path:
    path = data_dir / "cifar10-jpeg-subset"
    if not path.is_dir():
        pytest.skip(f"{path} is absent (make data-cifar10-jpeg-subset)")
    return path


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """A test that reaches a paper's optional package that is not installed is skipped with the one-line reason
    (`rdkit is not installed; ... pip install -e '.[degradequery]'`), not failed."""
    from reprolab.extras import MissingExtraError

    try:
        return (yield)
    except MissingExtraError as err:
        pytest.skip(str(err))
