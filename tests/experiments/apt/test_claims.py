"""experiments/apt/claims.yaml parses and its selectors name what the claim presets and `make claim-apt` sweep."""

from reprolab.claims.spec import load_claims
from tests.experiments.apt.claims_selectors import check_claims_match_presets


def test_apt_claims_match_the_presets(tmp_path):
    assert check_claims_match_presets("apt", tmp_path) == 12  # 2 optimizers x 3 problems x 2 arms


def test_apt_meta_claims_cover_every_problem_and_optimizer():
    claims = {c.id: c for c in load_claims("apt").claims}
    paired = [c for c in claims.values() if not c.is_meta]
    assert {c.treatment["optimizer"] for c in paired} == {"apt_adam", "apt_muon"}
    assert all(c.pair_by == ("seed", "task.weighting") and c.metric == "test/delta_m_own_stl" for c in paired)
    assert set(claims["apt_most_settings"].of) == {c.id for c in paired}
