"""The guard between a language-model agent and AgentDojo's tools: one episode's environment, every call the agent
proposes routed through the guard and the simulated user, and AgentDojo's verdict on the end state.

Shared by the Hugging Face agent (llm_agent.py, a text protocol) and the API-backed agent (api_agent.py, native
tool calls): both only propose calls and give a final answer. Per proposed call, with `enforce` the guard decides
allow / replan / confirm on the `ActionContext` (as for the scripted agent, agent.run_episode); without it the guard
is only the system-prompt skill and every call is allowed. A confirmation (the agent asked, or the guard decided
so) goes to the simulated user, who approves every call of their own task (its ground truth) and an out-of-scope
one with probability `approve_out_of_scope`, as in agent.SimulatedUser.
"""

from __future__ import annotations

from experiments.skillsonar.actions import ActionContext
from experiments.skillsonar.agent import EpisodeResult, SimulatedUser
from experiments.skillsonar.episodes import Episode
from experiments.skillsonar.suites import injection_success, load_suite, tool_output_text, user_task_success

DECLINED = "The user declined this call: it was not made."
REPLANNED = "The runtime guard stopped this call (replan): it was not made; continue the task without it."


class ToolGateway:
    def __init__(self, episode: Episode, guard, user: SimulatedUser, enforce: bool):
        self.episode, self.guard, self.user, self.enforce = episode, guard, user, enforce
        self.world = load_suite(episode.suite)
        self.task = self.world.user_task(episode.user_task)
        self.env = self.task.init_environment(self.world.fresh_env(episode.env_bytes))
        self.pre = self.task.init_environment(self.world.fresh_env(episode.env_bytes))
        self.in_scope = [(c.function, c.args) for c in episode.calls if not c.injected]
        self.history: list[tuple[str, str]] = []   # (function, output) of the calls that ran
        self.traces: list = []                     # AgentDojo FunctionCalls of the calls that ran
        self.confirmations = self.replans = 0

    @property
    def tools(self) -> list[str]:
        return sorted(self.world.runtime.functions)

    def propose(self, function: str, args: dict, confirm: bool = False) -> tuple[bool, str]:
        """(ran, text): the call's tool output (or AgentDojo's error line) when it ran, else why it did not."""
        from agentdojo.functions_runtime import FunctionCall

        ctx = ActionContext(self.episode.prompt, self.episode.skill_text, tuple(self.history), function, args)
        decision = self.guard.decide(ctx) if self.enforce else "allow"
        if confirm or decision == "confirm":
            self.confirmations += 1
            if ((function, args) not in self.in_scope
                    and self.user.draw(self.episode, len(self.traces)) >= self.user.approve_out_of_scope):
                return False, DECLINED
        elif decision == "replan":
            self.replans += 1
            return False, REPLANNED
        result, error = self.world.runtime.run_function(self.env, function, args)
        self.traces.append(FunctionCall(function=function, args=args))
        output = error or tool_output_text(result)
        self.history.append((function, output))
        return True, output

    def result(self, answer: str, score_user_task: bool = False) -> EpisodeResult:
        """AgentDojo's `security()` of the injection task for an attacked episode, else `utility()` of the user task."""
        utility = (user_task_success(self.world, self.task, answer, self.pre, self.env, self.traces)
                   if score_user_task or not self.episode.attacked else False)
        if not self.episode.attacked:
            return EpisodeResult(utility, self.confirmations, self.replans, True)
        attack = self.world.injection_task(self.episode.injection_task)
        success = injection_success(attack, answer, self.pre, self.env, self.traces)
        return EpisodeResult(success, self.confirmations, self.replans, True, utility)
