"""The profile datamodule (labels, odd/even n, augmentation) and PrefLib parsing on a file the test writes."""

import pytest
import torch

from experiments.voting.data import ProfileDataModule, permuted_batch
from experiments.voting.preflib import load_preflib_dir, parse_preflib
from experiments.voting.rules import borda, copeland
from reprolab.cli.errors import ConfigError, CorruptDataError, DatasetNotFoundError

SOC = """# FILE NAME: 00999-00000001.soc
# DATA TYPE: soc
# NUMBER ALTERNATIVES: 3
# NUMBER VOTERS: 5
# NUMBER UNIQUE ORDERS: 2
# ALTERNATIVE NAME 1: x
# ALTERNATIVE NAME 2: y
# ALTERNATIVE NAME 3: z
3: 1,2,3
2: 3,2,1
"""
SOI = """# DATA TYPE: soi
# NUMBER ALTERNATIVES: 4
2: 2,4
1: 1
"""


def small(**kw):
    args = dict(num_candidates=4, num_voters=6, num_train=64, num_val=16, num_test=16, batch_size=8, seed=3)
    return ProfileDataModule(**{**args, **kw})


@pytest.mark.parametrize("n", [5, 6])
def test_labels_are_the_rules_tied_winners_for_odd_and_even_n(n):
    dm = small(num_voters=n, rule="copeland")
    dm.setup("fit")
    ballots, winners = dm.splits["train"].tensors
    assert ballots.shape == (64, n, 4) and torch.equal(winners, copeland(ballots))
    if n == 6:
        assert (winners.sum(-1) > 1).any()          # ties happen with even n and are all kept


def test_same_seed_same_test_profiles_and_augmentation_keeps_labels_right():
    a, b = small(), small(rule="copeland")
    a.setup(), b.setup()
    assert torch.equal(a.splits["test"].tensors[0], b.splits["test"].tensors[0])
    items = [a.splits["train"][i] for i in range(8)]
    ballots, winners = permuted_batch(items)
    assert torch.equal(winners, borda(ballots))    # the renamed profiles' winners are the renamed winners
    assert not torch.equal(ballots, torch.stack([i[0] for i in items]))


def test_bad_sizes_are_one_line():
    with pytest.raises(ConfigError, match="num_candidates"):
        ProfileDataModule(num_candidates=1)


def test_preflib_soc_and_soi(tmp_path):
    (tmp_path / "e1.soc").write_text(SOC)
    ballots = parse_preflib(tmp_path / "e1.soc")
    assert ballots.tolist() == [[0, 1, 2]] * 3 + [[2, 1, 0]] * 2
    (tmp_path / "e2.soi").write_text(SOI)
    assert parse_preflib(tmp_path / "e2.soi").tolist() == [[1, 3, 0, 2]] * 2 + [[0, 1, 2, 3]]
    assert [b.shape for b in load_preflib_dir(tmp_path, 3)] == [(5, 3)]
    dm = small(num_candidates=3, preflib_dir=str(tmp_path))
    dm.setup("test")
    ballots, winners = next(iter(dm.test_dataloader()))
    assert ballots.shape == (1, 5, 3) and winners.tolist() == [[True, False, False]]


def test_preflib_errors_name_the_fix(tmp_path):
    with pytest.raises(DatasetNotFoundError, match="make data-preflib"):
        load_preflib_dir(tmp_path, 3)
    (tmp_path / "bad.soc").write_text("# NUMBER ALTERNATIVES: 3\n2: {1,2},3\n")
    with pytest.raises(CorruptDataError, match="bad.soc:2"):
        parse_preflib(tmp_path / "bad.soc")


def test_preflib_download_without_network_is_one_line(tmp_path, monkeypatch, capsys):
    from urllib.error import URLError

    from experiments.voting import preflib

    def offline(url, root, filename):
        raise URLError("[Errno -2] Name or service not known")

    monkeypatch.setattr(preflib, "download_url", offline)
    with pytest.raises(SystemExit) as stop:
        preflib.main(["--out", str(tmp_path / "preflib"), "--url", "https://www.preflib.org/x.soc"])
    assert stop.value.code == 2 and capsys.readouterr().err == (
        f"error: the PrefLib download into {tmp_path / 'preflib'} failed (<urlopen error [Errno -2] Name or service not "
        "known>); without network, copy the .soc/.soi files from a machine that has them and set data.preflib_dir\n")


def test_preflib_download_of_a_page_that_is_not_an_election_is_one_line(tmp_path, monkeypatch, capsys):
    from experiments.voting import preflib

    monkeypatch.setattr(preflib, "download_url", lambda url, root, filename: (tmp_path / filename).write_text("<html>"))
    with pytest.raises(SystemExit) as stop:
        preflib.main(["--out", str(tmp_path), "--url", "https://www.preflib.org/x.soc"])
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert err.startswith(f"error: {tmp_path / 'x.soc'}") and err.count("\n") == 1
