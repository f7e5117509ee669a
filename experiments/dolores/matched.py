"""The token-matched baselines (the authors' token-fair protocol, "Arm A"): the monolithic scaffold sampled k times
at temperature τ, with k set per question so that the samples spend the tokens another scaffold spent on it.

Budget B_q = the tokens of `match` (e.g. `decomposed`) on question q; one monolithic sample costs t_q tokens;
k_q = ⌈B_q / t_q⌉, so the baseline never spends fewer tokens than the scaffold it is matched to (a win of that
scaffold is then conservative; a fixed `samples=k` instead gives every question k). `majority@k` answers with the
most frequent answer set; `best@k` with the sample of highest F1 against the gold answer: an oracle selector, the
ceiling of any reranker at that budget. The token columns give what each arm really spent.
"""

from __future__ import annotations

from experiments.dolores.metrics import answer_f1, majority
from experiments.dolores.scaffolds import Outcome, monolithic


def sample_counts(budgets: list[int], first_sample_tokens: list[int]) -> list[int]:
    return [max(1, -(-budget // max(1, cost))) for budget, cost in zip(budgets, first_sample_tokens, strict=True)]


def voted(reader, fmt, world, records: list[dict], budgets: list[int] | None, samples: int, temperature: float,
          select: str) -> list[Outcome]:
    """`select` = 'majority' or 'best'; `budgets` None: `samples` samples per question."""
    draws = [[o] for o in monolithic(reader, fmt, world, records, temperature)]
    counts = (sample_counts(budgets, [d[0].tokens for d in draws]) if budgets is not None
              else [samples] * len(records))
    for round_ in range(1, max(counts)):
        live = [i for i, k in enumerate(counts) if k > round_]
        for i, outcome in zip(live, monolithic(reader, fmt, world, [records[i] for i in live], temperature), strict=True):
            draws[i].append(outcome)
    outcomes = []
    for record, samples_ in zip(records, draws, strict=True):
        answers = [o.answer for o in samples_]
        if select == "majority":
            answer = majority(answers)
        else:
            answer = max(answers, key=lambda a: answer_f1(a, record["answer"]))
        outcomes.append(Outcome(list(answer), sum(o.tokens for o in samples_), len(samples_)))
    return outcomes
