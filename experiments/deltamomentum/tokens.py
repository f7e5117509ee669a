"""Tokenizers and uint16 token shards with a header (the FineWeb-Edu memmap format).

A shard is a 256 × int32 header — magic, version, token count, vocabulary size — followed by the
tokens as uint16 (so vocabularies up to 65,535). Documents are separated by the tokenizer's
end-of-text id. Tokenizers: "bytes" (UTF-8 bytes + EOT, 257 ids, always offline), "gpt2" (tiktoken,
needs its BPE file once from the internet), or "bpe:<tokenizer.json>" (a `tokenizers` byte-level BPE,
trained offline by scripts/data/prepare_fineweb_edu.py --train-tokenizer).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reprolab.cli.errors import ConfigError, CorruptDataError, DatasetNotFoundError
from reprolab.config.extras import require

MAGIC, VERSION, HEADER_INTS = 20260531, 1, 256


@dataclass
class Tokenizer:
    name: str
    vocab_size: int
    eot: int
    encode: Callable[[str], list[int]]


def load_tokenizer(spec: str) -> Tokenizer:
    if spec == "bytes":
        return Tokenizer("bytes", 257, 256, lambda text: list(text.encode("utf-8")))
    if spec == "gpt2":
        require("tiktoken", "deltamomentum")
        import tiktoken

        try:
            enc = tiktoken.get_encoding("gpt2")
        except Exception as err:  # no network and no cached BPE file
            raise ConfigError(
                f"tiktoken could not load the GPT-2 BPE ({type(err).__name__}); go online once, or train "
                "an offline BPE with scripts/data/prepare_fineweb_edu.py --train-tokenizer and pass "
                "tokenizer=bpe:<path>/tokenizer.json"
            ) from err
        return Tokenizer("gpt2", enc.n_vocab, enc.eot_token, enc.encode_ordinary)
    if spec.startswith("bpe:"):
        require("tokenizers", "deltamomentum")
        from tokenizers import Tokenizer as HFTokenizer

        path = Path(spec[4:])
        if not path.is_file():
            raise DatasetNotFoundError(f"tokenizer file {path} not found; train it with "
                                       "scripts/data/prepare_fineweb_edu.py --train-tokenizer")
        tok = HFTokenizer.from_file(str(path))
        eot = tok.token_to_id("<|endoftext|>")
        return Tokenizer(spec, tok.get_vocab_size(), eot, lambda text: tok.encode(text).ids)
    raise ConfigError(f"unknown tokenizer {spec!r}; use 'bytes', 'gpt2' or 'bpe:<tokenizer.json>'")


def encode_documents(texts, tokenizer: Tokenizer) -> np.ndarray:
    """EOT-prefixed concatenation of the documents, as uint16."""
    ids: list[int] = []
    for text in texts:
        ids.append(tokenizer.eot)
        ids.extend(tokenizer.encode(text))
    return np.asarray(ids, dtype=np.uint16)


def write_shard(path: Path, tokens: np.ndarray, vocab_size: int) -> None:
    if vocab_size > 65536:
        raise ValueError(f"uint16 shards hold vocabularies up to 65,536 ids, not {vocab_size}")
    header = np.zeros(HEADER_INTS, dtype=np.int32)
    header[:4] = MAGIC, VERSION, len(tokens), vocab_size
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as f:
        f.write(header.tobytes())
        f.write(tokens.astype(np.uint16).tobytes())
    tmp.replace(path)  # atomic: a killed writer never leaves a half shard under the final name


def read_shard(path: Path) -> tuple[np.ndarray, int]:
    """(memmapped uint16 tokens, vocab_size); raises CorruptDataError on a bad header or size."""
    path = Path(path)
    if not path.is_file():
        raise DatasetNotFoundError(f"token shard {path} not found")
    header = np.fromfile(path, dtype=np.int32, count=HEADER_INTS)
    if len(header) < HEADER_INTS or header[0] != MAGIC or header[1] != VERSION:
        raise CorruptDataError(f"{path} is not a reprolab token shard (bad header); re-run "
                               "scripts/data/prepare_fineweb_edu.py")
    n, vocab = int(header[2]), int(header[3])
    expected = HEADER_INTS * 4 + 2 * n
    if path.stat().st_size != expected:
        raise CorruptDataError(f"{path} holds {path.stat().st_size} bytes, its header says {expected}; "
                               "delete it and re-run scripts/data/prepare_fineweb_edu.py (it resumes)")
    return np.memmap(path, dtype=np.uint16, mode="r", offset=HEADER_INTS * 4, shape=(n,)), vocab
