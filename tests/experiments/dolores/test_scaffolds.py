"""The universe, the metrics and the scaffolds against hand-worked cases, with an oracle reader that answers a
question from the facts written in its prompt (so every error a scaffold makes is its own, not the reader's)."""

from __future__ import annotations

import pytest

from experiments.dolores.formats import NaturalFormat, ToyFormat
from experiments.dolores.matched import sample_counts, voted
from experiments.dolores.metrics import answer_f1, majority, premature
from experiments.dolores.reader import Completion
from experiments.dolores.scaffolds import decomposed, monolithic, sequential
from experiments.dolores.universe import ATTRIBUTES, RELATIONS, Universe, name_pool
from experiments.dolores.world import ToyWorld


class OracleReader:
    """Answers the prompt's last `Q s r1 .. rk` by walking the triples its prompt states; '' when a fact is missing.
    Tokens = words of the prompt + BOS + answer + EOS, as the word tokenizer counts them."""

    def __init__(self, script=None):
        self.script = script   # answers to return in order instead (voting tests)

    def complete(self, prompts, temperature=0.0):
        out = []
        for prompt in prompts:
            words = prompt.split()
            if self.script is not None:
                answer = self.script.pop(0)
            else:
                q = len(words) - 1 - words[::-1].index("Q")
                subject, chain = words[q + 1], words[q + 2:]
                facts = {(words[i], words[i + 1]): words[i + 2] for i in range(len(words) - 3) if words[i + 3] == "."}
                answer = subject
                for relation in chain:
                    answer = facts.get((answer, relation), "")
            out.append(Completion(answer, 1 + len(words) + len(answer.split()) + 1))
        return out


@pytest.fixture(scope="module")
def world():
    return ToyWorld(Universe(12, seed=3))


def test_universe_is_functional_and_questions_walk_it_by_hand(world):
    u = world.universe
    name = u.people[0]
    assert sorted(k for k in (r for _, r, _ in u.facts(name))) == sorted([*RELATIONS, *ATTRIBUTES])
    q = u.questions(per_hop=3, max_hops=4, seed=0)[-1]
    here = q.subject
    for relation, reached in zip(q.chain, q.path, strict=True):
        here = u.follow(here, relation)
        assert here == reached
    assert q.hops == 4 and q.answer == (here,) and all(r in RELATIONS for r in q.chain[:-1])
    assert len(set(name_pool(600))) == 600 and Universe(12, seed=3).all_facts() == u.all_facts()


def test_phantomwiki_f1_and_premature_stops_by_hand():
    assert answer_f1(["Ada", "bo"], ["ada", "Cy"]) == pytest.approx(0.5)          # P = R = 1/2
    assert answer_f1(["Ada"], ["Ada", "Bo"]) == pytest.approx(2 / 3)              # P 1, R 1/2
    assert answer_f1([], ["Ada"]) == 0.0 and answer_f1(["x"], ["Ada"]) == 0.0
    record = {"path": ["Bo", "Cy", "Di"], "answer": ["Di"]}
    assert premature(["bo"], record, broken=False) and not premature(["Di"], record, broken=False)
    assert not premature(["Zed"], record, broken=False) and premature([], record, broken=True)
    assert majority([["Bo"], ["cy"], ["Cy"], ["bo"], []]) == ["bo"]               # tie: the one drawn first


def test_decomposed_and_sequential_are_exact_with_an_oracle_reader_monolithic_is_not(world):
    records = world.records(per_hop=4, max_hops=4, context_articles=6, seed=1)
    fmt, reader = ToyFormat(), OracleReader()
    for outcome, record in zip(decomposed(reader, fmt, world, records), records, strict=True):
        assert outcome.answer == record["answer"] and outcome.calls == record["hops"]
    for outcome, record in zip(sequential(reader, fmt, world, records), records, strict=True):
        assert outcome.answer == record["answer"] and outcome.calls == record["hops"]
    mono = monolithic(reader, fmt, world, records)   # the oracle walks the path too when the context holds it
    assert all(o.calls == 1 for o in mono) and all(o.answer == r["answer"] for o, r in zip(mono, records, strict=True))


def test_decomposed_tokens_are_one_thread_per_hop_counted_by_hand(world):
    (record,) = [r for r in world.records(per_hop=1, max_hops=3, context_articles=6, seed=2) if r["hops"] == 3]
    fmt = ToyFormat()
    (outcome,) = decomposed(OracleReader(), fmt, world, [record], worked_example=False)
    # each thread: BOS + one article (4 facts x 4 words) + 'Q s r' (3) + answer + EOS
    assert outcome.tokens == 3 * (1 + 16 + 3 + 1 + 1)
    (with_demo,) = decomposed(OracleReader(), fmt, world, [record], worked_example=True)
    assert with_demo.tokens == outcome.tokens + 3 * (16 + 5)     # + the demo article and its answered question


def test_a_broken_chain_is_a_premature_stop(world):
    record = world.records(per_hop=1, max_hops=3, context_articles=6, seed=2)[2]
    (outcome,) = decomposed(OracleReader(script=["Nobody"]), ToyFormat(), world, [record])
    assert outcome.broken and outcome.answer == [] and outcome.calls == 1 and premature([], record, outcome.broken)


def test_token_matched_votes_spend_the_matched_budget():
    assert sample_counts([100, 30, 250, 0], [40, 40, 50, 9]) == [3, 1, 5, 1]   # ⌈B / t⌉, at least 1
    world = ToyWorld(Universe(6, seed=0))
    (record,) = world.records(per_hop=1, max_hops=1, context_articles=4, seed=0)
    gold, wrong = record["answer"][0], "Nobody"
    script = [wrong, gold, wrong, wrong]
    (maj,) = voted(OracleReader(script=list(script)), ToyFormat(), world, [record], None, 4, 1.0, "majority")
    (best,) = voted(OracleReader(script=list(script)), ToyFormat(), world, [record], None, 4, 1.0, "best")
    assert maj.answer == [wrong.lower()] and best.answer == [gold] and maj.calls == best.calls == 4


def test_natural_format_writes_phantomwiki_sub_questions():
    fmt = NaturalFormat()
    assert fmt.ask("Tom", ["friend", "mother"]) == "Question: Who is the mother of the friend of Tom?\nAnswer:"
    assert fmt.parse(" Ann Lee, Bo and Cy\nQuestion: ...") == ["Ann Lee", "Bo", "Cy"]


def test_contexts_hold_every_hop_article_and_are_fixed_per_record(world):
    records = world.records(per_hop=3, max_hops=4, context_articles=6, seed=5)
    for r in records:
        assert len(r["context"]) == 6 and {r["subject"], *r["path"][:-1]} <= set(r["context"])
    assert records == world.records(per_hop=3, max_hops=4, context_articles=6, seed=5)
