"""The procedural forgery zoo: fingerprints, families, determinism, content preservation, the on-disk cache."""

from __future__ import annotations

import json

import pytest
import torch

from experiments.deepfakegenome.families import forge
from experiments.deepfakegenome.tree import read_dfg_tree
from experiments.deepfakegenome.zoo import FAMILIES, ForgeryGenerator, _interpolation_kernel, sample_specs
from experiments.deepfakegenome.zoo_build import build_zoo, load_photos


def test_default_zoo_has_36_algorithms_in_five_families_with_varied_fingerprints():
    specs = sample_specs(36, seed=0)
    assert len({s.name for s in specs}) == 36
    assert {s.family for s in specs} == set(FAMILIES)
    assert min(sum(s.family == f for s in specs) for f in FAMILIES) >= 7
    assert {s.upsample for s in specs} == {"transposed", "nearest", "bilinear", "pixelshuffle"}
    assert len({s.jpeg_quality for s in specs}) > 2 and len({s.colour for s in specs}) > 3
    assert sample_specs(36, seed=0) == specs and sample_specs(36, seed=1) != specs


@pytest.mark.parametrize("k", [3, 4, 5])
def test_transposed_conv_interpolation_kernel_is_a_partition_of_unity(k):
    kernel = _interpolation_kernel(k)
    for py in range(2):
        for px in range(2):
            assert kernel[py::2, px::2].sum() == pytest.approx(1.0)


def test_noise_free_transposed_generator_reproduces_a_constant_image():
    spec = sample_specs(36, seed=0)[0]
    spec = type(spec)(**{**spec.__dict__, "upsample": "transposed", "kernel": 4, "kernel_noise": 0.0,
                         "texture": 0.0, "norm": "none"})
    flat = torch.full((1, 3, 32, 32), 0.4)
    assert torch.allclose(ForgeryGenerator(spec)(flat), flat, atol=1e-5)


def test_forge_is_deterministic_keeps_content_and_differs_between_algorithms():
    _, _, photos = load_photos(None)
    photos = photos[:16]
    donors = photos.flip(0)
    specs = sample_specs(10, seed=0)
    fakes = [forge(photos, donors, spec, image_seed=7) for spec in specs]
    assert torch.equal(fakes[0], forge(photos, donors, specs[0], image_seed=7))
    for spec, fake in zip(specs, fakes, strict=True):
        assert fake.shape == photos.shape and 0 <= fake.min() and fake.max() <= 1
        # the photo's content survives: fakes correlate with their photo far more than with another photo
        same = torch.corrcoef(torch.stack([fake.flatten(), photos.flatten()]))[0, 1]
        other = torch.corrcoef(torch.stack([fake.flatten(), photos.roll(1, 0).flatten()]))[0, 1]
        assert same > 0.6 and same > other + 0.2, spec
    assert all((fakes[0] - f).abs().mean() > 1e-3 for f in fakes[1:])


def test_build_zoo_writes_a_dfg_tree_and_reuses_its_cache(zoo_root, small_zoo):
    root = zoo_root
    table = read_dfg_tree(root)
    assert set(table["source"]) == {"sklearn_samples"}
    assert table["algorithm"].nunique() == 11  # 10 algorithms + real
    fakes = table[table["algorithm"] != "real"]
    assert fakes.groupby(["algorithm", "split"]).size().unstack().eq({"train": 6, "val": 2, "test": 8}).all().all()
    # a fake carries the id (hence the split) of the photo it was forged from
    reals = table[table["algorithm"] == "real"].set_index("id")["split"]
    assert (fakes["split"].values == reals.loc[fakes["id"]].values).all()
    assert len(json.loads((root / "algorithms.json").read_text())) == 10
    stamp = (root / "zoo.json").stat().st_mtime_ns
    assert build_zoo(root.parent, **small_zoo) == root
    assert (root / "zoo.json").stat().st_mtime_ns == stamp  # cached: not rebuilt


def test_zoo_is_byte_identical_across_builds(tmp_path, zoo_root, small_zoo):
    other = build_zoo(tmp_path / "again", **{**small_zoo, "num_algorithms": 2})
    first = sorted((zoo_root / "sklearn_samples" / "fsw00").glob("*.png"))
    assert [p.read_bytes() for p in first] == [
        (other / "sklearn_samples" / "fsw00" / p.name).read_bytes() for p in first]


def test_zoo_from_the_shared_cifar_subset(data_dir, tmp_path):
    photos = data_dir / "cifar10-jpeg-subset"
    if not photos.is_dir():
        pytest.skip(f"{photos} is absent")
    root = build_zoo(tmp_path / "zoo", photos, num_algorithms=2, per_algorithm={"train": 3, "val": 1, "test": 2})
    table = read_dfg_tree(root)
    assert set(table["source"]) == {"cifar10"} and (table["algorithm"] == "real").sum() == 3000


def test_missing_photo_folder_says_what_to_do(tmp_path):
    from reprolab.cli.errors import DatasetNotFoundError

    with pytest.raises(DatasetNotFoundError, match="photos_dir"):
        build_zoo(tmp_path / "zoo", tmp_path / "nowhere")


def test_zoos_of_other_settings_stand_side_by_side(tmp_path, small_zoo):
    """Jobs of a sweep over data.split_salt, side by side, share the zoo home: neither replaces the other's tree."""
    settings = {**small_zoo, "num_algorithms": 2}
    first = build_zoo(tmp_path / "zoo", **settings)
    stamp = (first / "zoo.json").stat().st_mtime_ns
    second = build_zoo(tmp_path / "zoo", **settings, split_salt=1)
    assert second != first and (first / "zoo.json").stat().st_mtime_ns == stamp
    forged = [set(t.loc[t["algorithm"] == "fsw00", "id"]) for t in (read_dfg_tree(first), read_dfg_tree(second, salt=1))]
    assert forged[0] != forged[1]  # both trees readable, each forged from its own split of the photos
    assert list((tmp_path / "zoo").glob("*.partial-*")) == []


def test_an_unstamped_zoo_folder_is_rebuilt(tmp_path, small_zoo):
    settings = {**small_zoo, "num_algorithms": 2}
    root = build_zoo(tmp_path / "zoo", **settings)
    (root / "zoo.json").unlink()  # a tree damaged by hand: never read as it is
    assert build_zoo(tmp_path / "zoo", **settings) == root and (root / "zoo.json").is_file()
