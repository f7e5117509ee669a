"""Stage A: a rubric's reward quality on a fixed pool of candidate reports per prompt, without RL.

The pool (`candidate_pool`) is fixed by the prompt's entity, the same for every rubric: reports of 0 to
budget + 1 attributes in random order, each value the dossier's with probability `faithful`, else a wrong digit.
Two measures per prompt:
- criteria recall (precision): the share of the hidden standard's criteria the rubric holds (of the rubric's
  criterion items that are in the standard);
- pairwise agreement: over the pool's pairs whose oracle qualities differ, the share the rubric's reward orders
  the same way (a tie in the rubric's reward counts one half): how often a GRPO group's ranking would be right.
"""

from __future__ import annotations

import itertools
import zlib

import numpy as np

from experiments.dr_rubric.rubric import CRITERION_KINDS, Item, hidden_criteria
from experiments.dr_rubric.world import ATTRIBUTES, Standard


def candidate_pool(record: dict, size: int, budget: int, faithful: float = 0.85) -> list[str]:
    rng = np.random.default_rng([zlib.crc32(record["entity"].encode()), 48])
    reports = []
    for _ in range(size):
        chosen = [ATTRIBUTES[i] for i in rng.permutation(len(ATTRIBUTES))[:int(rng.integers(budget + 2))]]
        values = [record["facts"][a] if rng.random() < faithful else (record["facts"][a] + 1 + int(rng.integers(9))) % 10
                  for a in chosen]
        reports.append(" ".join(f"{a}{v}" for a, v in zip(chosen, values, strict=True)))
    return reports


def pairwise_agreement(rubric_scores: list[float], oracle_scores: list[float]) -> float:
    """Share of pairs with different oracle scores that the rubric orders alike (ties ½); NaN when none differ."""
    agree, pairs = 0.0, 0
    for i, j in itertools.combinations(range(len(oracle_scores)), 2):
        truth = np.sign(oracle_scores[i] - oracle_scores[j])
        if truth == 0:
            continue
        pairs += 1
        guess = np.sign(rubric_scores[i] - rubric_scores[j])
        agree += 0.5 if guess == 0 else float(guess == truth)
    return agree / pairs if pairs else float("nan")


def criteria_recall_precision(rubric: tuple[Item, ...], standard: Standard) -> tuple[float, float]:
    hidden = set(hidden_criteria(standard))
    own = {i for i in rubric if i.kind in CRITERION_KINDS}
    hit = len(own & hidden)
    return hit / len(hidden), (hit / len(own) if own else 0.0)
