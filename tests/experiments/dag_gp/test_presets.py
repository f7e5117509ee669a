"""One batch of every dag_gp preset through the trainer; error paths give one line."""

from __future__ import annotations

import pytest

from reprolab.cli.errors import DatasetNotFoundError
from reprolab.cli.train import run
from reprolab.config.compose import CONF_DIR, compose
from reprolab.config.paths import data_root

PRESETS = sorted(p.stem for p in (CONF_DIR / "experiment" / "dag_gp").glob("*.yaml"))
SHARED = data_root()   # as paths.data_dir resolves it
SMALL = {"collider": ["data.n_train=20", "data.n_val=10", "data.n_test=10", "data.batch_size=10"],
         "forrester": ["data.n_low=8", "data.n_high=3", "data.n_val=5", "data.n_test=5"],
         "sachs": ["data.n_train=40", "data.n_val=20", "data.n_test=20", "data.batch_size=20", f"paths.data_dir={SHARED}"],
         "chain": ["data.n_points=10", "task.n_draws=5"]}


@pytest.mark.parametrize("name", PRESETS)
def test_preset_one_batch(name, tmp_path):
    problem = name.split("_")[0]
    if problem == "sachs" and not (SHARED / "sachs" / "cyto_full_data.csv").is_file():
        pytest.skip(f"Sachs data not under {SHARED}/sachs (make data-sachs)")
    fit = [] if problem == "chain" else ["debug=limit", "trainer.max_epochs=1", "trainer.limit_train_batches=1",
                                         "trainer.check_val_every_n_epoch=1", "task.test_samples=4", "model.num_inducing=4"]
    cfg = compose([f"experiment=dag_gp/{name}", "device=cpu", "logger=none", "print_config=false", *fit, *SMALL[problem]],
                  output_dir=tmp_path)
    metrics = run(cfg)
    key = "test/survive_final" if problem == "chain" else "test/nll"
    assert metrics["paper"] == "dag_gp" and metrics[key] == metrics[key]   # present and not NaN


@pytest.mark.parametrize("model", ["dag_gp_sachs_single", "dag_gp_sachs_layered", "dag_gp_forrester_single",
                                   "dag_gp_forrester_layered"])
def test_baselines_compose_and_build(model):
    from hydra.utils import instantiate
    preset = "sachs_cpu" if "sachs" in model else "forrester_cpu"
    cfg = compose([f"experiment=dag_gp/{preset}", f"model={model}"])
    built = instantiate(cfg.model)
    assert set(built.observed) <= set(built.order)


def test_missing_sachs_file_and_bad_target_are_one_line(tmp_path):
    from hydra.utils import instantiate
    cfg = compose(["experiment=dag_gp/sachs_cpu", f"paths.data_dir={tmp_path}"])
    with pytest.raises(DatasetNotFoundError, match="cyto_full_data.csv not found"):
        instantiate(cfg.data).setup()
    cfg = compose(["experiment=dag_gp/collider_cpu", "task.target_nodes=[z]"])
    with pytest.raises(Exception, match="not observed nodes"):
        instantiate(cfg.task, model=instantiate(cfg.model), optimizer=None)
    with pytest.raises(Exception, match=r"data.n_high must be in \[2, n_low=30\]; got 50"):
        instantiate(compose(["experiment=dag_gp/forrester_cpu", "data.n_high=50"]).data)
