"""`REPRODUCTIONS.md`: one row per claim of every paper, from each paper's recorded `claims.json`.

Claims declared in a `claims.yaml` with no recorded result appear as `not run`, so the scorecard
always lists every claim, reproduced or not.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from reprolab.claims.report import (
    bar_text,
    describe,
    fmt,
    ours_text,
    read_recorded,
    results_json_path,
    verdict_text,
)
from reprolab.claims.spec import load_claims, papers_with_claims
from reprolab.config.compose import REPO_ROOT

HEADER = """# Reproductions

Every claim of every paper in this suite, with the paper's number, ours, and a verdict. Each row
comes from `experiments/<paper>/results/claims.json`, written by `reprolab-claims <paper>` from the
runs of the command in the row; `make scorecard` rewrites this file (`make tables` too). Effects are
paired by seed with 95 % Student-t intervals; the bar is pre-registered in the paper's `claims.yaml`.
Verdicts: **reproduces** (the interval clears the bar in the paper's direction), **direction only**
(the mean is in the paper's direction, the interval does not clear the bar), **does not reproduce**
(the interval excludes the paper's direction), **inconclusive**, **not run**. Scale `cpu` is the
scaled-down claim check on 2 CPU cores; `paper` is a paper-scale run.

"""


def render_scorecard(sources: Sequence[str | Path] | None = None) -> str:
    """The scorecard over `sources` (papers or claims-file paths; default: every paper with claims)."""
    counts: dict[str, int] = {}
    sections = []
    for source in sources if sources is not None else papers_with_claims():
        claims_file = load_claims(source)
        recorded = {e["id"]: e for e in read_recorded(results_json_path(claims_file))}
        rows = ["| claim | what is measured | paper | bar | ours (95 % CI) | n | scale | verdict | commit |",
                "|---|---|---|---|---|---|---|---|---|"]
        for claim in claims_file.claims:
            entry = recorded.get(claim.id) or {"id": claim.id, "verdict": "not run", "n": 0}
            counts[entry["verdict"]] = counts.get(entry["verdict"], 0) + 1
            commits = ", ".join(c[:9] + (c[c.index("+"):] if "+" in c else "") for c in entry.get("commits") or [])
            rows.append("| " + " | ".join([
                f"`{claim.id}`: {claim.claim}", describe(claim), fmt(claim.paper_value), bar_text(claim),
                ours_text(entry), str(entry.get("n") or 0), claim.scale, verdict_text(entry), commits or "—",
            ]) + " |")
        rel = os.path.relpath(claims_file.path, REPO_ROOT)
        sections.append(f"## {claims_file.paper}\n\nCommand: `{claims_file.command}` · claims: [`{rel}`]({rel})\n\n" + "\n".join(rows))
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) or "no claims declared"
    return HEADER + f"Summary: {summary}.\n\n" + "\n\n".join(sections) + "\n"


def write_scorecard(path: Path | None = None, sources: Sequence[str | Path] | None = None) -> Path:
    path = path or REPO_ROOT / "REPRODUCTIONS.md"
    path.write_text(render_scorecard(sources))
    return path
