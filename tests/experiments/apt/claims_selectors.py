"""Check a paper's claims.yaml against its presets and its `claim-<paper>` target (used by APT and DegBins)."""

from __future__ import annotations

import re
from pathlib import Path

from omegaconf import OmegaConf

from reprolab.claims.spec import load_claims
from reprolab.config.compose import REPO_ROOT, compose


def arm_overrides(selectors: dict) -> list[str]:
    """Selectors as command-line overrides: `optimizer: apt_adam` → `optimizer=apt_adam`, None → null."""
    return [f"{key}={'null' if value is None else value}" for key, value in selectors.items()]


def check_claims_match_presets(paper: str, tmp_path: Path) -> int:
    """Every arm of every claim composes from its preset, each dotted selector and pair_by key is a config key
    with the selected value, and each runs folder is a sweep dir of the paper's targets.mk. Returns #arms."""
    claims = load_claims(paper)
    assert claims.paper == paper and claims.command.startswith("make claim-")
    targets = (REPO_ROOT / "experiments" / paper / "targets.mk").read_text()
    sweep_dirs = set(re.findall(rf"hydra\.sweep\.dir={re.escape(claims.runs_root)}/(\w+)", targets))
    checked = 0
    for claim in claims.claims:
        if claim.is_meta:
            continue
        assert set(claim.runs) <= sweep_dirs, f"{claim.id}: runs {claim.runs} not all swept by targets.mk"
        for arm in (claim.treatment, claim.baseline):
            selectors = {**claim.where, **arm}
            cfg = compose(arm_overrides(selectors), output_dir=tmp_path)
            for key, value in selectors.items():
                if "." in key:
                    assert OmegaConf.select(cfg, key) == value, f"{claim.id}: {key} is not {value!r}"
            for key in claim.pair_by:
                assert key == "seed" or OmegaConf.select(cfg, key) is not None, f"{claim.id}: no key {key}"
            checked += 1
    return checked
