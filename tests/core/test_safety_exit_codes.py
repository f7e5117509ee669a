"""Hydra-level config errors exit 2, unexpected errors exit 1, each as one line; the config is checked first."""

from __future__ import annotations

import pytest

from reprolab.cli import train
from tests.core.cli import run_cli


def one_error_line(result):
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr[-2000:]
    return lines[0]


@pytest.mark.parametrize(("override", "says"), [("optimizer.lrr=0.1", "'optimizer.lrr' is not a key of 'optimizer'; did you mean optimizer.lr?"),
                                                ("model=no_such_model", "Could not find 'model/no_such_model'"),
                                                ("optimizer.lr=${nope}", "Interpolation key 'nope' not found")])
def test_config_errors_exit_2_before_the_tree_is_printed(tmp_path, override, says):
    result = run_cli("reprolab-train", f"hydra.run.dir={tmp_path}", override, env={"HYDRA_FULL_ERROR": None})
    assert result.returncode == 2
    assert says in one_error_line(result)
    assert result.stdout.strip() == ""  # no config tree before the error


def test_unexpected_error_exits_1_with_one_line(monkeypatch, capsys):
    def broken():
        raise RuntimeError("boom\nsecond line")

    monkeypatch.delenv("HYDRA_FULL_ERROR", raising=False)
    monkeypatch.setattr(train, "hydra_main", broken)
    monkeypatch.setattr("sys.argv", ["reprolab-train"])  # not pytest's own options
    with pytest.raises(SystemExit) as caught:
        train.main()
    assert caught.value.code == 1
    err = capsys.readouterr().err.strip()
    assert err == "error: unexpected RuntimeError: boom; rerun with HYDRA_FULL_ERROR=1 for the traceback"


def test_a_ddp_rank_inheriting_our_hydra_full_error_still_gives_one_line(monkeypatch, capsys):
    """A rank Lightning starts inherits the HYDRA_FULL_ERROR=1 the launching run set for itself: that is not
    the user asking for tracebacks. One the user set still shows the traceback."""
    def broken():
        raise RuntimeError("boom")

    monkeypatch.setattr(train, "hydra_main", broken)
    monkeypatch.setattr("sys.argv", ["reprolab-train"])  # not pytest's own options
    monkeypatch.setenv("HYDRA_FULL_ERROR", "1")
    monkeypatch.setenv("REPROLAB_SET_HYDRA_FULL_ERROR", "1")
    with pytest.raises(SystemExit) as caught:
        train.main()
    assert caught.value.code == 1 and capsys.readouterr().err.startswith("error: unexpected RuntimeError: boom")
    monkeypatch.setenv("HYDRA_FULL_ERROR", "1")
    monkeypatch.delenv("REPROLAB_SET_HYDRA_FULL_ERROR", raising=False)
    with pytest.raises(RuntimeError, match="boom"):
        train.main()


def test_the_installed_console_script_itself_exits_2_with_one_line(tmp_path):
    """The other CLI tests fork the test worker (tests/core/cli.py); this one starts the installed entry point."""
    result = run_cli("reprolab-train", f"hydra.run.dir={tmp_path}", "optimizer.lrr=0.1", env={"HYDRA_FULL_ERROR": None},
                     fresh=True)
    assert result.returncode == 2
    assert "did you mean optimizer.lr?" in one_error_line(result)
