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
