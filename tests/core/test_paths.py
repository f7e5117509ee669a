"""Paths are anchored to the project root, and the data folder is resolved in one place (reprolab.config.paths)."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from pathlib import Path

from reprolab.config.compose import compose
from reprolab.config.paths import data_root, other_checkout_warning, project_root
from tests.core.cli import BIN, PYTHONPATH

REPO = Path(__file__).resolve().parents[2]


def make_project(tmp_path: Path, shared: bool) -> Path:
    root = tmp_path / "proj"
    (root / "conf").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    if shared:
        (tmp_path / "shared" / "data").mkdir(parents=True)
    return root


def test_root_is_this_checkout_from_any_working_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("REPROLAB_ROOT", raising=False)
    monkeypatch.chdir(tmp_path)
    assert project_root() == REPO
    monkeypatch.setenv("REPROLAB_ROOT", str(tmp_path))
    assert project_root() == tmp_path.resolve()


def test_data_root_order_env_then_sibling_shared_then_root_data(monkeypatch, tmp_path):
    monkeypatch.delenv("REPROLAB_DATA", raising=False)
    bare = make_project(tmp_path / "a", shared=False)
    assert data_root(bare) == bare / "data"
    with_shared = make_project(tmp_path / "b", shared=True)
    assert data_root(with_shared) == (tmp_path / "b" / "shared" / "data").resolve()
    monkeypatch.setenv("REPROLAB_DATA", "mine")   # relative: taken from the root, not the working folder
    assert data_root(with_shared) == with_shared / "mine"
    monkeypatch.setenv("REPROLAB_DATA", str(tmp_path / "abs"))
    assert data_root(with_shared) == tmp_path / "abs"


def test_config_paths_use_the_same_resolution(monkeypatch, tmp_path):
    monkeypatch.setenv("REPROLAB_DATA", str(tmp_path / "d"))
    monkeypatch.chdir(tmp_path)
    cfg = compose(["experiment=cifar10/small_sgd_cpu"], output_dir=tmp_path)
    assert cfg.paths.root_dir == str(REPO) and cfg.paths.log_dir == str(REPO / "logs")
    assert cfg.paths.data_dir == str(tmp_path / "d") and cfg.data.data_dir == str(tmp_path / "d" / "cifar10-jpeg-subset")


def test_presets_and_targets_never_hard_code_the_shared_folder():
    files = [*(REPO / "conf").rglob("*.yaml"), *(REPO / "experiments").glob("*/targets.mk"), REPO / "tests" / "conftest.py"]
    files.remove(REPO / "conf" / "paths" / "default.yaml")   # the one place that resolves it
    assert [p for p in files if "shared/data" in p.read_text() or "SHARED_DATA" in p.read_text()] == []


def run_from(folder: Path, *args: str, data: Path) -> tuple[int, str]:
    env = {"PYTHONPATH": PYTHONPATH, "OMP_NUM_THREADS": "1", "REPROLAB_DATA": str(data), "PATH": "/usr/bin:/bin",
           "HOME": str(Path.home()), "WANDB_MODE": "disabled"}
    proc = subprocess.run([str(BIN / "reprolab-train"), *args], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=600)
    return proc.returncode, proc.stderr


def test_python_m_reprolab_paths_prints_the_folders_and_nothing_on_stderr(tmp_path):
    env = {"PYTHONPATH": PYTHONPATH, "PATH": "/usr/bin:/bin", "REPROLAB_DATA": str(tmp_path)}
    data = subprocess.run([str(BIN / "python"), "-m", "reprolab.config.paths"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    root = subprocess.run([str(BIN / "python"), "-m", "reprolab.config.paths", "root"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert (data.returncode, data.stdout, data.stderr) == (0, f"{tmp_path}\n", "")
    assert (root.returncode, root.stdout, root.stderr) == (0, f"{REPO}\n", "")


def test_missing_data_from_a_subfolder_names_the_resolved_path_and_make_target(tmp_path):
    code, err = run_from(REPO / "experiments" / "degbins", "experiment=cifar10/small_sgd_cpu", "print_config=false",
                         f"hydra.run.dir={tmp_path / 'run'}", data=tmp_path / "empty")
    last = err.strip().splitlines()[-1]
    assert code == 2 and f"'{tmp_path / 'empty' / 'cifar10-jpeg-subset'}'" in last
    assert "make data-cifar10-jpeg-subset" in last and "Traceback" not in err


def test_run_from_a_subfolder_finds_data_and_logs_under_the_root(data_dir, cifar_folder):
    name = f"test-subfolder-{uuid.uuid4().hex[:8]}"
    folder = REPO / "experiments" / "degbins"
    before = set(folder.iterdir())
    try:
        code, err = run_from(folder, "experiment=cifar10/small_sgd_cpu", "debug=fdr", "logger=csv", f"name={name}",
                             "print_config=false", "data.batch_size=16", data=data_dir)
        assert code == 0, err[-2000:]
        runs = list((REPO / "logs" / "runs" / name).glob("*/metrics.json"))
        assert len(runs) == 1 and set(folder.iterdir()) == before   # nothing written in the working folder
    finally:
        shutil.rmtree(REPO / "logs" / "runs" / name, ignore_errors=True)


def test_a_run_from_inside_another_reprolab_checkout_warns_which_one_it_uses(monkeypatch, tmp_path):
    monkeypatch.delenv("REPROLAB_ROOT", raising=False)
    clone = make_project(tmp_path, shared=False)
    monkeypatch.chdir(clone / "conf")
    assert other_checkout_warning("reprolab-train") is None  # another Hydra project, not a reprolab checkout
    (clone / "pyproject.toml").write_text('[project]\nname = "reprolab"\n')
    assert other_checkout_warning("reprolab-train") == (
        f"warning: reprolab-train runs the reprolab of {REPO} (its code, conf/ and logs/), not of the checkout you "
        f"are in ({clone.resolve()}); run `pip install -e .` there, or set PYTHONPATH={clone.resolve()}/src:{clone.resolve()}")
    monkeypatch.setenv("REPROLAB_ROOT", str(clone))  # chosen on purpose
    assert other_checkout_warning("reprolab-train") is None
    monkeypatch.delenv("REPROLAB_ROOT")
    monkeypatch.chdir(REPO / "src")
    assert other_checkout_warning("reprolab-train") is None
