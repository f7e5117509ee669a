"""Generated training tasks (solvable, difficulty as asked, disjoint from the held-out BFCL tasks), the curriculum's
rule on a hand sequence, and the simulator's noise rates."""

from __future__ import annotations

import json
import random
import re

import pytest

pytest.importorskip("bfcl_eval", reason="bfcl-eval not installed (pip install --no-deps bfcl-eval)")

from experiments.trustee.bfcl import multi_turn_tasks, same_outcome  # noqa: E402
from experiments.trustee.curriculum import Curriculum  # noqa: E402
from experiments.trustee.env import held_out_intents  # noqa: E402
from experiments.trustee.generator import LIMITS, Difficulty, TaskGenerator  # noqa: E402
from experiments.trustee.simulator import NoisySimulator  # noqa: E402
from reprolab.cli.errors import ConfigError  # noqa: E402


def test_generated_gold_is_solvable_and_difficulty_shows():
    generator, rng = TaskGenerator(), random.Random(0)
    for chain, distractors, missing, errors in [(1, 0, 0, 0), (2, 3, 1, 1), (3, 2, 1, 2)]:
        task = generator.task(Difficulty(chain, distractors, missing, errors), rng)
        assert same_outcome(task["initial_config"], task["classes"], task["gold"], task["gold"])
        assert task["intent"].count(";") == chain - 1
        assert ("?" in task["intent"]) == bool(missing) and (task["hidden"] is not None) == bool(missing)
        assert len(task["fail_at"]) == min(errors, len(task["gold"]))
        tools = task["prompt"][1:task["prompt"].index("]")].split()
        needed = {call.split("(")[0] for call in task["gold"]}
        assert needed <= set(tools) and len(tools) == len(needed) + distractors


def test_no_held_out_intent_or_bfcl_name_in_training_tasks():
    held_out = {t["intent"] for t in held_out_intents()}
    generator, rng = TaskGenerator(held_out), random.Random(1)
    bfcl_text = json.dumps([multi_turn_tasks()[t["id"]] for t in held_out_intents()])
    bfcl_names = set(re.findall(r"[A-Za-z0-9_.]{4,}", bfcl_text))
    for _ in range(400):
        task = generator.task(Difficulty(rng.randint(1, 3)), rng)
        assert task["intent"] not in held_out
        assert not set(task["slots"].values()) & bfcl_names, task["slots"]
    unfiltered = TaskGenerator()
    assert any(unfiltered.task(Difficulty(1), rng)["intent"] in held_out for _ in range(200))  # the filter does work


def test_adaptive_rule_on_a_hand_sequence():
    curriculum = Curriculum(TaskGenerator(), "adaptive")
    curriculum.observe(0.8)
    assert curriculum.level == Difficulty(chain=2)
    curriculum.observe(0.5)                          # between the bars: no change
    curriculum.observe(0.9)
    assert curriculum.level == Difficulty(chain=2, distractors=1)
    curriculum.observe(0.1)                          # below 0.3: the last raised dimension comes down
    assert curriculum.level == Difficulty(chain=2)
    for _ in range(20):
        curriculum.observe(1.0)
    assert curriculum.level == LIMITS
    rng = random.Random(0)
    easy = Curriculum(TaskGenerator(), "adaptive")
    assert all(easy.draw(rng)["difficulty"] == {"chain": 1, "distractors": 0, "missing": 0, "errors": 0}
               for _ in range(10))


def test_uniform_and_static_schedules():
    rng = random.Random(0)
    uniform = Curriculum(TaskGenerator(), "uniform")
    chains = {uniform.draw(rng)["difficulty"]["chain"] for _ in range(60)}
    assert chains == {1, 2, 3}
    static = Curriculum(TaskGenerator(), "static", static_tasks=5)
    assert len({static.draw(rng)["uid"] for _ in range(60)}) == 5
    static.observe(1.0)
    with pytest.raises(ConfigError, match="data.schedule='cyclic'"):
        Curriculum(TaskGenerator(), "cyclic")


def test_simulator_noise_rates_and_exact_judge():
    noisy = NoisySimulator(tool_lie=0.2, user_lie=0.3, judge_flip=0.1, seed=3)
    n = 4000
    assert abs(sum(not noisy.verdict(True, i) for i in range(n)) / n - 0.1) < 0.02
    assert abs(sum(not noisy.tool_says_ok(True, i) for i in range(n)) / n - 0.2) < 0.02
    assert abs(sum(noisy.user_lies(i) for i in range(n)) / n - 0.3) < 0.03
    assert noisy.verdict(True, 7) == noisy.verdict(True, 7)        # the same conversation, the same answer
    exact = NoisySimulator(judge_flip=0.9, judge="exact")
    assert all(exact.verdict(True, i) and not exact.verdict(False, i) for i in range(100))
    with pytest.raises(ConfigError, match="judge_flip=1.5"):
        NoisySimulator(judge_flip=1.5)
