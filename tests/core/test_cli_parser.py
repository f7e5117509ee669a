"""A wrong flag of reprolab-table, -dashboard or -claims is one `error:` line and exit 2, not argparse's usage block."""

from __future__ import annotations

import pytest

from reprolab.cli import claims as claims_cli
from reprolab.cli import dashboard, table


@pytest.mark.parametrize(("main", "prog"), [(table.main, "reprolab-table"), (dashboard.main, "reprolab-dashboard"),
                                            (claims_cli.main, "reprolab-claims")])
def test_a_wrong_flag_is_one_error_line(main, prog, capsys):
    with pytest.raises(SystemExit) as caught:
        main(["--no-such-flag"])
    assert caught.value.code == 2
    out = capsys.readouterr()
    assert out.err == f"error: unrecognized arguments: --no-such-flag; see `{prog} --help`\n" and "usage" not in out.out
