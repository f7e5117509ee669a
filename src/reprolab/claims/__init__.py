"""Claims as data: each paper's `claims.yaml`, evaluated on its runs into verdicts with intervals."""

from reprolab.claims.evaluate import ClaimResult, evaluate_claims
from reprolab.claims.spec import Claim, ClaimsError, ClaimsFile, load_claims

__all__ = ["Claim", "ClaimResult", "ClaimsError", "ClaimsFile", "evaluate_claims", "load_claims"]
