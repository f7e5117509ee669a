"""The simulated environment's three risks, made explicit (TRUSTEE §3: the policy's own model family simulates the
tools and the user and judges the trajectory; here each is the exact answer, corrupted at a set rate).

- tool simulator: the backend's true outcome (ok / error), reported the other way round with probability ε
  (`tool_lie`): a lie about success the policy cannot check;
- user simulator: asked for a missing argument, it names a wrong value with probability u (`user_lie`);
- judge: the exact outcome (BFCL's state and response checkers against the task's gold calls), flipped with
  probability η (`judge_flip`); `judge=exact` turns the flip off (arm f; arm e also makes the tools and user true).

Every draw is a hash of (seed, task, conversation so far, what is drawn): the simulator answers the same
conversation the same way, like an LM simulator at temperature 0, and keeps no per-episode state.

The interface a simulator implements (this stand-in, and lm_simulator.LMSimulator, TRUSTEE's LM simulator):
`tool_says_ok`, `user_value`, `verdict`, each given the exact answer, the draw's key and a `Scene` (what an LM
reads; the stand-in ignores it), `propose_intent` (the task generator's role: None leaves it to the procedural
generator) and `uniform` (a reproducible draw).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from reprolab.cli.errors import ConfigError

JUDGES = ("simulated", "exact")


@dataclass(frozen=True)
class Scene:
    """What a simulator is shown: the task record, the conversation so far ((action, observation) pairs), the BFCL
    calls that reached the backend, and the call being answered (tool role)."""
    record: dict
    history: tuple = ()
    calls: tuple = ()
    call: str | None = None


@dataclass(frozen=True)
class NoisySimulator:
    tool_lie: float = 0.0
    user_lie: float = 0.0
    judge_flip: float = 0.0
    judge: str = "simulated"
    seed: int = 0

    def __post_init__(self):
        for name in ("tool_lie", "user_lie", "judge_flip"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ConfigError(f"environment.{name}={getattr(self, name)} must be a probability in [0, 1]")
        if self.judge not in JUDGES:
            raise ConfigError(f"environment.judge={self.judge!r}; choose one of {', '.join(JUDGES)}")

    def uniform(self, *key) -> float:
        """A number in [0, 1) that depends only on `key` (and the seed)."""
        digest = hashlib.sha256(repr((self.seed, *key)).encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64

    def tool_says_ok(self, truly_ok: bool, *key, scene: Scene | None = None) -> bool:
        return truly_ok != (self.uniform("tool", *key) < self.tool_lie)

    def user_lies(self, *key) -> bool:
        return self.uniform("user", *key) < self.user_lie

    def user_value(self, hidden: str, *key, scene: Scene | None = None) -> str:
        """The value the user names for the missing argument: the task's, or a wrong one (`no_<it>`)."""
        return "no_" + hidden if self.user_lies(*key) else hidden

    def verdict(self, truly_solved: bool, *key, scene: Scene | None = None) -> bool:
        if self.judge == "exact":
            return truly_solved
        return truly_solved != (self.uniform("judge", *key) < self.judge_flip)

    def propose_intent(self, difficulty, rng) -> None:
        """The stand-in writes no task: the procedural generator draws it (generator.py)."""
        return None
