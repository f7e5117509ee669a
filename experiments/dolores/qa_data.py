"""The small LM's training data: 1-hop questions over short contexts of freshly drawn people (DOLORES's sub-agent
skill, learned once; the scaffolds compose it at inference).

Each example: 1..`max_articles` articles of people drawn from the name pool with random facts, then
1..`max_questions` 1-hop questions about them, `Q s r o <eos>` (formats.ToyFormat; the earlier answered questions
are a growing context, as the sequential scaffold and a worked example write one). Validation and test score the
answers `o <eos>` only; training (`train_targets`) scores them only, or every token (`all`; in the 2026-12-03 pilots
the answer loss stayed at its prior with it, and fell with `answers`: experiments/dolores/README.md). No eval
fact leaks in: any drawn (s, r, o) that holds in an evaluation universe (`leak_guard`) is redrawn, so the LM
cannot have memorised any hop of an evaluation question and must read the context (`leaked_facts` counts them).
Batch i is drawn by a generator seeded (seed, split, i): runs repeat exactly.

`articles_ramp` > 0 is a curriculum over context length (Bengio et al. 2009; the sequence-length warm-up of Li et
al. 2022): training batch i draws contexts of 1..cap(i) articles, cap growing linearly from 1 at batch 0 to
`max_articles` at batch `articles_ramp`, so the reader first learns to look a fact up in one article (pilot E) and
then to find the right person among more. Validation and test always draw 1..`max_articles`.

`min_articles` > 1 (protocol 4) is a floor on the training contexts: every one names at least that many people, so
a reader that matches the asked relation but not the subject is never optimal (with one article it is, and the
copy-head reader of protocol 3 stayed on that plateau on two seeds of three: README, "The reader"). Validation and
test still draw 1..`max_articles`.
"""

from __future__ import annotations

import random

import lightning as L
from torch.utils.data import DataLoader, Dataset

from experiments.dolores.formats import ToyFormat
from experiments.dolores.universe import ATTRIBUTES, RELATIONS, Universe, name_pool
from experiments.dolores.world import article_text
from reprolab.cli.errors import ConfigError
from reprolab.lm.sampling import right_pad

_FORMAT = ToyFormat()  # the scaffolds' toy prompts (task.format): the reader learns their question form


def draw_example(rng: random.Random, pool: tuple[str, ...], max_articles: int, max_questions: int,
                 forbidden: set, min_articles: int = 1) -> tuple[list[tuple[str, str, str]], str, list[tuple[str, str, str]]]:
    """(every fact drawn, the prompt text, the asked facts); min_articles..max_articles people."""
    people = rng.sample(pool, rng.randint(min_articles, max_articles))
    articles, facts = [], []
    for person in people:
        own = []
        for key in [*RELATIONS, *ATTRIBUTES]:
            values = ATTRIBUTES.get(key) or pool
            obj = rng.choice(values)
            while (person, key, obj) in forbidden or obj == person:
                obj = rng.choice(values)
            own.append((person, key, obj))
        rng.shuffle(own)
        articles.append(article_text(own))
        facts += own
    asked = [rng.choice(facts) for _ in range(rng.randint(1, max_questions))]
    return facts, " ".join(articles), asked


def encode_example(tokenizer, context: str, asked) -> tuple[list[int], list[bool]]:
    tokens, is_answer = [tokenizer.bos_id, *tokenizer.encode(context)], []
    is_answer = [False] * len(tokens)
    for s, r, o in asked:
        question = tokenizer.encode(_FORMAT.ask(s, [r]))
        answer = [*tokenizer.encode(o), tokenizer.eos_id]
        tokens += question + answer
        is_answer += [False] * len(question) + [True] * len(answer)
    return tokens, is_answer


def leak_guard(universes: list[dict]) -> set:
    """Every fact of the evaluation universes (`{people, seed, pool}` each): what training must never state."""
    return set().union(*(Universe(u["people"], u["seed"], u.get("pool", 600)).all_facts() for u in universes)) \
        if universes else set()


def leaked_facts(facts: list[tuple[str, str, str]], forbidden: set) -> int:
    return sum(fact in forbidden for fact in facts)


