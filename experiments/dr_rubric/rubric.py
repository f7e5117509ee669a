"""Atomic, verifiable rubric items, the judge that scores a report against a rubric, and the oracle's measures.

An item is one check a verifier can decide from the report and the prompt's dossier (stage II of the paper
distils search findings into such items, §3.2):

    covers a   the report states attribute a with the dossier's value      (a fact the standard requires)
    avoids a   the report does not state a                                 (a look-alike confusion)
    first a    the report opens with a                                     (a structural constraint)
    format     every token is attribute + digit      budget     at most `budget` items
    faithful   every stated value is the dossier's   substantive  at least two items   (generic items)

The judge's reward is the *mean* of the satisfied items (`normalise: true`): a rubric's length does not scale its
reward. `normalise: false` sums them instead (the trap the issue names: a judge that rewards long rubrics).
An unparseable report satisfies nothing. The oracle rubric is the hidden standard as items; its score is the
oracle quality every result is measured by, beside coverage F1 and the hallucination rate.
"""

from __future__ import annotations

from dataclasses import dataclass

from experiments.dr_rubric.world import Standard, parse_report

GENERIC_KINDS = ("format", "budget", "faithful", "substantive")
CRITERION_KINDS = ("covers", "avoids", "first")


@dataclass(frozen=True, order=True)
class Item:
    kind: str
    attribute: str = ""

    def __str__(self) -> str:
        return f"{self.kind} {self.attribute}".strip()


GENERIC = (Item("format"), Item("budget"), Item("faithful"), Item("substantive"))


def satisfied(item: Item, items: list[tuple[str, int]], facts: dict, budget: int) -> bool:
    stated = dict(items)
    if item.kind == "covers":
        return stated.get(item.attribute) == facts[item.attribute]
    if item.kind == "avoids":
        return item.attribute not in stated
    if item.kind == "first":
        return bool(items) and items[0][0] == item.attribute
    if item.kind == "format":
        return True
    if item.kind == "budget":
        return len(items) <= budget
    if item.kind == "faithful":
        return all(facts[a] == v for a, v in items)
    if item.kind == "substantive":
        return len(items) >= 2
    raise ValueError(f"unknown rubric item kind {item.kind!r}; known: {CRITERION_KINDS + GENERIC_KINDS}")


def rubric_score(rubric: tuple[Item, ...], record: dict, report: str, budget: int, normalise: bool = True) -> float:
    """The judge: the mean (or, `normalise=False`, the sum) of the rubric's items the report satisfies."""
    items = parse_report(report)
    hits = 0 if items is None else sum(satisfied(i, items, record["facts"], budget) for i in rubric)
    return hits / max(len(rubric), 1) if normalise else float(hits)


def hidden_criteria(standard: Standard) -> tuple[Item, ...]:
    """The standard as criterion items: covers each required, avoids each look-alike, the lead first."""
    return (tuple(Item("covers", a) for a in standard.required) + tuple(Item("avoids", a) for a in standard.avoid)
            + (Item("first", standard.lead),))


def oracle_rubric(standard: Standard) -> tuple[Item, ...]:
    return (Item("format"), Item("budget"), Item("faithful")) + hidden_criteria(standard)


def coverage_f1(record: dict, report: str, standard: Standard) -> float:
    """F1 of the attributes stated with the dossier's value against the required ones (0 when unparseable)."""
    items = parse_report(report)
    if not items:
        return 0.0
    correct = {a for a, v in items if record["facts"][a] == v}
    hit = len(correct & set(standard.required))
    precision, recall = hit / len(items), hit / len(standard.required)
    return 0.0 if hit == 0 else 2 * precision * recall / (precision + recall)


def hallucination_rate(record: dict, report: str) -> float:
    """Fraction of stated items whose value is not the dossier's (1 for an unparseable report, 0 for an empty one)."""
    items = parse_report(report)
    if items is None:
        return 1.0
    return sum(record["facts"][a] != v for a, v in items) / len(items) if items else 0.0
