"""A closed-vocabulary tokenizer for the intent and action language: one id per word of it (tool names, verbs,
flags, slots, each with and without its leading space), one per observation (`:ok>`), and one per printable
ASCII character as the fallback, so any text encodes and decodes back unchanged.

Why not bytes: a byte-level policy spends 7 forward passes on `mv b c` and re-reads ~4x longer contexts; on one CPU
core that is the difference between a claim check that fits 15 minutes and one that does not. Same interface as
reprolab.lm.tokenizer (encode, decode, vocab_size, pad_id, bos_id, eos_id). Greedy longest match.
"""

from __future__ import annotations

import string

from experiments.trustee.generator import TOOL_NAMES
from experiments.trustee.intents import ACTION_TOOLS, ASK, END, VERBS

OBSERVATIONS = (":ok>", ":err>", ":bad>", ":x>", ":y>", ":z>")
WORDS = sorted({*TOOL_NAMES, *VERBS, ASK, END, "-a", "-l", "-c", "-h", *(t.split()[0] for t in ACTION_TOOLS)})
SLOTS = tuple(string.ascii_lowercase) + ("?",)


class IntentTokenizer:
    """ids 0-2: PAD, BOS, EOS; then the language's pieces; `vocab_size` fixed so the model's size does not move."""

    pad_id, bos_id, eos_id = 0, 1, 2

    def __init__(self, vocab_size: int = 256):
        words = [*WORDS, *SLOTS]
        pieces = [*OBSERVATIONS, *words, *(" " + w for w in words), "; ", *string.printable]
        self.pieces = list(dict.fromkeys(pieces))
        if len(self.pieces) + 3 > vocab_size:
            raise ValueError(f"tokenizer.vocab_size={vocab_size} is below the {len(self.pieces) + 3} pieces")
        self.vocab_size = vocab_size
        self.ids = {p: i + 3 for i, p in enumerate(self.pieces)}
        self.longest = max(map(len, self.pieces))

    def encode(self, text: str) -> list[int]:
        ids, i = [], 0
        while i < len(text):
            for size in range(min(self.longest, len(text) - i), 0, -1):
                piece = text[i:i + size]
                if piece in self.ids and (size == 1 or self.whole(text, i + size, piece)):
                    ids.append(self.ids[piece])
                    i += size
                    break
            else:
                raise ValueError(f"character {text[i]!r} is outside the intent language's tokenizer")
        return ids

    @staticmethod
    def whole(text: str, end: int, piece: str) -> bool:
        """A word piece must end where the word ends ("cd" in "cd a", not in "cdx")."""
        return not piece[-1].isalnum() or end == len(text) or not (text[end].isalnum() or text[end] in "_.")

    def decode(self, ids) -> str:
        return "".join(self.pieces[int(i) - 3] for i in ids if 3 <= int(i) < len(self.pieces) + 3)
