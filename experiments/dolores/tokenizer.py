"""A word-level tokenizer over the toy universe's closed vocabulary: one id per name, relation, attribute value
and symbol, so the small LM reads a fact as four tokens and copies an answer as one (a byte LM would have to
learn to copy four-letter names, too slow for a CPU claim check). Tokens spent are counted in these ids.
"""

from __future__ import annotations

from experiments.dolores.universe import ATTRIBUTES, RELATIONS, name_pool
from reprolab.cli.errors import ConfigError

SYMBOLS = ("Q", "A", "?", ".")


class WordTokenizer:
    """PAD = 0, BOS = 1, EOS = 2, then symbols, relations, attribute keys and values, and `pool` names."""

    pad_id, bos_id, eos_id = 0, 1, 2

    def __init__(self, pool: int = 600):
        words = [*SYMBOLS, *RELATIONS, *ATTRIBUTES, *(v for values in ATTRIBUTES.values() for v in values),
                 *name_pool(pool)]
        self.words = ["<pad>", "<bos>", "<eos>", *words]
        self.ids = {w: i for i, w in enumerate(self.words)}
        self.vocab_size = len(self.words)

    def encode(self, text: str) -> list[int]:
        try:
            return [self.ids[w] for w in text.split()]
        except KeyError as err:
            raise ConfigError(f"word {err.args[0]!r} is not in the toy universe's vocabulary ({self.vocab_size} ids); the word tokenizer "
                              "reads the toy universe only: use tokenizer=qwen3 for PhantomWiki") from None

    def decode(self, ids) -> str:
        return " ".join(self.words[int(i)] for i in ids if int(i) > self.eos_id)
