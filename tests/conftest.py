"""Shared fixtures: the data folder, resolved as the configs resolve it (reprolab.config.paths.data_root); no network."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Tests never touch the network: the Hugging Face libraries answer from their cache or fail at once (set before any
# of them is imported: they read it at import), instead of retrying the Hub for ~45 s per uncached model.
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from reprolab.config.paths import data_root  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_ROOT = data_root()   # $REPROLAB_DATA, else the shared folder beside the checkout, else ./data


def pytest_configure(config):
    """Under pytest-xdist (`make test`), each worker's torch gets its share of the cores (at least one thread), so the
    workers do not oversubscribe them (torch's default is every core, in every worker)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
    if workers > 1:
        import torch

        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
        torch.set_num_threads(max(1, cores // workers))


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


def _skip_missing_extra():
    """A test (or its fixture) that reaches a paper's optional package that is not installed is skipped with the
    one-line reason (`rdkit is not installed; ... pip install -e '.[degradequery]'`), not failed; also when
    Hydra's instantiate wrapped that error."""
    from reprolab.cli.errors import exception_chain
    from reprolab.config.extras import MissingExtraError

    try:
        return (yield)
    except Exception as err:
        missing = [cause for cause in exception_chain(err) if isinstance(cause, MissingExtraError)]
        if not missing:
            raise
        pytest.skip(str(missing[0]))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item):
    return (yield from _skip_missing_extra())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    return (yield from _skip_missing_extra())
