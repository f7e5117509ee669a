"""Claim 4 figure from finished μP runs (`experiment=deltamomentum/mup_coord_check` swept over width).

    python -m experiments.deltamomentum.coord_check logs/claims/deltamomentum/mup

Coordinate sizes per width (`tables.coordinates`, from each run's `coord_check.json`) at the preset's η
(read by composing the preset; `--eta` to choose another), and the λ̂max of the hidden key covariances.
The numbers are the `reprolab-table` block of `make claim-deltamomentum`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from hydra import compose, initialize_config_dir

from experiments.deltamomentum.plotting import pyplot, save
from experiments.deltamomentum.tables import COORDS, coordinates
from reprolab.config.compose import CONF_DIR
from reprolab.results.runs import find_runs

HERE = Path(__file__).resolve().parent


def preset_eta() -> float:
    with initialize_config_dir(str(CONF_DIR), version_base="1.3"):
        return float(compose("train", overrides=["experiment=deltamomentum/mup_coord_check"]).optimizer.eta)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="+", help="sweep folder(s) of experiment=deltamomentum/mup_coord_check")
    p.add_argument("--eta", type=float, default=None, help="η of the plotted runs (default: the preset's)")
    p.add_argument("--figure", type=Path, default=HERE / "figures" / "mup_coord_check.png")
    a = p.parse_args(argv)
    eta = preset_eta() if a.eta is None else a.eta
    rows = {int(r.get("model.d_model")): c for r in find_runs(a.runs)
            if r.finished and float(r.get("optimizer.eta", "nan")) == eta and (c := coordinates(r)) is not None}
    if not rows:
        raise SystemExit(f"no finished coordinate-check runs at η = {eta:g} under {a.runs}; run make claim-deltamomentum")
    widths = sorted(rows)
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
    for key in COORDS:
        axes[0].plot(widths, [rows[w][key] for w in widths], "o-", label=key)
    axes[0].set(xscale="log", yscale="log", xlabel="width", title=f"coordinate size (μP, DeltaAdamW η={eta:g})")
    axes[0].legend()
    axes[1].plot(widths, [rows[w]["lmax_hidden"] for w in widths], "o-")
    axes[1].set(xscale="log", yscale="log", xlabel="width", title="λ̂max of hidden key covariance")
    for ax in axes:
        ax.set_xticks(widths, [str(w) for w in widths])
        ax.minorticks_off()
    save(fig, a.figure)


if __name__ == "__main__":
    main()
