"""TRUSTEE's LM simulator (§3: a free LM of the policy's own family writes the training tasks, simulates the tools
and the user, and judges the trajectories), behind the interface of the explicit-noise stand-in (simulator.py).

Four roles, each on when named in `roles`:
- task: writes a training task's intent in the intent language for the curriculum's chain length (`TASK`), read
  by generator.skeleton; names, state and gold calls are then built by the generator, so the task is executable;
- tool: says whether a call succeeds, from the task's files and the calls so far (`TOOL`): the policy reads only
  ok / err, so that is all a simulated tool output carries here; BFCL's backend still runs the call;
- user: names the value of the argument the request left out (`USER`), told the value it means;
- judge: says whether the calls that ran did what the user asked (`TOOL`'s files, `JUDGE`); BFCL's exact checkers
  audit every verdict (env.Counters: agreement, false passes), so a judge that inflates reward shows in the table.

The paper's prompts are not public: these templates are ours, short, one question each. The LM answers through
the chat template (Qwen3 without thinking) greedily, except the task writer, which samples at `task_temperature`
(greedy decoding would write the same task every time). An answer that does not parse (`parse_*` below) is
counted per role (`stats`, logged by callbacks.SimulatorAudit), its first few logged, and the stand-in answers
instead: the fallback, the exact answer corrupted at `environment.tool_lie` / `user_lie` / `judge_flip` (0 in
the paper preset: the exact answer). A role not in `roles` is the stand-in's. `environment.judge=exact` turns
the LM judge off as it turns the flip off.

`model`: a partial of the simulator's own LM, built on first use; null shares the policy's weights (handed over
by callbacks.SimulatorAudit), with its LoRA adapters off: the untrained base model, the paper's free LM of the
policy's family, at no extra memory. Same conversation, same prompt, same answer (a cache per prompt).
"""

from __future__ import annotations

import logging
import re
from contextlib import nullcontext
from dataclasses import dataclass

from experiments.trustee.generator import skeleton
from experiments.trustee.intents import describe
from experiments.trustee.simulator import Scene
from reprolab.cli.errors import ConfigError
from reprolab.lm.prompting import LazyModel, chat_text, generate_text

log = logging.getLogger(__name__)
ROLES = ("task", "tool", "user", "judge")
MAX_NEW_TOKENS = {"task": 32, "tool": 8, "user": 16, "judge": 8}
LOGGED = 3  # unparsed answers logged per role (all are counted)

TASK = ('You write tasks for training an assistant that uses a computer\'s file-system tools. Write one user '
        'request in this notation: clauses separated by "; ", each a verb followed by one-letter slots (a, b, c, '
        '...); start with "a/ " when the request is about the files inside folder a.\nVerbs and their slots: list, '
        'files, usage (none); go, new, dir, show, last, lines, chars, sort, find (one: a file, or a folder for go '
        'and dir); grep (a file, a word); write (a text, a file); move, copy (a file, a folder; "+" after the '
        'folder when it must be created first).\nExamples: show b | a/ move b c+; lines d | grep b c; copy d e; '
        'go f\nWrite one request of exactly {chain} clause(s), and nothing else.')
TOOL = ("You simulate a computer's file-system tools for an assistant in training. The files at the start:\n"
        "{files}\nCalls already made, in order: {calls}\nNext call: {call}\n"
        "Does the next call succeed? Answer with one word: ok or error.")
USER = ('You asked an assistant: "{request}" You left out the part marked ?: you mean "{value}". The assistant '
        "asks you for it. Reply with that value only.")
JUDGE = ('A user asked an assistant: "{request}"\nThe files at the start:\n{files}\nThe assistant\'s tool calls '
         "that ran, in order: {calls}\nDid these calls do everything the user asked? Answer with one word: yes or no.")


def file_tree(config: dict) -> str:
    """The GorillaFileSystem initial state as an indented listing (`docs/`, `  a.txt`)."""
    lines: list[str] = []

    def walk(name: str, node: dict, depth: int) -> None:
        directory = node.get("type") == "directory"
        lines.append("  " * depth + name + ("/" if directory else ""))
        for child, sub in (node.get("contents") or {}).items() if directory else ():
            walk(child, sub, depth + 1)

    for name, node in config.get("GorillaFileSystem", {}).get("root", {}).items():
        walk(name, node, 0)
    return "\n".join(lines)


def answer_line(text: str) -> str:
    """The first non-empty line, without a final full stop and surrounding quotes, backticks and asterisks."""
    line = next((t for t in text.splitlines() if t.strip()), "")
    return line.strip().rstrip(".").strip().strip("\"'`*").strip()


def parse_word(text: str, words: dict[str, bool]) -> bool | None:
    """`words[w]` for the answer's first word w (case-insensitive); None when it is none of them."""
    match = re.match(r"[A-Za-z]+", answer_line(text))
    return words.get(match.group(0).lower()) if match else None


def parse_value(text: str) -> str | None:
    """A value the user names: a file, folder or text of letters, digits, `_.-` and spaces (1-64 characters)."""
    value = answer_line(text)
    return value if re.fullmatch(r"[A-Za-z0-9_.\- ]{1,64}", value) else None


@dataclass
class RoleStats:
    """Per role, over the run: LM answers generated, those that did not parse (the stand-in answered), and of the
    parsed ones those equal to the exact answer (tool: ok/err as BFCL's backend; user: the task's value)."""
    outputs: int = 0
    unparsed: int = 0
    exact: int = 0


