"""`python -m reprolab.sweeps.rehash` rewrites a finished run's config_hash from the config it ran, so a rerun sweep from
another checkout, or after the hash rule changed, skips it; a masked saved config is left alone."""

from __future__ import annotations

from omegaconf import OmegaConf

from reprolab.sweeps.callback import HASH_FILE, config_hash, decide_job
from reprolab.sweeps.rehash import main, rehash
from tests.core.sweeps.test_resume import job_at

SAVED = """
optimizer: {lr: 0.1}
seed: 0
pretrain_run: ${paths.log_dir}/pre/0
paths: {root_dir: ., log_dir: "${paths.root_dir}/logs", output_dir: "${hydra:runtime.output_dir}"}
callbacks:
  last_checkpoint: {dirpath: "${paths.output_dir}/checkpoints", write_interval_s: 300}
  lost_rank: {}
"""


def run_folder(root, name="0", saved=SAVED):
    run = root / "sweep" / name
    (run / ".hydra").mkdir(parents=True)
    (run / ".hydra" / "config.yaml").write_text(saved)
    (run / ".hydra" / "hydra.yaml").write_text(f"hydra:\n  runtime:\n    output_dir: ./logs/sweep/{name}\n")
    (run / "metrics.json").write_text("{}")
    (run / HASH_FILE).write_text("written-by-another-checkout\n")
    return run


def test_rehash_makes_a_run_from_another_checkout_skip_here(tmp_path):
    run = run_folder(tmp_path)
    here = job_at("/new/place")  # the same job, its checkout elsewhere, other operational callbacks
    assert decide_job(here, tmp_path / "copy") == ("started", None)  # a control: a folder with no hash starts
    assert rehash(run) == "rewritten" and rehash(run) == "unchanged"
    assert (run / HASH_FILE).read_text().strip() == config_hash(here)
    assert decide_job(here, run) == ("skipped", run / "metrics.json")
    OmegaConf.update(here, "optimizer.lr", 0.2)
    assert decide_job(here, run) == ("started", None)


def test_a_masked_or_missing_saved_config_is_left_alone_and_replaced_folders_are_not_searched(tmp_path, capsys):
    masked = run_folder(tmp_path, "1", SAVED.replace("seed: 0", "seed: 0\nhf_token: '***'"))
    bare = run_folder(tmp_path, "2")
    (bare / ".hydra" / "config.yaml").unlink()
    aside = run_folder(tmp_path / "sweep" / "0", "replaced-abc")
    assert main([str(tmp_path)]) == 0
    assert capsys.readouterr().out.strip() == "1 masked, 1 no saved config"
    for run in (masked, bare, aside):
        assert (run / HASH_FILE).read_text() == "written-by-another-checkout\n"


def test_rehash_of_a_missing_folder_says_so(tmp_path, capsys):
    assert main([str(tmp_path / "nope")]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_a_key_added_since_is_assumed_only_where_the_saved_config_lacks_it(tmp_path, capsys):
    run, other = run_folder(tmp_path), run_folder(tmp_path, "1", SAVED.replace("seed: 0", "seed: 0\nmodel: {head: x}"))
    here = job_at("/new/place")
    here.model = {"head": "bins"}
    assert main([str(run), "--assume", "model.head=bins"]) == 0
    assert decide_job(here, run) == ("skipped", run / "metrics.json")  # the old run gets the key's old behaviour
    main([str(other), "--assume", "model.head=bins"])
    assert decide_job(here, other) == ("started", None)  # a saved value is never replaced
    assert main([str(run), "--assume", "model.head"]) == 2
    assert "--assume takes KEY=VALUE" in capsys.readouterr().err
