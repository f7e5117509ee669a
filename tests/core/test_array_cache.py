"""reprolab.data.array_cache: arrays kept under paths.cache_dir, keyed by a hash of their inputs."""

from __future__ import annotations

import numpy as np
import pytest

from reprolab.data.array_cache import cache_path, cached_array


def counting(value: np.ndarray):
    calls = []

    def compute() -> np.ndarray:
        calls.append(1)
        return value.copy()

    return compute, calls


def test_a_second_call_with_the_same_inputs_reads_the_file(tmp_path):
    value = np.arange(12, dtype=np.float32).reshape(3, 4)
    compute, calls = counting(value)
    first = cached_array(tmp_path, "t", {"smiles": ["CCO"], "bits": 4}, compute)
    second = cached_array(tmp_path, "t", {"bits": 4, "smiles": ["CCO"]}, compute)  # key order does not matter
    assert len(calls) == 1 and second.dtype == value.dtype and np.array_equal(first, value) and np.array_equal(second, value)
    assert [p.name for p in (tmp_path / "arrays").iterdir()] == [cache_path(tmp_path, "t", {"smiles": ["CCO"], "bits": 4}).name]


def test_a_changed_input_misses(tmp_path):
    compute, calls = counting(np.zeros(2))
    for inputs in ({"bits": 4}, {"bits": 8}, {"bits": 4, "rdkit": "2026.09.1"}):
        cached_array(tmp_path, "t", inputs, compute)
    assert len(calls) == 3 and len(list((tmp_path / "arrays").iterdir())) == 3


@pytest.mark.parametrize("garbage", [b"", b"not an npy file", None])
def test_a_corrupt_file_is_recomputed_with_a_warning(tmp_path, garbage):
    value = np.arange(1000, dtype=np.int64)
    path = cache_path(tmp_path, "t", {"n": 1000})
    compute, calls = counting(value)
    cached_array(tmp_path, "t", {"n": 1000}, compute)
    path.write_bytes(path.read_bytes()[:200] if garbage is None else garbage)  # None: truncated
    with pytest.warns(UserWarning, match="unreadable.*recomputing"):
        again = cached_array(tmp_path, "t", {"n": 1000}, compute)
    assert len(calls) == 2 and np.array_equal(again, value)
    assert np.array_equal(np.load(path), value)  # rewritten whole, no temporary file left
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_no_cache_folder_computes_every_time(tmp_path):
    compute, calls = counting(np.ones(3))
    cached_array(None, "t", {}, compute)
    cached_array(None, "t", {}, compute)
    assert len(calls) == 2


def test_an_unwritable_folder_warns_and_still_returns(tmp_path):
    (tmp_path / "arrays").write_text("a file where the folder should be")
    with pytest.warns(UserWarning, match="cannot write"):
        out = cached_array(tmp_path, "t", {}, lambda: np.ones(2))
    assert np.array_equal(out, np.ones(2))