def articles_cap(i: int, max_articles: int, ramp: int) -> int:
    """The most articles batch i may draw: 1 + (max_articles - 1) * i / ramp, floored, up to max_articles."""
    return max_articles if ramp <= 0 else min(max_articles, 1 + (max_articles - 1) * i // ramp)


class OneHopBatches(Dataset):
    def __init__(self, tokenizer, batches: int, batch_size: int, seed, split: str, forbidden: set, pool: int,
                 max_articles: int, max_questions: int, targets: str = "answers", articles_ramp: int = 0,
                 min_articles: int = 1):
        self.tokenizer, self.batches, self.batch_size, self.targets = tokenizer, batches, batch_size, targets
        self.seed, self.split, self.forbidden = seed, split, forbidden
        self.pool, self.max_articles, self.max_questions = name_pool(pool), max_articles, max_questions
        self.articles_ramp, self.min_articles = articles_ramp, min_articles

    def __len__(self) -> int:
        return self.batches

    def examples(self, i: int) -> list[tuple[list, str, list]]:
        """Batch i as drawn: (facts, context text, asked facts) per example."""
        rng = random.Random(f"{self.seed}-{self.split}-{i}")
        articles = articles_cap(i, self.max_articles, self.articles_ramp)
        return [draw_example(rng, self.pool, articles, self.max_questions, self.forbidden,
                             min(self.min_articles, articles)) for _ in range(self.batch_size)]

    def __getitem__(self, i: int):
        items = [encode_example(self.tokenizer, context, asked) for _, context, asked in self.examples(i)]
        tokens, mask = right_pad([t for t, _ in items], self.tokenizer.pad_id)
        answer, _ = right_pad([[int(a) for a in m] for _, m in items], 0)
        scored = answer[:, 1:].bool() if self.targets == "answers" else mask[:, 1:].bool()
        targets = tokens[:, 1:].masked_fill(~scored, -100)
        return tokens[:, :-1], targets


class OneHopQADataModule(L.LightningDataModule):
    """Train: `train_batches` drawn batches (context length by `articles_ramp`, `min_articles`); val/test: `eval_batches` fixed
    batches each (other seeds), always 1..`max_articles` articles."""

    def __init__(self, tokenizer, batch_size: int = 32, train_batches: int = 1000, eval_batches: int = 4,
                 max_articles: int = 8, max_questions: int = 3, pool: int = 600, seed: int = 0,
                 leak_guard_universes: list | None = None, train_targets: str = "all", articles_ramp: int = 0,
                 min_articles: int = 1):
        super().__init__()
        if batch_size < 1 or train_batches < 1 or max_articles < 1 or max_questions < 1:
            raise ConfigError("data.batch_size, train_batches, max_articles and max_questions must be >= 1")
        if isinstance(articles_ramp, bool) or not isinstance(articles_ramp, int) or articles_ramp < 0:
            raise ConfigError(f"data.articles_ramp={articles_ramp!r}: the curriculum's length in training batches "
                              "must be an integer >= 0 (0: no curriculum)")
        if isinstance(min_articles, bool) or not isinstance(min_articles, int) or not 1 <= min_articles <= max_articles:
            raise ConfigError(f"data.min_articles={min_articles!r}: the fewest articles of a training context must be "
                              f"an integer in 1..data.max_articles={max_articles}")
        self.articles_ramp, self.min_articles = articles_ramp, min_articles
        if train_targets not in ("answers", "all"):
            raise ConfigError(f"data.train_targets={train_targets!r}; choose answers or all")
        self.train_targets = train_targets
        self.tokenizer, self.batch_size, self.train_batches = tokenizer, batch_size, train_batches
        self.eval_batches, self.seed, self.pool = eval_batches, seed, pool
        self.max_articles, self.max_questions = max_articles, max_questions
        self.forbidden = leak_guard([dict(u) for u in leak_guard_universes or []])

    def dataset(self, split: str, batches: int, forbidden: set | None = None) -> OneHopBatches:
        """The `split`'s batches; `forbidden` replaces the leak guard (an empty set: unguarded, for the leak count)."""
        return OneHopBatches(self.tokenizer, batches, self.batch_size, self.seed, split,
                             self.forbidden if forbidden is None else forbidden, self.pool, self.max_articles,
                             self.max_questions, self.train_targets if split == "train" else "answers",
                             self.articles_ramp if split == "train" else 0,
                             self.min_articles if split == "train" else 1)

    def _loader(self, split: str, batches: int):
        return DataLoader(self.dataset(split, batches), batch_size=None)

    def train_dataloader(self):
        return self._loader("train", self.train_batches)

    def val_dataloader(self):
        return self._loader("val", self.eval_batches)

    def test_dataloader(self):
        return self._loader("test", self.eval_batches)

