"""`git_commit` keeps the commit when only the cleanliness check fails (a run's provenance is not lost to load)."""

import subprocess

import pytest

from reprolab import provenance


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
