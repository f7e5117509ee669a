"""reprolab-dashboard offline: the workspace spec file holds the spec's panels, and every metric a
panel names is one the paper's task really logs (checked on one short real run per distinct `check_with`:
a section's own, else the spec's)."""

from __future__ import annotations

import json
import re

import pytest

from reprolab.cli import dashboard
from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.cli.train import run
from reprolab.config.compose import compose
from reprolab.dashboards.spec import (
    available,
    check_runs,
    config_keys,
    load_spec,
    metric_keys,
    metric_regexes,
)
from reprolab.results.runs import flatten

PAPERS = available()
# One short real run per paper; cifar10's in the default suite, the others with the slow tests.
RUN_CHECKS = [p if p == "cifar10" else pytest.param(p, marks=pytest.mark.slow) for p in PAPERS]
TINY = ["trainer.max_epochs=1", "++trainer.limit_train_batches=2", "++trainer.limit_val_batches=1",
        "++trainer.limit_test_batches=1", "trainer.log_every_n_steps=1", "trainer.enable_progress_bar=false",
        "trainer.enable_model_summary=false", "logger=csv", "print_config=false"]


def _key(override: str) -> str:
    return override.lstrip("+~").split("=", 1)[0]


def tiny(check_with: list[str]) -> list[str]:
    """`check_with` on TINY's short run; a key check_with sets itself (e.g. a protocol that needs the
    whole test set: `+trainer.limit_test_batches=1.0`) replaces TINY's."""
    own = {_key(o) for o in check_with}
    return [*(o for o in TINY if _key(o) not in own), *check_with]


def test_cifar10_has_a_dashboard():
    assert "cifar10" in PAPERS


@pytest.mark.parametrize("paper", PAPERS)
def test_offline_spec_file_holds_every_panel(paper, tmp_path):
    out = tmp_path / f"{paper}.json"
    assert dashboard.main([paper, "--out", str(out)]) == 0
    written = json.loads(out.read_text())
    spec = load_spec(paper)
    sections = written["workspace"]["spec"]["section"]["panelBankConfig"]["sections"]
    assert [s["name"] for s in sections] == [s["name"] for s in spec["sections"]]
    for section, spec_section in zip(sections, spec["sections"], strict=True):
        assert [p["config"]["chartTitle"] for p in section["panels"]] == [p["title"] for p in spec_section["panels"]]
    plotted = json.dumps(sections)
    assert all(f'"{key}"' in plotted for key in metric_keys(spec))
    assert all(json.dumps(regex) in plotted for regex in metric_regexes(spec))
    run_set = written["workspace"]["spec"]["section"]["runSets"][0]
    assert {f["key"]["name"]: f["value"] for f in run_set["filters"]["filters"]} == spec["runs"]["filters"]


@pytest.mark.parametrize("paper", RUN_CHECKS)
def test_panels_name_metrics_the_task_logs(paper, tmp_path, data_dir, monkeypatch):
    monkeypatch.setenv("REPROLAB_DATA", str(data_dir))
    for i, (check_with, checked) in enumerate(check_runs(load_spec(paper))):
        where = f"{paper} dashboard, sections {[s['name'] for s in checked['sections']]} ({' '.join(check_with)})"
        out = tmp_path / str(i)
        cfg = compose(tiny(check_with), output_dir=out)
        missing_config = {k for k in config_keys(checked) if k not in flatten(cfg) and k not in cfg}
        assert not missing_config, f"{where} filters/groups/plots by absent config keys {missing_config}"
        try:
            metrics = run(cfg)
        except DatasetNotFoundError as err:
            pytest.skip(f"{paper}: {err}")
        header = next(out.rglob("metrics.csv")).read_text().splitlines()[0].split(",")
        logged = set(header) | set(metrics)
        assert metric_keys(checked) <= logged, f"{where} names unlogged metrics {metric_keys(checked) - logged}"
        unmatched = {r for r in metric_regexes(checked) if not any(re.search(r, k) for k in logged)}
        assert not unmatched, f"{where} has metric_regex matching no logged metric: {unmatched}"


def test_sections_are_checked_with_their_own_overrides(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text("paper: x\ntitle: x\ncheck_with: [experiment=a]\nsections:\n"
                    "  - {name: one, panels: []}\n  - {name: two, check_with: [experiment=b], panels: []}\n"
                    "  - {name: three, panels: []}\n")
    runs = [(overrides, [s["name"] for s in sub["sections"]]) for overrides, sub in check_runs(load_spec("x", spec))]
    assert runs == [(["experiment=a"], ["one", "three"]), (["experiment=b"], ["two"])]
    spec.write_text("paper: x\ntitle: x\nsections: [{name: a, check_with: experiment=b, panels: []}]\n")
    with pytest.raises(ConfigError, match="section 'a' check_with must be a list of override strings") as err:
        load_spec("x", spec)
    assert "\n" not in str(err.value)
    spec.write_text("paper: x\ntitle: x\nsections: [{name: a, check_with: [1, 2], panels: []}]\n")
    with pytest.raises(ConfigError, match="must be a list of override strings"):
        load_spec("x", spec)
    spec.write_text("paper: x\ntitle: x\nsections: [{name: a, panels: []}]\n")
    with pytest.raises(ConfigError, match="section 'a' has no check_with"):
        check_runs(load_spec("x", spec))
    spec.write_text("paper: x\ntitle: x\nsections: [{name: a, panels: [{type: line, title: p, metric_regex: '('}]}]\n")
    with pytest.raises(ConfigError, match="panel 'p' metric_regex '\\(' is not a regular expression"):
        load_spec("x", spec)
    assert tiny(["experiment=a", "+trainer.limit_test_batches=1.0"])[-1] == "+trainer.limit_test_batches=1.0"
    assert "+trainer.limit_test_batches=1" not in tiny(["+trainer.limit_test_batches=1.0"])


def test_unknown_paper_and_bad_panel_are_one_line_errors(tmp_path, capsys):
    assert dashboard.main(["nopaper"]) == 2
    assert "no dashboard spec" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("paper: x\ntitle: x\nsections: [{name: a, panels: [{type: pie, title: p}]}]\n")
    with pytest.raises(ConfigError, match="type 'pie'; use one of line, bar, scalar, scatter"):
        load_spec("x", bad)
    emoji = tmp_path / "emoji.yaml"
    emoji.write_text("paper: x\ntitle: a + b\nsections: []\n")
    assert dashboard.main(["x", "--spec", str(emoji), "--out", str(tmp_path / "o.json")]) == 2
    assert "is not a valid workspace" in capsys.readouterr().err


def test_online_needs_an_entity(monkeypatch, capsys):
    monkeypatch.delenv("WANDB_ENTITY", raising=False)
    assert dashboard.main(["cifar10", "--online"]) == 2
    assert "--online needs a W&B entity" in capsys.readouterr().err
