"""What the scaffolds may look up in a universe: an entity's article (the planner's `retrieve_article` tool), a
question's fixed context (its evidence among distractors, the same for every scaffold), and one worked example.
"""

from __future__ import annotations

import random

from experiments.dolores.universe import Question, Universe


def article_text(facts: list[tuple[str, str, str]]) -> str:
    return " ".join(f"{s} {r} {o} ." for s, r, o in facts)


class ToyWorld:
    """A `Universe` seen through articles. The worked example is a fact of a separate two-person universe."""

    def __init__(self, universe: Universe, pool: int = 600):
        self.universe = universe
        demo = Universe(2, seed=-1, pool=pool)
        self.demo_facts = demo.facts(demo.people[0])
        self.people = set(universe.people)

    def has_article(self, name: str) -> bool:
        return name in self.people

    def article(self, name: str) -> str:
        return article_text(self.universe.facts(name))

    def context(self, record: dict) -> list[str]:
        return [self.article(name) for name in record["context"]]

    def worked_example(self, fmt) -> tuple[str, str]:
        """(the demo article, its answered 1-hop question): the in-context example a thread may start from."""
        subject, relation, obj = self.demo_facts[0]
        return article_text(self.demo_facts), fmt.answered(subject, [relation], obj)

    def records(self, per_hop: int, max_hops: int, context_articles: int, seed: int) -> list[dict]:
        """`per_hop` questions of each hop count 1..`max_hops`, each with its fixed monolithic context."""
        rng = random.Random(f"contexts-{seed}")
        return [question_record(f"q{n}", q, self.universe.distractors(q, context_articles, rng))
                for n, q in enumerate(self.universe.questions(per_hop, max_hops, seed))]


def question_record(qid: str, q: Question, context: list[str]) -> dict:
    return {"id": qid, "subject": q.subject, "chain": list(q.chain), "path": list(q.path), "answer": list(q.answer),
            "hops": q.hops, "context": context, "text": None}
