"""The datamodule over the zoo tree: algorithm-wise splits, batches, config errors, corrupt files."""

from __future__ import annotations

import pytest
import torch
from torch.utils.data import DataLoader, Dataset

from experiments.deepfakegenome.data import DeepfakeDataModule
from reprolab.cli.errors import ConfigError, CorruptDataError


def make(data_dir, small_zoo, **kwargs):
    args = dict(data_dir=str(data_dir), layout="zoo", root="forgery_zoo", unseen=["fsw01", "fre01"],
                distractors=["fre01"], num_seen_algorithms=8, zoo=small_zoo, batch_size=8)
    return DeepfakeDataModule(**{**args, **kwargs})


def test_algorithm_wise_split_and_batches(zoo_data_dir, small_zoo):
    dm = make(zoo_data_dir, small_zoo, train_reals=False)
    dm.setup()
    split = dm.split
    names = [split.algorithms[a] for a in split.unseen]
    assert names == ["fsw01", "fre01"] and len(split.seen) == 8 and len(split.registered) == 9
    train_algorithms = set(dm.train_set.targets["algorithm"].tolist())
    assert train_algorithms == set(split.seen)  # no unseen algorithm, no real, in attribution training
    test_algorithms = set(dm.test_set.targets["algorithm"].tolist())
    assert test_algorithms == set(range(10)) | {-1}
    batch = next(iter(dm.train_dataloader()))
    assert batch["image"].shape == (8, 3, 32, 32) and batch["image"].dtype == torch.float32
    assert 0 <= batch["image"].min() and batch["image"].max() <= 1
    assert (batch["label"] >= 0).all() and (batch["fake"] == 1).all()


def test_binary_training_set_is_balanced_real_vs_fake(zoo_data_dir, small_zoo):
    dm = make(zoo_data_dir, small_zoo, train_reals=True, batch_size=64)
    dm.setup()
    fake = torch.cat([b["fake"] for b in dm.train_dataloader()])
    assert 0.4 < fake.float().mean() < 0.6  # reals outnumber fakes ~5:1 in the tree; the sampler evens them


def test_split_config_errors(zoo_data_dir, small_zoo):
    with pytest.raises(ConfigError, match="set it to 8"):
        make(zoo_data_dir, small_zoo, num_seen_algorithms=9).setup()
    with pytest.raises(ConfigError, match="not in the data"):
        make(zoo_data_dir, small_zoo, unseen=["stylegan9"], distractors=[]).setup()
    with pytest.raises(ConfigError, match="must also be in data.unseen"):
        make(zoo_data_dir, small_zoo, distractors=["efs00"]).setup()
    with pytest.raises(ConfigError, match="layout"):
        make(zoo_data_dir, small_zoo, layout="ff++")


def test_corrupt_image_is_reported_with_its_path(tmp_path, zoo_root, small_zoo):
    import shutil

    shutil.copytree(zoo_root.parent, tmp_path / "forgery_zoo")
    victim = sorted((tmp_path / "forgery_zoo" / zoo_root.name / "sklearn_samples" / "efs00").glob("*.png"))[0]
    victim.write_bytes(b"not a png")
    dm = make(tmp_path, small_zoo, in_memory=False)
    dm.setup()
    with pytest.raises(CorruptDataError, match=victim.name):
        for _ in dm.test_dataloader():
            pass


def test_zoo_is_generated_under_zoo_dir_never_data_dir(tmp_path, small_zoo, monkeypatch):
    from reprolab.config.compose import compose

    data_dir, zoo_dir = tmp_path / "read_only_data", tmp_path / "cache" / "forgery_zoo"
    data_dir.mkdir()
    dm = make(data_dir, small_zoo, zoo_dir=str(zoo_dir))
    dm.setup()
    assert len(list(zoo_dir.glob("*/zoo.json"))) == 1 and list(data_dir.iterdir()) == []
    monkeypatch.setenv("REPROLAB_CACHE", str(tmp_path / "cache"))
    cfg = compose(["experiment=deepfakegenome/zoo_binary_cpu", "logger=none"], output_dir=tmp_path / "run")
    assert cfg.data.zoo_dir == str(zoo_dir)



class PerImage(Dataset):
    """The same images without `__getitems__`: the DataLoader fetches them one by one and collates."""

    def __init__(self, images):
        self.images = images

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        return self.images[i]


def _two_epochs(loader):
    torch.manual_seed(5)
    return [batch for _ in range(2) for batch in loader], torch.rand(3)


@pytest.mark.parametrize("in_memory", [True, False])
@pytest.mark.parametrize("train_reals", [True, False])  # the seeded weighted sampler / the global-RNG shuffle
def test_batched_fetch_gives_the_per_image_batches_and_rng_draws(zoo_data_dir, small_zoo, in_memory, train_reals):
    dm = make(zoo_data_dir, small_zoo, in_memory=in_memory, train_reals=train_reals)
    dm.setup()
    fresh = dm.train_dataloader()  # a fresh seeded sampler for the reference
    per_image = DataLoader(PerImage(dm.train_set), dm.batch_size, sampler=fresh.sampler, drop_last=fresh.drop_last)
    got, rng_got = _two_epochs(dm.train_dataloader())
    want, rng_want = _two_epochs(per_image)
    assert len(got) == len(want) > 2 and torch.equal(rng_got, rng_want)
    for g, w in zip(got, want, strict=True):
        assert g.keys() == w.keys() and all(torch.equal(g[k], w[k]) and g[k].dtype == w[k].dtype for k in g)
    test = next(iter(dm.test_dataloader()))
    assert torch.equal(test["image"], next(iter(DataLoader(PerImage(dm.test_set), dm.eval_batch_size)))["image"])


def test_decoded_cache_keeps_every_splits_pixels(tmp_path, zoo_data_dir, small_zoo):
    plain = make(zoo_data_dir, small_zoo, in_memory=True)
    plain.setup()
    for _run in range(2):  # the first run writes the stacks, the second loads them
        cached = make(zoo_data_dir, small_zoo, in_memory=True, decoded_cache_dir=str(tmp_path / "decoded"))
        cached.setup()
        for split in ("train_set", "val_set", "test_set"):
            assert torch.equal(getattr(cached, split).cache, getattr(plain, split).cache)
    assert len(list((tmp_path / "decoded").rglob("*.npy"))) == 3
