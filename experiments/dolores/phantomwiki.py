"""PhantomWiki (Gong et al. 2025; Hugging Face `kilian-group/phantom-wiki-v1`), the paper's first benchmark: the
download step, the loader, and its questions as the scaffolds' records.

The dataset has two configs, `text-corpus` (title, article) and `question-answer` (id, question, answer list,
difficulty), with one split per universe, `depth_20_size_{size}_seed_{seed}` (sizes 50, 500, 5000; seeds 1–3, as
the authors' `benchmarks/phantomwiki`). `download` saves both splits with `datasets.save_to_disk` under
`<data_dir>/phantomwiki/`; the loader reads only that folder (no network at run time).
The scripted planner needs the path of a question: `parse_path` reads PhantomWiki's "Who is the r_k of … the r_1
of s?" template; other templates (counts, aggregates) have no parse and every scaffold answers them monolithically.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import lightning as L
from torch.utils.data import DataLoader

from experiments.dolores.questions import listed
from experiments.dolores.universe import Universe
from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.config.extras import require

REPO = "kilian-group/phantom-wiki-v1"
SIZES, SEEDS = (50, 500, 5000), (1, 2, 3)
PATH_QUESTION = re.compile(r"^(?:Who|What) (?:is|are) the (.+) of (.+?)\?$")


def split_name(size: int, seed: int) -> str:
    if size not in SIZES or seed not in SEEDS:
        raise ConfigError(f"PhantomWiki has sizes {SIZES} and seeds {SEEDS}; got size={size}, seed={seed}")
    return f"depth_20_size_{size}_seed_{seed}"


def folder(data_dir: str | Path, config: str, size: int, seed: int) -> Path:
    return Path(data_dir) / "phantomwiki" / config / split_name(size, seed)


def download(data_dir: str | Path, size: int, seed: int, revision: str | None = None, load_dataset=None) -> list[Path]:
    """Fetch both configs' split from the Hub (`datasets.load_dataset`, or the `load_dataset` given) and save them
    where `load_split` reads them."""
    load_dataset = load_dataset or require("datasets", "dolores").load_dataset
    saved = []
    for config in ("text-corpus", "question-answer"):
        target = folder(data_dir, config, size, seed)
        load_dataset(REPO, config, split=split_name(size, seed), revision=revision).save_to_disk(str(target))
        saved.append(target)
    return saved


def load_split(data_dir: str | Path, config: str, size: int, seed: int) -> list[dict]:
    target = folder(data_dir, config, size, seed)
    if not target.is_dir():
        raise DatasetNotFoundError(f"no PhantomWiki {config} at '{target}'; run 'make data-phantomwiki "
                                   f"PW_SIZE={size} PW_SEED={seed}' or set paths.data_dir")
    return list(require("datasets", "dolores").load_from_disk(str(target)))


def parse_path(question: str) -> tuple[str, list[str]] | None:
    """(subject, relations from the subject outward) of a path question, else None."""
    match = PATH_QUESTION.match(question.strip())
    if not match:
        return None
    relations = match.group(1).split(" of the ")
    return match.group(2), list(reversed(relations))


class PhantomWorld:
    """Articles by title; a monolithic context is the whole corpus (sizes 50 and 500 fit Qwen3's window only with
    `context_articles`, the first articles in corpus order, when set)."""

    def __init__(self, corpus: list[dict], worked_example: list[str] | None = None, context_articles: int | None = None):
        self.articles = {row["title"]: row["article"] for row in corpus}
        self.demo = tuple(worked_example) if worked_example else None
        self.context_articles = context_articles

    def has_article(self, name: str) -> bool:
        return name in self.articles

    def article(self, name: str) -> str:
        return self.articles.get(name, "")

    def context(self, record: dict) -> list[str]:
        return list(self.articles.values())[:self.context_articles]

    def worked_example(self, fmt) -> tuple[str, str] | None:
        return self.demo


def records(rows: list[dict]) -> list[dict]:
    out = []
    for row in rows:
        parsed = parse_path(row["question"])
        subject, chain = parsed if parsed else (None, None)
        out.append({"id": row["id"], "subject": subject, "chain": chain, "path": None, "answer": list(row["answer"]),
                    "hops": int(row["difficulty"]), "context": None, "text": row["question"]})
    return out


class PhantomWikiDataModule(L.LightningDataModule):
    """PhantomWiki's questions of one universe (test only), at most `limit` of them."""

    def __init__(self, data_dir: str, size: int = 50, seed: int = 1, limit: int | None = None, batch_size: int = 16,
                 worked_example: list[str] | None = None, context_articles: int | None = None):
        super().__init__()
        self.data_dir, self.size, self.seed, self.limit, self.batch_size = data_dir, size, seed, limit, batch_size
        self.worked_example, self.context_articles = worked_example, context_articles
        split_name(size, seed)   # a bad size or seed fails at construction

    def setup(self, stage: str | None = None) -> None:
        corpus = load_split(self.data_dir, "text-corpus", self.size, self.seed)
        self.world = PhantomWorld(corpus, self.worked_example, self.context_articles)
        self.records = records(load_split(self.data_dir, "question-answer", self.size, self.seed))[:self.limit]

    def fake_setup(self, stage: str | None = None) -> None:
        """`+data/fake=on`: a generated universe in PhantomWiki's row shapes (corpus articles, path questions in its
        template, 1-3 hops), read by the same code as the real splits."""
        universe = Universe(max(self.size, 2), seed=self.seed)
        corpus = [{"title": name, "article": f"# {name}\n\n" + " ".join(f"The {r} of {s} is {o}." for s, r, o in
                                                                        universe.facts(name))} for name in universe.people]
        rows = [{"id": f"fake{n}", "question": f"Who is the {' of the '.join(reversed(q.chain))} of {q.subject}?",
                 "answer": list(q.answer), "difficulty": q.hops}
                for n, q in enumerate(universe.questions(per_hop=2, max_hops=3, seed=self.seed))]
        self.world = PhantomWorld(corpus, self.worked_example, self.context_articles)
        self.records = records(rows)[:self.limit]

    def test_dataloader(self):
        return DataLoader(self.records, batch_size=self.batch_size, collate_fn=listed)

    def train_dataloader(self):  # never iterated (test only)
        return self.test_dataloader()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Download one PhantomWiki universe (both configs) for DOLORES.")
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--size", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--revision", default=None)
    args = parser.parse_args(argv)
    for path in download(args.data_dir, args.size, args.seed, args.revision):
        print(f"saved {path}")


if __name__ == "__main__":
    main()
