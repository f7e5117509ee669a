"""Every makefile the top-level Makefile includes shares one variable namespace: a name that two papers' targets.mk
both assign is silently taken from the one included last. That sent `make claim-deeparrhythmia` off with
Delta-Adapter's arms (both used `DA_ARMS`); each variable is now assigned in one file only."""

import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENT = re.compile(r"^(?:override\s+|export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*(?::{1,3}=|\?=|\+=|!=|=)")


def assigned_names(makefile: Path) -> set[str]:
    """The variables a makefile assigns at top level (recipe lines start with a tab and are left out)."""
    return {m.group(1) for line in makefile.read_text().splitlines() if (m := ASSIGNMENT.match(line))}


def included_makefiles() -> list[Path]:
    return [ROOT / "Makefile", ROOT / "data.mk", ROOT / "plan.mk", *sorted(ROOT.glob("experiments/*/targets.mk"))]


def test_the_pattern_reads_every_assignment_form(tmp_path):
    mk = tmp_path / "x.mk"
    mk.write_text("A := 1\nB ?= 2\nC = 3\nD += 4\noverride E := 5\nx: A\n\tF := not a variable here\n")
    assert assigned_names(mk) == {"A", "B", "C", "D", "E"}


def test_no_variable_is_assigned_in_two_included_makefiles():
    owners = defaultdict(list)
    for makefile in included_makefiles():
        for name in assigned_names(makefile):
            owners[name].append(str(makefile.relative_to(ROOT)))
    shared = {name: files for name, files in owners.items() if len(files) > 1}
    assert not shared, f"make variables assigned in more than one file (the last include wins): {shared}; " \
                       f"give each paper's variables its own prefix"
