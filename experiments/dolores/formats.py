"""How a scaffold's prompts are written: the toy's triples for the small LM, natural language for Qwen3 on
PhantomWiki. A format renders a context of articles, a question (one hop or a path), an answered turn (a worked
example, or a sequential scaffold's earlier hop), and parses an answer into a set of names.
"""

from __future__ import annotations

import re


class ToyFormat:
    """`Bako boss Dina . …` articles; `Q Bako friend boss` asks the boss of Bako's friend, and the answer follows
    at once, ending in EOS: a 1-hop answer then follows its `s r` as the fact's object follows it in an article
    (the copy a small reader learns; with a `? A` cue between them a 2-layer reader stayed at the answer prior)."""

    def context(self, articles: list[str]) -> str:
        return " ".join(articles)

    def ask(self, subject: str, chain: list[str], text: str | None = None) -> str:
        return f"Q {subject} {' '.join(chain)}"

    def answered(self, subject: str, chain: list[str], answer: str) -> str:
        return f"{self.ask(subject, chain)} {answer} <eos>"

    def prompt(self, context: str, turns: list[str], question: str) -> str:
        return " ".join(part for part in (context, *turns, question) if part)

    def parse(self, text: str) -> list[str]:
        words = text.split()
        return words[:1]


class NaturalFormat:
    """PhantomWiki's prose articles and questions; a sub-question is 'Who is the <relation> of <name>?'."""

    def __init__(self, instruction: str = "Answer with the name(s) only, separated by commas."):
        self.instruction = instruction

    def context(self, articles: list[str]) -> str:
        return "\n\n".join(articles)

    def ask(self, subject: str, chain: list[str], text: str | None = None) -> str:
        if text is None:
            text = "Who is " + " of ".join(f"the {r}" for r in reversed(chain)) + f" of {subject}?"
        return f"Question: {text}\nAnswer:"

    def answered(self, subject: str, chain: list[str], answer: str) -> str:
        return f"{self.ask(subject, chain)} {answer}\n"

    def prompt(self, context: str, turns: list[str], question: str) -> str:
        return "\n\n".join(part for part in (self.instruction, context, "\n".join(turns), question) if part)

    def parse(self, text: str) -> list[str]:
        line = text.strip().split("\n")[0]
        return [name.strip() for name in re.split(r",| and ", line) if name.strip()]
