"""The claim runner end to end with tiny budgets (slow): every model, a holdout split, few-shot, the report."""

import pytest

from experiments.degradequery.claim import MODELS, ClaimConfig, run_claim, save, smoke_config


@pytest.mark.slow
def test_claim_pipeline_smoke(protac8k_dir, tmp_path, monkeypatch):
    cfg = smoke_config(ClaimConfig(seeds=(0,), splits=("official", "target_e3")))
    result = run_claim(protac8k_dir, cfg, few_shot=True, out=tmp_path / "official")
    res = result["results"]
    assert set(res.model) == set(MODELS) and set(res.split) == {"official", "target_e3"}
    official = res[(res.split == "official") & (res.subset == "all")]
    assert (official.n == 301).all() and official.auroc.between(0, 1).all()
    assert set(result["fewshot"].shots_per_class) == {0, cfg.shots}
    save(result, tmp_path / "official")
    from experiments.degradequery import report

    monkeypatch.setattr(report, "FIGURE", tmp_path / "figure.png")
    text = report.report(tmp_path)
    assert "official split" in text and (tmp_path / "figure.png").is_file()
