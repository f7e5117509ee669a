"""Guard evolution: Monte-Carlo tree search over rule edits, and greedy hill climbing with the same budget.

Both start from v0 (the public runtime guard) and spend one rollout evaluation (the guard scored on every training
episode) per `step`, so a training step of the trainer is one search step.

- Edits (`random_edit`): add a random rule, delete one, change a rule's decision, toggle one category or
  provenance of a rule's condition, set or free its relevance, or move a rule one place up.
- MCTS (UCT, Kocsis & Szepesvari 2006): a node is a guard; each node offers `branching` edits drawn from its own
  generator. A step selects down the tree by mean + c * sqrt(ln N_parent / n_child) while a node has no edit left
  to try (and is above `max_depth`), expands one untried edit, scores the child by its rollouts, and backs the
  reward up the path (visits and reward sums). The best guard ever scored is the result.
- Greedy: propose one random edit of the current guard per step, keep it when its reward is strictly higher.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from experiments.skillsonar.actions import CATEGORIES, PROVENANCES
from experiments.skillsonar.rules import DECISIONS, Rule, RuleGuard
from reprolab.cli.errors import ConfigError

EDITS = ("add", "delete", "decision", "category", "provenance", "relevance", "move_up")


def _toggle(values: frozenset | None, item: str, universe: tuple[str, ...]) -> frozenset | None:
    current = set(universe) if values is None else set(values)
    current ^= {item}
    if not current:
        return values
    return None if current == set(universe) else frozenset(current)


def random_rule(rng: random.Random) -> Rule:
    cats = frozenset(rng.sample(CATEGORIES, rng.randint(1, 3)))
    relevant = rng.choice((None, True, False))
    provs = rng.choice((None, frozenset(rng.sample(PROVENANCES, rng.randint(1, 2)))))
    return Rule(rng.choice(DECISIONS), cats, relevant, provs)


def random_edit(guard: RuleGuard, rng: random.Random) -> RuleGuard:
    rules = list(guard.rules)
    kind = rng.choice(EDITS) if rules else "add"
    if kind == "add":
        rules.insert(rng.randint(0, len(rules)), random_rule(rng))
        return replace(guard, rules=tuple(rules))
    i = rng.randrange(len(rules))
    rule = rules[i]
    if kind == "delete":
        del rules[i]
    elif kind == "decision":
        rules[i] = replace(rule, decision=rng.choice([d for d in DECISIONS if d != rule.decision]))
    elif kind == "category":
        rules[i] = replace(rule, categories=_toggle(rule.categories, rng.choice(CATEGORIES), CATEGORIES))
    elif kind == "provenance":
        rules[i] = replace(rule, provenances=_toggle(rule.provenances, rng.choice(PROVENANCES), PROVENANCES))
    elif kind == "relevance":
        rules[i] = replace(rule, relevant=rng.choice([v for v in (None, True, False) if v != rule.relevant]))
    elif i > 0:  # move_up
        rules[i - 1], rules[i] = rules[i], rules[i - 1]
    return replace(guard, rules=tuple(rules))


@dataclass(eq=False)
class Node:
    guard: RuleGuard
    depth: int
    rng: random.Random
    untried: int
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    visits: int = 0
    total: float = 0.0

    def uct(self, c: float) -> float:
        return self.total / self.visits + c * math.sqrt(math.log(self.parent.visits) / self.visits)


class GuardSearch:
    """`score(guard) -> reward`; `step()` spends one evaluation; `best` / `best_reward` hold the result."""

    def __init__(self, start: RuleGuard, score: Callable[[RuleGuard], float], method: str = "mcts", seed: int = 0,
                 branching: int = 6, exploration: float = 0.3, max_depth: int = 8):
        if method not in ("mcts", "greedy"):
            raise ConfigError(f"task.search must be mcts or greedy (or null for a fixed guard); got {method!r}")
        self.method, self.score, self.rng = method, score, random.Random(seed)
        self.branching, self.exploration, self.max_depth = branching, exploration, max_depth
        self.best, self.best_reward = start, score(start)
        self.current, self.current_reward = start, self.best_reward
        self.root = self._node(start, 0, None)
        self.root.visits, self.root.total = 1, self.best_reward
        self.evaluations = 0

    def _node(self, guard: RuleGuard, depth: int, parent: Node | None) -> Node:
        return Node(guard, depth, random.Random(self.rng.getrandbits(64)), self.branching, parent)

    def _record(self, guard: RuleGuard, value: float) -> None:
        self.evaluations += 1
        if value > self.best_reward:
            self.best, self.best_reward = guard, value

    def step(self) -> float:
        """One search step (one guard scored); returns the reward of the guard it scored."""
        return self._mcts_step() if self.method == "mcts" else self._greedy_step()

    def _greedy_step(self) -> float:
        candidate = random_edit(self.current, self.rng)
        value = self.score(candidate)
        self._record(candidate, value)
        if value > self.current_reward:
            self.current, self.current_reward = candidate, value
        return value

    def _mcts_step(self) -> float:
        node = self.root
        while (node.untried == 0 or node.depth >= self.max_depth) and node.children:
            node = max(node.children, key=lambda ch: ch.uct(self.exploration))
        if node.untried > 0 and node.depth < self.max_depth:
            node.untried -= 1
            child = self._node(random_edit(node.guard, node.rng), node.depth + 1, node)
            node.children.append(child)
            node = child
        value = self.score(node.guard)
        self._record(node.guard, value)
        while node is not None:
            node.visits += 1
            node.total += value
            node = node.parent
        return value
