"""How much of the test set the training data already shows: shared SMILES and shared tuples.

The seed-111 split is random over records, and PROTAC-8K holds the same molecule against several
targets, so many test molecules (and some whole test tuples) also occur in the labelled training
records or in the unlabeled pool. `leakage_report` counts them; `novel_mask` picks the test
records whose tuple (or SMILES) occurs nowhere else, the "de-duplicated" test subset.
"""

from __future__ import annotations

import pandas as pd


def _keys(rows: pd.DataFrame, by: str) -> pd.Series:
    return rows.smiles if by == "smiles" else rows.smiles + "|" + rows.target + "|" + rows.e3


def novel_mask(test: pd.DataFrame, seen: list[pd.DataFrame], by: str = "tuple") -> pd.Series:
    """True for test records whose SMILES / tuple is in none of `seen`."""
    known = set().union(*(set(_keys(s, by)) for s in seen))
    return ~_keys(test, by).isin(known)


def leakage_report(records: pd.DataFrame) -> dict[str, float]:
    """Shares of official test SMILES / tuples that also occur in labelled train or the unlabeled pool."""
    test = records[records.split_seed111 == "test"]
    train = records[records.split_seed111 == "train"]
    pool = records[records.split_seed111 == "unlabeled"]
    out = {"test_records": len(test)}
    for by in ("smiles", "tuple"):
        for name, seen in (("train", [train]), ("unlabeled", [pool]), ("train_or_unlabeled", [train, pool])):
            out[f"{by}_in_{name}"] = float((~novel_mask(test, seen, by)).mean())
    twins = test.merge(train, on=["smiles", "target", "e3"], suffixes=("", "_train"))
    out["tuple_in_train_same_label"] = float(twins.groupby("id").apply(lambda g: (g.label == g.label_train).all()).sum()) / len(test)
    return out


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Print the leakage of the official split: `python -m experiments.degradequery.leakage [overrides]`
    (the data folder comes from the composed `experiment=degradequery/main` config, e.g. `paths.data_dir=...`)."""
    from .data import print_records_report

    return print_records_report(leakage_report, argv)


if __name__ == "__main__":
    main()
