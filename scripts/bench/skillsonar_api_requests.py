"""What one run of `make reproduce-skillsonar-api` sends, before any request: per held-out suite the test episodes,
those a guard installs (the scanner refuses some: they cost nothing), the characters of the first request (tool
schemas + system prompt with the guard skill and the installed skill + the user's request) and the calls of the
episode's plan. A model that makes exactly the planned calls sends calls + 1 requests per episode, each at least the
first one's size (tool outputs are added turn by turn): a lower bound on the run's input. Settings come from the
composed preset, so overrides apply:

    python scripts/bench/skillsonar_api_requests.py guard=runtime data.test_max_user_tasks=null
"""

from __future__ import annotations

import json
import sys
from statistics import fmean

from hydra.utils import instantiate

from reprolab.config.compose import compose


def main(argv: list[str]) -> int:
    from experiments.skillsonar.api_agent import episode_runtime, system_prompt
    from experiments.skillsonar.api_llm import tool_schema

    cfg = compose(["experiment=skillsonar/api_agent", *argv])
    data, guard = instantiate(cfg.data), instantiate(cfg.model)
    data.setup("test")
    total_requests = total_chars = 0
    print("suite episodes installed first_request_chars planned_calls")
    for suite in data.test_suites:
        episodes = [e for e in data.test_episodes if e.suite == suite
                    and (guard.scanner is None or guard.scanner.admits(e.skill_text))]
        tools = len(json.dumps([tool_schema(f) for f in episode_runtime(suite).functions.values()]))
        first = [tools + len(system_prompt(guard.text() if guard.size else None, e.skill_text)) + len(e.prompt)
                 for e in episodes]
        requests = [len(e.calls) + 1 for e in episodes]
        total_requests += sum(requests)
        total_chars += sum(f * r for f, r in zip(first, requests, strict=True))
        print(suite, sum(e.suite == suite for e in data.test_episodes), len(episodes), round(fmean(first)),
              round(fmean(requests) - 1, 2))
    print(f"at least {total_requests} requests and {total_chars / 1e6:.2f} M input characters "
          f"(~{total_chars / 4e6:.2f} M tokens at ~4 characters a token) per run")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
