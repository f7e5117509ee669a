"""The scaffolds as a test-only task through the trainer (max_epochs 0): the reader's weights come from a finished
training run (`init_from`), every scaffold is `scaffold=<name>`, and the test epoch logs F1, tokens spent, LM calls
and premature stops, overall and per hop count (DOLORES §5's tables; Arm A of the token-fair protocol when
`scaffold` is majority/best with `match=decomposed`).
"""

from __future__ import annotations

import numpy as np

from experiments.dolores.matched import voted
from experiments.dolores.metrics import answer_f1, premature
from experiments.dolores.reader import TextReader
from experiments.dolores.scaffolds import decomposed, monolithic, sequential
from reprolab.cli.errors import ConfigError
from reprolab.run.finished_model import load_initial_weights
from reprolab.tasks.base import Task

SCAFFOLDS = ("monolithic", "sequential", "decomposed", "majority", "best")


class ScaffoldTask(Task):
    def __init__(self, model, optimizer, scheduler=None, *, tokenizer, format, scaffold: str = "decomposed",
                 worked_example: bool = True, match: str | None = "decomposed", samples: int = 1,
                 temperature: float = 1.0, max_new_tokens: int = 2, reader_batch_size: int = 256,
                 init_from: str | None = None):
        super().__init__(model, optimizer, scheduler)
        if scaffold not in SCAFFOLDS:
            raise ConfigError(f"task.scaffold={scaffold!r}; choose one of {', '.join(SCAFFOLDS)}")
        if match not in (None, "decomposed", "sequential"):
            raise ConfigError(f"task.match={match!r}; choose decomposed, sequential or null (then task.samples)")
        if samples < 1 or temperature < 0:
            raise ConfigError("task.samples must be >= 1 and task.temperature >= 0")
        if init_from:
            load_initial_weights(self.model, init_from, to_make_it="train the reader first (dolores/reader_cpu)")
        self.reader = TextReader(self.model, tokenizer, max_new_tokens, reader_batch_size)
        self.format, self.scaffold, self.worked_example = format, scaffold, worked_example
        self.match, self.samples, self.temperature = match, samples, temperature
        self.rows: list[dict] = []

    def training_step(self, batch, batch_idx):
        """Nothing to train (max_epochs 0 never calls it; a fast_dev_run does): no loss, no optimizer step."""
        return None

    def answer(self, world, records: list[dict]):
        """Outcomes in `records`' order; a question without a parsed path (PhantomWiki's count and aggregate
        templates) is answered monolithically by every scaffold."""
        planned = [i for i, r in enumerate(records) if r["chain"] is not None]
        unplanned = [i for i, r in enumerate(records) if r["chain"] is None]
        outcomes = dict(zip(planned, self.scaffold_outcomes(world, [records[i] for i in planned]), strict=True))
        outcomes.update(zip(unplanned, monolithic(self.reader, self.format, world, [records[i] for i in unplanned]),
                            strict=True))
        return [outcomes[i] for i in range(len(records))]

    def scaffold_outcomes(self, world, records: list[dict]):
        if not records:
            return []
        args = (self.reader, self.format, world, records)
        if self.scaffold == "monolithic":
            return monolithic(*args)
        if self.scaffold == "sequential":
            return sequential(*args)
        if self.scaffold == "decomposed":
            return decomposed(*args, worked_example=self.worked_example)
        budgets = None
        if self.match == "decomposed":
            budgets = [o.tokens for o in decomposed(*args, worked_example=self.worked_example)]
        elif self.match == "sequential":
            budgets = [o.tokens for o in sequential(*args)]
        return voted(*args, budgets, self.samples, self.temperature, self.scaffold)

    def on_test_epoch_start(self) -> None:
        self.model.eval()
        self.rows = []

    def test_step(self, batch, batch_idx):
        world = self.trainer.datamodule.world
        for record, outcome in zip(batch, self.answer(world, batch), strict=True):
            self.rows.append({"hops": record["hops"], "f1": answer_f1(outcome.answer, record["answer"]),
                              "tokens": outcome.tokens, "calls": outcome.calls,
                              "premature": float(premature(outcome.answer, record, outcome.broken))})

    def on_test_epoch_end(self) -> None:
        for key, value in summarise(self.rows).items():
            self.log(f"test/{key}", value)


def summarise(rows: list[dict]) -> dict[str, float]:
    """Means overall and per hop count; `f1_hop3plus` over hops >= 3; `f1_slope`: least-squares slope of per-hop
    F1 against hop count (how fast a scaffold degrades; a gap between two scaffolds grows when theirs differ)."""
    out = {}
    for key in ("f1", "tokens", "calls", "premature"):
        out[key] = float(np.mean([r[key] for r in rows]))
    hops = sorted({r["hops"] for r in rows})
    per_hop = {}
    for h in hops:
        at = [r for r in rows if r["hops"] == h]
        per_hop[h] = float(np.mean([r["f1"] for r in at]))
        out[f"f1_hop{h}"] = per_hop[h]
        out[f"tokens_hop{h}"] = float(np.mean([r["tokens"] for r in at]))
        out[f"premature_hop{h}"] = float(np.mean([r["premature"] for r in at]))
    deep = [r["f1"] for r in rows if r["hops"] >= 3]
    if deep:
        out["f1_hop3plus"] = float(np.mean(deep))
        out["tokens_hop3plus"] = float(np.mean([r["tokens"] for r in rows if r["hops"] >= 3]))
    if len(hops) >= 2:
        out["f1_slope"] = float(np.polyfit(hops, [per_hop[h] for h in hops], 1)[0])
    return out
