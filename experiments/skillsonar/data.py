"""The episodes of a run: evolve on `train_suites`, test on `test_suites` (disjoint, or the run is refused).

Per user task the seed draws `pairs_per_task` of its suite's injection tasks, each in every skill form; every user
task also has its benign episode. `max_user_tasks` caps the user tasks drawn per suite (None: all). Leave one
injection family out: `exclude_family` removes that family from the training episodes and `test_family` keeps only
it (with the benign episodes) at test. The training loader is the search's clock (one item per step); the test
loader gives the test episodes in chunks of `test_chunk`.
"""

from __future__ import annotations

import random

import lightning as L
from torch.utils.data import DataLoader

from experiments.skillsonar.episodes import TRIGGERS, attacked_episode, benign_episode, injection_family
from experiments.skillsonar.episodes import ground_truth as planned_calls
from experiments.skillsonar.skills import FORMS
from experiments.skillsonar.suites import SUITES, load_suite
from reprolab.cli.errors import ConfigError

FAMILIES = ("egress", "write", "delete", "credential", "sensitive_read", "network")


def _as_list(items) -> list[str]:
    return [items] if isinstance(items, str) else list(items)


def family_of(suite: str, injection_task: str) -> str:
    world = load_suite(suite)
    return injection_family(planned_calls(world, world.injection_task(injection_task)))


def build_episodes(suites, seed: int, pairs_per_task: int, forms, trigger: str, max_user_tasks: int | None,
                   family: str | None = None, exclude_family: str | None = None) -> list:
    rng = random.Random(seed)
    episodes = []
    for suite in suites:
        world = load_suite(suite)
        users = world.user_task_ids
        if max_user_tasks is not None and max_user_tasks < len(users):
            users = sorted(rng.sample(users, max_user_tasks), key=users.index)
        injections = [t for t in world.injection_task_ids
                      if (family is None or family_of(suite, t) == family)
                      and (exclude_family is None or family_of(suite, t) != exclude_family)]
        for user in users:
            episodes.append(benign_episode(suite, user))
            for injection in sorted(rng.sample(injections, min(pairs_per_task, len(injections))), key=injections.index):
                episodes += [attacked_episode(suite, user, injection, form, trigger) for form in forms]
    return episodes


class SkillEpisodesDataModule(L.LightningDataModule):
    def __init__(self, train_suites=("banking", "slack"), test_suites=("travel", "workspace"), seed: int = 0,
                 pairs_per_task: int = 2, forms=FORMS, trigger: str = "middle", max_user_tasks: int | None = None,
                 test_max_user_tasks: int | None = None, exclude_family: str | None = None,
                 test_family: str | None = None, test_chunk: int = 64):
        super().__init__()
        self.train_suites, self.test_suites = _as_list(train_suites), _as_list(test_suites)
        for name in self.train_suites + self.test_suites:
            if name not in SUITES:
                raise ConfigError(f"unknown AgentDojo suite {name!r} in data.train_suites/test_suites; suites: {', '.join(SUITES)}")
        shared = sorted(set(self.train_suites) & set(self.test_suites))
        if shared:
            raise ConfigError(f"data.train_suites and data.test_suites share {', '.join(shared)}: evolving and testing "
                              "on the same suite measures nothing held out; give them disjoint suites")
        bad = [f for f in _as_list(forms) if f not in FORMS]
        if bad or trigger not in TRIGGERS:
            raise ConfigError(f"data.forms must be among {', '.join(FORMS)} and data.trigger one of {', '.join(TRIGGERS)}")
        for key, value in (("exclude_family", exclude_family), ("test_family", test_family)):
            if value is not None and value not in FAMILIES:
                raise ConfigError(f"data.{key}={value!r}; injection families: {', '.join(FAMILIES)}")
        self.seed, self.pairs_per_task, self.forms, self.trigger = seed, pairs_per_task, _as_list(forms), trigger
        self.max_user_tasks, self.test_max_user_tasks = max_user_tasks, test_max_user_tasks
        self.exclude_family, self.test_family, self.test_chunk = exclude_family, test_family, test_chunk
        self.train_episodes: list = []
        self.test_episodes: list = []
        self.search_steps = 1

    def setup(self, stage: str | None = None) -> None:
        if stage in ("fit", None) and not self.train_episodes:
            self.train_episodes = build_episodes(self.train_suites, self.seed, self.pairs_per_task, self.forms,
                                                 self.trigger, self.max_user_tasks, exclude_family=self.exclude_family)
        if stage in ("test", None) and not self.test_episodes:
            self.test_episodes = build_episodes(self.test_suites, self.seed + 1, self.pairs_per_task, self.forms,
                                                self.trigger, self.test_max_user_tasks, family=self.test_family)

    def train_dataloader(self) -> DataLoader:
        return DataLoader(range(self.search_steps), batch_size=1)

    def test_dataloader(self) -> DataLoader:
        return DataLoader(range(len(self.test_episodes)), batch_size=self.test_chunk, collate_fn=list)
