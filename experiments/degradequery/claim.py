"""The claim check: every model on every split, several seeds, one table (plain PyTorch + sklearn).

`python -m experiments.degradequery.claim --out <dir>` (what `make claim-degradequery` runs) writes
`results.csv` (one row per seed x split x model x test subset), `fewshot.csv`, `leakage.json`,
`timing.json` and the markdown tables of RESULTS.md. Selection (early stopping, the epoch kept) uses
only the validation split carved from train; the test records are scored once, at the end.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import torch

from reprolab.metrics.binary import binary_metrics

from .baselines import fit_predict_forest
from .data import Protac8K, load_protac8k
from .finetune import FitConfig, fit_classifier, predict, self_training
from .inputs import TupleInputs
from .leakage import leakage_report, novel_mask
from .model import DegradeQuery
from .pretrain import pretrain
from .splits import SPLITS, Split, few_shot_episodes, few_shot_targets

NEURAL = ("degradequery", "no_pretrain", "molecule_only", "self_training")
FORESTS = {"rf_tuple": ("rf", True), "gbm_tuple": ("gbm", True), "rf_molecule": ("rf", False)}
MODELS = NEURAL + tuple(FORESTS)


@dataclass
class ClaimConfig:
    seeds: tuple[int, ...] = (0, 1, 2, 3, 4)
    splits: tuple[str, ...] = ("official", "scaffold", "target_e3")
    models: tuple[str, ...] = MODELS
    mol_encoder: str = "ecfp"  # ecfp | gin
    hidden: int = 256
    dim: int = 64
    dropout: float = 0.3
    input_dropout: float = 0.1
    pretrain_steps: int = 500
    pretrain_batch: int = 128
    pretrain_lr: float = 1e-3
    sampling: str = "frequency"
    ablation_corpus: str = "unlabeled"  # holdouts + few-shot pretrain on the unlabeled pool only (one run per seed)
    fit: FitConfig = field(default_factory=FitConfig)
    conflicts: str = "drop"
    val_fraction: float = 0.15
    holdout_fraction: float = 0.2
    split_seed: int = 0
    rf_trees: int = 300
    gbm_iters: int = 150
    pseudo_confidence: float = 0.9
    few_shot_targets: int = 3
    shots: int = 4
    adapt_steps: int = 30
    adapt_lr: float = 3e-4


def smoke_config(cfg: ClaimConfig) -> ClaimConfig:
    """The same pipeline with tiny budgets (tests, `--smoke`)."""
    return ClaimConfig(**{**asdict(cfg), "fit": FitConfig(epochs=2, patience=1), "pretrain_steps": 5, "rf_trees": 10,
                          "gbm_iters": 5, "few_shot_targets": 2, "adapt_steps": 2, "hidden": 32, "dim": 16})


def rows_xy(data: Protac8K, rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    return data.tuples(rows), rows.label.to_numpy(dtype=np.int64)


class NeuralModels:
    """Builds, pretrains (cached per corpus and seed) and fine-tunes the neural models of the table."""

    def __init__(self, data: Protac8K, cfg: ClaimConfig):
        self.data, self.cfg, self.inputs = data, cfg, TupleInputs(data, mol_encoder=cfg.mol_encoder)
        self._pretrained: dict[tuple, dict] = {}

    def new(self, use_tuple: bool = True) -> DegradeQuery:
        c = self.cfg
        return DegradeQuery(fp_bits=self.data.fingerprints.shape[1], num_targets=len(self.data.targets),
                            num_e3s=len(self.data.e3s), hidden=c.hidden, dim=c.dim, dropout=c.dropout,
                            input_dropout=c.input_dropout, use_tuple=use_tuple, mol_encoder=c.mol_encoder)

    def pretrained(self, corpus: pd.DataFrame, key: tuple, seed: int) -> DegradeQuery:
        if key not in self._pretrained:
            torch.manual_seed(seed)
            model, c = self.new(), self.cfg
            pretrain(model, self.inputs, self.data.tuples(corpus), len(self.data.targets), len(self.data.e3s),
                     steps=c.pretrain_steps, batch_size=c.pretrain_batch, lr=c.pretrain_lr, sampling=c.sampling, seed=seed)
            self._pretrained[key] = {k: v.clone() for k, v in model.state_dict().items()}
        model = self.new()
        model.load_state_dict(self._pretrained[key])
        return model

    def corpus(self, split: Split, seed: int) -> tuple[pd.DataFrame, tuple]:
        if split.name == "official" or self.cfg.ablation_corpus == "split":
            return split.pretrain, (split.name, seed)
        rec = self.data.records
        return rec[rec.label < 0], ("unlabeled", seed)

    def fit(self, name: str, split: Split, seed: int) -> DegradeQuery:
        train, val = rows_xy(self.data, split.train), rows_xy(self.data, split.val)
        if name == "self_training":
            pool = np.unique(self.data.tuples(split.pretrain[split.pretrain.label < 0]), axis=0)
            model, _ = self_training(self.new, self.inputs, train, val, pool, self.cfg.fit, seed, self.cfg.pseudo_confidence)
            return model
        torch.manual_seed(seed)
        if name == "degradequery":
            model = self.pretrained(*self.corpus(split, seed), seed)
        else:
            model = self.new(use_tuple=name != "molecule_only")
        fit_classifier(model, self.inputs, train, val, self.cfg.fit, seed)
        return model

    def adapt(self, model: DegradeQuery, support: tuple[np.ndarray, np.ndarray]) -> DegradeQuery:
        """Few-shot adaptation: `adapt_steps` full-batch steps on the support records of the new target."""
        opt = torch.optim.AdamW(model.parameters(), lr=self.cfg.adapt_lr, weight_decay=self.cfg.fit.weight_decay)
        y = torch.as_tensor(support[1], dtype=torch.float32)
        model.train()
        for _ in range(self.cfg.adapt_steps):
            loss = torch.nn.functional.binary_cross_entropy_with_logits(model(**self.inputs(support[0])), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        return model


def predict_model(name: str, neural: NeuralModels, split: Split, seed: int, tests: list[np.ndarray]) -> list[np.ndarray]:
    cfg, data = neural.cfg, neural.data
    if name in FORESTS:
        kind, with_tuple = FORESTS[name]
        size = cfg.rf_trees if kind == "rf" else cfg.gbm_iters
        return fit_predict_forest(kind, data, rows_xy(data, split.train), tests, seed, with_tuple, size)
    model = neural.fit(name, split, seed)
    return [predict(model, neural.inputs, t) for t in tests]


def test_subsets(data: Protac8K, split: Split) -> dict[str, np.ndarray]:
    """'all' and the de-duplicated subsets: test records whose tuple / SMILES occurs in no train,
    validation or unlabeled record."""
    seen = [split.train, split.val, data.records[data.records.label < 0]]
    return {"all": np.ones(len(split.test), dtype=bool),
            "novel_tuple": novel_mask(split.test, seen, "tuple").to_numpy(),
            "novel_smiles": novel_mask(split.test, seen, "smiles").to_numpy()}


def run_split(neural: NeuralModels, split_name: str, seed: int, timing: dict) -> list[dict]:
    cfg, data = neural.cfg, neural.data
    kwargs = {"seed": seed, "conflicts": cfg.conflicts, "val_fraction": cfg.val_fraction}
    if split_name != "official":
        kwargs.update(test_fraction=cfg.holdout_fraction, split_seed=cfg.split_seed)
    split = SPLITS[split_name](data, **kwargs)
    tuples, labels = rows_xy(data, split.test)
    subsets, rows = test_subsets(data, split), []
    for name in cfg.models:
        start = time.process_time()
        (probs,) = predict_model(name, neural, split, seed, [tuples])
        timing[(split_name, name)] = timing.get((split_name, name), 0.0) + time.process_time() - start
        for subset, mask in subsets.items():
            scores = binary_metrics(probs[mask], labels[mask])
            rows.append({"seed": seed, "split": split_name, "model": name, "subset": subset, "n": int(mask.sum()),
                         "positives": int(labels[mask].sum()), **scores})
    return rows


def run_few_shot(neural: NeuralModels, seed: int, models=("degradequery", "no_pretrain", "molecule_only", "rf_tuple")):
    """Target-wise few-shot: 0-shot and k-shot AUROC on each held-out target's query records."""
    cfg, data, rows = neural.cfg, neural.data, []
    targets = few_shot_targets(data, max_targets=cfg.few_shot_targets)
    for ep in few_shot_episodes(data, targets, cfg.shots, cfg.val_fraction, seed, cfg.conflicts):
        query, labels = rows_xy(data, ep.base.test)
        support = rows_xy(data, ep.support)
        for name in models:
            if name in FORESTS:
                kind, with_tuple = FORESTS[name]
                zero = fit_predict_forest(kind, data, rows_xy(data, ep.base.train), [query], seed, with_tuple, cfg.rf_trees)[0]
                both = (np.concatenate([rows_xy(data, ep.base.train)[0], support[0]]),
                        np.concatenate([rows_xy(data, ep.base.train)[1], support[1]]))
                shot = fit_predict_forest(kind, data, both, [query], seed, with_tuple, cfg.rf_trees)[0]
            else:
                model = neural.fit(name, ep.base, seed)
                zero = predict(model, neural.inputs, query)
                shot = predict(neural.adapt(model, support), neural.inputs, query)
            for shots, probs in ((0, zero), (cfg.shots, shot)):
                rows.append({"seed": seed, "target": ep.target, "model": name, "shots_per_class": shots,
                             "n_query": len(labels), **binary_metrics(probs, labels)})
    return rows


