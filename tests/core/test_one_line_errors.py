"""`reprolab.cli.one_line_errors`: a data script's failure is one `error:` line and an exit code, never a traceback."""

from __future__ import annotations

from urllib.error import URLError

import pytest

from reprolab.cli.errors import DatasetNotFoundError, NonFiniteLossError
from reprolab.cli.one_line_errors import one_line_errors


@pytest.mark.parametrize(("raised", "line", "code"), [
    (URLError("[Errno -2] Name or service not known"), "error: X download failed (<urlopen error [Errno -2] Name or "
     "service not known>); without network, copy the folder from a machine that has it", 2),
    (RuntimeError("File not found or corrupted.\n  MD5 mismatch"), "error: X download failed (File not found or "
     "corrupted. MD5 mismatch); without network, copy the folder from a machine that has it", 2),
    (DatasetNotFoundError("no QM9 under 'd'; run make data-apt-qm9"), "error: no QM9 under 'd'; run make data-apt-qm9", 2),
    (NonFiniteLossError("loss is nan"), "error: loss is nan", 3),
])
def test_each_failure_is_one_line_with_its_exit_code(capsys, raised, line, code):
    with pytest.raises(SystemExit) as stop, one_line_errors("X download"):
        raise raised
    assert stop.value.code == code and capsys.readouterr().err == line + "\n"


def test_a_bug_is_not_hidden():
    with pytest.raises(KeyError), one_line_errors("X download"):
        raise KeyError("a bug")