class LMSimulator:
    def __init__(self, fallback, tokenizer, model=None, roles: list[str] | tuple[str, ...] = ROLES,
                 max_new_tokens: dict | None = None, task_temperature: float = 1.0, max_prompt_tokens: int = 2048,
                 thinking: bool = False):
        unknown = set(roles) - set(ROLES)
        if unknown:
            raise ConfigError(f"environment.simulator.roles has {sorted(unknown)}; choose from {', '.join(ROLES)}")
        if task_temperature <= 0 or max_prompt_tokens < 1:
            raise ConfigError("environment.simulator.task_temperature must be > 0 and max_prompt_tokens >= 1")
        self.fallback, self.tokenizer, self.roles = fallback, tokenizer, tuple(roles)
        self.max_new_tokens = {**MAX_NEW_TOKENS, **(max_new_tokens or {})}
        self.task_temperature, self.max_prompt_tokens, self.thinking = task_temperature, max_prompt_tokens, thinking
        self.own = LazyModel(model) if model is not None else None
        self.policy = None
        self.stats = {role: RoleStats() for role in ROLES}
        self.cache: dict[tuple[str, str], str] = {}

    # --- the model ------------------------------------------------------------------------------------------
    def bind(self, policy, like: LMSimulator | None = None) -> None:
        """The policy's module (its weights are the simulator's when `model` is null); `like`: another copy of
        the environment's simulator whose own model to share (the datamodule's and the task's copies)."""
        self.policy = policy
        if like is not None and like.own is not None:
            self.own = like.own

    def model(self):
        if self.own is not None:
            model = self.own.get()
            if self.policy is not None:
                model.to(next(self.policy.parameters()).device)
            return model
        if self.policy is None:
            raise ConfigError("environment.simulator.model=null shares the policy's weights, which the callback "
                              "experiments.trustee.callbacks.SimulatorAudit hands over: add it to callbacks (the "
                              "trustee/qwen3_8b_simulated preset does) or give the simulator its own model")
        return self.policy

    def ask(self, role: str, message: str) -> str:
        """The LM's answer to `message` (cached per prompt for the greedy roles)."""
        key = (role, message)
        if role != "task" and key in self.cache:
            return self.cache[key]
        model = self.model()
        base = model.adapters_disabled() if getattr(model, "has_adapters", False) else nullcontext()
        temperature = self.task_temperature if role == "task" else 0.0
        with base:
            text = generate_text(model, self.tokenizer, chat_text(self.tokenizer, message, self.thinking),
                                 self.max_new_tokens[role], temperature, self.max_prompt_tokens)
        if role != "task":
            if len(self.cache) > 8192:
                self.cache.clear()
            self.cache[key] = text
        return text

    def parsed(self, role: str, text: str, value):
        """Count an answer; log the first few that did not parse."""
        stats = self.stats[role]
        stats.outputs += 1
        if value is None:
            stats.unparsed += 1
            if stats.unparsed <= LOGGED:
                log.warning("LM simulator: the %s answer %r did not parse; the stand-in answers", role, text[:80])
        return value

    # --- the simulator's interface (simulator.NoisySimulator's) ---------------------------------------------
    def uniform(self, *key) -> float:
        return self.fallback.uniform(*key)

    def propose_intent(self, difficulty, rng):
        if "task" not in self.roles:
            return None
        text = self.ask("task", TASK.format(chain=difficulty.chain))
        return self.parsed("task", text, skeleton(answer_line(text), difficulty.chain))

    def tool_says_ok(self, truly_ok: bool, *key, scene: Scene | None = None) -> bool:
        if "tool" not in self.roles or scene is None:
            return self.fallback.tool_says_ok(truly_ok, *key)
        record = scene.record
        text = self.ask("tool", TOOL.format(files=file_tree(record["initial_config"]),
                                            calls=", ".join(scene.calls) or "none", call=scene.call))
        said = self.parsed("tool", text, parse_word(text, {"ok": True, "error": False}))
        if said is None:
            return self.fallback.tool_says_ok(truly_ok, *key)
        self.stats["tool"].exact += said == truly_ok
        return said

    def user_value(self, hidden: str, *key, scene: Scene | None = None) -> str:
        if "user" not in self.roles or scene is None:
            return self.fallback.user_value(hidden, *key)
        record = scene.record
        text = self.ask("user", USER.format(request=describe(record["intent"], record["slots"]), value=hidden))
        value = self.parsed("user", text, parse_value(text))
        if value is None:
            return self.fallback.user_value(hidden, *key)
        self.stats["user"].exact += value == hidden
        return value

    def verdict(self, truly_solved: bool, *key, scene: Scene | None = None) -> bool:
        if "judge" not in self.roles or scene is None or self.fallback.judge == "exact":
            return self.fallback.verdict(truly_solved, *key)
        record = scene.record
        values = {**record["slots"], **({"?": record["hidden"]} if record.get("hidden") else {})}
        text = self.ask("judge", JUDGE.format(request=describe(record["intent"], values),
                                              files=file_tree(record["initial_config"]),
                                              calls=", ".join(scene.calls) or "none"))
        said = self.parsed("judge", text, parse_word(text, {"yes": True, "no": False}))
        return self.fallback.verdict(truly_solved, *key) if said is None else said
