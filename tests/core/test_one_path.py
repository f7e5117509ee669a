"""One path: training happens only in the shared trainer. No paper package computes gradients
itself (the MTL engine in src/reprolab/mtl/ is the one place beside Lightning's loop), and every
`claim-<paper>` target runs only the project's commands (issue 12, item 6)."""

from __future__ import annotations

import re
import subprocess

import pytest

from reprolab.config.compose import REPO_ROOT

EXPERIMENTS = REPO_ROOT / "experiments"
GRADIENT_CALLS = re.compile(r"\.backward\(|torch\.autograd\.grad\(|autograd\.grad\(")
# The trainer, the table, claims and tuning commands (reprolab-tune only hands a budget to the trainer), make itself, and a paper's analysis of finished runs
# (`python -m experiments.<paper>.<module>`: it cannot train, the gradient guard above sees to that).
PROJECT_COMMANDS = (".venv/bin/reprolab-train ", ".venv/bin/reprolab-table ", ".venv/bin/reprolab-claims ",
                    ".venv/bin/reprolab-tune ", "make ", ".venv/bin/python -m experiments.")
ENV_ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=\S*\s+")  # OMP_NUM_THREADS=1 and the like


def test_no_paper_package_computes_gradients_itself():
    offenders = [
        f"{path.relative_to(REPO_ROOT)}:{number}"
        for path in sorted(EXPERIMENTS.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if GRADIENT_CALLS.search(line.split("#", 1)[0])
    ]
    assert not offenders, f"training code outside the trainer (use a task module + reprolab-train): {offenders}"


def claim_targets() -> list[str]:
    names = set()
    for mk in EXPERIMENTS.glob("*/targets.mk"):
        names |= set(re.findall(r"^(claim-[A-Za-z0-9_.-]+):", mk.read_text(), re.M))
    return sorted(names)


def dry_run(target: str) -> list[str]:
    """The commands `make -n <target>` would run, make variables expanded, continued lines joined."""
    result = subprocess.run(["make", "-n", "--no-print-directory", target, "VENV=.venv", "PY=.venv/bin/python"],
                            cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return [line.strip() for line in result.stdout.replace("\\\n", " ").splitlines() if line.strip()]


def test_every_paper_with_claims_has_a_claim_target():
    papers = sorted(p.parent.name for p in EXPERIMENTS.glob("*/claims.yaml"))
    assert papers, "no paper declares claims"
    assert [p for p in papers if f"claim-{p}" not in claim_targets()] == []


@pytest.mark.parametrize("target", claim_targets())
def test_claim_targets_call_only_the_projects_commands(target):
    for line in dry_run(target):
        command = line.lstrip("-@")
        while ENV_ASSIGNMENT.match(command):
            command = ENV_ASSIGNMENT.sub("", command, count=1)
        assert command.startswith(PROJECT_COMMANDS), f"{target} runs '{line[:120]}', not one of the project's commands"
