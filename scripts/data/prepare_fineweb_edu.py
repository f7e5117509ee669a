"""Tokenize FineWeb-Edu (sample-10BT) into uint16 memmap shards for `data=fineweb_edu`; resumable.

    python scripts/data/prepare_fineweb_edu.py --out data/fineweb_edu                 # online: HF stream, GPT-2
    python scripts/data/prepare_fineweb_edu.py --out /tmp/fw --source ../shared/data/fineweb-edu-sample150/texts.jsonl \
        --train-tokenizer 512 --shard-tokens 20000 --val-tokens 10000                 # offline: local text, own BPE

The first ``--val-tokens`` tokens of the stream go to the fixed held-out shard ``val_000000.bin``, the rest to
``train_XXXXXX.bin`` shards of ``--shard-tokens`` tokens (format: experiments/deltamomentum/tokens.py).
``progress.json`` records the documents consumed by the shards written so far; a rerun skips them and
continues (a shard is renamed into place only once complete, so a kill loses at most one partial shard).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # run from a checkout without installing

from experiments.deltamomentum.data import read_texts  # noqa: E402
from experiments.deltamomentum.tokens import load_tokenizer, write_shard  # noqa: E402
from reprolab.cli.one_line_errors import one_line_errors  # noqa: E402
from reprolab.config.extras import require  # noqa: E402


def documents(source: str, skip: int):
    """Texts of the HF stream (``hf``) or a local .txt/.jsonl/folder, after the first ``skip``."""
    if source == "hf":
        require("datasets", "deltamomentum")
        from datasets import load_dataset

        stream = load_dataset("HuggingFaceFW/fineweb-edu", name="sample-10BT", split="train", streaming=True)
        yield from (row["text"] for row in stream.skip(skip))
    else:
        yield from read_texts(Path(source))[skip:]


def train_bpe(texts, vocab_size: int, path: Path) -> None:
    """A byte-level BPE with `tokenizers`, trained offline on ``texts`` (GPT-2-style, EOT special token)."""
    require("tokenizers", "deltamomentum")
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=["<|endoftext|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(texts, trainer)
    tok.save(str(path))


def prepare(out: Path, source: str, tokenizer: str, shard_tokens: int, val_tokens: int,
            max_tokens: int | None, train_tokenizer: int | None, tokenizer_docs: int) -> dict:
    out.mkdir(parents=True, exist_ok=True)
    state_path = out / "progress.json"
    state = json.loads(state_path.read_text()) if state_path.exists() else \
        {"docs_done": 0, "tokens_done": 0, "train_shards": 0, "val_done": False}
    if train_tokenizer:
        tok_path = out / "tokenizer.json"
        if not tok_path.exists():
            train_bpe(list(_take(documents(source, 0), tokenizer_docs)), train_tokenizer, tok_path)
        tokenizer = f"bpe:{tok_path}"
    tok = load_tokenizer(tokenizer)
    state["tokenizer"] = tokenizer
    buffer, docs_in_buffer = [], 0
    target = val_tokens if not state["val_done"] else shard_tokens
    bar = tqdm(total=max_tokens, initial=state["tokens_done"], unit="tok", unit_scale=True, desc="fineweb-edu")
    for text in documents(source, state["docs_done"]):
        if max_tokens is not None and state["tokens_done"] + sum(map(len, buffer)) >= max_tokens:
            break
        ids = [tok.eot, *tok.encode(text)]
        buffer.append(ids)
        docs_in_buffer += 1
        bar.update(len(ids))
        if sum(map(len, buffer)) >= target:
            _flush(out, state, buffer, docs_in_buffer, tok.vocab_size)
            state_path.write_text(json.dumps(state, indent=1))
            buffer, docs_in_buffer, target = [], 0, shard_tokens
    if buffer:  # the tail becomes a (shorter) last shard
        _flush(out, state, buffer, docs_in_buffer, tok.vocab_size)
    state_path.write_text(json.dumps(state, indent=1))
    bar.close()
    return state


def _take(iterable, n):
    for i, item in enumerate(iterable):
        if i >= n:
            return
        yield item


def _flush(out: Path, state: dict, buffer: list[list[int]], docs: int, vocab_size: int) -> None:
    tokens = np.fromiter((t for ids in buffer for t in ids), dtype=np.uint16)
    if state["val_done"]:
        write_shard(out / f"train_{state['train_shards']:06d}.bin", tokens, vocab_size)
        state["train_shards"] += 1
    else:
        write_shard(out / "val_000000.bin", tokens, vocab_size)
        state["val_done"] = True
    state["docs_done"] += docs
    state["tokens_done"] += len(tokens)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, required=True, help="folder for the shards (= data.data_dir)")
    p.add_argument("--source", default="hf", help="'hf' (stream HuggingFaceFW/fineweb-edu sample-10BT) or a "
                   "local .txt/.jsonl file or folder")
    p.add_argument("--tokenizer", default="gpt2", help="gpt2 (tiktoken, online) | bytes | bpe:<tokenizer.json>")
    p.add_argument("--train-tokenizer", type=int, default=None, metavar="VOCAB",
                   help="train a byte-level BPE of this vocabulary offline on the first documents instead")
    p.add_argument("--tokenizer-docs", type=int, default=20000, help="documents to train that BPE on")
    p.add_argument("--shard-tokens", type=int, default=100_000_000)
    p.add_argument("--val-tokens", type=int, default=10_000_000)
    p.add_argument("--max-tokens", type=int, default=None, help="stop after about this many tokens")
    a = p.parse_args(argv)
    with one_line_errors(f"FineWeb-Edu preparation into {a.out}", "without network, pass --source <local .txt/.jsonl> "
                         "or copy the shards from a machine that has them (the run resumes where it stopped)"):
        state = prepare(a.out, a.source, a.tokenizer, a.shard_tokens, a.val_tokens, a.max_tokens,
                        a.train_tokenizer, a.tokenizer_docs)
    print(f"{a.out}: val shard + {state['train_shards']} train shards, {state['tokens_done']:,} tokens from "
          f"{state['docs_done']:,} documents ({state['tokenizer']}); use data=fineweb_edu "
          f"paths.data_dir={a.out.parent} (or data.data_dir={a.out})")


if __name__ == "__main__":
    main()
