"""PROTAC-8K loading, duplicate policy, splits, leakage and the prepare script."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments.degradequery.data import (
    load_protac8k,
    read_protac8k_csv,
    resolve_duplicates,
    sequence_features,
)
from experiments.degradequery.leakage import leakage_report
from experiments.degradequery.splits import (
    few_shot_episodes,
    few_shot_targets,
    murcko_scaffolds,
    official_split,
    scaffold_split,
    target_e3_split,
)
from reprolab.cli.errors import CorruptDataError, DatasetNotFoundError

REPO = Path(__file__).resolve().parents[3]


def _dup_frame(labels):
    return pd.DataFrame({"smiles": ["C"] * len(labels), "target": ["T"] * len(labels), "e3": ["E"] * len(labels), "label": labels})


@pytest.mark.parametrize(("labels", "policy", "expected"), [
    ([1, 1], "drop", [1]), ([0, 1], "drop", []), ([1, 1, 0], "majority", [1]),
    ([0, 1], "majority", []), ([0, 1], "keep", [0, 1]),
])
def test_resolve_duplicates(labels, policy, expected):
    assert list(resolve_duplicates(_dup_frame(labels), policy).label) == expected


def test_unknown_conflict_policy_raises():
    with pytest.raises(ValueError, match="drop"):
        resolve_duplicates(_dup_frame([1]), "vote")


def test_missing_and_corrupt_csv_give_clear_errors(tmp_path):
    with pytest.raises(DatasetNotFoundError, match="prepare_protac8k.py"):
        load_protac8k(tmp_path)
    (tmp_path / "protac-8k").mkdir()
    path = tmp_path / "protac-8k" / "protac8k.csv"
    path.write_text("id,smiles\n0,CCO\n")
    with pytest.raises(CorruptDataError, match="lacks columns"):
        read_protac8k_csv(path)


def test_bad_label_and_bad_smiles_are_corrupt(tiny_dir):
    path = tiny_dir / "protac-8k" / "protac8k.csv"
    df = pd.read_csv(path)
    df.loc[0, "label"] = 7
    df.to_csv(path, index=False)
    with pytest.raises(CorruptDataError, match="labels outside"):
        load_protac8k(tiny_dir)
    df.loc[0, "label"], df.loc[0, "smiles"] = 1, "not-a-smiles(("
    df.to_csv(path, index=False)
    with pytest.raises(CorruptDataError, match="RDKit"):
        load_protac8k(tiny_dir, fp_bits=64)


def test_tiny_bundle_ids_and_fingerprints(tiny_dir):
    data = load_protac8k(tiny_dir, fp_bits=64)
    assert data.targets == ["BRD4_O60885", "BTK_Q06187"] and data.e3s == ["CRBN_Q96SW2"]
    assert data.fingerprints.shape == (6, 64) and set(np.unique(data.fingerprints)) <= {0, 1}
    assert data.tuples(data.records).shape == (len(data.records), 3)


def test_sequence_features_are_compositions():
    f = sequence_features("ACDA")
    assert f[:20].sum() == pytest.approx(1.0) and f[20:].sum() == pytest.approx(1.0)


def test_prepare_script_rebuilds_the_shared_csv(protac8k_dir, tmp_path):
    sys.path.insert(0, str(REPO / "scripts" / "data"))
    from prepare_protac8k import prepare

    out = prepare(protac8k_dir / "protac-8k" / "name.json", tmp_path)
    pd.testing.assert_frame_equal(pd.read_csv(out), pd.read_csv(protac8k_dir / "protac-8k" / "protac8k.csv"))
    ids = set((tmp_path / "test_ids_seed111.txt").read_text().split())
    assert ids == set((protac8k_dir / "protac-8k" / "test_ids_seed111.txt").read_text().split())


def test_official_split_keeps_test_and_never_pretrains_on_it(protac8k):
    split = official_split(protac8k, seed=3)
    assert len(split.test) == 301 and split.test.label.sum() == 110
    key = lambda r: set(r.smiles + "|" + r.target + "|" + r.e3)  # noqa: E731
    assert not key(split.train) & key(split.val)
    assert not set(split.pretrain.id) & set(split.test.id)
    assert not key(split.pretrain[split.pretrain.label >= 0]) & key(split.val)
    assert split.train.groupby(["smiles", "target", "e3"]).size().max() == 1
    assert 0.13 < len(split.val) / (len(split.val) + len(split.train)) < 0.17


def test_holdout_splits_hold_out_whole_groups(protac8k):
    sc = scaffold_split(protac8k, seed=1)
    scaffolds = lambda r: set(murcko_scaffolds(r.smiles))  # noqa: E731
    assert not scaffolds(sc.test) & scaffolds(sc.train) and not scaffolds(sc.val) & scaffolds(sc.train)
    te = target_e3_split(protac8k, seed=1)
    pairs = lambda r: set(r.target + "|" + r.e3)  # noqa: E731
    assert not pairs(te.test) & pairs(te.train) and not pairs(te.val) & pairs(te.train)
    assert 0.18 < len(te.test) / (len(te.test) + len(te.val) + len(te.train)) < 0.3


def test_few_shot_episode_hides_the_target(protac8k):
    targets = few_shot_targets(protac8k, max_targets=2)
    ep = few_shot_episodes(protac8k, targets, shots=3, seed=0)[0]
    assert ep.target not in set(ep.base.train.target) | set(ep.base.val.target)
    assert sorted(ep.support.label) == [0, 0, 0, 1, 1, 1] and set(ep.base.test.target) == {ep.target}
    assert not set(ep.support.id) & set(ep.base.test.id)


def test_leakage_of_the_official_split(protac8k):
    report = leakage_report(protac8k.records)
    assert report["test_records"] == 301
    assert report["smiles_in_train"] == pytest.approx(97 / 301)
    assert report["tuple_in_train"] == pytest.approx(30 / 301)
    assert report["tuple_in_train_or_unlabeled"] >= report["tuple_in_train"]
