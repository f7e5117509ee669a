"""The token shards, the text/shard datamodules and the prepare script (the Llama LM and the LM task: tests/core/models/test_llama.py)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from experiments.deltamomentum.data import TextFileDataModule, TokenShardDataModule
from experiments.deltamomentum.tokens import HEADER_INTS, load_tokenizer, read_shard, write_shard
from reprolab.cli.errors import ConfigError, CorruptDataError, DatasetNotFoundError

REPO = Path(__file__).resolve().parents[3]


def test_shard_roundtrip_and_corrupt_or_missing_shards(tmp_path):
    tokens = np.arange(1000, dtype=np.uint16)
    write_shard(tmp_path / "val_000000.bin", tokens, 1000)
    read, vocab = read_shard(tmp_path / "val_000000.bin")
    assert vocab == 1000 and np.array_equal(read, tokens)
    (tmp_path / "bad.bin").write_bytes(b"\0" * (HEADER_INTS * 4 + 10))
    with pytest.raises(CorruptDataError, match="bad header"):
        read_shard(tmp_path / "bad.bin")
    data = (tmp_path / "val_000000.bin").read_bytes()
    (tmp_path / "train_000000.bin").write_bytes(data[:-2])
    dm = TokenShardDataModule(str(tmp_path), vocab_size=1000, seq_len=16, batch_size=2)
    with pytest.raises(CorruptDataError, match="re-run"):
        dm.setup()
    with pytest.raises(DatasetNotFoundError, match="prepare_fineweb_edu.py --out"):
        TokenShardDataModule(str(tmp_path / "nothing"), vocab_size=1000).setup()


def test_shard_datamodule_windows_are_next_token_pairs(tmp_path):
    write_shard(tmp_path / "train_000000.bin", np.arange(500, dtype=np.uint16), 600)
    write_shard(tmp_path / "val_000000.bin", np.arange(100, dtype=np.uint16), 600)
    dm = TokenShardDataModule(str(tmp_path), vocab_size=600, seq_len=16, batch_size=4)
    dm.setup()
    x, y = next(iter(dm.train_dataloader()))
    assert x.shape == (4, 16) and x.dtype == torch.long
    torch.testing.assert_close(y, x + 1)
    assert len(dm.val_dataloader().dataset) == 99 // 16
    with pytest.raises(ConfigError, match="data.vocab_size"):
        TokenShardDataModule(str(tmp_path), vocab_size=100, seq_len=16).setup()


def test_text_file_reads_shakespeare_and_fineweb_sample(data_dir):
    dm = TextFileDataModule(str(data_dir), "tinyshakespeare/input.txt", vocab_size=257, seq_len=64,
                            batch_size=8, val_fraction=0.05)
    dm.setup()
    total = sum(len(dm.splits[s]) for s in ("train", "val", "test")) * 64
    assert total == pytest.approx(1_115_394, rel=0.01)
    x, y = next(iter(dm.val_dataloader()))
    assert int(x.max()) < 257 and torch.equal(x[0, 1:], y[0, :-1])
    fw = TextFileDataModule(str(data_dir), "fineweb-edu-sample150/texts.jsonl", vocab_size=257, seq_len=64)
    fw.setup()
    assert len(fw.splits["train"]) * 64 > 350_000  # 411 K characters, UTF-8 bytes
    with pytest.raises(DatasetNotFoundError, match="data.path"):
        TextFileDataModule(str(data_dir), "nope.txt", vocab_size=257).setup()


def test_an_empty_or_cut_text_file_names_the_file_and_the_fetch(tmp_path):
    (tmp_path / "tinyshakespeare").mkdir()
    (tmp_path / "tinyshakespeare" / "input.txt").write_text("First Citizen:\nBefore we proceed")  # cut short
    with pytest.raises(CorruptDataError) as caught:
        TextFileDataModule(str(tmp_path), "tinyshakespeare/input.txt", vocab_size=257, seq_len=64).setup()
    # 32 bytes + the document's EOT = 33 tokens; val and test take int(0.05 · 33) = 1 each, train 31
    assert str(caught.value) == (f"text '{tmp_path / 'tinyshakespeare' / 'input.txt'}' holds 33 tokens, too few for "
                                 "its train/val/test splits (31 tokens cannot fill one window of seq_len=64); fetch it "
                                 "again (`make data-tinyshakespeare`) or lower data.seq_len")
    with pytest.raises(ConfigError, match="unknown tokenizer"):
        load_tokenizer("sentencepiece")


def test_prepare_script_offline_bpe_and_resume(data_dir, tmp_path):
    spec = importlib.util.spec_from_file_location("prep", REPO / "scripts/data/prepare_fineweb_edu.py")
    prep = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(prep)
    src = str(data_dir / "fineweb-edu-sample150/texts.jsonl")
    args = ["--out", str(tmp_path), "--source", src, "--train-tokenizer", "400", "--tokenizer-docs", "30",
            "--shard-tokens", "40000", "--val-tokens", "10000"]
    prep.main([*args, "--max-tokens", "30000"])
    first = json.loads((tmp_path / "progress.json").read_text())
    prep.main(args)  # resumes after the documents already in shards
    state = json.loads((tmp_path / "progress.json").read_text())
    assert first["docs_done"] < state["docs_done"] == 150
    dm = TokenShardDataModule(str(tmp_path), vocab_size=400, seq_len=32, batch_size=2)
    dm.setup()
    assert len(dm.splits["train"]) * 32 > 50_000

