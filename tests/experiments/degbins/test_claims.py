"""experiments/degbins/claims.yaml parses and its selectors name what the claim presets and targets sweep."""

from reprolab.claims.spec import load_claims
from tests.experiments.apt.claims_selectors import check_claims_match_presets


def test_degbins_claims_match_the_presets(tmp_path):
    assert check_claims_match_presets("degbins", tmp_path) == 2 * (6 + 3 + 2 + 1)


def test_degbins_main_meta_claim_needs_every_scale_and_set():
    claims = {c.id: c for c in load_claims("degbins").claims}
    meta = claims["bins_beat_regression_everywhere"]
    assert meta.at_least == len(meta.of) == 6
    assert {claims[i].where["data.scale"] for i in meta.of} == {4, 8, 16}
