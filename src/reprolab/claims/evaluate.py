"""Evaluate a paper's claims on its runs: select each arm, pair by seed, a 95 % paired-t interval
of the effect over seeds, and a verdict against the pre-registered threshold.

The intervals (paired t; a ratio's on the log scale) and why: claims/intervals.py.

The verdict rules: claims/verdicts.py.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from reprolab.claims.intervals import fisher_z_interval, log_t_interval, t_interval
from reprolab.claims.spec import Claim, ClaimsError, ClaimsFile
from reprolab.claims.verdicts import (
    COULD_NOT_FAIL,
    DIRECTION_ONLY,
    DOES_NOT,
    HOLDS,
    INCONCLUSIVE,
    NOT_RUN,
    REPRODUCES,
    sanity_verdict,
    verdict_for,
)
from reprolab.config.compose import REPO_ROOT
from reprolab.results.plugins import apply_plugins, paper_plugins
from reprolab.results.runs import Run, find_runs


@dataclass
class ClaimResult:
    claim: Claim
    verdict: str
    reason: str = ""
    n: int = 0
    mean: float | None = None
    ci: tuple[float, float] | None = None
    treatment_mean: float | None = None
    baseline_mean: float | None = None
    pairs: list[dict[str, Any]] = field(default_factory=list)
    commits: list[str] = field(default_factory=list)
    selected: dict[str, Any] = field(default_factory=dict)  # best_of choice per arm
    trivial: ClaimResult | None = None  # the trivial arm in the treatment's place; it must not reproduce

    def to_dict(self) -> dict[str, Any]:
        c = self.claim
        effect = None if c.is_meta else (c.effect if c.paired or c.effect == "correlation" else "level")
        return {
            "id": c.id, "claim": c.claim, "source": c.source, "scale": c.scale, "metric": c.metric,
            "effect": effect, "direction": c.direction,
            "threshold": c.threshold, "paper_value": c.paper_value, "verdict": self.verdict, "reason": self.reason,
            "n": self.n, "mean": self.mean, "ci": list(self.ci) if self.ci else None,
            "treatment_mean": self.treatment_mean, "baseline_mean": self.baseline_mean,
            "pairs": self.pairs, "commits": self.commits, "selected": self.selected,
            **({} if c.is_meta else {"arms": {"where": c.where, "treatment": c.treatment, "baseline": c.baseline}}),
            **({"sanity": True} if c.sanity else {}),
            **({"trivial": self.trivial_dict()} if self.trivial is not None else {}),
        }

    def trivial_dict(self) -> dict[str, Any]:
        t = self.trivial
        return {"arm": self.claim.trivial, "verdict": t.verdict, "meets_bar": t.verdict == REPRODUCES,
                "reason": t.reason, "n": t.n, "mean": t.mean, "ci": list(t.ci) if t.ci else None,
                "pairs": t.pairs, "commits": t.commits}


def with_trivial(result: ClaimResult, trivial: ClaimResult) -> ClaimResult:
    """`result` with its trivial arm's result; a claim whose trivial arm meets the bar could not have failed."""
    result.trivial = trivial
    if trivial.verdict == REPRODUCES and result.verdict != NOT_RUN:
        own = f"its trivial arm {result.claim.trivial} meets the bar too (own interval: {result.verdict})"
        result.verdict, result.reason = COULD_NOT_FAIL, "; ".join(filter(None, [own, result.reason]))
    return result


def evaluate_claims(claims_file: ClaimsFile, runs_root: Path | None = None) -> list[ClaimResult]:
    """Every claim of the file, in order; a claim whose run folders are absent is `not run`."""
    cache: dict[tuple[Path, ...], list[Run]] = {}
    results: dict[str, ClaimResult] = {}
    for claim in claims_file.everything:
        if not claim.is_meta:
            folders = claims_file.runs_dirs(claim, runs_root)
            results[claim.id] = evaluate_claim(claim, folders, cache)
            if claim.trivial is not None:
                trivial = replace(claim, treatment=claim.trivial_treatment, trivial=None, sanity=False)
                with_trivial(results[claim.id], evaluate_claim(trivial, folders, cache))
    for claim in claims_file.claims:
        if claim.is_meta:
            results[claim.id] = evaluate_meta(claim, [results[i] for i in claim.of if i in results])
    return [results[c.id] for c in claims_file.everything]


