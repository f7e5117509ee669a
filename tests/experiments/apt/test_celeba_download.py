"""CelebA's download (torchvision, from Google Drive) needs gdown, from the 'apt' extra: without it the download,
in the data module or `scripts/data/prepare_celeba.py`, is one line naming `pip install -e '.[apt]'`."""

from __future__ import annotations

import subprocess
import sys

import pytest

from experiments.apt.data_celeba import CelebADataModule
from reprolab.cli.errors import DatasetNotFoundError
from reprolab.config.extras import MissingExtraError
from tests.core.cli import PYTHONPATH, REPO_ROOT

LINE = ("gdown is not installed; it comes with the 'apt' extra: pip install -e '.[apt]' "
        "(or make install, which installs every extra)")


def test_a_download_without_gdown_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "gdown", None)
    with pytest.raises(MissingExtraError) as caught:
        CelebADataModule(str(tmp_path), download=True).setup()
    assert str(caught.value) == LINE
    with pytest.raises(DatasetNotFoundError, match="prepare_celeba.py"):  # no download asked: gdown not needed
        CelebADataModule(str(tmp_path)).setup()


def test_prepare_celeba_without_gdown_is_one_line(tmp_path):
    masked = ("import runpy, sys; sys.modules['gdown'] = None; "
              "runpy.run_path('scripts/data/prepare_celeba.py', run_name='__main__')")
    proc = subprocess.run([sys.executable, "-c", masked, "--data-dir", str(tmp_path)], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=300, env={"PYTHONPATH": PYTHONPATH, "OMP_NUM_THREADS": "1"})
    assert (proc.returncode, proc.stderr, proc.stdout) == (2, f"error: {LINE}\n", "")
