"""The ECFP matrix and the molecule tables kept under paths.cache_dir (keyed by their inputs and RDKit's version)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import torch

from experiments.degradequery import mol_tables as T
from experiments.degradequery.data import _morgan_bits, ecfp_matrix, load_protac8k
from experiments.degradequery.datamodule import Protac8KDataModule

from .conftest import tiny_records

pytest.importorskip("rdkit", reason="rdkit is not installed; pip install -e '.[degradequery]'")

SMILES = ("CCO", "c1ccccc1O", "CC(=O)Nc1ccc(O)cc1", "CCN(CC)CC")
KINDS = ("ecfp_count", "maccs", "linker_ecfp")
E3S = ("CRBN", "VHL", "CRBN", "VHL")


def cache_files(folder, stem: str) -> list:
    return sorted((folder / "arrays").glob(f"{stem}-*.npy"))


def test_cached_ecfp_equals_the_computed_one_and_a_changed_setting_misses(tmp_path):
    ecfp_matrix.cache_clear()
    first = ecfp_matrix(SMILES, 2, 256, str(tmp_path))
    ecfp_matrix.cache_clear()  # the next call reads the file, not the in-process memo
    again = ecfp_matrix(SMILES, 2, 256, str(tmp_path))
    computed = _morgan_bits(SMILES, 2, 256)
    assert again.dtype == np.uint8 and np.array_equal(again, computed) and np.array_equal(first, computed)
    assert len(cache_files(tmp_path, "protac8k-ecfp")) == 1
    ecfp_matrix(SMILES, 3, 256, str(tmp_path))
    ecfp_matrix(SMILES, 2, 512, str(tmp_path))
    ecfp_matrix(SMILES[:3], 2, 256, str(tmp_path))
    assert len(cache_files(tmp_path, "protac8k-ecfp")) == 4


def test_a_corrupt_ecfp_file_is_recomputed_with_one_warning(tmp_path):
    ecfp_matrix.cache_clear()
    ecfp_matrix(SMILES, 2, 256, str(tmp_path))
    (path,) = cache_files(tmp_path, "protac8k-ecfp")
    path.write_bytes(path.read_bytes()[:100])
    ecfp_matrix.cache_clear()
    with pytest.warns(UserWarning, match="unreadable") as caught:
        again = ecfp_matrix(SMILES, 2, 256, str(tmp_path))
    assert len(caught) == 1 and np.array_equal(again, _morgan_bits(SMILES, 2, 256))
    assert np.array_equal(np.load(path), again)


def test_load_protac8k_keeps_its_fingerprints_in_the_cache(tiny_dir, tmp_path):
    ecfp_matrix.cache_clear()
    cached = load_protac8k(tiny_dir, fp_bits=64, cache_dir=tmp_path / "cache").fingerprints
    assert len(cache_files(tmp_path / "cache", "protac8k-ecfp")) == 1
    ecfp_matrix.cache_clear()
    assert np.array_equal(cached, load_protac8k(tiny_dir, fp_bits=64).fingerprints)


def row_by_row(kinds, bits) -> np.ndarray:
    """Each molecule on its own (nothing shared between rows or kinds), the kinds side by side."""
    from rdkit import Chem

    rows = []
    for smi, e3 in zip(SMILES, E3S, strict=True):
        mol = Chem.MolFromSmiles(smi)
        parts = T.split_protac(mol, e3)
        rows.append(np.concatenate([T._row(kind, mol, bits, parts) for kind in kinds]))
    return np.stack(rows)


def fresh_memo(monkeypatch) -> None:
    monkeypatch.setattr(T, "_FULL", {})
    monkeypatch.setattr(T, "_ROWS", {})


def test_cached_molecule_tables_equal_the_computed_ones_and_a_changed_setting_misses(tmp_path, monkeypatch):
    fresh_memo(monkeypatch)
    expected = row_by_row(KINDS, 128)
    assert T.mol_tables(SMILES, KINDS, 128, E3S, str(tmp_path)).tobytes() == expected.tobytes()
    assert [len(cache_files(tmp_path, f"protac8k-{k}")) for k in KINDS] == [1, 1, 1]
    fresh_memo(monkeypatch)
    with monkeypatch.context() as m:
        m.setattr(T, "_row", lambda *a: pytest.fail("recomputed a cached table"))
        assert T.mol_tables(SMILES, KINDS, 128, E3S, str(tmp_path)).tobytes() == expected.tobytes()
    fresh_memo(monkeypatch)
    T.mol_tables(SMILES, KINDS, 64, E3S, str(tmp_path))  # other bits: the fingerprints miss, MACCS (167 keys) hits
    assert [len(cache_files(tmp_path, f"protac8k-{k}")) for k in KINDS] == [2, 1, 2]
    T.mol_tables(SMILES, KINDS, 64, ("VHL",) * 4, str(tmp_path))  # other ligases: only the part kind misses
    assert [len(cache_files(tmp_path, f"protac8k-{k}")) for k in KINDS] == [2, 1, 3]


def test_rows_are_computed_once_on_first_use_and_a_table_is_stored_when_complete(tmp_path, monkeypatch):
    fresh_memo(monkeypatch)
    expected, calls, row = row_by_row(KINDS, 128), [], T._row
    monkeypatch.setattr(T, "_row", lambda kind, mol, bits, parts: calls.append(kind) or row(kind, mol, bits, parts))
    first = T.MolTables(SMILES, KINDS, 128, E3S, str(tmp_path)).rows(np.array([2, 0, 2]))
    assert first.tobytes() == expected[[2, 0, 2]].tobytes() and len(calls) == 2 * len(KINDS)
    assert cache_files(tmp_path, "protac8k-maccs") == []  # half a table is not stored
    again = T.MolTables(SMILES, KINDS, 128, E3S, str(tmp_path)).rows(np.arange(4))  # another run in the process
    assert again.tobytes() == expected.tobytes() and len(calls) == 4 * len(KINDS)
    assert [len(cache_files(tmp_path, f"protac8k-{k}")) for k in KINDS] == [1, 1, 1]


def test_a_corrupt_table_file_is_recomputed_with_a_warning(tmp_path, monkeypatch):
    fresh_memo(monkeypatch)
    T.mol_tables(SMILES, ("maccs",), 128, None, str(tmp_path))
    (path,) = cache_files(tmp_path, "protac8k-maccs")
    path.write_bytes(b"\x93NUMPY garbage")
    fresh_memo(monkeypatch)
    with pytest.warns(UserWarning, match="unreadable"):
        again = T.mol_tables(SMILES, ("maccs",), 128, None, str(tmp_path))
    assert again.tobytes() == row_by_row(("maccs",), 128).tobytes()
    assert np.array_equal(np.load(path), again)


def test_datamodule_gathers_each_records_rows_of_the_tables(tmp_path):
    records = tiny_records()
    conflict = records.iloc[[0, 0]].assign(id=[100, 101], smiles="CCCl", label=[0, 1])  # a molecule only in a dropped triplet
    (tmp_path / "protac-8k").mkdir()
    pd.concat([records, conflict]).to_csv(tmp_path / "protac-8k" / "protac8k.csv", index=False)
    dm = Protac8KDataModule(str(tmp_path), val_fraction=0, mol_tables=list(KINDS), fp_bits=64, cache_dir=str(tmp_path))
    dm.setup("fit")
    tuples = torch.from_numpy(dm.data.tuples(dm.split.train))
    smiles = tuple(dm.smiles[m] for m in tuples[:, 0].tolist())
    e3s = tuple(dm.e3_names[e] for e in tuples[:, 2].tolist())
    assert torch.equal(dm._mol_x(tuples), torch.from_numpy(T.mol_tables(smiles, KINDS, 64, e3s)))
    for loader in (dm.train_dataloader(), dm.val_dataloader(), dm.test_dataloader()):
        list(loader)
    assert [len(cache_files(tmp_path, f"protac8k-{k}")) for k in KINDS] == [1, 1, 1]  # a full run stores its tables
