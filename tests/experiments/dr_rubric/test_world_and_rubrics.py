"""The world, the judge, the corpus and search, and the rubric builders, on hand-worked cases."""

from __future__ import annotations

import functools
from collections import Counter

import pytest

from experiments.dr_rubric.builders import (
    BootstrapRubric,
    DeepResearchRubric,
    GenericRubric,
    LengthMatchedRubric,
    OracleRubric,
    PromptOnlyRubric,
    distill,
)
from experiments.dr_rubric.corpus import TEMPLATES, NoisySearch, build_corpus, guideline, read_guideline
from experiments.dr_rubric.env import ReportEnvironment
from experiments.dr_rubric.reward_quality import candidate_pool, criteria_recall_precision, pairwise_agreement
from experiments.dr_rubric.rubric import (
    GENERIC,
    Item,
    coverage_f1,
    hallucination_rate,
    hidden_criteria,
    oracle_rubric,
    rubric_score,
)
from experiments.dr_rubric.world import Standard, World, parse_report
from reprolab.cli.errors import ConfigError

SEARCH = functools.partial(NoisySearch, k=3, noise=1.0)
RECORD = {"prompt": "kite c|b4 c7 d1 f9 g2 h5 j0 k3|", "category": "kite", "entity": "kitete0", "focus": "c",
          "facts": {"b": 4, "c": 7, "d": 1, "f": 9, "g": 2, "h": 5, "j": 0, "k": 3}, "split": "test"}
STANDARD = Standard(required=("c", "j", "h"), avoid=("b", "k"), lead="c")


def env(rubric, seed=0, **kwargs):
    return ReportEnvironment(World(seed=seed), rubric, SEARCH, **kwargs)


def test_world_is_seeded_its_splits_are_disjoint_entities_and_prompts_carry_the_dossier():
    world = World(seed=3)
    assert World(seed=3).records("test") == world.records("test") and World(seed=4).standards != world.standards
    entities = {s: {r["entity"] for r in world.records(s)} for s in ("train", "val", "test")}
    assert not (entities["train"] & entities["test"]) and len(entities["train"]) == 4 * 40
    record = world.records("train")[0]
    category, focus = record["prompt"].split("|")[0].split()
    assert (category, focus) == (record["category"], record["focus"])
    assert parse_report(record["prompt"].split("|")[1]) == list(record["facts"].items())
    for standard in world.standards.values():
        assert len(set(standard.required + standard.avoid + standard.neutral)) == 8 and standard.lead in standard.required


def test_bad_world_settings_are_one_line_errors():
    with pytest.raises(ConfigError, match="categories"):
        World(categories=9)
    with pytest.raises(ConfigError, match="budget"):
        World(budget=2)
    with pytest.raises(ConfigError, match="entities"):
        World(entities={"train": 4, "test": 2})


def test_parse_and_the_judge_by_hand():
    assert parse_report("c7 j0") == [("c", 7), ("j", 0)] and parse_report("") == []
    assert parse_report("c7 c7") is None and parse_report("c77") is None and parse_report("a1") is None
    oracle = oracle_rubric(STANDARD)  # format, budget, faithful, covers c j h, avoids b k, first c
    assert rubric_score(oracle, RECORD, "c7 j0 h5", 4) == 1.0
    assert rubric_score(oracle, RECORD, "j0 c7 b4", 4) == pytest.approx(6 / 9)  # misses h, states b, c not first
    assert rubric_score(oracle, RECORD, "c7 j1", 4) == pytest.approx(6 / 9)  # j wrong: not covered, not faithful
    assert rubric_score(oracle, RECORD, "c7 zz", 4) == 0.0
    assert rubric_score(oracle, RECORD, "c7 j0 h5", 4, normalise=False) == 9.0


def test_a_summing_judge_rewards_long_rubrics_and_the_mean_does_not():
    long_rubric = GENERIC + tuple(Item("avoids", a) for a in "dfg")
    report = "c7 d1"
    assert rubric_score(long_rubric, RECORD, report, 4, normalise=False) > rubric_score(GENERIC, RECORD, report, 4,
                                                                                       normalise=False)
    assert rubric_score(long_rubric, RECORD, report, 4) < rubric_score(GENERIC, RECORD, report, 4) == 1.0


def test_coverage_f1_and_hallucination_rate_by_hand():
    assert coverage_f1(RECORD, "c7 j0 b4 d2", STANDARD) == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    assert coverage_f1(RECORD, "", STANDARD) == 0.0 and coverage_f1(RECORD, "c7 j0 h5", STANDARD) == 1.0
    assert hallucination_rate(RECORD, "c7 j1 b4 d2") == 0.5
    assert hallucination_rate(RECORD, "") == 0.0 and hallucination_rate(RECORD, "??") == 1.0


def test_every_guideline_phrasing_reads_back_and_others_read_as_nothing():
    for kind, phrasings in TEMPLATES.items():
        for p in range(len(phrasings)):
            assert read_guideline(guideline(kind, "moth", "g", p, "c")) == (kind, "moth", "g")
    assert read_guideline("kite kitetr3 b4 c7 d1 f9 g2 h5 j0 k3") is None