def run_claim(data_dir: str | Path, cfg: ClaimConfig, few_shot: bool = True, out: Path | None = None) -> dict:
    """All seeds x splits x models (+ few-shot); saves to `out` after every seed when given."""
    torch.set_num_threads(1)
    start, cpu_start = time.perf_counter(), time.process_time()
    data = load_protac8k(data_dir)
    neural, timing, rows, fs_rows = NeuralModels(data, cfg), {}, [], []

    def result() -> dict:
        return {"results": pd.DataFrame(rows), "fewshot": pd.DataFrame(fs_rows), "leakage": leakage_report(data.records),
                "timing": {f"cpu_s/{s}/{m}": t for (s, m), t in timing.items()}
                | {"total_cpu_s": time.process_time() - cpu_start, "total_wall_s": time.perf_counter() - start},
                "config": asdict(cfg)}

    for seed in cfg.seeds:
        for split_name in cfg.splits:
            rows += run_split(neural, split_name, seed, timing)
            print(f"seed {seed} {split_name} done at {time.perf_counter() - start:.0f}s", flush=True)
        if few_shot:
            fs_rows += run_few_shot(neural, seed)
            print(f"seed {seed} few-shot done at {time.perf_counter() - start:.0f}s", flush=True)
        if out is not None:
            save(result(), out)
    return result()


