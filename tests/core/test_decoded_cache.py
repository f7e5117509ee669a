"""reprolab.data.decoded_cache: the first run decodes and saves, later runs load the same pixels; a changed file,
other settings or a damaged cache file decode again."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch
from PIL import Image

from reprolab.data.decoded_cache import decoded_stack


def _images(folder, n=3):
    folder.mkdir()
    paths = []
    for i in range(n):
        path = folder / f"{i}.png"
        Image.fromarray(np.full((4, 4, 3), 40 * i, dtype=np.uint8)).save(path)
        paths.append(str(path))
    return paths


class CountingDecoder:
    def __init__(self):
        self.calls = 0

    def __call__(self, path):
        self.calls += 1
        with Image.open(path) as im:
            return torch.from_numpy(np.asarray(im.convert("RGB")).copy()).permute(2, 0, 1)


def test_second_run_loads_the_first_runs_pixels_without_decoding(tmp_path):
    paths, cache = _images(tmp_path / "images"), tmp_path / "cache"
    first, second = CountingDecoder(), CountingDecoder()
    stack = decoded_stack(paths, first, "rgb", cache)
    assert first.calls == 3 and stack.shape == (3, 3, 4, 4) and stack.dtype == torch.uint8
    assert stack[2, 0, 0, 0] == 80 and len(list(cache.rglob("*.npy"))) == 1
    again = decoded_stack(paths, second, "rgb", cache)
    assert second.calls == 0 and torch.equal(again, stack)


def test_a_changed_file_other_settings_or_another_order_decode_again(tmp_path):
    paths, cache = _images(tmp_path / "images"), tmp_path / "cache"
    decoded_stack(paths, CountingDecoder(), "rgb", cache)
    other = CountingDecoder()
    decoded_stack(paths, other, "rgb 8px", cache)
    decoded_stack(paths[::-1], other, "rgb", cache)
    assert other.calls == 6
    Image.fromarray(np.full((4, 4, 3), 7, dtype=np.uint8)).save(paths[0])
    os.utime(paths[0], ns=(1, 1))  # a rewrite within the file system's time resolution still changes the key
    changed = CountingDecoder()
    assert decoded_stack(paths, changed, "rgb", cache)[0, 0, 0, 0] == 7 and changed.calls == 3


def test_a_damaged_cache_file_is_decoded_again_and_no_cache_dir_means_no_files(tmp_path):
    paths, cache = _images(tmp_path / "images"), tmp_path / "cache"
    want = decoded_stack(paths, CountingDecoder(), "rgb", cache)
    (saved,) = cache.rglob("*.npy")
    saved.write_bytes(b"truncated")
    decoder = CountingDecoder()
    with pytest.warns(UserWarning, match="unreadable"):
        assert torch.equal(decoded_stack(paths, decoder, "rgb", cache), want) and decoder.calls == 3
    assert torch.equal(decoded_stack(paths, CountingDecoder(), "rgb", cache), want)  # rewritten whole
    assert torch.equal(decoded_stack(paths, CountingDecoder(), "rgb", None), want)
    assert [p for p in cache.rglob("*") if p.is_file()] == [saved]  # no partial file left behind


def test_an_unwritable_cache_dir_only_costs_the_decoding(tmp_path):
    paths = _images(tmp_path / "images")
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("a file where the cache folder would go")
    with pytest.warns(UserWarning, match="continuing without it"):
        assert decoded_stack(paths, CountingDecoder(), "rgb", blocker / "cache").shape[0] == 3
