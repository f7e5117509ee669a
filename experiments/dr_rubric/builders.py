"""Rubric builders, each a `rubric=` config choice; `fit(public, search, standards)` then `rubric(record)`.

Every rubric starts from the generic items (format, budget, faithful, substantive; `rubric.GENERIC`):
- `GenericRubric`: nothing more (the format/length rubric);
- `PromptOnlyRubric`: + covers the attribute the prompt names (a rubric written from the prompt's own words);
- `DeepResearchRubric(turns=T)`: the paper's builder. Stage I (§3.1): T search turns per category, the first
  three on the facets of a standard (what must be given, what is confused, how a report opens), then each on the
  least-supported attribute found so far (verifying it); stage II (§3.2): the findings distilled into atomic
  items by majority vote (`distill`);
- `BootstrapRubric(iterations=i)`: the builder's own rubric, refined i times: iteration 0 proposes covers items
  for the category's `proposals` most named prompt attributes (its prior, no search), each iteration searches
  once per item of the previous rubric and distils all evidence so far (§3.3, bootstrapping from the policy);
- `LengthMatchedRubric(turns=T)`: as many criterion items as DR-rubric(T) finds per category, drawn at random
  (the length-matched control: same length, no content);
- `OracleRubric`: the hidden standard itself (the ceiling; the only builder handed `standards`).
`search(category)` opens one noisy search session per category (`corpus.NoisySearch`), seeded by the world's
seed and the category, so T = 1 reads a prefix of what T = 3 reads.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np

from experiments.dr_rubric.corpus import NoisySearch, read_guideline
from experiments.dr_rubric.rubric import GENERIC, Item, oracle_rubric
from experiments.dr_rubric.world import ATTRIBUTES, PublicWorld, Standard

FACET_QUERIES = ("{c} reports must give always list", "{c} never give common confusion avoid",
                 "{c} reports open with first")


def distill(votes: Counter, min_votes: int = 1) -> tuple[Item, ...]:
    """Stage II: per attribute, covers or avoids by majority (a tie keeps neither), at least `min_votes`; one first
    item, the most voted (a tie keeps none)."""
    items = []
    for a in ATTRIBUTES:
        up, down = votes[Item("covers", a)], votes[Item("avoids", a)]
        if max(up, down) >= min_votes and up != down:
            items.append(Item("covers" if up > down else "avoids", a))
    leads = sorted(((votes[Item("first", a)], a) for a in ATTRIBUTES), reverse=True)
    if leads[0][0] >= min_votes and leads[0][0] > leads[1][0]:
        items.append(Item("first", leads[0][1]))
    return tuple(items)


def read_into(votes: Counter, documents: list[str], category: str) -> None:
    for doc in documents:
        found = read_guideline(doc)
        if found and found[1] == category:
            votes[Item(found[0], found[2])] += 1


class RubricBuilder:
    """Base: `criteria(category, records, search)` → the category's own items; the generic items come first."""

    name = "generic"
    reads_standard = False

    def fit(self, public: PublicWorld, search: Callable[[str], NoisySearch],
            standards: dict[str, Standard] | None = None) -> None:
        self.budget = public.budget
        self.rubrics = {c: GENERIC + self.criteria(c, [r for r in public.train_records if r["category"] == c],
                                                   search(c))
                        for c in public.categories}

    def criteria(self, category: str, records: list[dict], search: NoisySearch) -> tuple[Item, ...]:
        return ()

    def rubric(self, record: dict) -> tuple[Item, ...]:
        return self.rubrics[record["category"]]


class GenericRubric(RubricBuilder):
    name = "generic"


class PromptOnlyRubric(RubricBuilder):
    name = "prompt_only"

    def rubric(self, record):
        return super().rubric(record) + (Item("covers", record["focus"]),)


class DeepResearchRubric(RubricBuilder):
    name = "dr"

    def __init__(self, turns: int = 3, min_votes: int = 1):
        self.turns, self.min_votes = turns, min_votes

    def research(self, category: str, search: NoisySearch) -> Counter:
        votes: Counter = Counter()
        verified: set[str] = set()
        for turn in range(self.turns):
            query = self.next_query(category, turn, votes, verified)
            read_into(votes, search.search(query), category)
        return votes

    def next_query(self, category: str, turn: int, votes: Counter, verified: set[str]) -> str:
        found = {item.attribute for item, n in votes.items() if n and item.attribute not in verified}
        if turn < len(FACET_QUERIES) or not found:
            return FACET_QUERIES[turn % len(FACET_QUERIES)].format(c=category)
        support = {a: sum(votes[Item(k, a)] for k in ("covers", "avoids", "first")) for a in found}
        weakest = min(sorted(found), key=support.__getitem__)
        verified.add(weakest)
        return f"{category} {weakest}"

    def criteria(self, category, records, search):
        return distill(self.research(category, search), self.min_votes)


class BootstrapRubric(RubricBuilder):
    name = "bootstrap"

    def __init__(self, iterations: int = 3, proposals: int = 3, min_votes: int = 1):
        self.iterations, self.proposals, self.min_votes = iterations, proposals, min_votes

    def criteria(self, category, records, search):
        named = Counter(r["focus"] for r in records)
        votes = Counter({Item("covers", a): 1 for a, _ in named.most_common(self.proposals)})
        items = distill(votes, self.min_votes)
        for _ in range(self.iterations):
            for item in items:
                read_into(votes, search.search(f"{category} {item.attribute}"), category)
            items = distill(votes, self.min_votes)
        return items


class LengthMatchedRubric(RubricBuilder):
    name = "length_matched"

    def __init__(self, turns: int = 5, seed: int = 0):
        self.matched, self.seed = DeepResearchRubric(turns), seed

    def criteria(self, category, records, search):
        count = len(self.matched.criteria(category, records, search))
        rng = np.random.default_rng([self.seed, sum(map(ord, category)), 47])
        attributes = [ATTRIBUTES[i] for i in rng.permutation(len(ATTRIBUTES))[:count]]
        return tuple(Item(("covers", "avoids")[int(rng.integers(2))], a) for a in attributes)


class OracleRubric(RubricBuilder):
    name = "oracle"
    reads_standard = True

    def fit(self, public, search, standards=None):
        if standards is None:
            raise ValueError("the oracle rubric is the hidden standard: fit it with the world's standards")
        self.budget = public.budget
        self.rubrics = {c: oracle_rubric(standards[c]) for c in public.categories}
