"""The fact corpus and the noisy search engine: the only way a rubric builder reaches a hidden standard.

The corpus holds, per category, `copies` true guideline documents for every criterion of the standard (two
phrasings per criterion kind), `misleading` false guideline documents (a wrong attribute required, a required one
forbidden, a wrong lead), and one fact document per training entity (its dossier: it matches the category's name,
so it crowds out guidelines). Search ranks documents by the number of query words they contain plus Gaussian noise
of scale `noise`, and returns the top `k` the session has not seen yet (paging on), so a builder with more turns
reads more, and a misleading document can outrank a true one.
"""

from __future__ import annotations

import re

import numpy as np

from experiments.dr_rubric.world import ATTRIBUTES, World

TEMPLATES = {
    "covers": ("{c} reports must give {a}", "experts always list {a} for a {c}"),
    "avoids": ("never give {a} for a {c} as it is mistaken for {r}", "{a} is a common {c} confusion to avoid"),
    "first": ("{c} reports open with {a}", "put {a} first in a {c} report"),
}


def guideline(kind: str, category: str, attribute: str, phrasing: int, related: str = "") -> str:
    return TEMPLATES[kind][phrasing % 2].format(c=category, a=attribute, r=related or attribute)


def read_guideline(text: str) -> tuple[str, str, str] | None:
    """(kind, category, attribute) a guideline document states, or None for any other document (a builder reads
    documents through this, as an LLM reads a page)."""
    for kind, phrasings in TEMPLATES.items():
        for phrasing in phrasings:
            pattern = re.escape(phrasing).replace(r"\{c\}", r"(?P<c>\w+)").replace(r"\{a\}", f"(?P<a>[{ATTRIBUTES}])")
            match = re.fullmatch(pattern.replace(r"\{r\}", f"[{ATTRIBUTES}]"), text)
            if match:
                return kind, match["c"], match["a"]
    return None


def build_corpus(world: World, copies: int = 2, misleading: int = 3) -> list[str]:
    """Every document of the world, in a seed-fixed shuffled order."""
    rng = np.random.default_rng([world.seed, 45])
    docs = []
    for category in world.categories:
        standard = world.standards[category]
        criteria = ([("covers", a) for a in standard.required] + [("avoids", a) for a in standard.avoid]
                    + [("first", standard.lead)])
        for kind, attribute in criteria:
            related = standard.required[ATTRIBUTES.index(attribute) % len(standard.required)]
            docs += [guideline(kind, category, attribute, p, related) for p in range(copies)]
        wrong_covers = standard.avoid + standard.neutral
        not_lead = [a for a in ATTRIBUTES if a != standard.lead]
        for n in range(misleading):
            kind = ("covers", "avoids", "first")[n % 3]
            pool = {"covers": wrong_covers, "avoids": standard.required, "first": not_lead}[kind]
            docs.append(guideline(kind, category, pool[int(rng.integers(len(pool)))], int(rng.integers(2))))
    for record in world.records("train"):
        docs.append(f"{record['category']} {record['entity']} " + record["prompt"].split("|")[1])
    return [docs[i] for i in rng.permutation(len(docs))]


class NoisySearch:
    """search(query) → the top `k` unseen documents by shared words + N(0, noise²); one session per builder run."""

    def __init__(self, documents: list[str], k: int = 3, noise: float = 1.0, seed: int | list[int] = 0):
        self.documents, self.k, self.noise = documents, k, noise
        self.words = [set(d.split()) for d in documents]
        self.rng = np.random.default_rng([*np.atleast_1d(seed).tolist(), 46])
        self.seen: set[int] = set()
        self.queries = 0

    def search(self, query: str) -> list[str]:
        terms = set(query.split())
        scores = np.array([len(terms & w) for w in self.words], dtype=float)
        scores += self.noise * self.rng.standard_normal(len(scores))
        scores[list(self.seen)] = -np.inf
        top = [int(i) for i in np.argsort(-scores, kind="stable")[:self.k] if np.isfinite(scores[i])]
        self.seen.update(top)
        self.queries += 1
        return [self.documents[i] for i in top]