THREADS_NOTE = "runs on different torch thread counts"


def evaluate_claim(claim: Claim, folders: list[Path], cache: dict | None = None) -> ClaimResult:
    missing = [_shown(f) for f in folders if not f.is_dir()]
    if missing:
        return ClaimResult(claim, NOT_RUN, reason=f"no runs at {', '.join(missing)}")
    runs = _load(tuple(folders), cache if cache is not None else {})
    runs = [r for r in runs if r.finished and matches(r, claim.where)]
    arms = {"treatment": claim.treatment, **({"baseline": claim.baseline} if claim.paired else {})}
    chosen, selected = {}, {}
    for arm, selectors in arms.items():
        arm_runs = [r for r in runs if matches(r, selectors)]
        if claim.best_of and arm_runs:
            arm_runs, selected[arm] = _best_of(arm_runs, claim.best_of)
            if not arm_runs:
                return ClaimResult(claim, NOT_RUN, reason=f"no {arm} run has a finite '{claim.best_of['by']}' to "
                                                          f"choose {claim.best_of['key']} by")
        if not arm_runs:
            return ClaimResult(claim, NOT_RUN, reason=f"no finished runs match {arm} {selectors}")
        chosen[arm] = _by_pair_key(arm_runs, claim, arm)
    return _score(claim, chosen, selected)


def _score(claim: Claim, chosen: dict[str, dict[tuple, Run]], selected: dict) -> ClaimResult:
    keys = sorted(set.intersection(*(set(v) for v in chosen.values())), key=str)
    pairs, dropped = [], 0
    for key in keys:
        values = {arm: _number(runs[key].metrics.get(claim.metric)) for arm, runs in chosen.items()}
        if any(v is None for v in values.values()):
            dropped += 1
            continue
        pairs.append({"key": list(key), **values})
    used = [runs[k] for runs in chosen.values() for k in keys]
    commits = sorted({str(r.metrics.get("git_commit") or "unknown") for r in used})
    notes = [f"{dropped} pair(s) without a finite {claim.metric} (diverged or not logged)"] if dropped else []
    threads = sorted({r.metrics["torch_threads"] for r in used if isinstance(r.metrics.get("torch_threads"), int)})
    if len(threads) > 1:  # CPU kernels' reduction order follows the thread count, so the arms are not like for like
        notes.append(f"{THREADS_NOTE} {threads}: rerun every arm under one (make's CPU1 sets 1)")
    return score_pairs(claim, pairs, commits=commits, selected=selected, notes=notes)


def score_pairs(claim: Claim, pairs: list[dict[str, Any]], commits: list[str] | None = None,
                selected: dict | None = None, notes: Sequence[str] = ()) -> ClaimResult:
    """The interval and verdict of a claim from its per-pair values ({"key", "treatment"[, "baseline"]}); the
    effects are recomputed from the values, so recorded pairs are re-scored by the rules of this module."""
    notes, kept = list(notes), []
    for pair in pairs:
        effect = _effect(claim, {arm: pair[arm] for arm in ("treatment", "baseline") if arm in pair})
        if effect is not None:
            kept.append({**pair, "effect": effect})
    if len(kept) < len(pairs):
        notes.append(f"{len(pairs) - len(kept)} pair(s) with a zero baseline (no {claim.effect}) left out")
    if claim.paired and claim.effect == "ratio":
        positive = [p for p in kept if p["effect"] > 0]
        if len(positive) < len(kept):
            notes.append(f"{len(kept) - len(positive)} pair(s) with a ratio <= 0 (no log scale) left out")
        kept = positive
    if claim.effect == "correlation":
        inside = [p for p in kept if abs(p["effect"]) < 1]
        if len(inside) < len(kept):
            notes.append(f"{len(kept) - len(inside)} seed(s) with |r| = 1 (no Fisher z) left out")
        kept = inside
    effects = [p["effect"] for p in kept]
    result = ClaimResult(claim, NOT_RUN, n=len(effects), pairs=kept, commits=list(commits or []),
                         selected=dict(selected or {}))
    result.treatment_mean = _mean([p["treatment"] for p in kept])
    result.baseline_mean = _mean([p["baseline"] for p in kept]) if claim.paired else None
    if len(effects) < 2:
        result.reason = "; ".join([f"{len(effects)} complete pair(s): an interval needs 2", *notes])
        result.mean = effects[0] if effects else None
        return result
    interval = {"ratio": log_t_interval, "correlation": fisher_z_interval}.get(claim.effect, t_interval)
    result.mean, low, high = interval(effects)
    result.ci = (low, high)
    verdict = verdict_for(claim, result.mean, low, high)
    result.verdict = sanity_verdict(verdict) if claim.sanity else verdict
    result.reason = "; ".join(notes)
    return result