def markdown(df: pd.DataFrame) -> str:
    """A pipe table (no tabulate dependency)."""
    lines = ["| " + " | ".join(map(str, df.columns)) + " |", "|" + "---|" * len(df.columns)]
    lines += ["| " + " | ".join(map(str, row)) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines)


def mean_std(df: pd.DataFrame, by: list[str], metrics=("auroc", "accuracy", "f1_macro", "precision", "recall")) -> pd.DataFrame:
    agg = df.groupby(by, sort=False)[list(metrics)].agg(["mean", "std"])
    out = pd.DataFrame(index=agg.index)
    for m in metrics:
        out[m] = [f"{a:.4f} ± {b:.4f}" for a, b in zip(agg[(m, "mean")], agg[(m, "std")].fillna(0), strict=True)]
    return out.reset_index()


def save(result: dict, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    result["results"].to_csv(out / "results.csv", index=False)
    result["fewshot"].to_csv(out / "fewshot.csv", index=False)
    (out / "leakage.json").write_text(json.dumps(result["leakage"], indent=2))
    (out / "timing.json").write_text(json.dumps(result["timing"], indent=2))
    (out / "config.json").write_text(json.dumps(result["config"], indent=2, default=str))
    res = result["results"]
    tables = [markdown(mean_std(res[res.subset == "all"], ["split", "model"])),
              markdown(mean_std(res, ["split", "subset", "model"], ("auroc",)))]
    if len(result["fewshot"]):
        tables.append(markdown(mean_std(result["fewshot"], ["model", "shots_per_class"], ("auroc", "accuracy"))))
    (out / "tables.md").write_text("\n\n".join(tables) + "\n")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="../shared/data")
    parser.add_argument("--out", default="outputs/degradequery_claim")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--splits", nargs="+", default=list(ClaimConfig.splits))
    parser.add_argument("--models", nargs="+", default=list(MODELS))
    parser.add_argument("--no-few-shot", action="store_true")
    parser.add_argument("--mol-encoder", default="ecfp", choices=["ecfp", "gin"])
    parser.add_argument("--smoke", action="store_true", help="tiny budgets: checks the pipeline runs, numbers mean nothing")
    args = parser.parse_args(argv)
    cfg = ClaimConfig(seeds=tuple(args.seeds), splits=tuple(args.splits), models=tuple(args.models),
                      mol_encoder=args.mol_encoder)
    if args.smoke:
        cfg = smoke_config(cfg)
    result = run_claim(args.data_dir, cfg, few_shot=not args.no_few_shot, out=Path(args.out))
    print((Path(args.out) / "tables.md").read_text())
    t = result["timing"]
    print(f"total {t['total_wall_s']:.0f}s wall, {t['total_cpu_s']:.0f}s CPU (one thread); results in {args.out}")


if __name__ == "__main__":
    main()
