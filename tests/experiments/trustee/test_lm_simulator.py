"""TRUSTEE's LM simulator: its parsers on hand answers, each role on a scripted LM (its answer used when it parses,
the stand-in's when not, both counted), the judge's audit catching a judge that passes everything, the tiny random
Qwen3 sharing the policy's weights in every role, and the paper preset for two steps through the trainer."""

from __future__ import annotations

import json
import random
from functools import partial

import pytest
import torch
from omegaconf import OmegaConf, open_dict

pytest.importorskip("bfcl_eval", reason="bfcl-eval not installed (pip install --no-deps bfcl-eval)")

from experiments.trustee.bfcl import same_outcome  # noqa: E402
from experiments.trustee.env import ToolCallingEnvironment  # noqa: E402
from experiments.trustee.generator import Difficulty, skeleton  # noqa: E402
from experiments.trustee.intents import describe  # noqa: E402
from experiments.trustee.lm_simulator import LMSimulator, file_tree, parse_value, parse_word  # noqa: E402
from experiments.trustee.simulator import Scene  # noqa: E402
from experiments.trustee.tokenizer import IntentTokenizer  # noqa: E402
from reprolab.cli.errors import ConfigError  # noqa: E402
from reprolab.cli.train import run  # noqa: E402
from reprolab.config.compose import compose  # noqa: E402
from reprolab.lm.rollout import expert_actor, run_episodes, start_episodes  # noqa: E402
from reprolab.lm.tokenizer import ByteTokenizer  # noqa: E402
from reprolab.models.hf_causal_lm import HuggingFaceCausalLM  # noqa: E402
from reprolab.plan.jobs import reproduce_targets  # noqa: E402

OK_WORDS, YES_WORDS = {"ok": True, "error": False}, {"yes": True, "no": False}


def test_parsers_on_hand_answers():
    assert parse_word("OK.", OK_WORDS) is True and parse_word(" **Error**: no such file", OK_WORDS) is False
    assert parse_word("\n`yes`", YES_WORDS) is True and parse_word("maybe", YES_WORDS) is None
    assert parse_word("", YES_WORDS) is None and parse_word("okay", OK_WORDS) is None
    assert parse_value('"report.pdf".\nthanks') == "report.pdf" and parse_value("amber dune") == "amber dune"
    assert parse_value("a/b") is None and parse_value("") is None and parse_value("x" * 65) is None
    assert skeleton("a/ move b c+; lines d", 2) == (True, [("move", ["file", "new_dest"]), ("lines", ["file"])])
    assert skeleton("grep b c", 1) == (False, [("grep", ["file", "word"])])
    assert skeleton("copy b c", 1) == (False, [("copy", ["file", "folder"])])
    for wrong, chain in [("show b", 2), ("go b; show c", 2), ("show b+", 1), ("jump b", 1), ("show", 1),
                         ("show bb", 1), ("Show b", 1), ("show b c", 1)]:
        assert skeleton(wrong, chain) is None, wrong


def test_request_in_words_and_the_file_tree():
    assert describe("a/ move b c+; show ?", {"a": "docs", "b": "x.txt", "c": "tmp"}) == \
        "In the folder docs: move x.txt into the folder tmp (create it first); then show the file ?."
    config = {"GorillaFileSystem": {"root": {"home": {"type": "directory", "contents": {
        "docs": {"type": "directory", "contents": {"a.txt": {"type": "file", "content": "x"}}}}}}}}
    assert file_tree(config) == "home/\n  docs/\n    a.txt"


class ScriptedLM(torch.nn.Module):
    """Answers a prompt with the text of the first role whose question is in it (a stand-in LM, byte tokens)."""

    QUESTIONS = {"task": "Write one request", "tool": "ok or error", "user": "that value only", "judge": "yes or no"}

    def __init__(self, answers: dict[str, str]):
        super().__init__()
        self.answers, self.prompts = answers, []
        self.tokenizer = ByteTokenizer()

    def generate_completions(self, contexts, max_new_tokens, temperature, eos_id, pad_id):
        prompt = self.tokenizer.decode(contexts[0])
        self.prompts.append(prompt)
        role = next(r for r, q in self.QUESTIONS.items() if q in prompt)
        return [self.tokenizer.encode(self.answers[role])[:max_new_tokens] + [eos_id]]


