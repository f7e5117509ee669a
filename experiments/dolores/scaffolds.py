"""Inference-time scaffolds over one reader (DOLORES §3, §5): each answers a batch of k-hop questions and records
its tokens and LM calls. Every scaffold is a `task.scaffold` choice; none is trained.

- `monolithic`: one call, the whole context (the question's evidence articles among distractors) and the k-hop
  question, as a baseline model reasons in one context.
- `sequential`: one growing context: hop i asks the 1-hop question about the entity hop i−1 returned, after the
  earlier hops' questions and answers (chain-of-thought in one context, re-read at every call).
- `decomposed`: the scripted planner (Python, no LM tokens) splits the path into hops and spawns a thread per
  entity and hop whose context is that entity's article alone (`retrieve_article`), optionally after one worked
  example; answers are aggregated in Python (sets: a hop fans out over every entity the previous hop returned).
  `decomposed` with `worked_example=false` is the authors' `*_nomodel` ablation (no worked examples).
A thread whose entity has no article stops the chain (a premature stop; the answer is then empty).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Outcome:
    """One question's answer (a set of names), tokens spent, LM calls, and whether its chain stopped early."""

    answer: list[str] = field(default_factory=list)
    tokens: int = 0
    calls: int = 0
    broken: bool = False


def monolithic(reader, fmt, world, records: list[dict], temperature: float = 0.0) -> list[Outcome]:
    prompts = [fmt.prompt(fmt.context(world.context(r)), [], fmt.ask(r["subject"], r["chain"], r.get("text")))
               for r in records]
    return [Outcome(fmt.parse(c.text), c.tokens, 1) for c in reader.complete(prompts, temperature)]


def sequential(reader, fmt, world, records: list[dict], temperature: float = 0.0) -> list[Outcome]:
    outcomes = [Outcome() for _ in records]
    contexts = [fmt.context(world.context(r)) for r in records]
    turns: list[list[str]] = [[] for _ in records]
    current = [r["subject"] for r in records]
    for hop in range(max(len(r["chain"]) for r in records)):
        live = [i for i, r in enumerate(records) if hop < len(r["chain"]) and not outcomes[i].broken]
        if not live:
            break
        asks = [(current[i], [records[i]["chain"][hop]]) for i in live]
        done = reader.complete([fmt.prompt(contexts[i], turns[i], fmt.ask(*a)) for i, a in zip(live, asks, strict=True)],
                               temperature)
        for i, ask, completion in zip(live, asks, done, strict=True):
            answer = fmt.parse(completion.text)
            outcomes[i].tokens += completion.tokens
            outcomes[i].calls += 1
            if hop == len(records[i]["chain"]) - 1:
                outcomes[i].answer = answer
            elif answer and world.has_article(answer[0]):
                turns[i].append(fmt.answered(*ask, ", ".join(answer)))
                current[i] = answer[0]
            else:
                outcomes[i].broken = True
    return outcomes


def decomposed(reader, fmt, world, records: list[dict], worked_example: bool = True,
               temperature: float = 0.0) -> list[Outcome]:
    outcomes = [Outcome() for _ in records]
    frontier = [[r["subject"]] for r in records]       # entities the next hop starts from (Python aggregation)
    for hop in range(max(len(r["chain"]) for r in records)):
        threads = [(i, entity) for i, r in enumerate(records) if hop < len(r["chain"]) and not outcomes[i].broken
                   for entity in frontier[i]]
        if not threads:
            break
        prompts = []
        for i, entity in threads:
            demo = world.worked_example(fmt) if worked_example else None
            articles = [demo[0], world.article(entity)] if demo else [world.article(entity)]
            prompts.append(fmt.prompt(fmt.context(articles), [demo[1]] if demo else [],
                                      fmt.ask(entity, [records[i]["chain"][hop]])))
        found: dict[int, list[str]] = {}
        for (i, _), completion in zip(threads, reader.complete(prompts, temperature), strict=True):
            outcomes[i].tokens += completion.tokens
            outcomes[i].calls += 1
            found.setdefault(i, [])
            found[i] += [a for a in fmt.parse(completion.text) if a not in found[i]]
        for i, answers in found.items():
            last = hop == len(records[i]["chain"]) - 1
            if last:
                outcomes[i].answer = answers
            elif answers and all(world.has_article(a) for a in answers):
                frontier[i] = answers
            else:
                outcomes[i].broken = True
    return outcomes
