"""A multi-turn environment with a scripted expert: guess a secret number, told "higher" or "lower" each turn.

The template of a tool-using environment (the action is a query, the observation the tool's answer): the
policy acts, the environment answers, until the guess is right (reward 1, done) or the turn budget runs out
(reward 0, truncated). The expert bisects, so it needs ⌈log2(high − low + 1)⌉ turns at most.
"""

from __future__ import annotations

from reprolab.lm.environments.base import Environment, Reply


class GuessNumber(Environment):
    def __init__(self, low: int = 0, high: int = 9):
        self.low, self.high = low, high

    def records(self, split):
        return [{"prompt": f"guess {self.low}-{self.high}:", "secret": n} for n in range(self.low, self.high + 1)]

    def step(self, record, history, action):
        guess = action.strip()
        if not guess.lstrip("-").isdigit():
            return Reply(" not a number:", 0.0, done=False)
        if int(guess) == record["secret"]:
            return Reply("", 1.0, done=True)
        return Reply(" higher:" if int(guess) < record["secret"] else " lower:", 0.0, done=False)

    def expert(self, record, history):
        low, high = self.low, self.high
        for action, observation in history:
            if "higher" in observation:
                low = int(action) + 1
            elif "lower" in observation:
                high = int(action) - 1
        return str((low + high) // 2)
