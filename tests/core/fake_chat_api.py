"""A fake OpenAI-compatible chat-completions server on 127.0.0.1 (a `http.server` thread): no network in tests.

Each `POST .../chat/completions` is recorded (`requests`, the JSON bodies) and answered with `reply(body)`, an
assistant message (`final(text)` or `calls(...)`), wrapped as a chat completion with a fixed usage of
PROMPT_TOKENS + COMPLETION_TOKENS; or, with `status` set, with that HTTP status and an OpenAI-style error body.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PROMPT_TOKENS, COMPLETION_TOKENS = 11, 3


def final(text: str) -> dict:
    return {"role": "assistant", "content": text}


def calls(*pairs: tuple[str, dict], turn: int = 0) -> dict:
    """An assistant message with one tool call per (function, args) pair; ids call_<turn>_<i>."""
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"call_{turn}_{i}", "type": "function", "function": {"name": f, "arguments": json.dumps(a)}}
        for i, (f, a) in enumerate(pairs)]}


def turn(body: dict) -> int:
    """How many assistant turns the conversation of a request already has."""
    return sum(m["role"] == "assistant" for m in body["messages"])


class FakeChatAPI:
    def __init__(self, reply: Callable[[dict], dict] = lambda body: final("Done."), status: int = 200,
                 message: str = "scripted error"):
        self.reply, self.status, self.message = reply, status, message
        self.requests: list[dict] = []
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                api.requests.append(body)
                if not self.path.endswith("/chat/completions"):
                    self.answer(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                elif api.status != 200:
                    self.answer(api.status, {"error": {"message": api.message, "type": "invalid_request_error"}})
                else:
                    self.answer(200, {"id": f"chatcmpl-{len(api.requests)}", "object": "chat.completion", "created": 0,
                                      "model": body["model"],
                                      "choices": [{"index": 0, "message": api.reply(body),
                                                   "finish_reason": "stop", "logprobs": None}],
                                      "usage": {"prompt_tokens": PROMPT_TOKENS, "completion_tokens": COMPLETION_TOKENS,
                                                "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS}})

            def answer(self, status: int, payload: dict):
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):  # quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> FakeChatAPI:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
