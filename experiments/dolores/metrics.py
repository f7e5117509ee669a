"""PhantomWiki's answer metrics (Gong et al. 2025, `phantom_eval/score.py`): answers are sets of names, compared
case-insensitively; F1 of the predicted set against the gold set. A premature stop is an answer that is an
entity the path passes through before its end (the scaffold answered a shorter question), or a broken chain.
"""

from __future__ import annotations

from collections import Counter


def normalise(names) -> frozenset[str]:
    return frozenset(n.strip().lower() for n in names if n.strip())


def answer_f1(predicted, gold) -> float:
    """2PR / (P + R) of the normalised sets; 0 for an empty prediction."""
    p, g = normalise(predicted), normalise(gold)
    hits = len(p & g)
    if not hits:
        return 0.0
    precision, recall = hits / len(p), hits / len(g)
    return 2 * precision * recall / (precision + recall)


def premature(predicted, record: dict, broken: bool) -> bool:
    """The chain broke, or the answer is an intermediate entity of the gold path (not its end)."""
    if broken:
        return True
    path = record.get("path") or []
    answer, early = normalise(predicted), [normalise([p]) for p in path[:-1]]
    return bool(answer) and answer != normalise(record["answer"]) and answer in early


def majority(answers: list[list[str]]) -> list[str]:
    """The most frequent answer set among the samples (ties: the one drawn first); empty answers do not vote."""
    sets = [normalise(a) for a in answers if normalise(a)]
    if not sets:
        return []
    counts = Counter(sets)
    top = max(counts.values())
    winner = next(s for s in sets if counts[s] == top)
    return sorted(winner)
