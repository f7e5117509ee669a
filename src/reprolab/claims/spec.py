"""`experiments/<paper>/claims.yaml`: what a paper claims, which runs test it, and the bar it must clear.

A claim compares a treatment arm with a baseline arm paired by seed (effect = difference, ratio or
relative change), or holds one arm's metric against an absolute threshold (single-arm). The
threshold is pre-registered: it is written down from the paper's claim before any run is read.
A meta-claim (`at_least` of a list of claim ids) summarises claims such as "on 3 of 5 datasets".

Two more fields keep a claim honest (STYLE.md, "A claim that can fail"):
- `trivial`: selectors of the trivial arm (an untrained model, a dense readout, the baseline itself) that,
  in the treatment's place (same runs, `where`, baseline and bar), must *fail* the bar; it is evaluated
  beside the claim and recorded;
- a `sanity:` list beside `claims:` holds identities and properties that hold by construction, with the same
  schema: they are run and listed apart ("holds" / "fails"), and never counted as claims.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from reprolab.cli.errors import ReprolabError
from reprolab.config.compose import REPO_ROOT

EFFECTS = ("difference", "ratio", "relative", "correlation")
DIRECTIONS = ("greater", "less")
SCALES = ("cpu", "paper")
CLAIM_KEYS = {
    "id", "claim", "source", "scale", "runs", "where", "treatment", "baseline", "metric", "effect",
    "direction", "threshold", "paper_value", "pair_by", "best_of", "note", "at_least", "of", "trivial",
}
FILE_KEYS = {"paper", "runs_root", "command", "claims", "sanity", "title", "reference"}


class ClaimsError(ReprolabError):
    """A claims file that cannot be read, or runs that cannot be paired as it asks."""


@dataclass(frozen=True)
class Claim:
    id: str
    claim: str
    source: str = ""
    scale: str = "cpu"
    runs: tuple[str, ...] = ()
    where: dict[str, Any] = field(default_factory=dict)
    treatment: dict[str, Any] = field(default_factory=dict)
    baseline: dict[str, Any] | None = None
    metric: str = ""
    effect: str = "difference"
    direction: str = "greater"
    threshold: float | None = None
    paper_value: float | None = None
    pair_by: tuple[str, ...] = ("seed",)
    best_of: dict[str, str] | None = None
    note: str = ""
    at_least: int | None = None
    of: tuple[str, ...] = ()
    trivial: dict[str, Any] | None = None
    sanity: bool = False

    @property
    def is_meta(self) -> bool:
        return self.at_least is not None

    @property
    def paired(self) -> bool:
        return self.baseline is not None

    @property
    def null(self) -> float:
        """The no-effect value: 1 for a ratio, 0 for a difference, the threshold for a single arm."""
        if not self.paired:
            return float(self.threshold)
        return 1.0 if self.effect == "ratio" else 0.0

    @property
    def bar(self) -> float:
        """The pre-registered value the whole interval must clear (the no-effect value by default)."""
        return self.null if self.threshold is None else float(self.threshold)

    @property
    def magnitude(self) -> bool:
        """A paired claim whose bar lies beyond the no-effect value in its direction ("at most half")."""
        if not self.paired:
            return False
        beyond = self.bar - self.null
        return beyond > 0 if self.direction == "greater" else beyond < 0

    @property
    def trivial_treatment(self) -> dict[str, Any] | None:
        """The trivial arm's selectors, which take the treatment's place (None when no trivial arm is named)."""
        return None if self.trivial is None else dict(self.trivial)


@dataclass(frozen=True)
class ClaimsFile:
    path: Path
    paper: str
    runs_root: str
    command: str
    claims: tuple[Claim, ...]
    sanity: tuple[Claim, ...] = ()

    @property
    def everything(self) -> tuple[Claim, ...]:
        """The claims, then the sanity checks."""
        return self.claims + self.sanity

    def runs_dirs(self, claim: Claim, runs_root: Path | None = None) -> list[Path]:
        """The folders a claim reads, relative paths taken from `runs_root` (else the file's), under the repo root."""
        root = runs_root if runs_root is not None else REPO_ROOT / self.runs_root
        return [Path(r) if Path(r).is_absolute() else root / r for r in claim.runs]


def claims_path(paper: str) -> Path:
    return REPO_ROOT / "experiments" / paper / "claims.yaml"


def papers_with_claims() -> list[str]:
    return sorted(p.parent.name for p in (REPO_ROOT / "experiments").glob("*/claims.yaml"))


def load_claims(path_or_paper: str | Path) -> ClaimsFile:
    """Read and check a claims file (a path, or a paper name); every mistake is one `ClaimsError` line."""
    path = Path(path_or_paper)
    if not path.suffix:
        path = claims_path(str(path_or_paper))
        if not path.is_file():
            known = ", ".join(papers_with_claims()) or "none"
            raise ClaimsError(f"paper '{path_or_paper}' has no claims file {path}; papers with claims: {known}")
    if not path.is_file():
        raise ClaimsError(f"no claims file {path}")
    try:
        raw = yaml.safe_load(path.read_text())
    except yaml.YAMLError as err:
        raise ClaimsError(f"{path}: not valid YAML ({str(err).splitlines()[0]})") from None
    if not isinstance(raw, dict):
        raise ClaimsError(f"{path}: expected a mapping with 'paper', 'runs_root', 'command' and 'claims'")
    _no_unknown(raw, FILE_KEYS, str(path))
    for key in ("paper", "runs_root", "command", "claims"):
        if not raw.get(key):
            raise ClaimsError(f"{path}: '{key}' is missing")
    claims = tuple(_claim(item, f"{path} claim #{i + 1}") for i, item in enumerate(raw["claims"]))
    sanity = raw.get("sanity") or []
    if not isinstance(sanity, list):
        raise ClaimsError(f"{path}: 'sanity' is a list of checks with the claims' schema")
    checks = tuple(replace(_claim(item, f"{path} sanity #{i + 1}"), sanity=True) for i, item in enumerate(sanity))
    if any(c.is_meta for c in checks):
        raise ClaimsError(f"{path}: a sanity check cannot be a meta-claim (at_least/of)")
    _check_ids(claims + checks, path)
    return ClaimsFile(path, str(raw["paper"]), str(raw["runs_root"]), str(raw["command"]), claims, checks)


def _claim(item: Any, where: str) -> Claim:
    if not isinstance(item, dict) or not item.get("id"):
        raise ClaimsError(f"{where}: each claim is a mapping with an 'id'")
    where = f"{where} ('{item['id']}')"
    _no_unknown(item, CLAIM_KEYS, where)
    if not item.get("claim"):
        raise ClaimsError(f"{where}: 'claim' (the paper's words) is missing")
    if "at_least" in item:
        if not item.get("of") or not isinstance(item["at_least"], int) or not 1 <= item["at_least"] <= len(item["of"]):
            raise ClaimsError(f"{where}: a meta-claim needs 'of' (claim ids) and 1 <= at_least <= len(of)")
        return Claim(id=str(item["id"]), claim=item["claim"], source=str(item.get("source", "")),
                     scale=item.get("scale", "cpu"), at_least=item["at_least"], of=tuple(map(str, item["of"])),
                     note=str(item.get("note", "")))
    for key in ("runs", "metric", "treatment"):
        if not item.get(key):
            raise ClaimsError(f"{where}: '{key}' is missing")
    _choice(item.get("effect", "difference"), EFFECTS, "effect", where)
    _choice(item.get("direction", "greater"), DIRECTIONS, "direction", where)
    _choice(item.get("scale", "cpu"), SCALES, "scale", where)
    if item.get("baseline") is None and item.get("threshold") is None:
        raise ClaimsError(f"{where}: a single-arm claim (no 'baseline') needs an absolute 'threshold'")
    if item.get("effect") == "correlation" and (item.get("baseline") is not None
                                                or not -1 < float(item["threshold"]) < 1):
        raise ClaimsError(f"{where}: effect 'correlation' is a single-arm claim (no 'baseline') on a per-seed "
                          "correlation, with a threshold inside (-1, 1)")
    best_of = item.get("best_of")
    if best_of is not None and (set(best_of) - {"key", "by", "mode"} or not {"key", "by"} <= set(best_of)
                                or best_of.get("mode", "min") not in ("min", "max")):
        raise ClaimsError(f"{where}: best_of needs 'key' and 'by' (and mode min|max)")
    trivial = item.get("trivial")
    if trivial is not None and (not isinstance(trivial, dict) or not trivial):
        raise ClaimsError(f"{where}: 'trivial' is a mapping of selectors naming the arm that must fail the bar")
    runs = item["runs"] if isinstance(item["runs"], list) else [item["runs"]]
    return Claim(
        id=str(item["id"]), claim=str(item["claim"]), source=str(item.get("source", "")),
        scale=item.get("scale", "cpu"), runs=tuple(map(str, runs)), where=dict(item.get("where") or {}),
        treatment=dict(item["treatment"]), baseline=None if item.get("baseline") is None else dict(item["baseline"]),
        metric=str(item["metric"]), effect=item.get("effect", "difference"), direction=item.get("direction", "greater"),
        threshold=_number(item.get("threshold"), "threshold", where),
        paper_value=_number(item.get("paper_value"), "paper_value", where),
        pair_by=tuple(item.get("pair_by") or ("seed",)), best_of=best_of, note=str(item.get("note", "")),
        trivial=None if trivial is None else dict(trivial),
    )


def _check_ids(claims: tuple[Claim, ...], path: Path) -> None:
    ids = [c.id for c in claims]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ClaimsError(f"{path}: claim ids must be unique; repeated: {', '.join(dupes)}")
    plain = {c.id for c in claims if not c.sanity}
    for claim in claims:
        missing = [i for i in claim.of if i not in plain or i == claim.id]
        if missing:
            raise ClaimsError(f"{path}: meta-claim '{claim.id}' lists unknown claims: {', '.join(missing)}")


def _no_unknown(raw: dict, allowed: set[str], where: str) -> None:
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise ClaimsError(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}")


def _choice(value: Any, options: tuple[str, ...], key: str, where: str) -> None:
    if value not in options:
        raise ClaimsError(f"{where}: {key} '{value}' is not one of {', '.join(options)}")


def _number(value: Any, key: str, where: str) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ClaimsError(f"{where}: {key} must be a number, got {value!r}") from None
