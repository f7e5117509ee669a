"""TRUSTEE's tool-calling environment on BFCL's executable file system: one compact action per turn, executed on
BFCL's GorillaFileSystem backend, answered by the (noisy) simulator; the episode's reward is the judge's verdict.

Prompt: `[tool names] intent>`. Each action gets `:ok>`, `:err>` (the tool failed, or an injected error, or a
lie), `:bad>` (not a call over the intent's slots), or, after `ask`, `:x>` (the slot to use for the missing
argument). `end` (or the turn budget, `max_turns`) ends the episode and the judge scores the calls that reached
the backend: training tasks by the simulator's judge (simulator.py), validation tasks by BFCL's exact state and
response checkers, held-out BFCL tasks (`records("test")`) by BFCL's own `multi_turn_checker`.

The simulator answers training tasks only: the explicit-noise stand-in (simulator.NoisySimulator, built from
`tool_lie`, `user_lie`, `judge_flip`, `judge`), or `simulator`, a partial (`environment.simulator._target_`) that
gets that stand-in as its fallback (lm_simulator.LMSimulator: TRUSTEE's LM simulator). Every training episode's
verdict is audited against BFCL's exact checkers on the same calls (`Counters`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import yaml

from experiments.trustee.bfcl import (
    bfcl_check,
    execute,
    function_doc,
    is_error,
    load_backends,
    multi_turn_tasks,
    same_outcome,
)
from experiments.trustee.curriculum import uniform
from experiments.trustee.generator import ASKED_LETTERS, LIMITS, TaskGenerator, prompt_of, tool_header
from experiments.trustee.intents import ASK, END, check_against_doc, plan, to_call
from experiments.trustee.simulator import NoisySimulator, Scene
from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.lm.environments.base import Environment, Reply

OK, ERR, BAD = ":ok>", ":err>", ":bad>"
EXCLUDE = ("prompt", "intent", "none")
TEST_INTENTS = Path(__file__).parent / "data" / "bfcl_intents.yaml"


@cache
def held_out_intents(path: str = str(TEST_INTENTS)) -> tuple[dict, ...]:
    if not Path(path).exists():
        raise DatasetNotFoundError(f"environment.test_intents='{path}' does not exist; point it at a YAML list of "
                                   "{id, intent, slots} (experiments/trustee/data/bfcl_intents.yaml)")
    return tuple(yaml.safe_load(Path(path).read_text()))


@dataclass
class EpisodeState:
    """What a conversation so far did: slot bindings (with the user's answer), calls that reached the backend."""
    bindings: dict
    attempts: int = 0
    executed: list[str] = field(default_factory=list)
    asked: bool = False


@dataclass
class Counters:
    """Since the last reset (callbacks.py logs them): tool calls sent, episodes judged, judged and truly solved (BFCL's
    checkers), verdicts equal to the checkers', episodes the checkers fail and, of those, the ones judged solved."""
    tool_calls: int = 0
    episodes: int = 0
    judged: float = 0.0
    solved: float = 0.0
    agree: float = 0.0
    failed: float = 0.0
    false_pass: float = 0.0


class ToolCallingEnvironment(Environment):
    def __init__(self, max_turns: int = 8, tool_lie: float = 0.0, user_lie: float = 0.0, judge_flip: float = 0.0,
                 judge: str = "simulated", val_tasks: int = 16, test_intents: str = str(TEST_INTENTS),
                 test_distractors: int = 2, exclude: str = "prompt", seed: int = 0, simulator=None):
        if exclude not in EXCLUDE:
            raise ConfigError(f"environment.exclude={exclude!r}; choose one of {', '.join(EXCLUDE)}")
        if max_turns < 1 or val_tasks < 1 or not 0 <= test_distractors <= LIMITS.distractors:
            raise ConfigError(f"environment.max_turns and val_tasks must be >= 1 and test_distractors in "
                              f"0..{LIMITS.distractors}")
        check_against_doc(function_doc("GorillaFileSystem"))
        self.max_turns, self.val_tasks, self.test_distractors = max_turns, val_tasks, test_distractors
        noisy = NoisySimulator(tool_lie, user_lie, judge_flip, judge, seed)
        if simulator is not None and not callable(simulator):
            raise ConfigError("environment.simulator must be null (the explicit-noise stand-in) or a partial "
                              "(_target_ + _partial_: true) that takes the stand-in as `fallback`")
        self.simulator = noisy if simulator is None else simulator(fallback=noisy)
        self.test_intents = held_out_intents(test_intents)
        self.generator = TaskGenerator(exclude=self.held_out_texts(exclude), key=exclude,
                                       propose=self.simulator.propose_intent)
        self.counters = Counters()
        self.live: dict[tuple, dict] = {}   # (uid, calls so far) -> backends in that state

    def held_out_texts(self, exclude: str) -> list[str]:
        """What a generated task must not equal: the held-out prompts the policy will see, or their intents."""
        if exclude == "none":
            return []
        return [self.test_record(t)[exclude] for t in self.test_intents]

    # --- tasks -------------------------------------------------------------------------------------------------
    def records(self, split: str) -> list[dict]:
        if split == "test":
            return [self.test_record(t) for t in self.test_intents]
        rng = random.Random(f"{split}-tasks")                   # the same validation tasks for every arm and seed
        return [{**self.generator.task(uniform(rng), rng, f"{split}{i}", propose=False), "split": split}
                for i in range(self.val_tasks)]

    def test_record(self, item: dict) -> dict:
        entry = multi_turn_tasks()[item["id"]]
        header = tool_header(plan(item["intent"], asked="x"), self.test_distractors, random.Random(item["id"]))
        return {"prompt": prompt_of(header, item["intent"]), "intent": item["intent"], "slots": dict(item["slots"]),
                "hidden": None, "fail_at": [], "initial_config": entry["initial_config"],
                "classes": entry["involved_classes"], "bfcl_id": item["id"], "uid": item["id"], "split": "test"}

    # --- one turn ----------------------------------------------------------------------------------------------
    def replay(self, record: dict, history: list[tuple[str, str]]) -> EpisodeState:
        state = EpisodeState(dict(record["slots"]))
        for turn, (action, observation) in enumerate(history):
            if action == ASK and observation != BAD:
                state.asked = True
                state.bindings[observation[1]] = self.user_answer(record, history[:turn])
            elif to_call(action, state.bindings) is not None:
                if self.reaches_backend(record, state.attempts):
                    state.executed.append(to_call(action, state.bindings))
                state.attempts += 1
        return state

    def reaches_backend(self, record: dict, attempt: int) -> bool:
        return record["split"] == "test" or attempt not in record["fail_at"]

    def user_answer(self, record: dict, before: list) -> str:
        if record["split"] != "train":
            return record["hidden"]
        return self.simulator.user_value(record["hidden"], record["uid"], tuple(before),
                                         scene=Scene(record, tuple(before)))

    def step(self, record, history, action):
        action = action.strip()
        state = self.replay(record, history)
        done = action == END or len(history) + 1 >= self.max_turns
        observation = self.answer(record, history, state, action) if action != END else ""
        if not done:
            return Reply(observation, 0.0, done=False)
        calls = self.replay(record, [*history, (action, observation)]).executed
        return Reply("", float(self.judge(record, calls, tuple(history) + (action,), history)), done=True)

    def answer(self, record: dict, history: list, state: EpisodeState, action: str) -> str:
        if action == ASK:
            if record["hidden"] is None or state.asked:
                return BAD
            letter = ASKED_LETTERS[int(self.simulator.uniform("letter", record["uid"], tuple(history)) * 3)]
            return f":{letter}>"
        call = to_call(action, state.bindings)
        if call is None:
            return BAD
        if record["split"] == "train":
            self.counters.tool_calls += 1
        if not self.reaches_backend(record, state.attempts):
            return ERR                                               # an injected error: retry it
        truly_ok = not is_error(self.run(record, state.executed, call))
        if record["split"] == "train":
            scene = Scene(record, tuple(history), tuple(state.executed), call)
            truly_ok = self.simulator.tool_says_ok(truly_ok, record["uid"], tuple(history), action, scene=scene)
        return OK if truly_ok else ERR

    def run(self, record: dict, before: list[str], call: str) -> str:
        """Execute `call` after `before` on the record's backends, reusing the live backends of that conversation."""
        instances = self.live.pop((record["uid"], tuple(before)), None)
        if instances is None:
            instances = load_backends(record["initial_config"], record["classes"])
            for earlier in before:
                execute(instances, earlier)
        result = execute(instances, call)
        if len(self.live) > 4096:
            self.live.clear()
        self.live[(record["uid"], (*before, call))] = instances
        return result

    # --- the reward --------------------------------------------------------------------------------------------
    def judge(self, record: dict, calls: list[str], trajectory: tuple, history: list = ()) -> bool:
        self.live.pop((record["uid"], tuple(calls)), None)
        if record["split"] == "test":
            return bfcl_check(multi_turn_tasks()[record["bfcl_id"]], [calls], turns=1)
        solved = same_outcome(record["initial_config"], record["classes"], calls, record["gold"])
        if record["split"] != "train":
            return solved
        verdict = self.simulator.verdict(solved, record["uid"], trajectory,
                                         scene=Scene(record, tuple(history), tuple(calls)))
        counters = self.counters
        counters.episodes += 1
        counters.judged, counters.solved = counters.judged + verdict, counters.solved + solved
        counters.agree += verdict == solved
        counters.failed += not solved
        counters.false_pass += verdict and not solved
        return verdict

    # --- the scripted expert (SFT data and the warm start) ---------------------------------------------------
    def expert(self, record, history):
        """The next action of `plan`: an action is done once answered other than `:err>`/`:bad>` (it retries an
        error, believes a lie); the user's answer to `ask` stands for the missing slot."""
        asked = next((obs[1] for act, obs in history if act == ASK and obs not in (BAD,)), None)
        actions = plan(record["intent"], asked)
        done = sum(1 for act, obs in history if obs not in (ERR, BAD))
        return actions[min(done, len(actions) - 1)]

