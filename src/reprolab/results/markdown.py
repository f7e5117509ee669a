"""Render aggregated rows as a markdown table, list the runs that did not finish, and keep
generated blocks in a RESULTS.md up to date between markers that carry the command that made them.

A block looks like

    <!-- reprolab-table: logs/multiruns/x --group-by optimizer -->
    ...generated markdown...
    <!-- /reprolab-table -->

so `reprolab-table --refresh experiments/*/RESULTS.md` can rerun every block's command.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

from reprolab.results.aggregate import Cell, Row

BEGIN = "<!-- {tool}: {args} -->"
END = "<!-- /{tool} -->"
TOOL = "reprolab-table"


def block_re(tool: str = TOOL) -> re.Pattern:
    """Blocks written by `tool` (`reprolab-table` tables, `reprolab-claims` verdicts)."""
    return re.compile(rf"<!-- {tool}: (?P<args>.*?) -->\n(?P<body>.*?)<!-- /{tool} -->\n?", re.S)


BLOCK_RE = block_re()


def format_cell(cell: Cell | None, n_expected: int, digits: int = 4) -> str:
    """`0.9123 ± 0.0041`: mean and std to the decimals that give the larger of the two `digits`
    significant figures; `(n=k)` appended when fewer runs than the row's finished runs reported it."""
    if cell is None:
        return "—"
    if not math.isfinite(cell.mean):
        text = "nan (diverged)"
    elif cell.n == 1:  # one run has no spread: a "± 0" would read as a converged estimate
        text = f"{cell.mean:.{_decimals(abs(cell.mean), digits)}f}"
    else:
        decimals = _decimals(max(abs(cell.mean), cell.std), digits)
        text = f"{cell.mean:.{decimals}f} ± {cell.std:.{decimals}f}"
    return text if cell.n == n_expected else f"{text} (n={cell.n})"


def render_table(rows: Sequence[Row], group_by: Sequence[str], metrics: Sequence[str], digits: int = 4) -> str:
    show_failed = any(row.failed or row.incomplete for row in rows)
    header = [*group_by, *metrics, "n"] + (["failed"] if show_failed else [])
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    for row in rows:
        cols = [_text(v) for v in row.key]
        cols += [format_cell(row.cells.get(m), row.n_finished, digits) for m in metrics]
        cols.append(str(row.n_finished))
        if show_failed:
            cols.append(str(len(row.failed) + len(row.incomplete)))
        lines.append("| " + " | ".join(cols) + " |")
    return "\n".join(lines) + "\n"


def render_failures(rows: Sequence[Row], relative_to: Path | None = None) -> str:
    """One bullet per run that failed (with its error line) or did not finish; empty if none."""
    lines = []
    for row in rows:
        for run in row.failed:
            lines.append(f"- failed: `{_rel(run.path, relative_to)}`: {run.error}")
        for run in row.incomplete:
            lines.append(f"- incomplete (running or killed): `{_rel(run.path, relative_to)}`")
    return ("\n**Runs that did not finish**\n\n" + "\n".join(lines) + "\n") if lines else ""


def write_block(results_md: Path, args: str, body: str, tool: str = TOOL) -> None:
    """Replace the block made by the same `args` in `results_md`, or append a new one."""
    block = f"{BEGIN.format(tool=tool, args=args)}\n{body.rstrip()}\n{END.format(tool=tool)}\n"
    text = results_md.read_text() if results_md.exists() else ""
    for match in block_re(tool).finditer(text):
        if match.group("args") == args:
            text = text[: match.start()] + block + text[match.end() :]
            break
    else:
        text = (text.rstrip() + "\n\n" if text.strip() else "") + block
    results_md.parent.mkdir(parents=True, exist_ok=True)
    results_md.write_text(text)


def block_args(results_md: Path) -> list[str]:
    """The argument strings of every generated block in `results_md`."""
    return [m.group("args") for m in BLOCK_RE.finditer(results_md.read_text())]


def _decimals(scale: float, digits: int) -> int:
    if scale == 0:
        return digits
    return min(8, max(0, digits - 1 - math.floor(math.log10(scale))))


def _text(value) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(map(str, value)) + "]"
    return "—" if value is None else str(value).replace("|", "\\|")


def _rel(path: Path, base: Path | None) -> str:
    if base is None:
        return str(path)
    try:
        return str(path.resolve().relative_to(base.resolve()))
    except ValueError:
        return str(path)
