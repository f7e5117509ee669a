"""The environment turn by turn on hand cases, the scripted expert through the rollout code (solves every generated
and held-out task without noise), the tokenizer, the presets' arms, and two policy steps through the trainer."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("bfcl_eval", reason="bfcl-eval not installed (pip install --no-deps bfcl-eval)")

from experiments.trustee.curriculum import Curriculum  # noqa: E402
from experiments.trustee.env import BAD, ERR, OK, ToolCallingEnvironment  # noqa: E402
from experiments.trustee.generator import Difficulty  # noqa: E402
from experiments.trustee.tokenizer import IntentTokenizer  # noqa: E402
from reprolab.cli.errors import ConfigError  # noqa: E402
from reprolab.cli.train import run  # noqa: E402
from reprolab.config.compose import compose  # noqa: E402
from reprolab.lm.rollout import expert_actor, run_episodes, start_episodes  # noqa: E402

CONFIG = {"GorillaFileSystem": {"root": {"home": {"type": "directory", "contents": {
    "docs": {"type": "directory", "contents": {"a.txt": {"type": "file", "content": "x"}}}}}}}}


def hand_record(**overrides) -> dict:
    record = {"prompt": "[cd touch] a/ new b>", "intent": "a/ new b", "slots": {"a": "docs", "b": "new.txt"},
              "hidden": None, "fail_at": [1], "initial_config": CONFIG, "classes": ["GorillaFileSystem"],
              "gold": ["cd(folder='docs')", "touch(file_name='new.txt')"], "uid": "hand", "split": "val"}
    return {**record, **overrides}


def test_turns_by_hand_injected_error_bad_action_and_end():
    env, record = ToolCallingEnvironment(), hand_record()
    history = []
    for action, expected in [("cd a", OK), ("touch b", ERR), ("rm b", BAD), ("ask", BAD), ("touch b", OK)]:
        reply = env.step(record, list(history), action)
        assert (reply.observation, reply.done) == (expected, False), action
        history.append((action, reply.observation))
    assert env.replay(record, history).executed == ["cd(folder='docs')", "touch(file_name='new.txt')"]
    assert env.step(record, history, "end").reward == 1.0
    no_retry = [("cd a", OK), ("touch b", ERR)]                  # the injected error was not retried
    assert env.step(record, no_retry, "end").reward == 0.0
    assert env.expert(record, no_retry) == "touch b" and env.expert(record, history) == "end"


def test_ask_binds_the_users_answer_and_turn_budget_ends_the_episode():
    env = ToolCallingEnvironment(max_turns=3)
    record = hand_record(intent="a/ new ?", slots={"a": "docs"}, hidden="new.txt", fail_at=[])
    reply = env.step(record, [], "ask")
    letter = reply.observation[1]
    assert reply.observation == f":{letter}>" and letter in "xyz"
    history = [("ask", reply.observation), ("cd a", OK)]
    assert env.expert(record, history) == f"touch {letter}"
    last = env.step(record, history, f"touch {letter}")          # the third action: the budget ends it
    assert last.done and last.reward == 1.0


@pytest.mark.parametrize("split", ["train", "test"])
def test_expert_solves_every_task_without_noise(split):
    env, tok = ToolCallingEnvironment(judge="exact", max_turns=8), IntentTokenizer()
    if split == "train":
        curriculum, rng = Curriculum(env.generator, "uniform"), random.Random(0)
        records = [curriculum.draw(rng) for _ in range(24)]
    else:
        records = env.records("test")
    episodes = run_episodes(env, start_episodes(env, records, tok), tok, expert_actor(env, tok), env.max_turns)
    assert [e.reward for e in episodes] == [1.0] * len(records)
    for episode in episodes:
        text = tok.decode(episode.tokens)
        assert tok.encode(text) == [t for t in episode.tokens if t not in (tok.bos_id, tok.eos_id)], text


def test_lying_tools_and_flipping_judge_show_in_the_counters():
    env = ToolCallingEnvironment(tool_lie=0.3, judge_flip=0.3, seed=1)
    tok = IntentTokenizer()
    rng = random.Random(2)
    records = [env.generator.task(Difficulty(2), rng, f"t{i}") for i in range(60)]
    run_episodes(env, start_episodes(env, records, tok), tok, expert_actor(env, tok), env.max_turns)
    counters = env.counters
    assert counters.episodes == 60 and counters.tool_calls > 120
    assert 0.5 < counters.agree / counters.episodes < 0.9               # the judge flips ~30%
    assert counters.solved < 60                                          # lies mislead the expert too


def test_bad_environment_values_are_one_line_errors():
    with pytest.raises(ConfigError, match="environment.judge='llm'"):
        ToolCallingEnvironment(judge="llm")
    with pytest.raises(ConfigError, match="test_distractors"):
        ToolCallingEnvironment(test_distractors=9)


def test_arms_differ_in_one_thing_each():
    cfgs = {arm: compose([f"experiment=trustee/{arm}"]) for arm in
            ("curriculum_cpu", "uniform_cpu", "static_cpu", "exact_judge_cpu", "oracle_cpu", "sft_cpu")}
    base = cfgs["curriculum_cpu"]
    assert base.data.schedule == "adaptive" and base.environment.judge == "simulated"
    assert base.environment.tool_lie == base.environment.judge_flip == base.environment.user_lie == 0.1
    assert cfgs["uniform_cpu"].data.schedule == "uniform" and cfgs["static_cpu"].data.schedule == "static"
    assert cfgs["exact_judge_cpu"].environment.judge == "exact" and cfgs["exact_judge_cpu"].environment.tool_lie == 0.1
    oracle = cfgs["oracle_cpu"].environment
    assert oracle.judge == "exact" and oracle.tool_lie == oracle.user_lie == 0.0
    for arm in ("uniform_cpu", "static_cpu", "exact_judge_cpu", "oracle_cpu"):
        same = ("group_size", "max_turns", "max_new_tokens", "temperature", "advantage", "updates_per_rollout")
        assert all(cfgs[arm].task[k] == base.task[k] for k in same)
        assert cfgs[arm].trainer.max_steps == base.trainer.max_steps and cfgs[arm].optimizer == base.optimizer
        assert cfgs[arm].data.batch_size == base.data.batch_size        # equal episodes per step
    assert cfgs["sft_cpu"].data.batch_size == base.data.batch_size * base.task.group_size


def test_two_policy_steps_through_the_trainer(tmp_path):
    cfg = compose(["experiment=trustee/curriculum_cpu", "device=cpu", "logger=none", "print_config=false",
                   "trainer.max_steps=2", "trainer.val_check_interval=2", "data.batch_size=2", "task.group_size=2",
                   "environment.val_tasks=2", "trainer.log_every_n_steps=1"], output_dir=tmp_path)
    metrics = run(cfg)
    assert {"train/tool_calls_total", "train/judge_agreement", "train/level_chain", "test/reward"} <= set(metrics)
    assert 0.0 <= metrics["test/reward"] <= 1.0 and 0.0 <= metrics["train/judge_agreement"] <= 1.0


def test_no_generated_prompt_equals_a_held_out_prompt():
    env = ToolCallingEnvironment(exclude="prompt")
    held_out = {r["prompt"] for r in env.records("test")}
    assert held_out == env.generator.exclude and len(held_out) == 30
    curriculum, rng = Curriculum(env.generator, "adaptive"), random.Random(0)
    assert not {curriculum.draw(rng)["prompt"] for _ in range(300)} & held_out
    with pytest.raises(ConfigError, match="environment.exclude='names'"):
        ToolCallingEnvironment(exclude="names")


def test_paper_preset_composes_at_paper_scale():
    cfg = compose(["experiment=trustee/qwen3_8b_curriculum"])
    assert cfg.model.pretrained == "Qwen/Qwen3-8B" and cfg.model.lora.r == 16 and cfg.device.name == "ddp"
    assert cfg.tokenizer.name == "Qwen/Qwen3-8B" and cfg.logger and cfg.task.kl_coef > 0
    assert cfg.data.schedule == "adaptive" and cfg.environment._target_.endswith("ToolCallingEnvironment")
    assert "vocab_size" not in cfg.model and "max_seq_len" not in cfg.model


def test_supervised_stage_continues_from_a_checkpoint(tmp_path):
    """Arm d's 25 more SFT steps start from the warm start's weights (LanguageModelTask's init_from)."""
    import torch
    from torch import nn

    from reprolab.tasks.language_model import LanguageModelTask

    start = nn.Linear(3, 2)
    torch.save({"state_dict": {f"model.{k}": v for k, v in start.state_dict().items()}}, tmp_path / "warm.ckpt")
    task = LanguageModelTask(nn.Linear(3, 2), optimizer=None, init_from=str(tmp_path / "warm.ckpt"))
    assert torch.equal(task.model.weight, start.weight)
    with pytest.raises(ConfigError, match="task.init_from: no checkpoint"):
        LanguageModelTask(nn.Linear(3, 2), optimizer=None, init_from=str(tmp_path / "none.ckpt"))
