"""Episodes of a policy (or a scripted expert) in an environment, and the padded tensors a task trains on.

An episode's tokens are [BOS] prompt, then turn by turn the action (policy tokens, EOS-terminated) and the
environment's observation; it ends when the environment says done or after `max_turns` actions (truncated).
Its reward is the sum of the turns' rewards (the outcome reward GRPO uses). `is_action` marks the tokens the
policy emitted: only they carry a log-probability term.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from reprolab.lm.environments.base import Environment, call_environment
from reprolab.lm.sampling import right_pad, sample_completions


@dataclass
class Episode:
    record: dict
    tokens: list[int]
    is_action: list[bool]
    history: list[tuple[str, str]] = field(default_factory=list)
    reward: float = 0.0
    turns: int = 0
    done: bool = False
    truncated: bool = False

    def extend(self, ids: list[int], by_policy: bool) -> None:
        self.tokens += ids
        self.is_action += [by_policy] * len(ids)


@dataclass
class RolloutBatch:
    """Right-padded episodes: `tokens`, `attention_mask` [N, T]; `action_mask` [N, T − 1] marks targets
    tokens[:, 1:] the policy emitted; `rewards`, `turns`, `action_tokens`, `truncated` [N]."""

    tokens: torch.Tensor
    attention_mask: torch.Tensor
    action_mask: torch.Tensor
    rewards: torch.Tensor
    turns: torch.Tensor
    action_tokens: torch.Tensor
    truncated: torch.Tensor


def start_episodes(env: Environment, records: list[dict], tokenizer, group_size: int = 1) -> list[Episode]:
    """`group_size` fresh episodes per record, a record's group contiguous."""
    episodes = []
    for record in records:
        prompt = ([tokenizer.bos_id] if tokenizer.bos_id is not None else []) + \
            tokenizer.encode(call_environment(env, "prompt", record))
        episodes += [Episode(record, list(prompt), [False] * len(prompt)) for _ in range(group_size)]
    return episodes


def run_episodes(env: Environment, episodes: list[Episode], tokenizer, act: Callable[[list[Episode]], list[list[int]]],
                 max_turns: int = 1) -> list[Episode]:
    """Alternate `act` (token ids for every live episode) and the environment's `step` until each is done."""
    for turn in range(max_turns):
        live = [e for e in episodes if not e.done]
        if not live:
            break
        for episode, action in zip(live, act(live), strict=True):
            episode.extend(list(action), by_policy=True)
            episode.turns += 1
            text = tokenizer.decode([t for t in action if t != tokenizer.eos_id])
            reply = call_environment(env, "step", episode.record, list(episode.history), text)
            episode.history.append((text, reply.observation))
            episode.reward += float(reply.reward)
            if reply.done or turn == max_turns - 1:
                episode.done, episode.truncated = True, not reply.done
            else:
                episode.extend(tokenizer.encode(reply.observation), by_policy=False)
    return episodes


def policy_actor(model, tokenizer, max_new_tokens: int, temperature: float) -> Callable[[list[Episode]], list[list[int]]]:
    """Sample each live episode's next action from `model`."""
    def act(live: list[Episode]) -> list[list[int]]:
        return sample_completions(model, [e.tokens for e in live], max_new_tokens, temperature, tokenizer.eos_id,
                                  tokenizer.pad_id)
    return act


def expert_actor(env: Environment, tokenizer) -> Callable[[list[Episode]], list[list[int]]]:
    """The environment's scripted expert as an actor: its action text, then EOS."""
    def act(live: list[Episode]) -> list[list[int]]:
        return [tokenizer.encode(call_environment(env, "expert", e.record, list(e.history))) + [tokenizer.eos_id]
                for e in live]
    return act


def to_batch(episodes: list[Episode], pad_id: int, device=None) -> RolloutBatch:
    tokens, attention_mask = right_pad([e.tokens for e in episodes], pad_id, device)
    is_action, _ = right_pad([[int(a) for a in e.is_action] for e in episodes], 0, device)

    def per_episode(values, dtype):
        return torch.tensor(values, dtype=dtype, device=device)

    return RolloutBatch(tokens, attention_mask, is_action[:, 1:].bool(),
                        per_episode([e.reward for e in episodes], torch.float32),
                        per_episode([e.turns for e in episodes], torch.float32),
                        per_episode([sum(e.is_action) for e in episodes], torch.float32),
                        per_episode([e.truncated for e in episodes], torch.float32))
