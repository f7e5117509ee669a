"""The claim check's presets each train a batch and score their protocols through reprolab-train on a small zoo;
claims.yaml parses and names only presets and sweep folders that `make claim-deepfakegenome` makes."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from experiments.deepfakegenome.task import DeepfakeTask, score_attribution
from reprolab.claims.spec import load_claims
from reprolab.cli.errors import ConfigError
from reprolab.cli.train import run
from reprolab.config.compose import CONF_DIR, REPO_ROOT, compose

TARGETS = (REPO_ROOT / "experiments" / "deepfakegenome" / "targets.mk").read_text()
FAMILIES = ("entire_face_synthesis", "face_editing", "face_reenactment", "face_swap", "text_to_image")


def small_zoo_overrides(preset: str, data_dir) -> list[str]:
    return [f"experiment=deepfakegenome/{preset}", f"paths.data_dir={data_dir}", f"data.zoo_dir={data_dir}/forgery_zoo",
            "logger=none", "print_config=false", "trainer.max_epochs=1", "+trainer.limit_train_batches=1",
            "+trainer.limit_val_batches=1", "trainer.enable_progress_bar=false", "data.zoo.photos_dir=null",
            "data.zoo.num_algorithms=10", "data.zoo.seed=3", "data.zoo.per_algorithm={train: 6, val: 2, test: 8}",
            "data.unseen=[fsw01,fre01]", "data.distractors=[fre01]", "data.num_seen_algorithms=8",
            "data.batch_size=16", "task.registry_pool=4", "task.registry_k=[1,2]"]


@pytest.mark.parametrize("preset, expected", [
    ("zoo_binary_cpu", {"test/seen/auc", "test/unseen/eer"} | {f"test/family/{f}/auc" for f in FAMILIES}),
    ("zoo_binary_fft_cpu", {"test/seen/auc", "test/unseen/auc"}),
    ("zoo_attribution_cpu", {"test/closed/acc", "test/open/oscr", "test/open/cluster_nmi", "test/retrieval_k2/map"}),
    ("zoo_attribution_fft_cpu", {"test/closed/family_acc", "test/open/auroc", "test/retrieval_k1/rank1"}),
])
def test_claim_preset_runs_one_batch_through_the_trainer(preset, expected, zoo_data_dir, tmp_path):
    metrics = run(compose(small_zoo_overrides(preset, zoo_data_dir), output_dir=tmp_path))
    assert expected <= set(metrics), sorted(metrics)


def test_oscr_convention_is_a_task_key():
    # 4 knowns ranked above 2 unknowns by max-softmax, the most confident one misattributed (3 of 4 correct)
    logits = torch.tensor([[5.0, 0.0], [0.0, 4.0], [3.0, 0.0], [0.0, 2.0], [0.0, 0.0], [0.1, 0.0]])
    outputs = {"logits": logits, "embeddings": torch.eye(6, 2), "label": torch.tensor([1, 1, 0, 1, -1, -1]),
               "algorithm": torch.tensor([1, 1, 0, 1, 5, 5])}
    split = SimpleNamespace(unseen=[5])
    assert score_attribution(outputs, split, which=("open_set",))["open/oscr"] == pytest.approx(0.75)
    assert score_attribution(outputs, split, which=("open_set",), oscr="arpl")["open/oscr"] == pytest.approx(0.6875)
    with pytest.raises(ConfigError, match="task.oscr"):
        DeepfakeTask(torch.nn.Linear(2, 2), optimizer=None, protocol="open_set", oscr="roc")


def test_claims_file_names_existing_presets_and_the_claim_sweeps():
    claims = load_claims("deepfakegenome")
    assert claims.paper == "deepfakegenome" and claims.command == "make claim-deepfakegenome"
    for claim in claims.claims:
        if claim.is_meta:
            continue
        for run_folder in claim.runs:
            assert f"hydra.sweep.dir=$(DFG_RUNS)/{run_folder}" in TARGETS, run_folder
        experiment = claim.treatment["experiment"]
        assert (CONF_DIR / "experiment" / f"{experiment}.yaml").is_file() and experiment in TARGETS
