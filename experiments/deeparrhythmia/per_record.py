"""Intervals over records, from finished leave-one-record-out runs (an analysis, not training).

The claims command pairs runs by (seed, held-out record) and so treats 30 pairs as independent, though the seeds of
one record share its beats. Here each paired claim of `claims.yaml` is re-scored with the seeds of a record averaged
first: a Student-t interval over the held-out records, the honest unit. Also a table of each arm's macro-F1 and
PVC F1 per held-out record (seed means).

    python -m experiments.deeparrhythmia.per_record logs/claims/deeparrhythmia/loro [--results RESULTS.md]
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from pathlib import Path

from reprolab.claims.evaluate import matches
from reprolab.claims.intervals import t_interval
from reprolab.claims.spec import load_claims
from reprolab.claims.verdicts import verdict_for
from reprolab.results.markdown import write_block
from reprolab.results.runs import find_runs

RECORD = "data.test_record"


def record_means(runs, selectors: dict, metric: str) -> dict[str, float]:
    """Held-out record -> the mean of `metric` over the seeds of the runs matching `selectors`."""
    values: dict[str, list[float]] = defaultdict(list)
    for run in runs:
        value = run.metrics.get(metric)
        if run.finished and matches(run, selectors) and isinstance(value, int | float):
            values[str(run.get(RECORD))].append(float(value))
    return {record: statistics.fmean(v) for record, v in values.items()}


def claim_rows(runs, claims_file) -> list[str]:
    rows = []
    for claim in claims_file.claims:
        if claim.is_meta or not claim.paired or RECORD not in claim.pair_by:
            continue
        scoped = [r for r in runs if matches(r, claim.where)]
        treated = record_means(scoped, claim.treatment, claim.metric)
        base = record_means(scoped, claim.baseline, claim.metric)
        shared = sorted(set(treated) & set(base), key=int)
        effects = [treated[r] - base[r] if claim.effect == "difference" else treated[r] / base[r] for r in shared
                   if claim.effect == "difference" or base[r]]
        if len(effects) < 2:
            rows.append(f"| `{claim.id}` | {claim.metric} | {len(effects)} | — | — | not run |")
            continue
        mean, low, high = t_interval(effects)
        rows.append(f"| `{claim.id}` | {claim.metric} | {len(effects)} | {mean:+.4f} | [{low:+.4f}, {high:+.4f}] | "
                    f"{verdict_for(claim, mean, low, high)} |")
    return ["| claim | metric | records | effect (seed-mean per record) | 95 % t interval over records | verdict |",
            "|---|---|---:|---:|---|---|", *rows]


def arm_table(runs, metric: str) -> list[str]:
    by_arm: dict[str, dict[str, float]] = {}
    for setting in sorted({str(r.get("setting")) for r in runs if r.finished}):
        by_arm[setting] = record_means(runs, {"setting": setting}, metric)
    records = sorted({rec for means in by_arm.values() for rec in means}, key=int)
    lines = [f"| arm ({metric}) | " + " | ".join(records) + " |", "|---|" + "---:|" * len(records)]
    for setting, means in by_arm.items():
        lines.append(f"| {setting} | " + " | ".join(f"{means[r]:.3f}" if r in means else "—" for r in records) + " |")
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path, help="the leave-one-record-out sweep folder")
    parser.add_argument("--results", type=Path, help="write the block into this RESULTS.md")
    args = parser.parse_args(argv)
    runs = find_runs([args.runs])
    body = "\n".join(["**Intervals over held-out records** (seeds averaged within a record first)", "",
                      *claim_rows(runs, load_claims("deeparrhythmia")), "",
                      "**Per held-out record** (mean over seeds)", "", *arm_table(runs, "test/macro_f1"), "",
                      *arm_table(runs, "test/v_f1"), "", *arm_table(runs, "test/confounder_not_v")])
    if args.results:
        write_block(args.results, f"{args.runs}", body, tool="deeparrhythmia-per-record")
    print(body)


if __name__ == "__main__":
    main()