def evaluate_meta(claim: Claim, parts: list[ClaimResult]) -> ClaimResult:
    """`at_least` k of the listed claims reproduce (see the module docstring for the other verdicts)."""
    count = defaultdict(int)
    for part in parts:
        count[part.verdict] += 1
    total, k = len(claim.of), claim.at_least
    count[REPRODUCES] += count.pop(HOLDS, 0)  # never mixed in practice: a meta-claim lists claims only
    if count[NOT_RUN] == total:
        verdict = NOT_RUN
    elif count[REPRODUCES] >= k:
        verdict = REPRODUCES
    elif total - count[DOES_NOT] < k:
        verdict = DOES_NOT
    else:
        verdict = DIRECTION_ONLY if count[REPRODUCES] + count[DIRECTION_ONLY] >= k else INCONCLUSIVE
    reason = ", ".join(f"{p.claim.id}: {p.verdict}" for p in parts)
    commits = sorted({c for p in parts for c in p.commits})
    return ClaimResult(claim, verdict, reason=reason, n=total, mean=float(count[REPRODUCES]), commits=commits)


def _shown(path: Path) -> str:
    """A path as the claims file names it: relative to the repository root where it lies inside it."""
    try:
        return str(path.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


def _load(folders: tuple[Path, ...], cache: dict) -> list[Run]:
    if folders not in cache:
        runs = find_runs(folders)
        apply_plugins(runs, paper_plugins(runs))
        cache[folders] = runs
    return cache[folders]


def matches(run: Run, selectors: dict[str, Any]) -> bool:
    for key, wanted in selectors.items():
        options = wanted if isinstance(wanted, list | tuple) else [wanted]
        if not any(_same(run.get(key), option) for option in options):
            return False
    return True


def _same(value: Any, wanted: Any) -> bool:
    if value == wanted:
        return True
    try:
        return float(value) == float(wanted)
    except (TypeError, ValueError):
        return str(value) == str(wanted)


def _best_of(runs: list[Run], rule: dict[str, str]) -> tuple[list[Run], Any]:
    """Keep the runs of the `key` value whose mean `by` (a validation metric) is best; none when no run has it.
    A value where some seed has no finite `by` (it diverged) is chosen only when every value has such a seed."""
    groups: dict[str, list[Run]] = defaultdict(list)
    for run in runs:
        groups[str(run.get(rule["key"]))].append(run)
    scores, complete = {}, set()
    for value, members in groups.items():
        numbers = [x for x in (_number(r.metrics.get(rule["by"])) for r in members) if x is not None]
        if numbers:
            scores[value] = statistics.fmean(numbers)
            if len(numbers) == len(members):
                complete.add(value)
    if not scores:
        return [], None
    scores = {v: x for v, x in scores.items() if v in complete} or scores
    pick = (min if rule.get("mode", "min") == "min" else max)(scores, key=scores.get)
    return groups[pick], pick


def _by_pair_key(runs: list[Run], claim: Claim, arm: str) -> dict[tuple, Run]:
    out: dict[tuple, Run] = {}
    for run in runs:
        key = tuple(str(run.get(k)) for k in claim.pair_by)
        if key in out:
            raise ClaimsError(
                f"claim '{claim.id}': two runs of the {arm} arm for {dict(zip(claim.pair_by, key, strict=True))} "
                f"({out[key].path} and {run.path}); add a selector to 'treatment'/'baseline'/'where' or a 'best_of' rule")
        out[key] = run
    return out


def _effect(claim: Claim, values: dict[str, float]) -> float | None:
    t = values["treatment"]
    if not claim.paired:
        return t
    b = values["baseline"]
    if claim.effect == "difference":
        return t - b
    if b == 0:
        return None
    return t / b if claim.effect == "ratio" else (t - b) / abs(b)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _mean(values: list[float]) -> float | None:
    return statistics.fmean(values) if values else None
