"""The guard search: edits keep a valid guard, greedy never moves down, MCTS and greedy spend one score per step."""

import random

import pytest

from experiments.skillsonar.actions import CATEGORIES, PROVENANCES, Features
from experiments.skillsonar.rules import Rule, RuleGuard, public_runtime_guard
from experiments.skillsonar.search import GuardSearch, random_edit
from reprolab.cli.errors import ConfigError

TARGET = Rule("replan", frozenset({"egress"}), None, frozenset({"skill"}))


def score(guard: RuleGuard) -> float:
    """A toy objective: agree with TARGET's decisions on every feature cell, minus a small size cost."""
    cells = [Features(c, r, p) for c in CATEGORIES for r in (False, True) for p in PROVENANCES]
    target = RuleGuard((TARGET,))
    return sum(guard.decide_features(f) == target.decide_features(f) for f in cells) / len(cells) - 0.001 * guard.size


def test_edits_give_valid_guards():
    rng, guard = random.Random(0), public_runtime_guard()
    for _ in range(300):
        guard = random_edit(guard, rng)
        for rule in guard.rules:
            assert rule.categories is None or rule.categories and rule.categories <= set(CATEGORIES)
            assert rule.provenances is None or rule.provenances and rule.provenances <= set(PROVENANCES)


@pytest.mark.parametrize("method", ["mcts", "greedy"])
def test_search_improves_and_counts_evaluations(method):
    calls = []
    search = GuardSearch(public_runtime_guard(), lambda g: calls.append(g) or score(g), method, seed=1)
    start = search.best_reward
    history = [search.best_reward]
    for _ in range(80):
        search.step()
        history.append(search.best_reward)
    assert len(calls) == 81 and search.evaluations == 80       # v0, then one score per step
    assert history == sorted(history) and search.best_reward > start
    assert score(search.best) == search.best_reward


def test_greedy_current_never_gets_worse():
    search = GuardSearch(public_runtime_guard(), score, "greedy", seed=3)
    values = []
    for _ in range(40):
        search.step()
        values.append(search.current_reward)
    assert values == sorted(values)


def test_same_seed_same_search():
    a = GuardSearch(public_runtime_guard(), score, "mcts", seed=5)
    b = GuardSearch(public_runtime_guard(), score, "mcts", seed=5)
    assert [a.step() for _ in range(20)] == [b.step() for _ in range(20)]


def test_unknown_method():
    with pytest.raises(ConfigError, match="mcts or greedy"):
        GuardSearch(public_runtime_guard(), score, "beam")