def scripted_env(answers: dict[str, str], **kwargs) -> tuple[ToolCallingEnvironment, ScriptedLM]:
    lm = ScriptedLM(answers)
    simulator = partial(LMSimulator, tokenizer=ByteTokenizer(), model=lambda: lm,
                        max_new_tokens={"task": 40, "user": 20}, **kwargs)
    return ToolCallingEnvironment(simulator=simulator), lm


def expert_episodes(env: ToolCallingEnvironment, difficulty: Difficulty, count: int = 6):
    tok, rng = IntentTokenizer(), random.Random(0)
    records = [env.generator.task(difficulty, rng, f"t{i}") for i in range(count)]
    return records, run_episodes(env, start_episodes(env, records, tok), tok, expert_actor(env, tok), env.max_turns)


def test_parsed_answers_are_used_and_a_judge_that_passes_everything_shows_in_the_audit():
    env, lm = scripted_env({"task": "a/ move b c+", "tool": "error", "user": "wrong.txt", "judge": "Yes."})
    records, episodes = expert_episodes(env, Difficulty(chain=1, missing=1))
    assert {r["intent"] for r in records} <= {"a/ move b ?+", "a/ move ? c+"}  # the LM's clause, a slot left out
    stats = env.simulator.stats
    assert stats["task"].outputs == 6 and stats["task"].unparsed == 0
    assert stats["tool"].outputs > 0 and stats["tool"].unparsed == 0 and stats["tool"].exact < stats["tool"].outputs
    assert stats["user"].outputs > 0 and stats["user"].unparsed == stats["user"].exact == 0     # it named wrong.txt
    assert stats["judge"].outputs == 6 and all(e.reward == 1.0 for e in episodes)            # the judge passes all
    counters = env.counters
    assert counters.episodes == 6 and counters.solved == 0 and counters.false_pass == counters.failed == 6
    assert any("Next call: cd(folder=" in p for p in lm.prompts) and any("you mean" in p for p in lm.prompts)


def test_unparsed_answers_take_the_stand_in_and_are_counted():
    env, _ = scripted_env({"task": "move everything", "tool": "perhaps", "user": "a/b?", "judge": "hmm"})
    records, episodes = expert_episodes(env, Difficulty(chain=2, missing=1))
    stats = env.simulator.stats
    for role in ("task", "tool", "user", "judge"):
        assert stats[role].outputs > 0 and stats[role].unparsed == stats[role].outputs, role
    # the stand-in at rates 0 answers exactly: the expert solves every task and the judge says so
    assert all(r["intent"].count(";") == 1 for r in records) and [e.reward for e in episodes] == [1.0] * 6
    assert env.counters.solved == env.counters.judged == 6


def test_a_role_left_out_or_the_exact_judge_is_the_stand_ins():
    env, _ = scripted_env({"task": "a/ grep b c", "tool": "error", "user": "x", "judge": "no"}, roles=["task"])
    records, episodes = expert_episodes(env, Difficulty(chain=1))
    assert [env.simulator.stats[r].outputs for r in ("task", "tool", "user", "judge")] == [6, 0, 0, 0]
    assert {r["intent"] for r in records} == {"a/ grep b c"} and [e.reward for e in episodes] == [1.0] * 6
    assert all(same_outcome(r["initial_config"], r["classes"], r["gold"], r["gold"]) for r in records)
    exact = LMSimulator(ToolCallingEnvironment(judge="exact").simulator, ByteTokenizer(), lambda: ScriptedLM({}))
    assert exact.verdict(False, "k", scene=Scene({"intent": "show b"})) is False and exact.stats["judge"].outputs == 0
    with pytest.raises(ConfigError, match="roles has \\['critic'\\]"):
        LMSimulator(None, ByteTokenizer(), roles=["critic"])
    with pytest.raises(ConfigError, match="SimulatorAudit"):
        LMSimulator(None, ByteTokenizer()).model()
    with pytest.raises(ConfigError, match="environment.simulator must be null"):
        ToolCallingEnvironment(simulator="lm")


def tiny_qwen(**kwargs) -> HuggingFaceCausalLM:
    return HuggingFaceCausalLM(config=OmegaConf.to_container(compose(["model=qwen3_tiny"]).model.config), **kwargs)


