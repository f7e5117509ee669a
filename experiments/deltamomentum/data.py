"""LM datamodules: memmapped FineWeb-Edu token shards, and any text file through the same windows.

Both cut a token stream into non-overlapping windows of ``seq_len + 1`` tokens (input, next-token
target). ``data=fineweb_edu`` reads ``train_*.bin`` shards and one fixed held-out ``val_*.bin`` shard
(validation and test both read it: "validation cross-entropy on a fixed held-out shard");
``data=text_file`` tokenizes a .txt file, a .jsonl with a "text" field, or a folder of them, and holds
out the last ``val_fraction`` (validation) and the ``val_fraction`` before it (test).
"""

from __future__ import annotations

import json
from pathlib import Path

import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from experiments.deltamomentum.tokens import encode_documents, load_tokenizer, read_shard
from reprolab.cli.errors import ConfigError, CorruptDataError, DatasetNotFoundError
from reprolab.data.fake import FakeTokens
from reprolab.data.fetch import REGISTRY

# FineWeb-Edu sample-10BT through the GPT-2 tokenizer (the paper-scale shards; sizes for `+data/fake=on`).
FINEWEB_TOKENS, FINEWEB_VAL_TOKENS, GPT2_VOCAB = 10_000_000_000, 10_000_000, 50_257


class TokenWindows(Dataset):
    """Window i: x = tokens[i·T : i·T + T], y = tokens[i·T + 1 : i·T + T + 1]."""

    def __init__(self, tokens: np.ndarray, seq_len: int, max_windows: int | None = None):
        self.tokens, self.seq_len = tokens, seq_len
        self.n = (len(tokens) - 1) // seq_len
        if max_windows is not None:
            self.n = min(self.n, max_windows)
        if self.n < 1:
            raise ConfigError(f"{len(tokens)} tokens cannot fill one window of seq_len={seq_len}")

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        chunk = torch.from_numpy(np.asarray(self.tokens[i * self.seq_len: (i + 1) * self.seq_len + 1],
                                            dtype=np.int64))
        return chunk[:-1], chunk[1:]


class _WindowDataModule(L.LightningDataModule):
    def __init__(self, data_dir: str, vocab_size: int, seq_len: int = 256, batch_size: int = 32,
                 eval_batch_size: int | None = None, num_workers: int = 0, max_eval_windows: int | None = None,
                 seed: int = 0):
        super().__init__()
        self.data_dir = Path(data_dir)
        self.vocab_size, self.seq_len = vocab_size, seq_len
        self.batch_size, self.eval_batch_size = batch_size, eval_batch_size or batch_size
        self.num_workers, self.max_eval_windows, self.seed = num_workers, max_eval_windows, seed
        self.splits: dict[str, TokenWindows] = {}

    def _check_vocab(self, vocab: int, source) -> None:
        if vocab > self.vocab_size:
            raise ConfigError(f"{source} uses {vocab} token ids but data.vocab_size={self.vocab_size}; "
                              f"set data.vocab_size>={vocab}")

    def _loader(self, split: str, shuffle: bool):
        gen = torch.Generator().manual_seed(self.seed)
        bs = self.batch_size if split == "train" else self.eval_batch_size
        return DataLoader(self.splits[split], batch_size=bs, shuffle=shuffle, drop_last=shuffle,
                          generator=gen if shuffle else None, num_workers=self.num_workers)

    def train_dataloader(self):
        return self._loader("train", True)

    def val_dataloader(self):
        return self._loader("val", False)

    def test_dataloader(self):
        return self._loader("test", False)


