"""Tables and a figure for RESULTS.md from the claim outputs (`<results>/official`, `<results>/ablations`).

    python -m experiments.degradequery.report experiments/degradequery/results
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from .claim import MODELS, markdown, mean_std  # noqa: E402

PUBLISHED = [  # second-hand numbers, quoted for comparison only
    {"model": "DegradeQuery (paper, reported)", "auroc": "0.9065", "accuracy": "0.8500"},
    {"model": "DegradeMaster (semi-supervised, reported second hand)", "auroc": "0.882", "accuracy": "-"},
]
FIGURE = Path(__file__).parent / "figures" / "auroc_by_split.png"


def load(results: Path) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    frames, fewshot, timing = [], [], {}
    for part in ("official", "ablations"):
        folder = results / part
        if (folder / "results.csv").is_file():
            frames.append(pd.read_csv(folder / "results.csv"))
            timing[part] = json.loads((folder / "timing.json").read_text())
        if (folder / "fewshot.csv").is_file() and (folder / "fewshot.csv").stat().st_size > 1:
            fewshot.append(pd.read_csv(folder / "fewshot.csv"))
    return pd.concat(frames), (pd.concat(fewshot) if fewshot else pd.DataFrame()), timing


def ordered(df: pd.DataFrame) -> pd.DataFrame:
    return df.assign(_o=df.model.map({m: i for i, m in enumerate(MODELS)})).sort_values(["_o"], kind="stable").drop(columns="_o")


def paired(res: pd.DataFrame, subset: str = "all") -> pd.DataFrame:
    """DegradeQuery's AUROC minus each other model's, seed by seed (same validation carve): mean ± std, wins."""
    rows = []
    for split in dict.fromkeys(res.split):
        p = res[(res.split == split) & (res.subset == subset)].pivot(index="seed", columns="model", values="auroc")
        for model in [m for m in MODELS if m in p.columns and m != "degradequery"]:
            d = p["degradequery"] - p[model]
            rows.append({"split": split, "DegradeQuery minus": model, "AUROC difference": f"{d.mean():+.4f} ± {d.std():.4f}",
                         "seeds won": f"{int((d > 0).sum())}/{len(d)}"})
    return pd.DataFrame(rows)


def figure(res: pd.DataFrame) -> None:
    allrec = res[res.subset == "all"]
    splits = list(dict.fromkeys(allrec.split))
    fig, ax = plt.subplots(figsize=(9, 3.6))
    width = 0.8 / len(MODELS)
    for i, model in enumerate(MODELS):
        stats = allrec[allrec.model == model].groupby("split").auroc.agg(["mean", "std"]).reindex(splits)
        ax.bar([s + i * width for s in range(len(splits))], stats["mean"], width, yerr=stats["std"], label=model, capsize=2)
    ax.set_xticks([s + 0.4 - width / 2 for s in range(len(splits))], splits)
    ax.set_ylim(0.4, 1.0)
    ax.axhline(0.9065, color="k", ls="--", lw=0.8, label="paper 0.9065 (official)")
    ax.set_ylabel("test AUROC (mean ± std, seeds)")
    ax.legend(fontsize=7, ncol=4, loc="lower left")
    fig.tight_layout()
    FIGURE.parent.mkdir(exist_ok=True)
    fig.savefig(FIGURE, dpi=120)


def report(results: Path) -> str:
    res, fewshot, timing = load(results)
    out = []
    for split in dict.fromkeys(res.split):
        rows = ordered(res[(res.split == split) & (res.subset == "all")])
        table = mean_std(rows, ["model"])
        if split == "official":
            table = pd.concat([table, pd.DataFrame(PUBLISHED)]).fillna("-")
        n = int(rows.n.iloc[0])
        out.append(f"### {split} split: test n = {n}, seeds = {rows.seed.nunique()}\n\n" + markdown(table))
    sub = ordered(res[res.split == "official"])
    pivot = mean_std(sub, ["model", "subset"], ("auroc",)).pivot(index="model", columns="subset", values="auroc")
    pivot = pivot.reindex([m for m in MODELS if m in pivot.index])[["all", "novel_tuple", "novel_smiles"]]
    sizes = sub.groupby("subset")[["n", "positives"]].first()
    header = {s: f"{s} (n={sizes.n[s]}, {sizes.positives[s]} high)" for s in pivot.columns}
    out.append("### official test AUROC on de-duplicated subsets\n\n" + markdown(pivot.rename(columns=header).reset_index()))
    out.append("### paired: DegradeQuery minus each model, per seed (test AUROC, all records)\n\n" + markdown(paired(res)))
    if len(fewshot):
        out.append("### target-wise few-shot (query AUROC per held-out target, mean ± std over targets x seeds)\n\n"
                   + markdown(mean_std(ordered(fewshot), ["model", "shots_per_class"], ("auroc", "accuracy"))))
    out.append("### timing (process CPU seconds, one thread)\n\n```\n" + json.dumps(timing, indent=1) + "\n```")
    figure(res)
    text = "\n\n".join(out) + "\n"
    (results / "tables.md").write_text(text)
    return text


if __name__ == "__main__":
    print(report(Path(sys.argv[1] if len(sys.argv) > 1 else "experiments/degradequery/results")))
