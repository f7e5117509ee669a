"""The leak count of issue 45's trap ("questions whose answers leak into the 1-hop training set"): how many facts of
the evaluation universe the reader's first training batches state, with the leak guard and without it. Every hop of
a k-hop evaluation question is such a fact, so a count of 0 means the reader has seen no hop of any evaluation
chain (and it never sees a multi-hop question). Not training: it composes the reader preset and draws its batches.

    python -m experiments.dolores.leakage seed=3 [batches=300] [any reader_cpu override]
"""

from __future__ import annotations

import sys

from hydra.utils import instantiate

from experiments.dolores.qa_data import leak_guard, leaked_facts
from reprolab.config.compose import compose


def leak_counts(overrides: list[str], batches: int = 300) -> dict[str, int]:
    """{'facts': drawn, 'guarded': evaluation facts drawn with the guard, 'unguarded': without it}."""
    cfg = compose(["experiment=dolores/reader_cpu", *overrides])
    data = instantiate(cfg.data)
    evaluation = leak_guard([dict(u) for u in cfg.data.leak_guard_universes])
    out = {}
    for name, forbidden in (("guarded", None), ("unguarded", set())):
        dataset = data.dataset("train", batches, forbidden)
        facts = [f for i in range(batches) for drawn, _, _ in dataset.examples(i) for f in drawn]
        out.setdefault("facts", len(facts))              # the guarded draw: what the reader trains on
        out[name] = leaked_facts(facts, evaluation)
    return out


def main(argv: list[str]) -> None:
    batches = next((int(a.split("=", 1)[1]) for a in argv if a.startswith("batches=")), 300)
    counts = leak_counts([a for a in argv if not a.startswith("batches=")], batches)
    print(f"{batches} training batches, {counts['facts']} facts drawn: {counts['guarded']} of the evaluation universe "
          f"with the leak guard, {counts['unguarded']} without it")


if __name__ == "__main__":
    main(sys.argv[1:])
