"""The toy reward: single-digit addition modulo 10, "a+b=" → the digit (a + b) mod 10, then EOS.

Reward 1 for exactly that digit (surrounding spaces ignored), 0 otherwise. The scripted expert writes the
answer. All 100 prompts are in every split: the toy tests that the policy task optimises a reward, not that a
small LM generalises arithmetic (README).
"""

from __future__ import annotations

from reprolab.lm.environments.base import RewardEnvironment


class DigitSum(RewardEnvironment):
    def __init__(self, modulus: int = 10):
        self.modulus = modulus

    def records(self, split):
        return [{"prompt": f"{a}+{b}=", "answer": str((a + b) % self.modulus)} for a in range(10) for b in range(10)]

    def reward(self, record, completion):
        return float(completion.strip() == record["answer"])

    def expert(self, record, history):
        return record["answer"]
