"""Claim results as `experiments/<paper>/results/claims.json` (the record the scorecard reads) and as
a markdown block in the paper's RESULTS.md.

A claim whose runs are not on this machine keeps the result recorded before (a fresh clone has no
`logs/`), so re-running the command never turns a measured verdict into `not run`.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

from reprolab.claims.evaluate import NOT_RUN, ClaimResult, evaluate_meta
from reprolab.claims.spec import Claim, ClaimsFile

TOOL = "reprolab-claims"


def results_json_path(claims_file: ClaimsFile) -> Path:
    return claims_file.path.parent / "results" / "claims.json"


def merge_with_recorded(claims_file: ClaimsFile, results: list[ClaimResult]) -> list[dict[str, Any]]:
    """Fresh entries, except that a claim evaluated as `not run` because its runs are absent keeps
    its recorded entry (marked `kept`), and a meta-claim over kept claims counts their recorded verdicts."""
    recorded = {e["id"]: e for e in read_recorded(results_json_path(claims_file))}
    kept: dict[str, dict[str, Any]] = {}
    counted: dict[str, ClaimResult] = {}  # each claim as a meta-claim counts it: the recorded verdict where kept
    for result in results:
        old = recorded.get(result.claim.id)
        if result.verdict == NOT_RUN and result.reason.startswith("no runs at") and old and old["verdict"] != NOT_RUN:
            kept[result.claim.id] = {**old, **_declared(result.claim), "kept": True}
            result = replace(result, verdict=old["verdict"], commits=list(old.get("commits", [])))
        counted[result.claim.id] = result
    entries = []
    for result in results:
        claim = result.claim
        if claim.id in kept:
            entries.append(kept[claim.id])
        elif claim.is_meta and any(part in kept for part in claim.of):
            counted[claim.id] = evaluate_meta(claim, [counted[part] for part in claim.of if part in counted])
            kept[claim.id] = {**counted[claim.id].to_dict(), "kept": True}  # a meta-claim over this one counts it so
            entries.append(kept[claim.id])
        else:
            entries.append(result.to_dict())
    return entries


def _declared(claim: Claim) -> dict[str, Any]:
    """The fields that come from claims.yaml itself (always current, even for a kept result)."""
    return {"claim": claim.claim, "source": claim.source, "scale": claim.scale, "metric": claim.metric,
            "direction": claim.direction, "threshold": claim.threshold, "paper_value": claim.paper_value}


def read_recorded(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    try:
        return list(json.loads(path.read_text()).get("claims", []))
    except (ValueError, AttributeError):
        return []


def write_json(claims_file: ClaimsFile, entries: list[dict[str, Any]]) -> Path:
    path = results_json_path(claims_file)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"paper": claims_file.paper, "command": claims_file.command, "claims": entries}
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(payload, indent=2, default=_jsonable) + "\n")
    tmp.replace(path)
    return path


def render_markdown(claims_file: ClaimsFile, entries: list[dict[str, Any]], runs_root: Path | None = None) -> str:
    """One row per claim: the paper's number, ours with its 95 % interval and n, the verdict; `runs_root`: the
    runs were read there (`--runs-root`) instead of where the claims file's command puts them."""
    by_id = {c.id: c for c in claims_file.claims}
    source = f"runs under `{runs_root}`" if runs_root else f"runs from `{claims_file.command}`"
    lines = [
        f"Claims of `{claims_file.path.name}`, {source}; effects are paired by seed, "
        "95 % Student-t intervals over seeds (rules: `reprolab.claims.evaluate`).",
        "",
        "| claim | what is measured | paper | bar | ours (95 % CI) | n | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for entry in entries:
        claim = by_id.get(entry["id"])
        lines.append("| " + " | ".join([
            f"`{entry['id']}`", describe(claim) if claim else "", fmt(entry.get("paper_value")),
            bar_text(claim) if claim else "", ours_text(entry), str(entry.get("n") or 0), verdict_text(entry),
        ]) + " |")
    notes = [f"- `{e['id']}`: {e['reason']}" for e in entries if e.get("reason")]
    return "\n".join(lines + ([""] + notes if notes else [])) + "\n"


def describe(claim: Claim) -> str:
    """`Δ test/acc (optimizer=delta_sgd − optimizer=sgd)` and the like."""
    if claim.is_meta:
        return f"≥ {claim.at_least} of {len(claim.of)} claims reproduce"
    arm = _arm(claim.treatment)
    if not claim.paired:
        return f"{claim.metric} of {arm}"
    base = _arm(claim.baseline or {})
    symbol = {"difference": ("Δ ", " − "), "ratio": ("", " / "), "relative": ("rel. Δ ", " vs ")}[claim.effect]
    return f"{symbol[0]}{claim.metric} ({arm}{symbol[1]}{base})"


def bar_text(claim: Claim) -> str:
    if claim.is_meta:
        return f"{claim.at_least}"
    return ("> " if claim.direction == "greater" else "< ") + fmt(claim.bar)


def ours_text(entry: dict[str, Any]) -> str:
    recorded = " (recorded)" if entry.get("kept") else ""
    if entry.get("effect") is None and entry.get("mean") is not None and entry.get("ci") is None:
        return f"{int(entry['mean'])} reproduce{recorded}"
    if entry.get("mean") is None:
        return "—"
    ci = entry.get("ci")
    return fmt(entry["mean"]) + (f" [{fmt(ci[0])}, {fmt(ci[1])}]" if ci else "") + recorded


def verdict_text(entry: dict[str, Any]) -> str:
    return f"**{entry['verdict']}**"


def fmt(value: Any, digits: int = 4) -> str:
    if value is None:
        return "—"
    value = float(value)
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    decimals = max(0, min(6, digits - 1 - math.floor(math.log10(abs(value)))))
    return f"{value:.{decimals}f}"


def _arm(selectors: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in selectors.items())


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | set):
        return list(value)
    return str(value)
