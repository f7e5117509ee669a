"""Tokenizers a policy task reads text through: bytes (offline, nothing to train) or a Hugging Face tokenizer.

Both give `encode(text) -> ids`, `decode(ids) -> text` (special tokens dropped), `vocab_size`, `pad_id`,
`eos_id` and `bos_id` (None where the model has none, as Qwen3).
"""

from __future__ import annotations

from reprolab.config.extras import require
from reprolab.models.hub import from_hub


class ByteTokenizer:
    """UTF-8 bytes are ids 0–255; PAD = 256, BOS = 257, EOS = 258 (vocab_size 259). Any text, no training."""

    vocab_size = 259
    pad_id, bos_id, eos_id = 256, 257, 258

    def encode(self, text: str) -> list[int]:
        return list(text.encode("utf-8"))

    def decode(self, ids) -> str:
        return bytes(int(i) for i in ids if int(i) < 256).decode("utf-8", errors="replace")


class HuggingFaceTokenizer:
    """`transformers.AutoTokenizer.from_pretrained(name)` (a Hub name, downloaded once, or a local folder)."""

    def __init__(self, name: str, revision: str | None = None):
        require("transformers", "lm")
        from transformers import AutoTokenizer

        with from_hub(name, "tokenizer.name"):
            self.tokenizer = AutoTokenizer.from_pretrained(name, revision=revision)
        self.eos_id = self.tokenizer.eos_token_id
        self.pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.eos_id
        self.bos_id = self.tokenizer.bos_token_id
        self.vocab_size = len(self.tokenizer)

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.encode(text, add_special_tokens=False)

    def decode(self, ids) -> str:
        return self.tokenizer.decode([int(i) for i in ids], skip_special_tokens=True)
