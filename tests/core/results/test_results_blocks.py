"""Every paper's RESULTS.md holds the blocks its `make table-<paper>` target writes, with arguments
`reprolab-table` accepts, so `make tables` refreshes them in place instead of appending new ones."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from reprolab.results.markdown import block_args
from reprolab.table import _without_results, parse_args

REPO = Path(__file__).resolve().parents[3]
PAPERS = sorted(p.parent.name for p in (REPO / "experiments").glob("*/targets.mk"))


def table_commands(targets_mk: Path, target: str) -> list[list[str]]:
    """The `$(TABLE) ...` argument lists of one make target (continuation lines joined)."""
    text = targets_mk.read_text().replace("\\\n", " ")
    recipe = re.search(rf"^{re.escape(target)}:.*?\n((?:\t.*\n?)*)", text, re.M)
    if recipe is None:
        return []
    lines = [line.strip().lstrip("-") for line in recipe.group(1).splitlines()]
    return [shlex.split(line)[1:] for line in lines if line.startswith("$(TABLE)")]


@pytest.mark.parametrize("paper", PAPERS)
def test_table_target_blocks_are_in_results_md(paper):
    commands = table_commands(REPO / "experiments" / paper / "targets.mk", f"table-{paper}")
    assert commands, f"experiments/{paper}/targets.mk has no table-{paper} target writing a RESULTS.md block"
    results_md = REPO / "experiments" / paper / "RESULTS.md"
    blocks = [shlex.split(args) for args in block_args(results_md)]
    for argv in commands:
        assert argv[argv.index("--results") + 1] == f"experiments/{paper}/RESULTS.md"
        assert _without_results(argv) in blocks, f"{results_md.name} lacks the block of `reprolab-table {shlex.join(argv)}`"


@pytest.mark.parametrize("paper", PAPERS)
def test_every_block_parses(paper):
    for args in block_args(REPO / "experiments" / paper / "RESULTS.md"):
        parsed = parse_args(shlex.split(args))
        assert parsed.paths and all(p.startswith("logs/") for p in parsed.paths), args
