"""A PhantomWiki-like universe (Gong et al. 2025, §2; DOLORES §4.1): people with relations and attributes as a
`networkx.MultiDiGraph`, one short article per person, and k-hop path questions with exact answers.

Every person has exactly one object per relation (a functional graph), so a k-hop question "the r_k of … the
r_1 of s" has one answer, found by walking the graph; the last hop may ask an attribute instead. The articles
state each fact as a triple ("Bako boss Dina ."), the form the small LM reads (`tokenizer.py`).
Choice left open by the issue: relations are functional (PhantomWiki's family relations are sets); the scaffolds
handle answer sets all the same (`scaffolds.py`), the toy just never produces one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache

import networkx as nx

from reprolab.cli.errors import ConfigError

RELATIONS = ("boss", "friend")
ATTRIBUTES = {"hobby": ("chess", "golf", "opera", "poetry", "rowing", "sailing", "tennis", "yoga"),
              "job": ("baker", "chemist", "judge", "nurse", "pilot", "tailor", "teacher", "welder")}
CONSONANTS, VOWELS = "bdfgklmnprstvz", "aeiou"


@cache
def name_pool(size: int = 600) -> tuple[str, ...]:
    """`size` distinct two-syllable names (CVCV, capitalised) in a fixed shuffled order: the universe's vocabulary."""
    names = [(c1 + v1 + c2 + v2).capitalize() for c1 in CONSONANTS for v1 in VOWELS for c2 in CONSONANTS for v2 in VOWELS]
    if size > len(names):
        raise ConfigError(f"name pool of {size} asked; at most {len(names)} names exist")
    random.Random(0).shuffle(names)
    return tuple(names[:size])


@dataclass(frozen=True)
class Question:
    """A k-hop path question: start at `subject`, follow `chain` (relations, an attribute possibly last).
    `path` holds the entity reached after each hop (the last is the answer)."""

    subject: str
    chain: tuple[str, ...]
    path: tuple[str, ...]

    @property
    def hops(self) -> int:
        return len(self.chain)

    @property
    def answer(self) -> tuple[str, ...]:
        return (self.path[-1],)


class Universe:
    """`people` persons drawn from the name pool by `seed`; each relation points to another random person."""

    def __init__(self, people: int, seed: int, pool: int = 600):
        if people < 2:
            raise ConfigError(f"a universe needs at least 2 people, got {people}")
        rng = random.Random(f"universe-{people}-{seed}")
        names = rng.sample(name_pool(pool), people)
        self.graph = nx.MultiDiGraph()
        for name in names:
            self.graph.add_node(name, **{a: rng.choice(values) for a, values in ATTRIBUTES.items()})
        for name in names:
            for relation in RELATIONS:
                self.graph.add_edge(name, rng.choice([n for n in names if n != name]), key=relation)
        self.fact_order = {name: rng.sample(range(len(RELATIONS) + len(ATTRIBUTES)), len(RELATIONS) + len(ATTRIBUTES))
                           for name in names}

    @property
    def people(self) -> list[str]:
        return list(self.graph.nodes)

    def follow(self, name: str, relation: str) -> str:
        """The object of one fact: a relation's target or an attribute's value."""
        if relation in ATTRIBUTES:
            return self.graph.nodes[name][relation]
        (target,) = [v for _, v, key in self.graph.out_edges(name, keys=True) if key == relation]
        return target

    def facts(self, name: str) -> list[tuple[str, str, str]]:
        """(subject, relation, object) triples of `name`'s article, in the article's order."""
        keys = [*RELATIONS, *ATTRIBUTES]
        return [(name, keys[i], self.follow(name, keys[i])) for i in self.fact_order[name]]

    def all_facts(self) -> set[tuple[str, str, str]]:
        return {fact for name in self.people for fact in self.facts(name)}

    def question(self, rng: random.Random, hops: int) -> Question:
        """A random `hops`-hop question; the last hop is an attribute with probability 1/2."""
        subject = rng.choice(self.people)
        chain = [rng.choice(RELATIONS) for _ in range(hops - 1)]
        chain.append(rng.choice(RELATIONS) if rng.random() < 0.5 else rng.choice(list(ATTRIBUTES)))
        path, here = [], subject
        for relation in chain:
            here = self.follow(here, relation)
            path.append(here)
        return Question(subject, tuple(chain), tuple(path))

    def questions(self, per_hop: int, max_hops: int, seed: int) -> list[Question]:
        rng = random.Random(f"questions-{seed}")
        return [self.question(rng, hops) for hops in range(1, max_hops + 1) for _ in range(per_hop)]

    def distractors(self, question: Question, total: int, rng: random.Random) -> list[str]:
        """The people whose articles a monolithic context holds: those on the question's path (its evidence), then
        random others up to `total`, shuffled."""
        evidence = list(dict.fromkeys([question.subject, *question.path[:-1]]))
        others = [p for p in self.people if p not in evidence]
        chosen = evidence + rng.sample(others, max(0, min(len(others), total - len(evidence))))
        rng.shuffle(chosen)
        return chosen
