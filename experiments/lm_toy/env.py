"""The toy reward: single-digit addition modulo 10, "a+b=" → the digit (a + b) mod 10, then EOS, for a, b below
`digits` (`environment.digits`; 5 in the claim: 25 prompts).

Reward 1 when the completion's answer, its first non-space character (as a verifier parses a final answer),
is that digit; 0 otherwise. What follows the answer is not scored: an exact-match reward also punished the EOS
after every wrong digit, and in a pilot the policy learned to stop emitting EOS at all (reward 0 for 120 steps).
The scripted expert writes the answer. Every prompt is in every split: the toy tests that the policy task optimises a reward, not that a
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
        return float(completion.strip()[:1] == record["answer"])

    def expert(self, record, history):
        return record["answer"]
