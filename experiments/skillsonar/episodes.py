"""Episodes: one user task with its benign skill, or a (user task, injection task, form) with a malicious skill.

The scripted agent proposes the user task's ground-truth calls in order; a malicious skill makes it propose the
injection task's ground-truth calls at the trigger point: after `trigger` of the user task's calls for the plain
and obfuscated forms, right after the first call whose output carries the planted note for the remote form (and
only if that call ran: a payload the agent never read fires nothing). `injected` marks a call for the metrics and
the simulated user, never for a guard.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from experiments.skillsonar.actions import EFFECT_CATEGORIES, function_category
from experiments.skillsonar.skills import FORMS, PAYLOAD_PREFIX, benign_skill, malicious_skill, payload
from experiments.skillsonar.suites import execute, load_suite
from reprolab.cli.errors import ConfigError

TRIGGERS = ("start", "middle", "end")


@dataclass(frozen=True, eq=False)
class PlannedCall:
    function: str
    args: dict
    injected: bool = False
    needs_seen: int | None = None     # index of the call whose output must have carried the payload


@dataclass(frozen=True, eq=False)
class Episode:
    suite: str
    user_task: str
    prompt: str
    skill_text: str
    calls: tuple[PlannedCall, ...]
    final_output: str                 # the agent's answer when every one of the user task's calls ran
    injection_task: str | None = None
    form: str | None = None
    family: str | None = None
    env_bytes: bytes | None = None    # the remote form's environment with the planted note

    @property
    def key(self) -> tuple:
        """What fixes the episode's executions: its tasks, its form and the order of its calls."""
        order = tuple((c.function, c.injected) for c in self.calls)
        return (self.suite, self.user_task, self.injection_task, self.form, order)

    @property
    def attacked(self) -> bool:
        return self.injection_task is not None


def ground_truth(world, task) -> list[tuple[str, dict]]:
    env = world.fresh_env()
    env = task.init_environment(env) if hasattr(task, "init_environment") else env
    return [(c.function, dict(c.args)) for c in task.ground_truth(env)]


def injection_family(calls: list[tuple[str, dict]]) -> str:
    """An injection task's family: the category of its first call with an effect ("network" if it only fetches)."""
    effects = [function_category(f) for f, _ in calls if function_category(f) in EFFECT_CATEGORIES]
    return effects[0] if effects else "network"


def trigger_index(n_calls: int, trigger: str) -> int:
    if trigger not in TRIGGERS:
        raise ConfigError(f"attack trigger must be one of {', '.join(TRIGGERS)}; got {trigger!r}")
    return {"start": 0, "middle": math.ceil(n_calls / 2), "end": n_calls}[trigger]


@functools.cache
def canary_env(suite: str) -> bytes:
    return load_suite(suite).injected_env(payload("canary"))


@functools.cache
def payload_call_index(suite: str, user_task: str) -> int | None:
    """The first of the user task's ground-truth calls whose output shows a planted note (None: never reads one)."""
    world = load_suite(suite)
    task = world.user_task(user_task)
    _, _, outputs, _ = execute(world, ground_truth(world, task), canary_env(suite), init_task=task)
    return next((i for i, out in enumerate(outputs) if PAYLOAD_PREFIX in out), None)


@functools.cache
def injected_env(suite: str, injection_task: str) -> bytes:
    world = load_suite(suite)
    return world.injected_env(payload(world.injection_task(injection_task).GOAL))


def benign_episode(suite: str, user_task: str) -> Episode:
    world = load_suite(suite)
    task = world.user_task(user_task)
    calls = ground_truth(world, task)
    return Episode(suite, user_task, task.PROMPT, benign_skill(task.PROMPT, [f for f, _ in calls], suite),
                   tuple(PlannedCall(f, a) for f, a in calls), task.GROUND_TRUTH_OUTPUT)


def attacked_episode(suite: str, user_task: str, injection_task: str, form: str, trigger: str = "middle") -> Episode:
    if form not in FORMS:
        raise ConfigError(f"attack form must be one of {', '.join(FORMS)}; got {form!r}")
    world = load_suite(suite)
    task, injection = world.user_task(user_task), world.injection_task(injection_task)
    calls = ground_truth(world, task)
    attack = ground_truth(world, injection)
    env_bytes, needs = None, None
    if form == "remote":
        seen = payload_call_index(suite, user_task)
        at = len(calls) if seen is None else seen + 1
        needs, env_bytes = (-1 if seen is None else seen), injected_env(suite, injection_task)
    else:
        at = trigger_index(len(calls), trigger)
    planned = ([PlannedCall(f, a) for f, a in calls[:at]]
               + [PlannedCall(f, a, injected=True, needs_seen=needs) for f, a in attack]
               + [PlannedCall(f, a) for f, a in calls[at:]])
    skill_steps_before = len(dict.fromkeys(f for f, _ in calls[:at]))
    text = malicious_skill(task.PROMPT, [f for f, _ in calls], suite, injection.GOAL, form, skill_steps_before)
    return Episode(suite, user_task, task.PROMPT, text, tuple(planned), task.GROUND_TRUTH_OUTPUT,
                   injection_task, form, injection_family(attack), env_bytes)
