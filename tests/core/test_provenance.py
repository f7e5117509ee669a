"""`git_commit` keeps the commit when only the cleanliness check fails (a run's provenance is not lost to load)."""

import subprocess

import pytest

from reprolab.run import provenance


@pytest.fixture(autouse=True)
def fresh_cache():
    provenance.git_commit.cache_clear()
    yield
    provenance.git_commit.cache_clear()


def fake_git(status):
    def run(args, **kwargs):
        if args[1] == "rev-parse":
            return subprocess.CompletedProcess(args, 0, stdout="abc123\n", stderr="")
        return status(args)
    return run


def test_a_timed_out_status_keeps_the_commit(monkeypatch):
    def timeout(args):
        raise subprocess.TimeoutExpired(args, 60)
    monkeypatch.setattr(provenance.subprocess, "run", fake_git(timeout))
    assert provenance.git_commit() == "abc123+unchecked"


@pytest.mark.parametrize("porcelain, expected", [("", "abc123"), (" M src/x.py\n", "abc123+dirty")])
def test_clean_and_dirty(monkeypatch, porcelain, expected):
    monkeypatch.setattr(provenance.subprocess, "run",
                        fake_git(lambda args: subprocess.CompletedProcess(args, 0, stdout=porcelain, stderr="")))
    assert provenance.git_commit() == expected


def test_outside_a_checkout_is_none(monkeypatch):
    monkeypatch.setattr(provenance.subprocess, "run",
                        lambda args, **kw: subprocess.CompletedProcess(args, 128, stdout="", stderr="not a git repo"))
    assert provenance.git_commit() is None


def git(repo, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, check=True,
                   capture_output=True)


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A real git checkout with code, configs and the reports the claim and plan commands rewrite."""
    files = ["src/a.py", "conf/b.yaml", "experiments/p/model.py", "README.md", "REPRODUCTIONS.md", "plan.json",
             "experiments/p/RESULTS.md", "experiments/p/results/claims.json", "experiments/p/figures/c.png"]
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("0\n")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "c")
    monkeypatch.setattr(provenance, "REPO_ROOT", tmp_path)
    return tmp_path


@pytest.mark.parametrize("edited, dirty", [
    ([], False),
    (["REPRODUCTIONS.md", "plan.json", "experiments/p/RESULTS.md", "experiments/p/results/claims.json",
      "experiments/p/figures/c.png", "README.md"], False),  # what `make claim-<paper>` / `make plan` rewrite
    (["src/a.py"], True), (["conf/b.yaml"], True), (["experiments/p/model.py"], True),
    (["experiments/p/RESULTS.md", "experiments/p/model.py"], True),
])
def test_reports_do_not_make_a_run_dirty(checkout, edited, dirty):
    for name in edited:
        (checkout / name).write_text("1\n")
    commit = provenance.git_commit()
    assert len(commit.split("+")[0]) == 40 and commit.endswith("+dirty") == dirty
