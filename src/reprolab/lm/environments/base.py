"""What a policy task asks of an environment (a config `_target_`), and the one place its calls are made.

An environment holds its prompts (`records(split)`: dicts with at least "prompt"), answers the policy's
action text in `step(record, history, action)` with a `Reply` (observation text, reward, done) and may script
an expert (`expert(record, history) -> action text`) for the supervised warm start. `history` is the list of
earlier (action, observation) pairs, so an environment keeps no per-episode state. A single-turn task is
`RewardEnvironment`: subclass it with `reward(record, completion)`, or give `RewardFunction` a function.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from reprolab.cli.errors import ReprolabError


class EnvironmentCallError(ReprolabError):
    """An environment's own code raised, or answered with something that is not a reply; the message names it."""


@dataclass(frozen=True)
class Reply:
    observation: str = ""
    reward: float = 0.0
    done: bool = True


class Environment:
    """Base class: override `records`, `step` and, for the warm start, `expert`."""

    def records(self, split: str) -> list[dict]:
        raise NotImplementedError(f"{type(self).__name__} has no prompts: define records(split)")

    def prompt(self, record: dict) -> str:
        return record["prompt"]

    def step(self, record: dict, history: list[tuple[str, str]], action: str) -> Reply:
        raise NotImplementedError

    def expert(self, record: dict, history: list[tuple[str, str]]) -> str:
        raise NotImplementedError(f"{type(self).__name__} scripts no expert: define expert(record, history)")


class RewardEnvironment(Environment):
    """One turn: the completion is scored by `reward(record, completion)` and the episode ends."""

    def reward(self, record: dict, completion: str) -> float:
        raise NotImplementedError

    def step(self, record, history, action):
        return Reply(reward=self.reward(record, action), done=True)


class RewardFunction(RewardEnvironment):
    """A single-turn environment from a function `score(record, completion) -> float` and a list of records
    (`records: {train: [...], val: [...], test: [...]}`), both from config."""

    def __init__(self, score: Callable[[dict, str], float], records: dict[str, list[dict]]):
        self.score, self.split_records = score, records

    def records(self, split):
        return list(self.split_records[split])

    def reward(self, record, completion):
        return self.score(record, completion)


def environment_name(env) -> str:
    score = getattr(env, "score", None)
    own = f"{type(env).__module__}.{type(env).__qualname__}"
    return f"{own}({getattr(score, '__module__', '?')}.{getattr(score, '__qualname__', score)})" if score else own


def finite(value) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def call_environment(env, method: str, record: dict, *args):
    """`env.<method>(record, *args)`; whatever its code raises becomes one EnvironmentCallError line naming the
    environment, the method and the prompt, and a `step` must answer a `Reply` with a finite reward."""
    try:
        out = getattr(env, method)(record, *args)
    except ReprolabError:
        raise
    except Exception as err:  # noqa: BLE001 — a user's environment: any failure is reported as its own
        raise EnvironmentCallError(f"environment {environment_name(env)} raised {type(err).__name__} in "
                                   f"{method}() on prompt {str(record.get('prompt'))[:80]!r}: {err}") from err
    if method == "step" and not (isinstance(out, Reply) and finite(out.reward)):
        raise EnvironmentCallError(f"environment {environment_name(env)}.step() must return a Reply with a finite "
                                   f"reward; got {out!r} on prompt {str(record.get('prompt'))[:80]!r}")
    return out
