"""APT presets compose and build; loaders read their layouts and fail with the command to run."""

import numpy as np
import pytest
import torch
from hydra.utils import instantiate

import experiments.apt.data_dense as dense
from experiments.apt.data_celeba import CelebADataModule
from experiments.apt.data_problems import ProblemDataModule
from experiments.apt.data_qm9 import QM9DataModule
from experiments.apt.problems import enb, synthetic
from reprolab.cli.errors import CorruptDataError, DatasetNotFoundError
from reprolab.config.compose import compose

PRESETS = ["nyuv2", "cityscapes", "celeba", "qm9", "claim_enb", "claim_synthetic", "claim_digits"]
TASKS = {"nyuv2": 3, "cityscapes": 2, "celeba": 40, "qm9": 11, "claim_enb": 2, "claim_synthetic": 2, "claim_digits": 2}
SMALL = {"nyuv2": ["model.filters=[4,4,8,8,8]"], "cityscapes": ["model.filters=[4,4,8,8,8]"]}


@pytest.mark.parametrize("preset", PRESETS)
def test_preset_composes_and_builds_model_and_task(preset, tmp_path):
    cfg = compose([f"experiment=apt/{preset}", "device=cpu", "logger=none", *SMALL.get(preset, [])], output_dir=tmp_path)
    assert cfg.paper == "apt" and cfg.setting == preset
    model = instantiate(cfg.model)
    task = instantiate(cfg.task, model=model, optimizer=instantiate(cfg.optimizer), scheduler=None)
    assert task.benchmark.n_tasks == TASKS[preset]
    assert len(model.shared_parameters()) > 0 and len(model.task_specific_parameters()) > 0


def test_muon_on_a_preset_keeps_its_own_lr_and_takes_base_lr_for_adamw(tmp_path):
    cfg = compose(["experiment=apt/qm9", "optimizer=apt_muon", "device=cpu", "logger=none"], output_dir=tmp_path)
    assert cfg.optimizer.lr == 0.02 and cfg.optimizer.adamw_lr == 1e-3 and cfg.optimizer.preserve == "project"


def test_claim_presets_give_muon_its_own_adamw_lr_and_test_the_final_weights(tmp_path):
    cfg = compose(["experiment=apt/claim_synthetic", "optimizer=muon", "logger=none"], output_dir=tmp_path)
    assert cfg.optimizer.lr == 0.02 and cfg.optimizer.adamw_lr == 1e-3 and cfg.base_lr == 1e-2
    assert cfg.trainer.max_steps == 300 and cfg.trainer.enable_checkpointing is False
    assert compose(["experiment=apt/claim_digits"], output_dir=tmp_path).trainer.max_steps == 250


@pytest.mark.parametrize("preset, extra, metric", [
    ("claim_enb", ["optimizer=apt_muon", "task.weighting=pcgrad"], "test/heating"),
    ("claim_enb", ["task.weighting=mgda", "task.jacobian_wrt=representation"], "test/cooling"),
    ("claim_enb", ["task.single_task=cooling", "optimizer=adam"], "test/cooling"),
    ("claim_synthetic", ["optimizer=apt_adam", "task.weighting=imtl"], "test/task1"),
    ("claim_digits", ["optimizer=muon", "task.single_task=left"], "test/left_acc"),
])
def test_claim_presets_run_one_batch_through_the_trainer(data_dir, tmp_path, preset, extra, metric):
    from reprolab.cli.train import run

    cfg = compose([f"experiment=apt/{preset}", "debug=fdr", f"paths.data_dir={data_dir}", "print_config=false",
                   "logger=none", *extra], output_dir=tmp_path)
    metrics = run(cfg)
    assert np.isfinite(metrics[metric]) and metrics[metric] > 0


def test_problem_datamodule_serves_index_batches_and_the_target_scale():
    dm = ProblemDataModule(lambda: synthetic(n=500), batch_size=128)
    dm.setup()
    batches = list(dm.train_dataloader())
    assert len(batches) == 300 // 128 and all(x.shape == (128, 16) and y.shape == (128, 2) for x, y in batches)
    assert sum(len(x) for x, _ in dm.test_dataloader()) == 100
    assert dm.target_scale.shape == (2,) and dm.target_scale[1] > 0