def test_tiny_random_qwen3_shares_the_policys_weights_in_every_role():
    torch.manual_seed(0)
    policy = tiny_qwen(lora={"r": 2, "lora_alpha": 4, "target_modules": ["q_proj"], "task_type": "CAUSAL_LM"})
    env = ToolCallingEnvironment(simulator=partial(LMSimulator, tokenizer=ByteTokenizer(), max_prompt_tokens=200))
    env.simulator.bind(policy)
    policy.train()
    expert_episodes(env, Difficulty(chain=1, missing=1), count=3)
    stats = env.simulator.stats
    assert all(stats[r].outputs > 0 for r in ("task", "tool", "user", "judge"))
    assert all(stats[r].unparsed == stats[r].outputs for r in stats)   # a random LM: every answer falls back
    assert policy.training and env.counters.solved == env.counters.judged == 3


def test_paper_preset_composes_policy_and_simulator_at_paper_scale():
    cfg = compose(["experiment=trustee/qwen3_8b_simulated"])
    assert cfg.model.pretrained == "Qwen/Qwen3-8B" and cfg.model.dtype == "bfloat16" and cfg.model.lora.r == 16
    assert cfg.device.name == "gpu" and cfg.device.precision == "bf16-mixed" and cfg.tokenizer.name == "Qwen/Qwen3-8B"
    simulator = cfg.environment.simulator
    assert simulator._target_.endswith("LMSimulator") and simulator.model is None        # the policy's own weights
    assert list(simulator.roles) == ["task", "tool", "user", "judge"] and cfg.callbacks.simulator_audit
    assert cfg.environment.tool_lie == cfg.environment.user_lie == cfg.environment.judge_flip == 0.0
    assert "reproduce-trustee-qwen3_8b-simulated" in reproduce_targets()


def test_paper_preset_two_steps_through_the_trainer_on_a_tiny_random_qwen3(tmp_path):
    cfg = compose(["experiment=trustee/qwen3_8b_simulated", "model=qwen3_tiny", "tokenizer=trustee_words",
                   "device=cpu", "logger=none", "print_config=false", "trainer.enable_progress_bar=false",
                   "trainer.max_steps=2", "trainer.val_check_interval=2", "data.batch_size=2", "task.group_size=2",
                   "environment.val_tasks=2", "trainer.log_every_n_steps=1"], output_dir=tmp_path)
    run(cfg)
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["train/sim_task_outputs"] == 4                       # 2 steps x 2 tasks written by the LM
    assert metrics["train/sim_judge_outputs"] == 8                      # x 2 episodes each, every one judged
    assert metrics["train/sim_judge_unparsed"] == 8 and metrics["train/sim_task_unparsed"] == 4   # random LM
    assert metrics["train/judge_agreement_run"] == 1.0 and metrics["train/judge_false_pass_run"] == 0.0
    assert 0.0 <= metrics["test/reward"] <= 1.0


def test_warm_start_stage_through_the_trainer_runs_every_role_of_the_lm_simulator(tmp_path):
    """The SFT stage's expert episodes go through the datamodule's simulator: here the tiny random Qwen3 policy's
    own weights write the tasks, answer as tools and user, and judge; every answer falls back and is counted."""
    simulated = compose(["experiment=trustee/qwen3_8b_simulated"])
    cfg = compose(["experiment=trustee/sft_cpu", "model=qwen3_tiny", "device=cpu", "logger=none",
                   "print_config=false", "trainer.enable_progress_bar=false", "trainer.max_steps=2",
                   "trainer.val_check_interval=2", "data.batch_size=4", "environment.val_tasks=2",
                   "trainer.log_every_n_steps=1"], output_dir=tmp_path)
    with open_dict(cfg):
        cfg.environment.simulator = simulated.environment.simulator
        cfg.environment.simulator.max_prompt_tokens = 256
        cfg.callbacks.simulator_audit = simulated.callbacks.simulator_audit
    run(cfg)
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["train/sim_task_outputs"] == 8 and metrics["train/sim_judge_outputs"] == 8
    for role in ("task", "tool", "user", "judge"):
        assert metrics[f"train/sim_{role}_outputs"] > 0, role
        assert metrics[f"train/sim_{role}_unparsed"] == metrics[f"train/sim_{role}_outputs"], role
