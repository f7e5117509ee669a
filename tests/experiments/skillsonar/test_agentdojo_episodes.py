"""Episodes on AgentDojo's banking suite: the unguarded agent, the guards' routing, confirmations, the remote form."""

import pytest

pytest.importorskip("agentdojo")

from experiments.skillsonar.agent import Replay, SimulatedUser, run_episode  # noqa: E402
from experiments.skillsonar.data import SkillEpisodesDataModule  # noqa: E402
from experiments.skillsonar.episodes import attacked_episode, benign_episode  # noqa: E402
from experiments.skillsonar.metrics import evaluate, reward  # noqa: E402
from experiments.skillsonar.rules import GUARDS  # noqa: E402
from reprolab.cli.errors import ConfigError  # noqa: E402

REPLAY = Replay()


@pytest.fixture(scope="module")
def episodes():
    users = ["user_task_0", "user_task_3"]
    eps = [benign_episode("banking", u) for u in users]
    eps += [attacked_episode("banking", u, i, f) for u in users for i in ("injection_task_0", "injection_task_7")
            for f in ("plain", "obfuscated", "remote")]
    return eps


def test_unguarded_agent_solves_tasks_and_every_attack_lands(episodes):
    scores = evaluate(GUARDS["none"](), episodes, SimulatedUser(0.5), REPLAY)
    assert scores["benign_utility"] == 1.0 and scores["asr"] == 1.0 and scores["confirmations_per_task"] == 0.0


def test_confirmations_are_not_blocks(episodes):
    scores = evaluate(GUARDS["confirm_all"](), episodes, SimulatedUser(0.5), REPLAY)
    assert scores["asr_if_confirm_blocks"] == 0.0 and scores["asr_if_confirm_passes"] == 1.0
    assert 0.0 < scores["asr"] < 1.0
    assert scores["confirmations_per_task"] >= 1.0 and scores["benign_utility"] == 1.0
    assert scores["benign_utility_unconfirmed"] == 0.0


def test_the_guard_never_sees_the_injected_flag(episodes):
    seen = []

    class Spy:
        def decide(self, ctx):
            seen.append(ctx)
            return "allow"

    run_episode(episodes[2], Spy(), SimulatedUser(), REPLAY)
    assert seen and all(not hasattr(c, "injected") for c in seen)
    assert all("injection_task" not in c.skill_text for c in seen)


def test_remote_payload_fires_only_when_read():
    ep = attacked_episode("banking", "user_task_0", "injection_task_0", "remote")
    first = next(i for i, c in enumerate(ep.calls) if c.injected)
    assert ep.calls[first].needs_seen == first - 1

    class BlockReads:
        def decide(self, ctx):
            return "replan" if ctx.function == ep.calls[first - 1].function else "allow"

    assert not run_episode(ep, BlockReads(), SimulatedUser(1.0), REPLAY).success


def test_reward_counts_confirmations_and_size():
    scores = {"asr": 0.2, "benign_utility": 0.9, "confirmations_per_task": 0.5}
    assert reward(scores, 10, lam=0.25, mu=0.01) == pytest.approx(-0.2 - 0.25 * (0.1 + 0.5) - 0.1)


def test_same_suite_for_train_and_test_is_refused():
    with pytest.raises(ConfigError, match="disjoint"):
        SkillEpisodesDataModule(train_suites=["banking", "slack"], test_suites=["slack"])
    with pytest.raises(ConfigError, match="unknown AgentDojo suite"):
        SkillEpisodesDataModule(train_suites=["bank"], test_suites=["travel"])
