"""PROTAC-8K fixtures: the real shared copy (skips where absent), a tiny synthetic CSV, a short pretraining run."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments.degradequery.data import load_protac8k
from reprolab.cli.train import run
from reprolab.config.compose import compose

SMILES = ["CCO", "CCN", "c1ccccc1O", "CC(=O)O", "CCCCN", "c1ccncc1"]


@pytest.fixture(scope="session")
def protac8k_dir(data_dir: Path) -> Path:
    if not (data_dir / "protac-8k" / "protac8k.csv").is_file():
        pytest.skip(f"{data_dir / 'protac-8k'} is absent (PROTAC-8K is not redistributed; see scripts/data/prepare_protac8k.py)")
    return data_dir


@pytest.fixture(scope="session")
def protac8k(protac8k_dir: Path):
    return load_protac8k(protac8k_dir)


def tiny_records() -> pd.DataFrame:
    """Six molecules x two targets x one E3, a few labelled (one duplicate pair, one conflicting pair)."""
    rows, rid = [], 0
    for i, smi in enumerate(SMILES):
        for t in ("BRD4_O60885", "BTK_Q06187"):
            label = -1 if (i + len(t)) % 3 else i % 2
            rows.append([rid, i, smi, *t.split("_"), "CRBN", "Q96SW2", label, "train" if label >= 0 else "unlabeled"])
            rid += 1
    rows.append([rid, 0, SMILES[0], "BRD4", "O60885", "CRBN", "Q96SW2", rows[0][7] if rows[0][7] >= 0 else 1, "train"])
    cols = ["id", "pro_comp_id", "smiles", "target_name", "target_uniprot", "e3_name", "e3_uniprot", "label", "split_seed111"]
    return pd.DataFrame(rows, columns=cols)


@pytest.fixture
def tiny_dir(tmp_path: Path) -> Path:
    (tmp_path / "protac-8k").mkdir()
    tiny_records().to_csv(tmp_path / "protac-8k" / "protac8k.csv", index=False)
    return tmp_path


@pytest.fixture(scope="session")
def pretrain_run(protac8k_dir, tmp_path_factory):
    """A short stage-1 run through reprolab-train (3 steps of 8 tuples, two test batches)."""
    out = tmp_path_factory.mktemp("pretrain")
    cfg = compose(["experiment=degradequery/pretrain", "logger=none", "print_config=false", "seed=3",
                   f"paths.data_dir={protac8k_dir}", "trainer.max_steps=3", "data.batch_size=8",
                   "+trainer.limit_test_batches=2", "trainer.enable_progress_bar=false"], output_dir=out)
    metrics = run(cfg)
    assert metrics["setting"] == "pretrain" and np.isfinite(metrics["test/loss"])
    return out
