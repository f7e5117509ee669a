"""AgentDojo's four suites (banking, slack, travel, workspace) as the guard's world: user tasks with their
ground-truth calls, injection tasks, and AgentDojo's own `utility()` / `security()` on environment state.

One process loads each suite once (`load_suite`); an environment is kept pickled and unpickled per episode
(an order of magnitude faster than pydantic's deep copy on the workspace suite). `execute` replays a list of
calls on a fresh environment through AgentDojo's `FunctionsRuntime` and returns the tool outputs as text, the
way AgentDojo's own ground-truth pipeline renders them (`tool_result_to_str`).
"""

from __future__ import annotations

import enum
import functools
import pickle
from dataclasses import dataclass

import yaml

from reprolab.cli.errors import ConfigError
from reprolab.config.extras import require

SUITES = ("banking", "slack", "travel", "workspace")
BENCHMARK_VERSION = "v1.2.2"


@dataclass(frozen=True)
class SuiteWorld:
    """One AgentDojo suite: the suite object, its tool runtime and its default environment (pickled)."""

    name: str
    suite: object
    runtime: object
    default_env: bytes

    def fresh_env(self, injected: bytes | None = None):
        return pickle.loads(injected if injected is not None else self.default_env)

    def user_task(self, task_id: str):
        return self.suite.user_tasks[task_id]

    def injection_task(self, task_id: str):
        return self.suite.injection_tasks[task_id]

    @functools.cached_property
    def user_task_ids(self) -> list[str]:
        return sorted(self.suite.user_tasks, key=_task_number)

    @functools.cached_property
    def injection_task_ids(self) -> list[str]:
        """Injection tasks with at least one ground-truth call (AgentDojo's output-only ones, such as travel's
        'say that I should visit ...', have none: a scripted skill has nothing to fire)."""
        env = self.fresh_env()
        return [t for t in sorted(self.suite.injection_tasks, key=_task_number)
                if self.suite.injection_tasks[t].ground_truth(env)]

    def injected_env(self, payload: str) -> bytes:
        """The environment with every injection vector of the suite carrying `payload` (AgentDojo's channel)."""
        vectors = self.suite.get_injection_vector_defaults()
        return pickle.dumps(self.suite.load_and_inject_default_environment({v: payload for v in vectors}))


def _task_number(task_id: str) -> int:
    return int(task_id.rsplit("_", 1)[-1])


@functools.cache
def load_suite(name: str) -> SuiteWorld:
    if name not in SUITES:
        raise ConfigError(f"unknown AgentDojo suite {name!r}; suites: {', '.join(SUITES)}")
    require("agentdojo", "skillsonar")
    from agentdojo.functions_runtime import FunctionsRuntime
    from agentdojo.task_suite.load_suites import get_suite

    suite = get_suite(BENCHMARK_VERSION, name)
    env = suite.load_and_inject_default_environment({})
    return SuiteWorld(name, suite, FunctionsRuntime(suite.tools), pickle.dumps(env))


@functools.cache
def _fast_dumper():
    """A libyaml safe dumper (same text as `yaml.safe_dump`, far faster) that writes AgentDojo's string enums
    as their values, as AgentDojo's own representer does; None without libyaml."""
    base = getattr(yaml, "CSafeDumper", None)
    if base is None:
        return None
    dumper = type("AgentDojoCDumper", (base,), {})
    dumper.add_multi_representer(enum.Enum, lambda d, data: d.represent_str(str(data.value)))
    return dumper


def _yaml_dump(data) -> str:
    dumper = _fast_dumper()
    return yaml.safe_dump(data) if dumper is None else yaml.dump(data, Dumper=dumper)


def tool_output_text(result) -> str:
    """A tool result as the agent reads it: AgentDojo's `tool_result_to_str` (YAML)."""
    from agentdojo.agent_pipeline.tool_execution import tool_result_to_str

    return tool_result_to_str(result, dump_fn=_yaml_dump)


def execute(world: SuiteWorld, calls, env_bytes: bytes | None = None, init_task=None, render: str = "all"):
    """Run `calls` ((function, args) pairs) in order on a fresh environment; returns (pre_env, post_env, outputs,
    traces), an output being the tool's text or its error line (rendered for `render` = all | last | none of the
    calls; None where not rendered). `init_task`: a user task whose `init_environment` prepares the environment
    first (AgentDojo does this before every user task)."""
    from agentdojo.functions_runtime import FunctionCall

    env = world.fresh_env(env_bytes)
    if init_task is not None:
        env = init_task.init_environment(env)
    pre = pickle.loads(pickle.dumps(env)) if render != "last" else None
    outputs, traces = [], []
    for i, (function, args) in enumerate(calls):
        result, error = world.runtime.run_function(env, function, dict(args))
        shown = render == "all" or (render == "last" and i == len(calls) - 1)
        outputs.append((error if error else tool_output_text(result)) if shown else None)
        traces.append(FunctionCall(function=function, args=dict(args)))
    return pre, env, outputs, traces


def user_task_success(world: SuiteWorld, task, output: str, pre, post, traces) -> bool:
    """AgentDojo's utility check: `utility_from_traces` where a task defines it, else `utility` on the state."""
    verdict = task.utility_from_traces(output, pre, post, traces)
    return bool(task.utility(output, pre, post) if verdict is None else verdict)


def injection_success(task, output: str, pre, post, traces) -> bool:
    """AgentDojo's security check: True when the injection task's goal was achieved (the attack succeeded)."""
    verdict = task.security_from_traces(output, pre, post, traces)
    return bool(task.security(output, pre, post) if verdict is None else verdict)