def _fake_dense_tree(root, counts):
    for split, n in counts.items():
        for folder, shape in (("image", (8, 8, 3)), ("label", (8, 8)), ("depth", (8, 8, 1)), ("normal", (8, 8, 3))):
            d = root / "nyuv2" / split / folder
            d.mkdir(parents=True)
            for i in range(n):
                arr = np.random.rand(*shape).astype(np.float32)
                if folder == "label":
                    arr = np.random.randint(-1, 13, shape).astype(np.float32)
                np.save(d / f"{i}.npy", arr)


def test_dense_datamodule_reads_the_mtan_layout_and_checks_it(tmp_path, monkeypatch):
    monkeypatch.setitem(dense.SPEC["nyuv2"], "counts", {"train": 4, "val": 2})
    _fake_dense_tree(tmp_path, {"train": 4, "val": 2})
    (tmp_path / "nyuv2" / "MANIFEST.sha256").write_text("\n".join(dense.manifest_lines(tmp_path / "nyuv2")))
    dm = dense.DenseMTLDataModule(str(tmp_path), batch_size=2, num_workers=0, val_fraction=0.5, verify_checksums=True)
    dm.setup()
    image, targets = next(iter(dm.train_dataloader()))
    assert image.shape == (2, 3, 8, 8) and targets["seg"].dtype == torch.long
    assert targets["depth"].shape == (2, 1, 8, 8) and targets["normal"].shape == (2, 3, 8, 8)
    assert len(dm.val) == 2 and len(dm.test) == 2
    np.save(tmp_path / "nyuv2" / "val" / "depth" / "0.npy", np.zeros((8, 8, 1), np.float32))
    with pytest.raises(CorruptDataError, match="MANIFEST"):
        dense.DenseMTLDataModule(str(tmp_path), verify_checksums=True).setup()
    (tmp_path / "nyuv2" / "val" / "depth" / "1.npy").unlink()
    with pytest.raises(CorruptDataError, match="expected 2"):
        dense.DenseMTLDataModule(str(tmp_path)).setup()


@pytest.mark.parametrize("module, needle", [
    (lambda d: dense.DenseMTLDataModule(d), "prepare_nyuv2_mtl.py"),
    (lambda d: dense.DenseMTLDataModule(d, name="cityscapes"), "prepare_cityscapes_mtl.py"),
    (lambda d: QM9DataModule(d), "prepare_qm9.py"),
    (lambda d: CelebADataModule(d), "prepare_celeba.py"),
    (lambda d: ProblemDataModule(lambda: enb(d)), "data_dir"),
])
def test_missing_data_names_the_command(tmp_path, module, needle):
    with pytest.raises(DatasetNotFoundError, match=needle):
        module(str(tmp_path)).setup()


def test_corrupt_enb_file(tmp_path):
    path = tmp_path / "energy-efficiency-enb2012"
    path.mkdir()
    (path / "energy_efficiency_clean.csv").write_text("a,b\n1,2\n")
    with pytest.raises(CorruptDataError, match="lacks the columns.*make data-energy-efficiency-enb2012"):
        ProblemDataModule(lambda: enb(tmp_path)).setup()


def test_prepare_unpacks_an_archive_and_writes_the_manifest(tmp_path, monkeypatch):
    import shutil

    monkeypatch.setitem(dense.SPEC["nyuv2"], "counts", {"train": 2, "val": 1})
    src = tmp_path / "src"
    _fake_dense_tree(src, {"train": 2, "val": 1})
    archive = shutil.make_archive(str(tmp_path / "nyuv2"), "zip", src)
    root = dense.prepare("nyuv2", tmp_path / "data", archive=archive)
    assert (root / "MANIFEST.sha256").read_text().count(".npy") == 12
    dense.check_layout(root, "nyuv2", verify_checksums=True)
    bad = shutil.make_archive(str(tmp_path / "bad"), "zip", tmp_path / "src" / "nyuv2" / "val")
    with pytest.raises(CorruptDataError, match="no train/image"):
        dense.prepare("nyuv2", tmp_path / "data2", archive=bad)


def test_digits_reads_sklearns_images_once_a_process(monkeypatch):
    import sklearn.datasets
    import torch

    from experiments.apt import problems

    problems._digit_images.cache_clear()
    reads = []
    real = sklearn.datasets.load_digits
    monkeypatch.setattr(sklearn.datasets, "load_digits", lambda: reads.append(1) or real())
    first, second = problems.digits(n_train=50, n_eval=20), problems.digits(n_train=50, n_eval=20)
    assert len(reads) == 1
    assert all(torch.equal(first.x[k], second.x[k]) and torch.equal(first.y[k], second.y[k]) for k in first.x)
    problems._digit_images.cache_clear()
