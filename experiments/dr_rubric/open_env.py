"""Paper scale: open-ended report prompts from a file, a search tool the user configures, an LLM-judged rubric reward.

`prompts` is a JSONL file, one {"prompt": ..., "split": "train" | "val" | "test"} per line (the paper trains on
1K–3K prompts; no set is public, so bring your own); a line may carry "rubric": [criteria] (a benchmark's expert
rubric), which then scores that prompt at val/test instead of the builder's. The search tool is any object with
`search(query) -> list[str]`; `LocalCorpusSearch` ranks a JSONL corpus ({"text": ...} per line) by TF-IDF cosine
(scikit-learn), and a web search API plugs in as another `environment.search._target_`.
Training prompts are rewarded by the judge on the builder's rubric (`rubric=llm_deep_research`).
"""

from __future__ import annotations

import json
from pathlib import Path

from reprolab.cli.errors import DatasetNotFoundError
from reprolab.lm.environments.base import RewardEnvironment


def read_jsonl(path: str | Path, what: str, fix: str) -> list[dict]:
    path = Path(path)
    if not path.is_file():
        raise DatasetNotFoundError(f"{what} file '{path}' not found; {fix}")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class LocalCorpusSearch:
    """The corpus is read and indexed on the first query (an environment copy that never searches reads nothing)."""

    def __init__(self, path: str, k: int = 5):
        self.path, self.k, self.queries = path, k, 0
        self.documents: list[str] | None = None

    def index(self) -> None:
        from sklearn.feature_extraction.text import TfidfVectorizer

        self.documents = [d["text"] for d in read_jsonl(self.path, "search corpus", "write one {\"text\": ...} per "
                                                        "line, or set environment.search to your own search tool")]
        self.vectorizer = TfidfVectorizer()
        self.matrix = self.vectorizer.fit_transform(self.documents)

    def search(self, query: str) -> list[str]:
        if self.documents is None:
            self.index()
        self.queries += 1
        scores = (self.matrix @ self.vectorizer.transform([query]).T).toarray().ravel()
        return [self.documents[i] for i in scores.argsort()[::-1][:self.k] if scores[i] > 0]


class OpenReportEnvironment(RewardEnvironment):
    def __init__(self, prompts: str, rubric, search, judge):
        self.prompts_path, self.builder, self.search_tool, self.judge = prompts, rubric, search, judge
        self.split_records: dict[str, list[dict]] | None = None

    def records(self, split):
        if self.split_records is None:
            rows = read_jsonl(self.prompts_path, "prompts", "write one {\"prompt\": ..., \"split\": ...} per line "
                                                            "(environment.prompts)")
            self.split_records = {s: [dict(r) for r in rows if r.get("split") == s] for s in ("train", "val", "test")}
            self.builder.fit(self.search_tool)
        return self.split_records[split]

    def measures(self, record: dict, report: str) -> dict[str, float]:
        """What the evaluation logs beside the judge's reward (no oracle exists for open prompts)."""
        return {"report_chars": float(len(report)), "rubric_items": float(len(self.builder.rubric(record)))}

    def reward(self, record, completion):
        items = record.get("rubric") if record.get("split") != "train" and record.get("rubric") else None
        return self.judge.score(record["prompt"], completion, items or self.builder.rubric(record))
