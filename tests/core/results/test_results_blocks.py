"""Every paper's RESULTS.md holds the blocks its `make claim-<paper>` / `table-<paper>` targets write,
with arguments `reprolab-table` accepts, so `make tables` refreshes them in place instead of appending
new ones. The targets' commands are read with `make -n`, so make variables are expanded as make does."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from reprolab.cli.table import _without_results, parse_args
from reprolab.results.markdown import block_args
from tests.core.make_dry_run import script_calls

REPO = Path(__file__).resolve().parents[3]
PAPERS = sorted(p.parent.name for p in (REPO / "experiments").glob("*/targets.mk"))


def table_commands(target: str) -> list[list[str]]:
    """The `reprolab-table ...` argument lists that write a RESULTS.md block."""
    return [args for args in script_calls(target, "reprolab-table") if "--results" in args]


@pytest.mark.parametrize("paper", PAPERS)
def test_table_target_blocks_are_in_results_md(paper):
    commands = table_commands(f"claim-{paper}") + table_commands(f"table-{paper}")
    assert commands, f"experiments/{paper}/targets.mk: neither claim-{paper} nor table-{paper} writes a RESULTS.md block"
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
