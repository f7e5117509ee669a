"""The verdict of a claim from its mean and 95 % interval against the pre-registered threshold.

Verdicts, with d the direction (greater | less), `bar` the threshold and `ref` the no-effect value
(0 for a difference, 1 for a ratio; for a single arm or a non-inferiority bar on the far side of
the no-effect value, the bar itself). A *magnitude* claim is a paired one whose bar lies beyond the
no-effect value in direction d ("at most half the error": ratio < 0.5):
- reproduces: the whole interval is beyond the bar in direction d;
- weaker than claimed: a magnitude claim whose whole interval lies between the no-effect value and the
  bar (an effect in the paper's direction, excluded from the paper's size);
- does not reproduce: the whole interval is on the wrong side of ref (excludes the paper's direction), or,
  for a magnitude claim, on the wrong side of the bar while it includes the no-effect value (the size the
  paper claims is excluded, and no effect in its direction is shown);
- direction only: the mean is beyond ref in direction d, the interval includes the bar (and, unless the
  interval lies wholly beyond ref, the no-effect value too): neither the claim nor its absence is shown;
- inconclusive: the mean is on the wrong side of ref and the interval includes it;
- not run: an arm has no finished runs, or fewer than 2 pairs;
- could not fail: the claim's trivial arm (`trivial`, in the treatment's place) reproduces too, so clearing the
  bar shows nothing about the method, whatever the claim's own interval says (its own verdict is in the reason).
A sanity check (an identity, a property by construction) is scored by the same rules and reported as
`holds` (reproduces) or `fails` (any other verdict on a complete interval).
"""

from __future__ import annotations

from reprolab.claims.spec import Claim

REPRODUCES, WEAKER, DIRECTION_ONLY = "reproduces", "weaker than claimed", "direction only"
DOES_NOT, INCONCLUSIVE, NOT_RUN = "does not reproduce", "inconclusive", "not run"
COULD_NOT_FAIL = "could not fail"
HOLDS, FAILS = "holds", "fails"  # a sanity check's two outcomes
VERDICTS = (REPRODUCES, WEAKER, DIRECTION_ONLY, INCONCLUSIVE, DOES_NOT, COULD_NOT_FAIL, NOT_RUN)  # the order a summary lists them


def verdict_for(claim: Claim, mean: float, low: float, high: float) -> str:
    """The verdict rules of the module docstring, for one claim's mean and interval."""
    sign = 1.0 if claim.direction == "greater" else -1.0
    bar = claim.bar
    ref = min(claim.null, bar) if sign > 0 else max(claim.null, bar)
    near, far = (low, high) if sign > 0 else (high, low)  # the interval's end nearest the wrong side, and the other
    if sign * (near - bar) > 0:
        return REPRODUCES
    if claim.magnitude and sign * (far - bar) < 0:  # the paper's size is excluded
        return WEAKER if sign * (near - ref) > 0 else DOES_NOT
    if sign * (far - ref) < 0:
        return DOES_NOT
    return DIRECTION_ONLY if sign * (mean - ref) > 0 else INCONCLUSIVE


def sanity_verdict(verdict: str) -> str:
    """A sanity check holds when its interval clears the bar; any other scored verdict is a failure."""
    return verdict if verdict == NOT_RUN else (HOLDS if verdict == REPRODUCES else FAILS)
