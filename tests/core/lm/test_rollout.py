"""Multi-turn episodes against a scripted environment, the tensors they become, the SFT batches, bad environments."""

from __future__ import annotations

import pytest
import torch

from reprolab.lm.data import ExpertEpisodeDataModule
from reprolab.lm.environments.base import EnvironmentCallError, Reply, RewardEnvironment
from reprolab.lm.environments.guess_number import GuessNumber
from reprolab.lm.rollout import expert_actor, run_episodes, start_episodes, to_batch
from reprolab.lm.sampling import left_pad, sample_completions
from reprolab.lm.tokenizer import ByteTokenizer
from reprolab.models.llama import LlamaLM

TOK = ByteTokenizer()
EOS = TOK.eos_id


def scripted(*guesses: str):
    """An actor that plays `guesses` in turn (the same for every episode)."""
    def act(live):
        return [TOK.encode(guesses[e.turns]) + [EOS] for e in live]
    return act


def test_multi_turn_episode_until_done_then_until_the_turn_budget():
    env = GuessNumber(0, 9)
    record = {"prompt": "guess 0-9:", "secret": 7}
    (won,) = run_episodes(env, start_episodes(env, [record], TOK), TOK, scripted("4", "7"), max_turns=3)
    assert (won.reward, won.turns, won.done, won.truncated) == (1.0, 2, True, False)
    assert won.history == [("4", " higher:"), ("7", "")]
    expected = [TOK.bos_id, *TOK.encode("guess 0-9:"), *TOK.encode("4"), EOS, *TOK.encode(" higher:"), *TOK.encode("7"), EOS]
    assert won.tokens == expected
    actions = [t for t, a in zip(won.tokens, won.is_action, strict=True) if a]
    assert actions == [*TOK.encode("4"), EOS, *TOK.encode("7"), EOS]
    (lost,) = run_episodes(env, start_episodes(env, [record], TOK), TOK, scripted("0", "1", "2"), max_turns=3)
    assert (lost.reward, lost.turns, lost.truncated) == (0.0, 3, True)
    assert lost.history[-1] == ("2", " higher:") and lost.tokens[-1] == EOS  # no observation after the last turn


def test_expert_bisects_and_batches_align_actions_with_next_token_targets():
    env = GuessNumber(0, 9)
    records = env.records("train")
    episodes = run_episodes(env, start_episodes(env, records, TOK, group_size=2), TOK, expert_actor(env, TOK), 4)
    assert len(episodes) == 20 and all(e.reward == 1.0 for e in episodes)
    assert max(e.turns for e in episodes) == 4  # ⌈log2 10⌉
    batch = to_batch(episodes, TOK.pad_id)
    assert batch.tokens.shape == batch.attention_mask.shape
    assert batch.action_mask.shape == (20, batch.tokens.shape[1] - 1)
    assert batch.action_tokens.tolist() == [2.0 * e.turns for e in episodes]  # a digit and EOS per turn
    first = episodes[0]
    targets = batch.tokens[0, 1:][batch.action_mask[0]].tolist()
    assert targets == [t for t, a in zip(first.tokens, first.is_action, strict=True) if a]


def test_expert_episode_datamodule_puts_targets_on_the_expert_tokens_only():
    dm = ExpertEpisodeDataModule(GuessNumber(0, 9), TOK, max_turns=4, batch_size=4, train_batches=3)
    dm.setup("fit")
    tokens, targets = next(iter(dm.train_dataloader()))
    assert tokens.shape == targets.shape and tokens.shape[0] == 4
    kept = targets[targets != -100]
    assert set(kept.tolist()) <= {*TOK.encode("0123456789"), EOS}
    assert (targets == EOS).sum(1).min() >= 1


def test_sampling_a_left_padded_batch_equals_sampling_each_context_alone():
    torch.manual_seed(0)
    model = LlamaLM(vocab_size=TOK.vocab_size, d_model=32, n_layer=2, n_head=4, max_seq_len=32).eval()
    contexts = [TOK.encode("1+2="), TOK.encode("guess 0-9: 4")]
    together = sample_completions(model, contexts, 5, 0.0, EOS, TOK.pad_id)
    alone = [sample_completions(model, [c], 5, 0.0, EOS, TOK.pad_id)[0] for c in contexts]
    assert together == alone and all(len(c) == 5 or c[-1] == EOS for c in together)
    tokens, mask = left_pad(contexts, TOK.pad_id, "cpu")
    assert mask.sum(1).tolist() == [4, 12] and tokens[0, :8].tolist() == [TOK.pad_id] * 8


class BrokenReward(RewardEnvironment):
    def records(self, split):
        return [{"prompt": "2+2="}]

    def reward(self, record, completion):
        return 1 / 0


class NotAReply(BrokenReward):
    def step(self, record, history, action):
        return 1.0


def test_an_environment_that_raises_or_answers_badly_is_one_error_naming_it():
    env = BrokenReward()
    with pytest.raises(EnvironmentCallError, match=r"environment .*BrokenReward raised ZeroDivisionError in step\(\) "
                                                   r"on prompt '2\+2=': division by zero"):
        run_episodes(env, start_episodes(env, env.records("train"), TOK), TOK, scripted("4"))
    env = NotAReply()
    with pytest.raises(EnvironmentCallError, match=r"NotAReply.step\(\) must return a Reply with a finite reward"):
        run_episodes(env, start_episodes(env, env.records("train"), TOK), TOK, scripted("4"))
    assert Reply().done and Reply().reward == 0.0
