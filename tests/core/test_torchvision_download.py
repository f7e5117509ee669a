"""`make data-mnist`'s download (reprolab.data.torchvision_download): both splits, a failure as one line."""

from __future__ import annotations

import pytest
import torchvision.datasets

from reprolab.data import torchvision_download as tvd


def test_downloads_the_train_and_test_splits(tmp_path, monkeypatch, capsys):
    calls = []

    class Fake:
        def __init__(self, root, train, download):
            calls.append((root, train, download))

    monkeypatch.setattr(torchvision.datasets, "FakeSet", Fake, raising=False)
    assert tvd.main(["FakeSet", str(tmp_path)]) == 0
    assert calls == [(str(tmp_path), True, True), (str(tmp_path), False, True)]
    assert capsys.readouterr().out == f"{tmp_path}: FakeSet train and test splits present\n"


def test_no_network_is_one_line_naming_the_dataset_and_folder(tmp_path, monkeypatch, capsys):
    class Offline:
        def __init__(self, root, train, download):
            raise RuntimeError("Error downloading train-images-idx3-ubyte.gz:\nTried https://x/, got:\n"
                               "<urlopen error [Errno -2] Name or service not known>\n")

    monkeypatch.setattr(torchvision.datasets, "Offline", Offline, raising=False)
    with pytest.raises(SystemExit) as stop:
        tvd.main(["Offline", str(tmp_path)])
    assert stop.value.code == 2 and capsys.readouterr().err == (
        f"error: the Offline download into {tmp_path} failed (Error downloading train-images-idx3-ubyte.gz: Tried "
        "https://x/, got: <urlopen error [Errno -2] Name or service not known>); without network, copy the folder "
        "from a machine that has it\n")


def test_bad_arguments_are_one_line(capsys):
    assert tvd.main(["MNSIT", "data/mnist"]) == 2
    assert capsys.readouterr().err == "error: torchvision.datasets has no dataset 'MNSIT'\n"
    assert tvd.main([]) == 2
    assert capsys.readouterr().err.startswith("error: usage: python -m reprolab.data.torchvision_download")


def test_cifar10_without_network_in_a_run_is_a_missing_dataset_naming_the_folder(tmp_path, monkeypatch):
    """`data=cifar10` on a machine without CIFAR-10 or network: the training run's prepare_data, not a URLError."""
    import errno
    from urllib.error import URLError

    from reprolab.cli.errors import DatasetNotFoundError, StorageError, from_os_error
    from reprolab.data.image_classification import CIFAR10DataModule

    def offline(root, train, download):
        raise URLError("[Errno -2] Name or service not known")

    monkeypatch.setattr(torchvision.datasets, "CIFAR10", offline)
    module = CIFAR10DataModule(str(tmp_path / "cifar10"))
    with pytest.raises(DatasetNotFoundError, match=r"could not download CIFAR-10 into data_dir '.*cifar10' \(URLError"):
        module.prepare_data()

    def full(root, train, download):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(torchvision.datasets, "CIFAR10", full)
    with pytest.raises(OSError) as caught:  # a full disk stays the storage error (exit 4), not a missing dataset
        module.prepare_data()
    assert isinstance(from_os_error(caught.value), StorageError)