class TokenShardDataModule(_WindowDataModule):
    """uint16 shards written by scripts/data/prepare_fineweb_edu.py, read by memmap."""

    def __init__(self, data_dir: str, vocab_size: int, train_glob: str = "train_*.bin",
                 val_shard: str = "val_000000.bin", **kwargs):
        super().__init__(data_dir, vocab_size, **kwargs)
        self.train_glob, self.val_shard = train_glob, val_shard

    def setup(self, stage=None):
        shards = sorted(self.data_dir.glob(self.train_glob))
        if not shards or not (self.data_dir / self.val_shard).is_file():
            raise DatasetNotFoundError(
                f"data_dir '{self.data_dir}' has no token shards ({self.train_glob}, {self.val_shard}); run "
                f"'python scripts/data/prepare_fineweb_edu.py --out {self.data_dir}' or set paths.data_dir")
        train = []
        for path in shards:
            tokens, vocab = read_shard(path)
            self._check_vocab(vocab, path)
            train.append(TokenWindows(tokens, self.seq_len))
        val_tokens, vocab = read_shard(self.data_dir / self.val_shard)
        self._check_vocab(vocab, self.val_shard)
        self.splits["train"] = torch.utils.data.ConcatDataset(train)
        self.splits["val"] = self.splits["test"] = TokenWindows(val_tokens, self.seq_len, self.max_eval_windows)

    def fake_setup(self, stage=None):
        """Random GPT-2 ids in sample-10BT's token counts, cut into the same windows (reprolab.data.fake)."""
        vocab = min(GPT2_VOCAB, self.vocab_size)
        self.splits["train"] = TokenWindows(FakeTokens(FINEWEB_TOKENS - FINEWEB_VAL_TOKENS, vocab, 1), self.seq_len)
        val = TokenWindows(FakeTokens(FINEWEB_VAL_TOKENS, vocab, 2), self.seq_len, self.max_eval_windows)
        self.splits["val"] = self.splits["test"] = val


def read_texts(path: Path) -> list[str]:
    """Documents of a .txt (one document), a .jsonl ("text" per line), or a folder of those."""
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix in (".txt", ".jsonl"))
        return [text for f in files for text in read_texts(f)]
    if path.suffix == ".jsonl":
        return [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [path.read_text(encoding="utf-8")]


class TextFileDataModule(_WindowDataModule):
    """Any text file or folder (relative paths resolve under ``data_dir``), tokenized in memory."""

    def __init__(self, data_dir: str, path: str, vocab_size: int, tokenizer: str = "bytes",
                 val_fraction: float = 0.05, **kwargs):
        super().__init__(data_dir, vocab_size, **kwargs)
        self.path, self.tokenizer, self.val_fraction = Path(path), tokenizer, val_fraction

    def setup(self, stage=None):
        path = self.path if self.path.is_absolute() else self.data_dir / self.path
        if not path.exists():
            name = self.path.parts[0]
            fetchable = f"run `make data-{name}` or " if name in REGISTRY else ""
            raise DatasetNotFoundError(f"text '{path}' not found; {fetchable}set data.path (relative to "
                                       f"paths.data_dir='{self.data_dir}') or paths.data_dir")
        tok = load_tokenizer(self.tokenizer)
        self._check_vocab(tok.vocab_size, f"tokenizer {tok.name}")
        tokens = encode_documents(read_texts(path), tok)
        n_eval = int(len(tokens) * self.val_fraction)
        cut_test, cut_val = len(tokens) - 2 * n_eval, len(tokens) - n_eval
        try:
            self.splits["train"] = TokenWindows(tokens[:cut_test], self.seq_len)
            self.splits["test"] = TokenWindows(tokens[cut_test:cut_val], self.seq_len, self.max_eval_windows)
            self.splits["val"] = TokenWindows(tokens[cut_val:], self.seq_len, self.max_eval_windows)
        except ConfigError as err:  # an empty or cut file: say which one and what to do
            name = self.path.parts[0]
            refetch = f"fetch it again (`make data-{name}`) or " if name in REGISTRY else ""
            raise CorruptDataError(f"text '{path}' holds {len(tokens)} tokens, too few for its train/val/test splits "
                                   f"({err}); {refetch}lower data.seq_len") from None
