"""Claim results as `experiments/<paper>/results/claims.json` (the record the scorecard reads) and as
a markdown block in the paper's RESULTS.md.

A claim whose runs are not on this machine keeps the result recorded before (a fresh clone has no `logs/`,
or a partial re-run lacks one of its arms), so re-running the command never turns a measured verdict into
`not run`; a kept result is re-scored from its recorded per-seed values by the current rules
(`reprolab.claims.evaluate`), so a change of the rules reaches every recorded claim. A record of another
metric or other arms is not kept.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

from reprolab.claims.evaluate import THREADS_NOTE, ClaimResult, evaluate_meta, score_pairs, with_trivial
from reprolab.claims.spec import Claim, ClaimsFile
from reprolab.claims.verdicts import NOT_RUN

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
        if result.verdict == NOT_RUN and _absent(result) and old and (old["verdict"] != NOT_RUN or old.get("pairs")):
            if result.claim.is_meta:
                kept[result.claim.id] = {**old, **_declared(result.claim), "kept": True}
                result = replace(result, verdict=old["verdict"], commits=list(old.get("commits", [])))
            elif _same_measurement(result.claim, old):
                result = rescore(result.claim, old)
                kept[result.claim.id] = {**result.to_dict(), "kept": True}
            else:
                result = replace(result, reason=f"{result.reason} (the recorded result measured another metric or "
                                                f"other arms; run `{claims_file.command}`)")
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
            entries.append(counted[claim.id].to_dict())
    return entries


def rescore(claim: Claim, old: dict[str, Any]) -> ClaimResult:
    """A recorded result re-scored from its recorded pairs by the current rules (and its trivial arm's)."""
    notes = [n for n in str(old.get("reason") or "").split("; ")
             if "pair(s) without a finite" in n or n.startswith(THREADS_NOTE)]
    result = score_pairs(claim, list(old.get("pairs") or []), commits=old.get("commits"),
                         selected=old.get("selected"), notes=notes)
    trivial = old.get("trivial")
    plain = replace(claim, treatment=claim.trivial_treatment, trivial=None, sanity=False)
    if claim.trivial is not None and trivial and trivial.get("arm") == claim.trivial:
        with_trivial(result, score_pairs(plain, list(trivial.get("pairs") or []), commits=trivial.get("commits")))
    elif claim.trivial is not None and claim.trivial == claim.baseline:  # the baseline against itself
        pairs = [{"key": p["key"], "treatment": p["baseline"], "baseline": p["baseline"]} for p in result.pairs]
        with_trivial(result, score_pairs(plain, pairs, commits=result.commits))
    return result


def _absent(result: ClaimResult) -> bool:
    """Its runs are not here: no folder, or (a partial re-run) no finished run of one of its arms."""
    return result.reason.startswith(("no runs at", "no finished runs match"))


def _same_measurement(claim: Claim, old: dict[str, Any]) -> bool:
    """The record measured this claim's metric (and, where it recorded them, the same arms) with pairs to re-score."""
    arms = old.get("arms")
    return (old.get("metric") == claim.metric and bool(old.get("pairs"))
            and (arms is None or arms == _arms(claim)))


def _arms(claim: Claim) -> dict[str, Any]:
    return {"where": claim.where, "treatment": claim.treatment, "baseline": claim.baseline}


def _declared(claim: Claim) -> dict[str, Any]:
    """The fields that come from claims.yaml itself (always current, even for a kept result)."""
    return {"claim": claim.claim, "source": claim.source, "scale": claim.scale, "metric": claim.metric,
            "direction": claim.direction, "threshold": claim.threshold, "paper_value": claim.paper_value}


def read_recorded(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    try:
        recorded = json.loads(path.read_text())
        return [*recorded.get("claims", []), *recorded.get("sanity", [])]
    except (ValueError, AttributeError):
        return []


def write_json(claims_file: ClaimsFile, entries: list[dict[str, Any]]) -> Path:
    path = results_json_path(claims_file)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"paper": claims_file.paper, "command": claims_file.command,
               "claims": [e for e in entries if not e.get("sanity")], "sanity": [e for e in entries if e.get("sanity")]}
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(payload, indent=2, default=_jsonable) + "\n")
    tmp.replace(path)
    return path


def render_markdown(claims_file: ClaimsFile, entries: list[dict[str, Any]], runs_root: Path | None = None) -> str:
    """One row per claim: the paper's number, ours with its 95 % interval and n, the verdict; then the sanity
    checks apart; `runs_root`: the runs were read there (`--runs-root`) instead of where the command puts them."""
    by_id = {c.id: c for c in claims_file.everything}
    source = f"runs under `{runs_root}`" if runs_root else f"runs from `{claims_file.command}`"
    claims = [e for e in entries if not e.get("sanity")]
    checks = [e for e in entries if e.get("sanity")]
    lines = [
        f"Claims of `{claims_file.path.name}`, {source}; effects are paired by seed, "
        "95 % Student-t intervals over seeds (a ratio: geometric mean, interval on the log scale; rules: "
        "`reprolab.claims.evaluate`).",
        "",
        *table_rows(claims, by_id),
    ]
    if checks:
        lines += ["", "Sanity checks (identities and properties that hold by construction: run, not counted as claims):",
                  "", *table_rows(checks, by_id)]
    notes = [f"- `{e['id']}`: {e['reason']}" for e in entries if e.get("reason")]
    notes += [f"- `{e['id']}`: {trivial_text(e)}" for e in entries if e.get("trivial")]
    return "\n".join(lines + ([""] + notes if notes else [])) + "\n"


def table_rows(entries: list[dict[str, Any]], by_id: dict[str, Claim]) -> list[str]:
    rows = ["| claim | what is measured | paper | bar | ours (95 % CI) | n | verdict |", "|---|---|---|---|---|---|---|"]
    for entry in entries:
        claim = by_id.get(entry["id"])
        rows.append("| " + " | ".join([
            f"`{entry['id']}`", describe(claim) if claim else "", fmt(entry.get("paper_value")),
            bar_text(claim) if claim else "", ours_text(entry), str(entry.get("n") or 0), verdict_text(entry),
        ]) + " |")
    return rows


def trivial_text(entry: dict[str, Any]) -> str:
    """How the trivial arm fared against the claim's bar: it must fail it, or the claim could not have failed."""
    t = entry["trivial"]
    ours = ours_text({k: t.get(k) for k in ("mean", "ci")} | {"effect": "x"})
    arm = _arm(t.get("arm") or {})
    if t.get("verdict") == NOT_RUN:
        return f"trivial arm {arm}: not run ({t.get('reason') or 'no runs'})"
    if t.get("meets_bar"):
        return f"trivial arm {arm} **meets the bar** ({ours}, n={t.get('n')}): this claim could not have failed"
    return f"trivial arm {arm} fails the bar, as it must ({ours}, n={t.get('n')}: {t.get('verdict')})"


def describe(claim: Claim) -> str:
    """`Δ test/acc (optimizer=delta_sgd − optimizer=sgd)` and the like."""
    if claim.is_meta:
        return f"≥ {claim.at_least} of {len(claim.of)} claims reproduce"
    arm = _arm(claim.treatment)
    if not claim.paired:
        return f"{claim.metric} of {arm}"
    base = _arm(claim.baseline or {})
    symbol = {"difference": ("Δ ", " − "), "ratio": ("geo. mean ", " / "), "relative": ("rel. Δ ", " vs ")}[claim.effect]
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
