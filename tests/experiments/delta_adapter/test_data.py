"""Exemplar pairs: the single-pair query is the exemplar's source, the pair-of-pairs query another image under
the same edit and strength, test pairs never share an image, and held-out types reach the test only."""

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from experiments.delta_adapter.data import DeltaEditDataModule, ExemplarPairs
from experiments.delta_adapter.edits import EDITS
from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.data.image_classification import ImageFolderDataModule

IMAGES = torch.rand(12, 3, 8, 8, generator=torch.Generator().manual_seed(0))


def test_single_pair_training_asks_for_the_exemplars_own_target():
    for i in range(10):
        pair = ExemplarPairs(IMAGES, list(EDITS), 10, seed=3, protocol="single_pair")[i]
        assert torch.equal(pair["query"], pair["ex_src"]) and torch.equal(pair["query_tgt"], pair["ex_tgt"])


def test_pair_of_pairs_queries_another_image_with_the_same_exact_edit():
    dark = IMAGES * 0.5                       # brighten never clamps here: target - source = 0.3 * strength
    for i in range(10):
        pair = ExemplarPairs(dark, ["brighten", "hflip"], 10, seed=3, protocol="pair_of_pairs")[i]
        assert not torch.equal(pair["query"], pair["ex_src"])
        name = list(EDITS)[int(pair["edit"])]
        if name == "hflip":
            assert torch.equal(pair["query_tgt"], pair["query"].flip(-1))
            continue
        shift = pair["ex_tgt"] - pair["ex_src"]
        assert torch.allclose(shift, shift.flatten()[0].expand_as(shift), atol=1e-6)
        assert 0.15 - 1e-6 <= float(shift.flatten()[0]) <= 0.3 + 1e-6
        assert torch.allclose(pair["query_tgt"] - pair["query"], shift, atol=1e-6)


class ArraySource:
    """A stand-in image source: `load` gives (uint8 image, label) pairs as an ImageFolder would."""

    def __init__(self, n_train, n_test):
        rng = np.random.default_rng(0)
        self.sets = {True: rng.integers(0, 256, (n_train, 32, 32, 3), dtype=np.uint8),
                     False: rng.integers(0, 256, (n_test, 32, 32, 3), dtype=np.uint8)}

    def prepare_data(self):
        pass

    def load(self, train, transform=None):
        return [(im, 0) for im in self.sets[train]]


def test_the_datamodule_holds_out_edit_types_and_test_images():
    dm = DeltaEditDataModule(ArraySource(20, 10), image_size=16, n_train_images=15, n_test=8, train_pairs=64,
                             batch_size=4, eval_batch_size=4)
    dm.setup()
    assert dm.train_images.shape == (15, 3, 16, 16)
    seen_ids = {list(EDITS).index(n) for n in dm.seen_edits}
    train_edits = {int(dm.train_set[i]["edit"]) for i in range(64)}
    assert train_edits <= seen_ids and not any(bool(dm.train_set[i]["unseen"]) for i in range(8))
    for name, loader in zip(("seen", "unseen"), dm.test_dataloader(), strict=True):
        batch = next(iter(loader))
        assert bool(batch["unseen"].all()) == (name == "unseen")
        assert not any(torch.equal(q, e) for q, e in zip(batch["query"], batch["ex_src"], strict=True))
        ids = {int(e) for e in batch["edit"]}
        assert ids <= seen_ids if name == "seen" else ids.isdisjoint(seen_ids)
        test_pool = dm.test_images.flatten(1)
        assert all((test_pool == q.flatten()).all(1).any() for q in batch["query"])


def test_bad_settings_and_missing_data_are_one_line(tmp_path):
    with pytest.raises(ConfigError, match="data.protocol"):
        DeltaEditDataModule(ArraySource(2, 2), protocol="pairs_of_pairs")
    with pytest.raises(ConfigError, match="data.mode"):
        DeltaEditDataModule(ArraySource(2, 2), mode="video")
    dm = DeltaEditDataModule(ImageFolderDataModule(str(tmp_path / "none")))
    with pytest.raises(DatasetNotFoundError, match="ImageFolder"):
        dm.setup()
    with pytest.raises(ConfigError, match="at least 2"):
        DeltaEditDataModule(ArraySource(1, 4), n_train_images=1).setup()


def test_the_fake_setup_keeps_the_real_interface():
    dm = DeltaEditDataModule(SimpleNamespace(), image_size=16, n_train_images=4, n_test=3, train_pairs=8)
    dm.fake_setup()
    assert dm.train_images.shape == (4, 3, 16, 16) and len(dm.test_sets["unseen"]) == 3
