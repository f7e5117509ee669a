"""The procedurally generated world: entity dossiers per category, each category with a hidden expert standard.

A category (e.g. "kite") has eight attributes (b, c, d, f, g, h, j, k). Its hidden standard (stage I of the paper elicits exactly these kinds
of knowledge, §3.1): the *required* attributes an expert report must state, *look-alike* attributes an expert
never states for it (a common confusion with a required one), and a structural constraint (the *lead* attribute
opens the report). A prompt is one entity's dossier, every attribute with its value, plus one attribute the
prompt's own words name (`focus`; a required one with probability `focus_required`, else a neutral one):

    "kite c|b4 c7 d1 f9 g2 h5 j0 k3|"   →   a report "c7 b4 g2" (attribute–value items, at most `budget`)

The standard is held by `World` and handed to nothing but the oracle rubric and the scoring of results; every
other rubric builder sees a `PublicWorld` (categories and training prompts) and reaches the standard only through
the noisy search engine over `corpus.py`'s documents. Train, val and test prompts are disjoint entities.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reprolab.cli.errors import ConfigError

ATTRIBUTES = "bcdfghjk"   # no attribute is an English word ("a", "i"), so a query word names one thing
CATEGORY_NAMES = ("kite", "moth", "reef", "vale", "dune", "fern")
SPLITS = ("train", "val", "test")


@dataclass(frozen=True)
class Standard:
    """A category's hidden expert standard."""

    required: tuple[str, ...]
    avoid: tuple[str, ...]
    lead: str

    @property
    def neutral(self) -> tuple[str, ...]:
        return tuple(a for a in ATTRIBUTES if a not in self.required + self.avoid)


@dataclass(frozen=True)
class PublicWorld:
    """What a rubric builder may read: the category names and the training prompts (never the standards)."""

    categories: tuple[str, ...]
    train_records: tuple[dict, ...]
    budget: int


class World:
    """Categories, their standards and entity dossiers, all drawn from `seed`; `entities` per split and category."""

    def __init__(self, seed: int = 0, categories: int = 4, required: int = 3, avoid: int = 2,
                 entities: dict | None = None, focus_required: float = 2 / 3, budget: int = 4):
        entities = dict(entities or {"train": 40, "val": 8, "test": 16})
        if not 1 <= categories <= len(CATEGORY_NAMES):
            raise ConfigError(f"environment.world.categories={categories}; choose 1..{len(CATEGORY_NAMES)}")
        if required < 1 or avoid < 0 or required + avoid >= len(ATTRIBUTES):
            raise ConfigError(f"environment.world: required={required}, avoid={avoid} must leave a neutral attribute "
                              f"of the {len(ATTRIBUTES)}")
        if set(entities) != set(SPLITS) or min(entities.values()) < 1:
            raise ConfigError(f"environment.world.entities needs a positive count for each of {SPLITS}; got {entities}")
        if budget < required:
            raise ConfigError(f"environment.world.budget={budget} cannot hold the {required} required attributes")
        self.seed, self.budget, self.focus_required = seed, budget, focus_required
        rng = np.random.default_rng([seed, 44])
        self.categories = CATEGORY_NAMES[:categories]
        self.standards = {}
        for category in self.categories:
            order = [ATTRIBUTES[i] for i in rng.permutation(len(ATTRIBUTES))]
            req = tuple(order[:required])
            self.standards[category] = Standard(req, tuple(order[required:required + avoid]), lead=req[0])
        # one generator per split: a world with more training entities has the same val/test entities and the
        # same first training ones (the warm start's larger world contains no held-out dossier)
        streams = {split: np.random.default_rng([seed, 44, i + 1]) for i, split in enumerate(SPLITS)}
        self.split_records = {split: [self.record(category, f"{category}{split[:2]}{n}", split, streams[split])
                                      for n in range(entities[split]) for category in self.categories]
                              for split in SPLITS}

    def record(self, category: str, entity: str, split: str, rng: np.random.Generator) -> dict:
        standard = self.standards[category]
        facts = {a: int(rng.integers(10)) for a in ATTRIBUTES}
        pool = standard.required if rng.random() < self.focus_required else standard.neutral
        focus = pool[int(rng.integers(len(pool)))]
        dossier = " ".join(f"{a}{v}" for a, v in facts.items())
        return {"prompt": f"{category} {focus}|{dossier}|", "category": category, "entity": entity, "focus": focus,
                "facts": facts, "split": split}

    def records(self, split: str) -> list[dict]:
        return list(self.split_records[split])

    def public(self) -> PublicWorld:
        return PublicWorld(self.categories, tuple(self.split_records["train"]), self.budget)


def parse_report(text: str) -> list[tuple[str, int]] | None:
    """A report's (attribute, value) items in order; None when a space-separated token is not letter + digit or an
    attribute repeats (a repeated item would pad a report)."""
    items = []
    for token in text.split():
        if len(token) != 2 or token[0] not in ATTRIBUTES or not token[1].isdigit() or token[0] in dict(items):
            return None
        items.append((token[0], int(token[1])))
    return items


def write_report(record: dict, attributes: list[str]) -> str:
    """The faithful report stating `attributes` in order, values from the record's dossier."""
    return " ".join(f"{a}{record['facts'][a]}" for a in attributes)
