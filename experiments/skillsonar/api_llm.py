"""A chat-completions LLM over HTTP as an AgentDojo pipeline element, and the API's refusals as one line each.

`ChatCompletionsLLM` is AgentDojo's `OpenAILLM` with four differences a run needs, written against the public
`openai` client and AgentDojo's public message types: the system prompt goes as role `system` (AgentDojo sends
`developer`, which the chat templates of local servers such as vLLM, llama.cpp or Ollama may not know; `system_role`
sets it), `temperature` 0 is sent (AgentDojo drops a falsy temperature, so the server's default, 1 at OpenAI,
applies), `max_tokens` is sent, and the retries are the client's (`max_retries`), not a fixed three with waits of
up to 40 s on top. It also counts the tokens the API reports (`usage`), the run's cost. `element: agentdojo`
(api_agent.py) uses AgentDojo's own `OpenAILLM` instead, as AgentDojo's published pipelines do.

`api_error` turns what the client raises into a ConfigError that says which key, variable or server to fix.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from collections.abc import Sequence

from reprolab.cli.errors import ConfigError
from reprolab.config.extras import require

require("agentdojo", "skillsonar")

from agentdojo.agent_pipeline import BasePipelineElement  # noqa: E402
from agentdojo.functions_runtime import EmptyEnv, Env, FunctionCall, FunctionsRuntime  # noqa: E402
from agentdojo.types import (  # noqa: E402
    ChatAssistantMessage,
    ChatMessage,
    get_text_content_as_str,
    text_content_block_from_string,
)


def _text(message: ChatMessage) -> str | None:
    content = message["content"]
    return None if content is None else get_text_content_as_str(content)


def to_openai(message: ChatMessage, system_role: str = "system") -> dict:
    """One AgentDojo message as an OpenAI chat-completions message."""
    role = message["role"]
    if role == "system":
        return {"role": system_role, "content": _text(message) or ""}
    if role == "user":
        return {"role": "user", "content": _text(message) or ""}
    if role == "tool":
        return {"role": "tool", "tool_call_id": message["tool_call_id"], "content": message["error"] or _text(message) or ""}
    out = {"role": "assistant", "content": _text(message)}
    if message["tool_calls"]:
        out["tool_calls"] = [{"id": c.id, "type": "function",
                              "function": {"name": c.function, "arguments": json.dumps(c.args)}}
                             for c in message["tool_calls"]]
    return out


def tool_schema(function) -> dict:
    return {"type": "function", "function": {"name": function.name, "description": function.description,
                                             "parameters": function.parameters.model_json_schema()}}


def parse_arguments(text: str | None) -> dict:
    """A tool call's JSON arguments; {} when the model wrote none or no JSON object (the tool then says what is missing)."""
    try:
        args = json.loads(text) if text else {}
    except json.JSONDecodeError:
        return {}
    return args if isinstance(args, dict) else {}


def from_openai(message) -> ChatAssistantMessage:
    calls = [FunctionCall(function=c.function.name, args=parse_arguments(c.function.arguments), id=c.id)
             for c in message.tool_calls or []]
    content = None if message.content is None else [text_content_block_from_string(message.content)]
    return ChatAssistantMessage(role="assistant", content=content, tool_calls=calls or None)


class ChatCompletionsLLM(BasePipelineElement):
    def __init__(self, client, model: str, temperature: float | None = 0.0, max_tokens: int | None = None,
                 system_role: str = "system", usage: Counter | None = None, lock: threading.Lock | None = None):
        self.client, self.model, self.temperature, self.max_tokens = client, model, temperature, max_tokens
        self.system_role = system_role
        self.usage = Counter() if usage is None else usage
        self.lock = lock or threading.Lock()   # episodes may run on several threads (api_agent's workers)

    def query(self, query: str, runtime: FunctionsRuntime, env: Env = EmptyEnv(), messages: Sequence[ChatMessage] = (),
              extra_args: dict | None = None):
        request = {"model": self.model, "messages": [to_openai(m, self.system_role) for m in messages]}
        tools = [tool_schema(f) for f in runtime.functions.values()]
        if tools:
            request |= {"tools": tools, "tool_choice": "auto"}
        if self.temperature is not None:
            request["temperature"] = self.temperature
        if self.max_tokens is not None:
            request["max_tokens"] = self.max_tokens
        completion = self.client.chat.completions.create(**request)
        with self.lock:
            self.usage["requests"] += 1
            if completion.usage is not None:
                self.usage["prompt_tokens"] += completion.usage.prompt_tokens or 0
                self.usage["completion_tokens"] += completion.usage.completion_tokens or 0
        return query, runtime, env, [*messages, from_openai(completion.choices[0].message)], extra_args or {}


def _detail(err) -> str:
    """The server's own message (OpenAI's `{"error": {"message": ...}}`), on one line, at most 200 characters."""
    body = getattr(err, "body", None)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body = body["error"]
    message = body.get("message") if isinstance(body, dict) else None
    return " ".join(str(message or getattr(err, "message", None) or err).split())[:200]


def api_error(err: BaseException, base_url: str, model: str, key_env: str | None) -> ConfigError | None:
    """A ConfigError naming what to set for an error of the `openai` client (None: not one of its errors)."""
    import openai

    key = f"${key_env}" if key_env else "the API key (task.agent.api_key_env is null)"
    if isinstance(err, openai.APIConnectionError):
        return ConfigError(f"cannot reach task.agent.base_url={base_url} ({_detail(err)}): start the server "
                           "(e.g. `vllm serve <model>`) or set task.agent.base_url to a reachable OpenAI-compatible "
                           "endpoint (ending in /v1)")
    if not isinstance(err, openai.APIStatusError):
        return None
    status = err.status_code
    if status in (401, 403):
        return ConfigError(f"{base_url} refused {key} (HTTP {status}: {_detail(err)}): export {key_env or 'a key'}=<a "
                           "valid key for that server>, or name the variable that holds it with task.agent.api_key_env")
    if status == 404:
        return ConfigError(f"{base_url} has no model {model!r} or no chat-completions route (HTTP 404: {_detail(err)}): "
                           "set task.agent.model to a model it serves and task.agent.base_url to its root (ending in /v1)")
    if 400 <= status < 500:
        return ConfigError(f"{base_url} refused the request for model {model!r} (HTTP {status}: {_detail(err)}): "
                           "check task.agent.model, task.agent.max_tokens and task.agent.temperature for that server")
    return ConfigError(f"{base_url} failed (HTTP {status}: {_detail(err)}) after task.agent.retries retries: try "
                       "again later, or raise task.agent.retries / task.agent.timeout")
