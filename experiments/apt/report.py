"""Tables and figures of the APT claim check from `claim.json` (Δm% mean ± std, mean rank, update share)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from reprolab.mtl.metrics import delta_m, mean_rank


def _config(run: dict) -> tuple[str, str, str]:
    return run["weighting"], run["optimizer"], "APT" if run["apt"] else "plain"


def summarise(problem: dict) -> dict:
    """Per (weighting, optimizer, mode): Δm% per seed (vs the STL of the same optimizer), share, β."""
    higher = problem["higher"]
    table: dict[tuple, dict] = {}
    for run in problem["runs"]:
        entry = table.setdefault(_config(run), {"dm": [], "share": [], "beta": [], "metrics": []})
        entry["dm"].append(delta_m(run["test"], problem["stl"][run["optimizer"]], higher))
        entry["share"].append(run["share"])
        entry["beta"].append(run["beta"])
        entry["metrics"].append(run["test"])
    means = {cfg: {k: float(np.mean([m[k] for m in e["metrics"]])) for k in higher} for cfg, e in table.items()}
    ranks = mean_rank(means, higher)
    for cfg, e in table.items():
        e["rank"] = ranks[cfg]
    return table


def _fmt(values) -> str:
    return f"{np.mean(values):+.2f} ± {np.std(values):.2f}"


def write_report(results: dict, out: Path, figures: Path | None = None) -> str:
    """Markdown tables (returned and written to out/claim.md) and PNG figures under `figures` (default out)."""
    lines = []
    summaries = {name: summarise(p) for name, p in results.items()}
    for name, problem in results.items():
        table = summaries[name]
        lines += [f"### {name}", "", "Single-task baselines (test, mean ± std over seeds):", ""]
        for opt in ("adam", "muon"):
            if opt in problem["stl"]:
                stl, std = problem["stl"][opt], problem["stl"][opt + "_std"]
                lines.append(f"- {opt}: " + ", ".join(f"{k} {stl[k]:.3f} ± {std[k]:.3f}" for k in stl))
        lines += ["", "| weighting | optimizer | Δm% plain | Δm% APT | rank plain | rank APT | share plain | share APT | β̄ APT |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for w, opt in sorted({(c[0], c[1]) for c in table}):
            p, a = table[(w, opt, "plain")], table[(w, opt, "APT")]
            lines.append(f"| {w} | {opt} | {_fmt(p['dm'])} | {_fmt(a['dm'])} | {p['rank']:.2f} | {a['rank']:.2f} | "
                         f"{np.mean(p['share']):.3f} | {np.mean(a['share']):.3f} | {np.mean(a['beta']):.3f} |")
        lines.append("")
    lines += ["### APT vs plain, over problems and weightings", "",
              "| optimizer | pairs where APT has lower mean Δm% | mean Δm% (APT − plain) | mean rank plain | mean rank APT | share plain | share APT |",
              "|---|---|---|---|---|---|---|"]
    for opt in ("adam", "muon"):
        wins, diffs, rp, ra, sp, sa = 0, [], [], [], [], []
        for table in summaries.values():
            for (w, o, mode), e in table.items():
                if o != opt or mode != "plain":
                    continue
                a = table[(w, o, "APT")]
                diffs.append(np.mean(a["dm"]) - np.mean(e["dm"]))
                wins += diffs[-1] < 0
                rp.append(e["rank"]), ra.append(a["rank"]), sp.append(np.mean(e["share"])), sa.append(np.mean(a["share"]))
        if diffs:
            lines.append(f"| {opt} | {wins}/{len(diffs)} | {np.mean(diffs):+.2f} | {np.mean(rp):.2f} | {np.mean(ra):.2f} | "
                         f"{np.mean(sp):.3f} | {np.mean(sa):.3f} |")
    text = "\n".join(lines) + "\n"
    out.mkdir(parents=True, exist_ok=True)
    (out / "claim.md").write_text(text)
    figures = Path(figures or out)
    figures.mkdir(parents=True, exist_ok=True)
    _figures(results, summaries, figures)
    return text


def _figures(results: dict, summaries: dict, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(results)
    fig, axes = plt.subplots(2, len(names), figsize=(4.5 * len(names), 6), squeeze=False)
    for j, name in enumerate(names):
        table = summaries[name]
        weightings = sorted({c[0] for c in table})
        for i, opt in enumerate(("adam", "muon")):
            ax = axes[i][j]
            xs = np.arange(len(weightings))
            for k, mode in enumerate(("plain", "APT")):
                vals = [table[(w, opt, mode)]["dm"] for w in weightings if (w, opt, mode) in table]
                if len(vals) == len(weightings):
                    ax.bar(xs + (k - 0.5) * 0.4, [np.mean(v) for v in vals], 0.4, yerr=[np.std(v) for v in vals],
                           label=mode)
            ax.set_xticks(xs, weightings, rotation=45, fontsize=7)
            ax.axhline(0, color="k", lw=0.5)
            ax.set_title(f"{name} · {opt}  (Δm%, lower is better)", fontsize=9)
            ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "delta_m.png", dpi=110)
    plt.close(fig)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    first = results[names[0]]
    for ax, opt in zip(axes, ("adam", "muon"), strict=True):
        for mode in (False, True):
            runs = [r for r in first["runs"] if r["optimizer"] == opt and r["apt"] == mode and r["weighting"] == "pcgrad"
                    and r["seed"] == 0]
            if runs:
                trace = np.array(runs[0]["share_trace"][1:])
                smooth = np.convolve(trace, np.ones(10) / 10, mode="valid")
                ax.plot(smooth, label="APT" if mode else "plain")
        ax.set_title(f"{names[0]} · PCGrad · {opt}: share of d_t in the update", fontsize=9)
        ax.set_xlabel("step")
        ax.set_ylim(0, 1)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "share.png", dpi=110)
    plt.close(fig)
