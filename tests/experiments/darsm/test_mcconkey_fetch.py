"""The McConkey fetch step without network: a fake Kaggle (a folder in the dataset's layout) behind `download`,
the kaggle CLI's zipped reply, the manifest check, and the one-line errors for a missing CLI or token."""

import shutil
import subprocess
import zipfile

import numpy as np
import pytest

from experiments.darsm import mcconkey_fetch
from experiments.darsm.mcconkey_duct import synthetic_duct_case
from experiments.darsm.mcconkey_fetch import fetch, kaggle_download, kaggle_ready, verify
from reprolab.cli.errors import CorruptDataError, DatasetNotFoundError
from tests.experiments.darsm.test_mcconkey import write_case


def remote(folder):
    """A downloader serving `folder`'s files by their dataset path; records what was asked."""
    asked = []

    def download(path, into):
        asked.append(path)
        if not (folder / path).is_file():
            return False
        into.mkdir(parents=True, exist_ok=True)
        shutil.copy(folder / path, into)
        return True

    return download, asked


def test_fetch_takes_only_the_cases_files_checks_them_and_writes_the_manifest(tmp_path):
    server = tmp_path / "kaggle"
    write_case(server, "DUCT_1100", synthetic_duct_case(cells=6))
    write_case(server, "DUCT_3500", synthetic_duct_case(cells=6), layout="REF")   # the later release's layout
    download, asked = remote(server)
    root = fetch(tmp_path / "mcconkey", ["DUCT_1100", "DUCT_3500"], download=download)
    assert "labels/DUCT_3500_U.npy" in asked and not any(p.startswith("REF/") and "DUCT_1100" in p for p in asked)
    assert "REF/REF_DUCT_3500_Uz.npy" in asked and len(list((root / "komegasst").iterdir())) == 16
    assert verify(root) == 16 + 1 + 3
    np.save(root / "labels" / "DUCT_1100_U.npy", np.zeros((36, 3)))
    with pytest.raises(CorruptDataError, match="changed since they were fetched"):
        verify(root)


def test_fetch_of_an_unknown_case_or_a_bad_file_is_one_line(tmp_path):
    server = tmp_path / "kaggle"
    case = synthetic_duct_case(cells=6)
    case["Ux"] = case["Ux"][:10]
    write_case(server, "DUCT_1100", case)
    download, _ = remote(server)
    with pytest.raises(DatasetNotFoundError, match="has no komegasst/komegasst_DUCT_9999_Cx.npy"):
        fetch(tmp_path / "a", ["DUCT_9999"], download=download)
    with pytest.raises(CorruptDataError, match="Ux has shape"):
        fetch(tmp_path / "b", ["DUCT_1100"], download=download)
    with pytest.raises(DatasetNotFoundError, match="make data-mcconkey"):
        verify(tmp_path / "c")


def test_kaggle_cli_and_token_missing_are_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(mcconkey_fetch.shutil, "which", lambda name: None)
    with pytest.raises(DatasetNotFoundError, match=r"pip install kaggle.*Create New Token"):
        kaggle_ready()
    monkeypatch.setattr(mcconkey_fetch.shutil, "which", lambda name: "/usr/bin/kaggle")
    monkeypatch.setenv("KAGGLE_CONFIG_DIR", str(tmp_path))
    for var in ("KAGGLE_USERNAME", "KAGGLE_KEY", "KAGGLE_API_TOKEN"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(DatasetNotFoundError, match="Kaggle needs an API token.*none found"):
        kaggle_ready()
    (tmp_path / "kaggle.json").write_text("{}")
    kaggle_ready()


def test_kaggle_download_unzips_a_zipped_reply_and_reads_404_as_absent(tmp_path, monkeypatch):
    calls = []

    def fake_run(cmd, **kwargs):
        calls.append(cmd)
        name = cmd[cmd.index("-f") + 1].split("/")[-1]
        if "missing" in name:
            return subprocess.CompletedProcess(cmd, 1, "", "404 - Not Found")
        with zipfile.ZipFile(tmp_path / "out" / f"{name}.zip", "w") as archive:
            archive.writestr(name, b"data")
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(mcconkey_fetch.subprocess, "run", fake_run)
    assert kaggle_download("komegasst/komegasst_DUCT_1100_Cx.npy", tmp_path / "out")
    assert (tmp_path / "out" / "komegasst_DUCT_1100_Cx.npy").read_bytes() == b"data"
    assert not (tmp_path / "out" / "komegasst_DUCT_1100_Cx.npy.zip").exists()
    assert calls[0][:5] == ["kaggle", "datasets", "download", "-d", "ryleymcconkey/ml-turbulence-dataset"]
    assert not kaggle_download("labels/missing_U.npy", tmp_path / "out")
