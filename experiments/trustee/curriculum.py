"""How difficult the next generated training tasks are: the adaptive curriculum (arm a), uniform difficulty
(arm b), or one task set generated once (arm c).

Adaptive (TRUSTEE §3.3, "an adaptive curriculum over several difficulty dimensions"; the paper's exact rule is
not public, so the issue's): after each batch, when the judged success rate is above `raise_above` (0.7) the next
dimension in turn (chain → distractors → missing → errors) goes up one level; below `lower_below` (0.3) the last
raised dimension comes down one. A task's level in each dimension is drawn uniformly from the floor up to the
current level, so easier tasks stay in the mix. The success rate is the judge's (what a simulator-trained
curriculum sees), fed in by callbacks.CurriculumFeedback after every optimizer step.
"""

from __future__ import annotations

import random
from dataclasses import fields, replace

from experiments.trustee.generator import FLOOR, LIMITS, Difficulty, TaskGenerator
from reprolab.cli.errors import ConfigError

SCHEDULES = ("adaptive", "uniform", "static")
ORDER = tuple(f.name for f in fields(Difficulty))


def uniform(rng: random.Random, limits: Difficulty = LIMITS, floor: Difficulty = FLOOR) -> Difficulty:
    """Each dimension drawn uniformly from its floor up to `limits`."""
    return Difficulty(**{d: rng.randint(getattr(floor, d), getattr(limits, d)) for d in ORDER})


class Curriculum:
    """`draw(rng)` the next task; `observe(success)` after a batch. `schedule`: adaptive | uniform | static."""

    def __init__(self, generator: TaskGenerator, schedule: str = "adaptive", raise_above: float = 0.7,
                 lower_below: float = 0.3, static_tasks: int = 64, seed: int = 0):
        if schedule not in SCHEDULES:
            raise ConfigError(f"data.schedule={schedule!r}; choose one of {', '.join(SCHEDULES)}")
        if not 0 <= lower_below < raise_above <= 1:
            raise ConfigError("data.lower_below < data.raise_above, both in [0, 1]")
        if static_tasks < 1:
            raise ConfigError("data.static_tasks must be >= 1")
        self.generator, self.schedule = generator, schedule
        self.raise_above, self.lower_below = raise_above, lower_below
        self.level, self.raised, self.next_dimension = FLOOR, [], 0
        self.drawn, self.static_tasks, self.seed = 0, static_tasks, seed
        self.pool: list[dict] = []

    def static_pool(self) -> list[dict]:
        """The static arm's task set, generated on the first draw (an LM task writer is ready by then)."""
        if not self.pool:
            rng = random.Random(f"static-{self.seed}")
            self.pool = [self.generator.task(uniform(rng), rng, f"static{i}") for i in range(self.static_tasks)]
        return self.pool

    def draw(self, rng: random.Random) -> dict:
        self.drawn += 1
        if self.schedule == "static":
            return rng.choice(self.static_pool())
        difficulty = uniform(rng, self.level if self.schedule == "adaptive" else LIMITS)
        return self.generator.task(difficulty, rng, f"gen{self.drawn}")

    def observe(self, success: float) -> None:
        if self.schedule != "adaptive":
            return
        if success > self.raise_above:
            for _ in ORDER:
                name = ORDER[self.next_dimension % len(ORDER)]
                self.next_dimension += 1
                if getattr(self.level, name) < getattr(LIMITS, name):
                    self.level = replace(self.level, **{name: getattr(self.level, name) + 1})
                    self.raised.append(name)
                    return
        elif success < self.lower_below and self.raised:
            name = self.raised.pop()
            self.level = replace(self.level, **{name: getattr(self.level, name) - 1})
