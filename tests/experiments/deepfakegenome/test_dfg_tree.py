"""DFG tree and DF40 readers: layout, families, splits, and the errors a broken tree raises."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from experiments.deepfakegenome.tree import read_df40, read_dfg_tree, split_of
from reprolab.cli.errors import CorruptDataError, DatasetNotFoundError


def _png(path, value=0):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.full((8, 8, 3), value, np.uint8)).save(path)


def _dfg_tree(root):
    for source in ("ffhq", "celeba"):
        for algorithm in ("real", "simswap", "stylegan2"):
            for i in range(4):
                _png(root / source / algorithm / f"{source}{i}.png")
    (root / "manifest.csv").write_text("algorithm,family\nsimswap,face_swap\nstylegan2,entire_face_synthesis\n")
    return root


def test_split_of_is_deterministic_and_follows_fractions():
    keys = [f"img{i}" for i in range(4000)]
    splits = [split_of(k, (0.6, 0.15, 0.25)) for k in keys]
    assert splits == [split_of(k, (0.6, 0.15, 0.25)) for k in keys]
    share = {s: splits.count(s) / len(keys) for s in ("train", "val", "test")}
    assert share == pytest.approx({"train": 0.6, "val": 0.15, "test": 0.25}, abs=0.03)
    assert splits != [split_of(k, (0.6, 0.15, 0.25), salt=1) for k in keys]


def test_read_dfg_tree(tmp_path):
    table = read_dfg_tree(_dfg_tree(tmp_path / "dfg"))
    assert len(table) == 24 and set(table["source"]) == {"ffhq", "celeba"}
    assert dict(zip(table["algorithm"], table["family"], strict=True)) == {
        "real": "real", "simswap": "face_swap", "stylegan2": "entire_face_synthesis"}
    # the fakes of one id share its split
    assert (table.groupby("id")["split"].nunique() == 1).all()


def test_read_dfg_tree_uses_a_split_file(tmp_path):
    root = _dfg_tree(tmp_path / "dfg")
    rows = [f"{s}{i},{'test' if i == 0 else 'train'}" for s in ("ffhq", "celeba") for i in range(4)]
    (root / "splits.csv").write_text("id,split\n" + "\n".join(rows) + "\n")
    table = read_dfg_tree(root)
    assert set(table.loc[table["split"] == "test", "id"]) == {"ffhq0", "celeba0"}
    (root / "splits.csv").write_text("id,split\nffhq0,holdout\n")
    with pytest.raises(CorruptDataError, match="splits.csv"):
        read_dfg_tree(root)


def test_dfg_tree_errors(tmp_path):
    with pytest.raises(DatasetNotFoundError, match="paths.data_dir"):
        read_dfg_tree(tmp_path / "absent")
    root = _dfg_tree(tmp_path / "dfg")
    (root / "manifest.csv").unlink()
    with pytest.raises(DatasetNotFoundError, match="manifest.csv"):
        read_dfg_tree(root)
    (root / "manifest.csv").write_text("algorithm,family\nsimswap,face_swap\n")
    with pytest.raises(CorruptDataError, match="stylegan2"):
        read_dfg_tree(root)
    (root / "manifest.csv").write_text("name,kind\nsimswap,face_swap\n")
    with pytest.raises(CorruptDataError, match="algorithm,family"):
        read_dfg_tree(root)


def test_read_df40_release_layout(tmp_path):
    root = tmp_path / "DF40"
    for split in ("train", "test"):
        for method in ("simswap", "StyleGAN2", "real"):
            for video in ("000_003", "001_870"):
                for frame in range(2):
                    _png(root / split / method / "ff" / "frames" / video / f"{frame:03d}.png")
    table = read_df40(root)
    assert set(table["algorithm"]) == {"simswap", "stylegan2", "real"}
    assert dict(zip(table["algorithm"], table["family"], strict=True))["stylegan2"] == "entire_face_synthesis"
    assert (table.loc[table["path"].str.contains("/test/"), "split"] == "test").all()
    assert set(table.loc[table["path"].str.contains("/train/"), "split"]) <= {"train", "val"}
    assert (table.groupby(["algorithm", "source", "path"]).size() == 1).all()


def test_read_df40_unknown_method_names_the_override(tmp_path):
    _png(tmp_path / "DF40" / "newswap" / "ff" / "frames" / "v" / "0.png")
    with pytest.raises(CorruptDataError, match="df40_families"):
        read_df40(tmp_path / "DF40")
    table = read_df40(tmp_path / "DF40", families={"newswap": "face_swap"})
    assert list(table["family"]) == ["face_swap"]
