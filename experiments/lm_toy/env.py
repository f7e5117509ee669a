"""The toy reward: single-digit addition modulo 10, "a+b=" → the digit (a + b) mod 10, then EOS, for a, b below
`digits` (`environment.digits`; 5 in the claim: 25 prompts).

Reward 1 for exactly that digit (surrounding spaces ignored), 0 otherwise. The scripted expert writes the
answer. Every prompt is in every split: the toy tests that the policy task optimises a reward, not that a
small LM generalises arithmetic (README).
"""

from __future__ import annotations

from reprolab.lm.environments.base import RewardEnvironment


class DigitSum(RewardEnvironment):
    def __init__(self, digits: int = 10, modulus: int = 10):
        self.digits, self.modulus = digits, modulus

    def records(self, split):
        return [{"prompt": f"{a}+{b}=", "answer": str((a + b) % self.modulus)}
                for a in range(self.digits) for b in range(self.digits)]

    def reward(self, record, completion):
        return float(completion.strip() == record["answer"])

    def expert(self, record, history):
        return record["answer"]
