"""Paper scale: DR-rubric written by an LLM over a search tool, and an LLM judge that scores reports against it.

- `LLMDeepResearchRubric` (`rubric=llm_deep_research`): per prompt, stage I (§3.1) runs `turns` rounds of
  "write one search query given the notes so far" → `search.search(query)` → notes; stage II (§3.2) asks the
  writer for at most `max_items` atomic, verifiable criteria, one per line ("- ..."). Rubrics are cached per
  prompt. With `writer` the policy's own model (a bootstrap iteration) or a frontier model's weights.
- `LLMJudge`: P(yes) of "does the report meet the criterion?" per item, read from the judge's next-token logits
  over the first tokens of `yes` and `no`; the reward is the mean over the rubric's items (a long rubric is not
  rewarded for its length).
Both build their model on first use (the data module's copy of the environment never scores, so it loads none).
The model is any `HuggingFaceCausalLM`-like module (`generate_completions`, `forward -> logits`).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from reprolab.cli.errors import ConfigError
from reprolab.lm.prompting import LazyModel, generate_text

QUERY = ("Task: {prompt}\nNotes so far:\n{notes}\nWrite one web search query that finds what an expert answer to "
         "the task must contain, what it must not confuse, and how it is structured.\nQuery:")
DISTIL = ("Task: {prompt}\nEvidence:\n{notes}\nFrom the evidence, write at most {max_items} atomic, verifiable "
          "criteria an expert answer must meet, one per line, each starting with '- '.\n")
JUDGE = "Task: {prompt}\nAnswer: {report}\nCriterion: {item}\nDoes the answer meet the criterion? Answer yes or no.\n"
FALLBACK = ("The answer addresses the task.", "Every stated fact is correct.", "The answer is concise.")


class LLMJudge:
    def __init__(self, model: Callable, tokenizer, yes: str = "yes", no: str = "no"):
        self.model, self.tokenizer = LazyModel(model), tokenizer
        self.yes_id, self.no_id = tokenizer.encode(yes)[0], tokenizer.encode(no)[0]
        if self.yes_id == self.no_id:
            raise ConfigError(f"judge: '{yes}' and '{no}' start with the same token; choose words that do not")

    @torch.no_grad()
    def item_probabilities(self, prompt: str, report: str, items: list[str]) -> list[float]:
        model = self.model.get()
        device = next(model.parameters()).device
        out = []
        for item in items:
            ids = self.tokenizer.encode(JUDGE.format(prompt=prompt, report=report, item=item))
            logits = model(torch.tensor([ids], device=device))[0, -1].float()
            out.append(torch.softmax(logits[[self.yes_id, self.no_id]], 0)[0].item())
        return out

    def score(self, prompt: str, report: str, items: list[str]) -> float:
        probabilities = self.item_probabilities(prompt, report, items)
        return sum(probabilities) / len(probabilities) if probabilities else 0.0


class LLMDeepResearchRubric:
    """Fitted lazily: `rubric(record)` researches and distils the record's prompt on first sight."""

    name = "llm_deep_research"
    reads_standard = False

    def __init__(self, writer: Callable, tokenizer, turns: int = 5, max_items: int = 12, max_new_tokens: int = 256):
        if turns < 0 or max_items < 1:
            raise ConfigError(f"rubric.turns={turns} must be >= 0 and rubric.max_items={max_items} >= 1")
        self.writer, self.tokenizer = LazyModel(writer), tokenizer
        self.turns, self.max_items, self.max_new_tokens = turns, max_items, max_new_tokens
        self.search, self.cache = None, {}

    def fit(self, search) -> None:
        self.search = search

    def research(self, prompt: str) -> list[str]:
        notes: list[str] = []
        for _ in range(self.turns):
            query = generate_text(self.writer.get(), self.tokenizer, QUERY.format(prompt=prompt, notes="\n".join(notes)),
                                  32).strip().splitlines()
            notes += self.search.search(query[0] if query else prompt)
        return notes

    def distil(self, prompt: str, notes: list[str]) -> list[str]:
        text = generate_text(self.writer.get(), self.tokenizer,
                             DISTIL.format(prompt=prompt, notes="\n".join(notes), max_items=self.max_items),
                             self.max_new_tokens)
        items = [line[2:].strip() for line in text.splitlines() if line.startswith("- ") and line[2:].strip()]
        return items[:self.max_items] or list(FALLBACK)

    def rubric(self, record: dict) -> list[str]:
        prompt = record["prompt"]
        if prompt not in self.cache:
            if self.search is None:
                raise ConfigError("rubric.fit(search) was not called: the environment gives the builder its search tool")
            self.cache[prompt] = self.distil(prompt, self.research(prompt))
        return self.cache[prompt]