def test_corpus_holds_each_criterion_and_search_pages_through_unseen_documents():
    world = World(seed=1)
    corpus = build_corpus(world, copies=2, misleading=3)
    read = Counter(read_guideline(d) for d in corpus if read_guideline(d))
    for category, standard in world.standards.items():
        for item in hidden_criteria(standard):
            assert read[(item.kind, category, item.attribute)] >= 2
    search = NoisySearch(corpus, k=3, noise=0.0)
    first, second = search.search("kite reports must give"), search.search("kite reports must give")
    assert len(first) == len(second) == 3 and not set(first) & set(second) and search.queries == 2
    assert all(read_guideline(d) == ("covers", "kite", read_guideline(d)[2]) for d in first)  # no noise: best matches


def test_distill_keeps_the_majority_and_drops_ties():
    votes = Counter({Item("covers", "c"): 2, Item("avoids", "c"): 1, Item("covers", "d"): 1, Item("avoids", "d"): 1,
                     Item("first", "c"): 2, Item("first", "j"): 1, Item("avoids", "k"): 1})
    assert distill(votes) == (Item("covers", "c"), Item("avoids", "k"), Item("first", "c"))
    assert distill(votes, min_votes=2) == (Item("covers", "c"), Item("first", "c"))
    assert distill(Counter({Item("first", "c"): 1, Item("first", "j"): 1})) == ()


def test_the_standard_is_reachable_only_through_search():
    """No guideline documents in the corpus: DR-rubric finds no criterion, bootstrap keeps only its prior (covers
    items for attributes the prompts name), and neither is handed the standard; only the oracle holds it."""
    dr, boot = DeepResearchRubric(5), BootstrapRubric(3)
    for builder in (dr, boot):
        e = env(builder, copies=0, misleading=0)
        assert e.search_queries > 0 and not builder.reads_standard
    assert all(dr.rubric({"category": c}) == GENERIC for c in dr.rubrics)
    named = {c: {r["focus"] for r in e.records("train") if r["category"] == c} for c in boot.rubrics}
    for category, rubric in boot.rubrics.items():
        assert {i.kind for i in rubric[len(GENERIC):]} == {"covers"}
        assert {i.attribute for i in rubric[len(GENERIC):]} <= named[category]
    with pytest.raises(ValueError, match="standards"):
        OracleRubric().fit(World().public(), SEARCH, None)
    oracle = OracleRubric()
    e = env(oracle)
    assert all(criteria_recall_precision(oracle.rubric(r), e.world.standards[r["category"]]) == (1.0, 1.0)
               for r in e.records("test")) and e.search_queries == 0


def test_more_turns_read_on_from_where_fewer_stopped():
    world = World(seed=2)
    corpus = build_corpus(world)
    short, long = (DeepResearchRubric(t).research("kite", SEARCH(corpus, seed=[2, 0])) for t in (1, 5))
    assert all(long[item] >= n for item, n in short.items()) and sum(long.values()) > sum(short.values())


def test_prompt_only_adds_the_prompt_attribute_and_length_matched_copies_dr_length():
    prompt_only = PromptOnlyRubric()
    env(prompt_only)
    assert prompt_only.rubric(RECORD) == GENERIC + (Item("covers", "c"),)
    dr, matched = DeepResearchRubric(5), LengthMatchedRubric(5, seed=0)
    env(dr), env(matched)
    assert all(len(dr.rubric({"category": c})) == len(matched.rubric({"category": c})) for c in dr.rubrics)
    generic = GenericRubric()
    env(generic)
    assert generic.rubric(RECORD) == GENERIC


def test_environment_rewards_train_by_rubric_and_held_out_by_oracle_and_the_expert_is_generic():
    e = env(GenericRubric())
    train, test = e.records("train")[0], e.records("test")[0]
    report = e.expert(test, [])
    assert e.reward(test, report) == e.oracle_quality(test, report)
    assert e.reward(train, "") == rubric_score(GENERIC, train, "", 4) == 0.75  # all but "at least two items"
    items = parse_report(report)
    assert 2 <= len(items) <= 4 and hallucination_rate(test, report) == 0.0 and e.expert(test, []) == report
    assert set(e.measures(test, report)) == {"oracle_quality", "coverage_f1", "hallucination_rate", "rubric_reward"}


def test_pairwise_agreement_by_hand_and_the_pool_is_fixed():
    assert pairwise_agreement([3, 2, 1], [3, 2, 1]) == 1.0 and pairwise_agreement([1, 2, 3], [3, 2, 1]) == 0.0
    assert pairwise_agreement([1, 1, 1], [3, 2, 1]) == 0.5  # all ties: one half each
    assert pairwise_agreement([1, 2], [5, 5]) != pairwise_agreement([1, 2], [5, 5])  # NaN: no pair differs
    pool = candidate_pool(RECORD, 24, 4)
    assert pool == candidate_pool(RECORD, 24, 4) and len(pool) == 24
    assert all(len(parse_report(r)) <= 5 for r in pool)


def test_a_larger_training_world_keeps_the_standards_and_held_out_entities():
    small, large = World(seed=5), World(seed=5, entities={"train": 400, "val": 8, "test": 16})
    assert small.standards == large.standards and small.records("test") == large.records("test")
    assert large.records("train")[:160] == small.records("train")
    held_out = {tuple(r["facts"].items()) for r in small.records("test") + small.records("val")}
    assert not held_out & {tuple(r["facts"].items()) for r in large.records("train")}
