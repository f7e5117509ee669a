"""`reprolab-table`: runs on disk → a markdown results table (mean ± std over seeds, n) and PNG curves.

    reprolab-table logs/multiruns/cifar10-small_sgd_cpu/2026-11-29_16-00-00
    reprolab-table logs/multiruns/x --group-by optimizer --metric test/acc test/loss
    reprolab-table logs/multiruns/x --results experiments/<paper>/RESULTS.md   # write/refresh a block
    reprolab-table --refresh experiments/*/RESULTS.md                          # rerun every block

Each run folder's `metrics.json` and `.hydra/` config are read; rows are the distinct values of
`--group-by` (default: the override keys that vary across the runs, seed excluded). Failed and
unfinished runs are counted and listed under the table, never dropped silently. Paper-specific
derived metrics come from plugins (see `reprolab.results.plugins`).
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from reprolab.cli.closed_stdout import quiet_on_closed_stdout
from reprolab.cli.parser import OneLineParser
from reprolab.results.aggregate import aggregate, default_group_by, default_metrics
from reprolab.results.curves import plot_curves
from reprolab.results.markdown import block_args, render_failures, render_table, write_block
from reprolab.results.plugins import apply_plugins, paper_plugins
from reprolab.results.runs import find_runs


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = OneLineParser(prog="reprolab-table", description=__doc__.split("\n\n")[0])
    p.add_argument("paths", nargs="*", help="sweep or run folders (searched recursively for runs)")
    p.add_argument("--group-by", nargs="+", default=None, help="config keys / group names defining rows")
    p.add_argument("--metric", nargs="+", default=None, help="metrics.json keys to aggregate (default: test/*)")
    p.add_argument("--where", nargs="+", default=[], metavar="KEY=VALUE", help="keep runs whose KEY equals VALUE")
    p.add_argument("--curve", nargs="+", default=None, help="CSV-logged metrics to plot (default: monitor + train/loss)")
    p.add_argument("--no-curves", action="store_true", help="write no PNG figures")
    p.add_argument("--plugin", action="append", default=[], help="derived-metric plugin 'module:function'")
    p.add_argument("--no-paper-plugins", action="store_true", help="skip experiments.<paper>.tables plugins")
    p.add_argument("--digits", type=int, default=4, help="significant digits of the means")
    p.add_argument("--out", type=Path, help="also write the markdown to this file")
    p.add_argument("--results", type=Path, help="write/refresh this table's block in a RESULTS.md")
    p.add_argument("--figures", type=Path, help="folder for PNGs (default: figures/ next to --results/--out)")
    p.add_argument("--name", help="prefix of the PNG names (default: a hash of the arguments)")
    p.add_argument("--refresh", nargs="*", type=Path, metavar="RESULTS_MD",
                   help="rerun every generated block in these files (default: experiments/*/RESULTS.md)")
    args = p.parse_args(list(argv))
    if not args.paths and args.refresh is None:
        p.error("give a sweep/runs folder, or --refresh RESULTS.md")
    return args


def make_table(args: argparse.Namespace, command: str) -> str:
    """The markdown for `args`: provenance line, table, runs that did not finish, figures."""
    found = find_runs(args.paths)
    if not found:
        raise FileNotFoundError(f"no run folders (with .hydra/config.yaml) under {' '.join(args.paths)}")
    runs = [r for r in found if _matches(r, args.where)]
    if not runs:
        raise NotInRunsError(f"none of the {len(found)} runs under {' '.join(args.paths)} matches --where "
                             f"{' '.join(args.where)}")
    if args.group_by:
        check_keys(runs, args.group_by)
    specs = list(args.plugin) + ([] if args.no_paper_plugins else paper_plugins(runs))
    derived = apply_plugins(runs, specs)
    group_by = args.group_by if args.group_by is not None else default_group_by(runs)
    metrics = args.metric or list(dict.fromkeys(default_metrics(runs) + derived))
    if args.metric:
        check_metrics(runs, args.metric)
    rows = aggregate(runs, group_by, metrics)
    n_bad = sum(len(r.failed) + len(r.incomplete) for r in rows)
    n_ok = sum(r.n_finished for r in rows)
    target = args.results or args.out  # figure links are relative to the markdown file
    body = f"Runs: {', '.join(f'`{p}`' for p in args.paths)} — {n_ok} finished, {n_bad} not finished. "
    body += f"Made by `{command}`.\n\n"
    body += render_table(rows, group_by, metrics, args.digits)
    body += render_failures(rows, relative_to=Path.cwd())
    for png in _figures(args, runs, group_by, command):
        body += f"\n![{png.stem}]({os.path.relpath(png, target.parent if target else Path.cwd())})\n"
    return body


class NotInRunsError(FileNotFoundError):
    """A --metric, --group-by key or --where the runs do not have: a typo, or a block whose runs no longer log it
    (--refresh keeps that block as it is, like one whose runs are gone)."""


def _missing(names: Sequence[str], known: list[str], what: str) -> None:
    missing = [m for m in names if m not in known]
    if known and missing:
        near = [n for m in missing for n in difflib.get_close_matches(m, known, n=1)]
        hint = f"; did you mean {' or '.join(near)}?" if near else ""
        raise NotInRunsError(f"no {what} {', '.join(missing)}{hint} (theirs: {', '.join(known)})")


def check_metrics(runs, metrics: Sequence[str]) -> None:
    known = sorted({k for r in runs if r.finished for k, v in r.metrics.items() if isinstance(v, int | float)})
    _missing(metrics, known, "finished run has metric")


def check_keys(runs, keys: Sequence[str]) -> None:
    known = sorted({k for r in runs for source in (r.choices, r.config, r.metrics, r.overrides) for k in source})
    _missing(keys, known, "run has a group or config key")


def _figures(args: argparse.Namespace, runs, group_by, command: str) -> list[Path]:
    """PNG curves in --figures, else figures/ next to the markdown file; none for stdout only."""
    target = args.results or args.out
    folder = args.figures or (target.parent / "figures" if target else None)
    if args.no_curves or folder is None:
        return []
    curves = args.curve or _default_curves(runs)
    name = args.name or default_name(args.paths)
    pngs = []
    for metric in curves:
        png = plot_curves(runs, group_by, metric, folder / f"{name}_{re.sub(r'[^A-Za-z0-9]+', '_', metric)}.png")
        if png is not None:
            pngs.append(png)
    return pngs


def default_name(paths: Sequence[str]) -> str:
    """A readable PNG prefix from the first runs folder: `logs/tables/apt/enb_mtl` → `apt_enb_mtl`."""
    parts = [p for p in Path(paths[0]).resolve().parts[-2:] if p not in ("/", "")]
    return re.sub(r"[^A-Za-z0-9]+", "_", "_".join(parts)).strip("_") or "table"


def _default_curves(runs) -> list[str]:
    monitors = [str(r.config["monitor.metric"]) for r in runs if r.config.get("monitor.metric")]
    return list(dict.fromkeys(["train/loss", *monitors]))


def _matches(run, where: Sequence[str]) -> bool:
    for item in where:
        key, _, value = item.partition("=")
        if str(run.get(key)) != value:
            return False
    return True


def refresh(files: Sequence[Path]) -> int:
    """Rerun the command of every generated block; a block whose runs are gone is kept as it is.
    Paths in blocks are relative to the folder this runs in (the repository root under make)."""
    for results_md in files or sorted(Path("experiments").glob("*/RESULTS.md")):
        blocks = block_args(results_md)
        if not blocks:
            print(f"{results_md}: no generated tables")
        for block in blocks:
            args = parse_args([*shlex.split(block), "--results", str(results_md)])
            try:
                write_block(results_md, block, make_table(args, f"reprolab-table {block}"))
            except FileNotFoundError as err:  # runs not on this machine: keep what the file says
                print(f"{results_md}: kept the block for {block!r}: {err}", file=sys.stderr)
                continue
            print(f"{results_md}: refreshed {block!r}")
    return 0


@quiet_on_closed_stdout
def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    try:
        return refresh(args.refresh) if args.refresh is not None else write_table(args, argv)
    except (FileNotFoundError, ValueError) as err:  # no runs there, a bad plugin: one line, not a traceback
        print(f"error: {err}", file=sys.stderr)
        return 2


def write_table(args: argparse.Namespace, argv: Sequence[str]) -> int:
    block = shlex.join(_without_results(argv))
    body = make_table(args, f"reprolab-table {block}")
    print(body)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(body)
    if args.results:
        write_block(args.results, block, body)
        print(f"updated {args.results}", file=sys.stderr)
    return 0


def _without_results(argv: Sequence[str]) -> list[str]:
    """The arguments that define a table: `--results FILE` only says where it goes."""
    out, skip = [], False
    for item in argv:
        if skip:
            skip = False
        elif item == "--results":
            skip = True
        elif not item.startswith("--results="):
            out.append(item)
    return out


if __name__ == "__main__":
    sys.exit(main())
