"""Train / validation / test splits of PROTAC-8K and the pretraining corpus that goes with each.

- `official_split`: DegradeMaster's seed-111 test set (301 labelled records, untouched); the
  validation set is carved from the labelled training triplets (stratified), never from test.
- `scaffold_split`: whole RDKit Murcko-scaffold groups held out (test, then validation).
- `target_e3_split`: whole (target, E3) pairs held out, so every test pair is unseen with labels.
- `few_shot_episodes`: target-wise few-shot: one target held out, k labelled records per class of
  it given for adaptation, the rest of its records queried.

Pretraining never sees an evaluation record: its corpus is every record except the labelled
records of the split's validation and test sets (unlabeled copies of the same tuple stay, as in the
benchmark; `leakage.py` measures how often that happens).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from reprolab.config.extras import require

from .data import Protac8K, resolve_duplicates

TRIPLET = ["smiles", "target", "e3"]


@dataclass
class Split:
    name: str
    train: pd.DataFrame  # labelled, one row per triplet (see resolve_duplicates)
    val: pd.DataFrame
    test: pd.DataFrame
    pretrain: pd.DataFrame  # records (labelled or not) pretraining may use

    def sizes(self) -> dict[str, int]:
        return {"train": len(self.train), "val": len(self.val), "test": len(self.test), "pretrain": len(self.pretrain)}


def _triplet_keys(rows: pd.DataFrame) -> pd.Series:
    return rows.smiles + "|" + rows.target + "|" + rows.e3


def _pretrain_corpus(records: pd.DataFrame, val: pd.DataFrame, test: pd.DataFrame, test_ids=None) -> pd.DataFrame:
    """All records except labelled val/test ones (test by record id when given, else by triplet)."""
    labelled = records.label >= 0
    held = _triplet_keys(records).isin(set(_triplet_keys(val)))
    held |= records.id.isin(set(test_ids)) if test_ids is not None else _triplet_keys(records).isin(set(_triplet_keys(test)))
    return records[~(labelled & held)].reset_index(drop=True)


def stratified_holdout(rows: pd.DataFrame, fraction: float, rng: np.random.Generator) -> np.ndarray:
    """Boolean mask holding out `fraction` of each label's rows, at random."""
    mask = np.zeros(len(rows), dtype=bool)
    for label in (0, 1):
        idx = np.flatnonzero(rows.label.to_numpy() == label)
        mask[rng.choice(idx, size=int(round(fraction * len(idx))), replace=False)] = True
    return mask


def group_holdout(groups: pd.Series, fraction: float, rng: np.random.Generator) -> np.ndarray:
    """Boolean mask holding out whole groups, in random order, until `fraction` of the rows is out."""
    sizes = groups.value_counts()
    order = rng.permutation(sizes.index.to_numpy())
    target, taken, out = fraction * len(groups), 0, []
    for group in order:
        if taken >= target:
            break
        out.append(group)
        taken += sizes[group]
    return groups.isin(set(out)).to_numpy()


def official_split(data: Protac8K, val_fraction: float = 0.15, seed: int = 0, conflicts: str = "drop") -> Split:
    """DegradeMaster's split (`split_seed111`); validation carved from train with `seed`."""
    rec = data.records
    test = rec[rec.split_seed111 == "test"].reset_index(drop=True)
    train = resolve_duplicates(rec[rec.split_seed111 == "train"], conflicts)
    is_val = stratified_holdout(train, val_fraction, np.random.default_rng(seed))
    val, train = train[is_val].reset_index(drop=True), train[~is_val].reset_index(drop=True)
    return Split("official", train, val, test, _pretrain_corpus(rec, val, test, test_ids=test.id))


def murcko_scaffolds(smiles: pd.Series) -> pd.Series:
    """Bemis-Murcko scaffold SMILES (RDKit) of each molecule."""
    require("rdkit", "degradequery")
    from rdkit import RDLogger
    from rdkit.Chem.Scaffolds import MurckoScaffold

    RDLogger.DisableLog("rdApp.*")
    cache = {s: MurckoScaffold.MurckoScaffoldSmiles(smiles=s) for s in pd.unique(smiles)}
    return smiles.map(cache)


def _group_split(data, name, group_of, test_fraction, val_fraction, split_seed, seed, conflicts) -> Split:
    """Hold out whole groups for test (fixed by `split_seed`), then for validation (varies with `seed`)."""
    labelled = resolve_duplicates(data.records[data.records.label >= 0], conflicts).reset_index(drop=True)
    groups = group_of(labelled)
    is_test = group_holdout(groups, test_fraction, np.random.default_rng(split_seed))
    test, rest = labelled[is_test].reset_index(drop=True), labelled[~is_test].reset_index(drop=True)
    is_val = group_holdout(groups[~is_test].reset_index(drop=True), val_fraction, np.random.default_rng(seed))
    val, train = rest[is_val].reset_index(drop=True), rest[~is_val].reset_index(drop=True)
    return Split(name, train, val, test, _pretrain_corpus(data.records, val, test))


def scaffold_split(data, test_fraction=0.2, val_fraction=0.15, split_seed=0, seed=0, conflicts="drop") -> Split:
    return _group_split(data, "scaffold", lambda r: murcko_scaffolds(r.smiles), test_fraction, val_fraction, split_seed, seed, conflicts)


def target_e3_split(data, test_fraction=0.2, val_fraction=0.15, split_seed=0, seed=0, conflicts="drop") -> Split:
    return _group_split(data, "target_e3", lambda r: r.target + "|" + r.e3, test_fraction, val_fraction, split_seed, seed, conflicts)


SPLITS = {"official": official_split, "scaffold": scaffold_split, "target_e3": target_e3_split}


def few_shot_targets(data: Protac8K, min_per_class: int = 8, max_targets: int = 4) -> list[str]:
    """The targets with the most labelled triplets that have at least `min_per_class` of each label."""
    labelled = resolve_duplicates(data.records[data.records.label >= 0])
    counts = labelled.groupby("target").label.agg(["count", "sum"])
    ok = counts[(counts["sum"] >= min_per_class) & (counts["count"] - counts["sum"] >= min_per_class)]
    return list(ok.sort_values("count", ascending=False).index[:max_targets])


@dataclass
class Episode:
    target: str
    base: Split  # train/val exclude the target entirely; base.test is the target's query set
    support: pd.DataFrame  # k labelled triplets per class of the target


def few_shot_episodes(data: Protac8K, targets: list[str], shots: int, val_fraction=0.15, seed=0, conflicts="drop"):
    """One episode per held-out target: base training without it, `shots` per class, the rest queried."""
    labelled = resolve_duplicates(data.records[data.records.label >= 0], conflicts).reset_index(drop=True)
    held_all = labelled[labelled.target.isin(targets)]
    episodes = []
    for target in targets:
        rng = np.random.default_rng([seed, len(episodes)])
        own = labelled[labelled.target == target].reset_index(drop=True)
        support_idx = np.concatenate([rng.choice(np.flatnonzero(own.label == c), shots, replace=False) for c in (0, 1)])
        support, query = own.iloc[support_idx], own.drop(index=support_idx)
        rest = labelled[labelled.target != target].reset_index(drop=True)
        is_val = stratified_holdout(rest, val_fraction, rng)
        base = Split(f"fewshot:{target}", rest[~is_val].reset_index(drop=True), rest[is_val].reset_index(drop=True),
                     query.reset_index(drop=True), _pretrain_corpus(data.records, held_all, held_all))
        episodes.append(Episode(target, base, support.reset_index(drop=True)))
    return episodes
