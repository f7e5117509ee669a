"""claims.yaml reads, and every claim reads a sweep folder that `make claim-deltamomentum` writes (itself or
through a `$(MAKE) claim-deltamomentum-…` part it calls), or the target listed beside it for its cost
(`claim-deltamomentum-tuned`), which the claim's note names."""

from __future__ import annotations

import re
from pathlib import Path

from reprolab.claims.spec import load_claims

ROOT = Path(__file__).resolve().parents[3]


def test_every_claim_reads_a_sweep_of_the_claim_target():
    claims = load_claims("deltamomentum")
    targets = (ROOT / "experiments" / "deltamomentum" / "targets.mk").read_text()

    def recipe(target: str) -> str:
        return targets.split(f"\n{target}:", 1)[1].split("\n\n", 1)[0]

    main = recipe("claim-deltamomentum")
    parts = re.findall(r"\$\(MAKE\) (claim-deltamomentum-[\w-]+)", main)
    assert parts == ["claim-deltamomentum-drift"]
    beside = {"lm_steps_saved_tuned_tinyshakespeare": "claim-deltamomentum-tuned"}
    for claim_id, target in beside.items():
        assert f"`make {target}`" in next(c.note for c in claims.claims if c.id == claim_id)
    parts += list(beside.values())
    swept = set(re.findall(r"hydra\.sweep\.dir=\$\(DM_RUNS\)/(\w+)", main + "".join(map(recipe, parts))))
    assert claims.runs_root == "logs/claims/deltamomentum" and claims.command == "make claim-deltamomentum"
    assert {run for claim in claims.claims for run in claim.runs} == swept
    assert all(claim.threshold is not None for claim in claims.claims)
