"""`REPRODUCTIONS.md`: one row per claim of every paper, from each paper's recorded `claims.json`.

Claims declared in a `claims.yaml` with no recorded result appear as `not run`, so the scorecard
always lists every claim, reproduced or not. Sanity checks (identities, properties by construction) are
listed apart under each paper and counted apart in the summary, never as claims.
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
from reprolab.claims.spec import Claim, load_claims, papers_with_claims
from reprolab.claims.verdicts import FAILS, HOLDS, NOT_RUN, VERDICTS, sanity_verdict
from reprolab.config.compose import REPO_ROOT

HEADER = """# Reproductions

Every claim of every paper in this suite, with the paper's number, ours, and a verdict. Each row
comes from `experiments/<paper>/results/claims.json`, written by `reprolab-claims <paper>` from the
runs of the command in the row; `make scorecard` rewrites this file (`make tables` too). Effects are
paired by seed with 95 % Student-t intervals (a ratio: geometric mean, interval on the log scale, never
negative; a correlation: on Fisher's z scale, inside [-1, 1]); the bar is pre-registered in the paper's `claims.yaml`. Verdicts: **reproduces** (the whole
interval clears the bar in the paper's direction), **weaker than claimed** (the whole interval lies between
no effect and the paper's bar: an effect in the paper's direction, smaller than claimed), **direction only**
(the mean is in the paper's direction, the interval includes the bar: not settled), **inconclusive** (the
mean is against the paper's direction, the interval includes no effect), **does not reproduce** (the
interval excludes the paper's direction, or excludes the paper's size while including no effect),
**not run**. Sanity checks (identities and properties that hold by construction) are listed apart, as
**holds** or **fails**, and are not counted as claims. Scale `cpu` is the scaled-down claim check on
2 CPU cores; `paper` is a paper-scale run.

"""


def render_scorecard(sources: Sequence[str | Path] | None = None) -> str:
    """The scorecard over `sources` (papers or claims-file paths; default: every paper with claims)."""
    counts: dict[str, int] = {}
    checked: dict[str, int] = {}
    sections = []
    for source in sources if sources is not None else papers_with_claims():
        claims_file = load_claims(source)
        recorded = {e["id"]: e for e in read_recorded(results_json_path(claims_file))}
        rel = os.path.relpath(claims_file.path, REPO_ROOT)
        section = f"## {claims_file.paper}\n\nCommand: `{claims_file.command}` · claims: [`{rel}`]({rel})\n\n"
        section += "\n".join(_rows(claims_file.claims, recorded, counts))
        if claims_file.sanity:
            section += ("\n\nSanity checks (not counted as claims):\n\n"
                        + "\n".join(_rows(claims_file.sanity, recorded, checked)))
        sections.append(section)
    summary = ", ".join(f"{counts[v]} {v}" for v in _ordered(counts)) or "no claims declared"
    if checked:
        summary += "; sanity checks, not counted: " + ", ".join(f"{checked[v]} {v}" for v in _ordered(checked))
    return HEADER + f"Summary: {summary}.\n\n" + "\n\n".join(sections) + "\n"


def _rows(claims: Sequence[Claim], recorded: dict[str, dict], counts: dict[str, int]) -> list[str]:
    rows = ["| claim | what is measured | paper | bar | ours (95 % CI) | n | scale | verdict | commit |",
            "|---|---|---|---|---|---|---|---|---|"]
    for claim in claims:
        entry = recorded.get(claim.id) or {"id": claim.id, "verdict": "not run", "n": 0}
        if claim.sanity and entry["verdict"] not in (HOLDS, FAILS, NOT_RUN):  # recorded before it moved to sanity
            entry = {**entry, "verdict": sanity_verdict(entry["verdict"])}
        counts[entry["verdict"]] = counts.get(entry["verdict"], 0) + 1
        commits = ", ".join(c[:9] + (c[c.index("+"):] if "+" in c else "") for c in entry.get("commits") or [])
        rows.append("| " + " | ".join([
            f"`{claim.id}`: {claim.claim}", describe(claim), fmt(claim.paper_value), bar_text(claim),
            ours_text(entry), str(entry.get("n") or 0), claim.scale, verdict_text(entry), commits or "—",
        ]) + " |")
    return rows


def _ordered(counts: dict[str, int]) -> list[str]:
    order = [*VERDICTS, HOLDS, FAILS]
    return sorted(counts, key=lambda v: (order.index(v) if v in order else len(order), v))


def write_scorecard(path: Path | None = None, sources: Sequence[str | Path] | None = None) -> Path:
    path = path or REPO_ROOT / "REPRODUCTIONS.md"
    path.write_text(render_scorecard(sources))
    return path
