"""`make claim-degradequery` runs the sweeps of its claim-degradequery-* parts in one reprolab-train process, each
stage 1 before the sweeps that read it, then the tables and the verdicts (read from `make -n`)."""

from __future__ import annotations

import shlex
import subprocess

from reprolab.config.compose import REPO_ROOT
from reprolab.sweeps.chain import split_calls

TARGETS = (REPO_ROOT / "experiments" / "degradequery" / "targets.mk").read_text()
PARTS = ["official", "holdouts", "protocol", "refit", "search", "netgrid"]


def dry_run(target: str) -> list[list[str]]:
    out = subprocess.run(["make", "-n", "-s", "--no-print-directory", target, "VENV=.venv"], cwd=REPO_ROOT,
                         capture_output=True, text=True, check=True, timeout=60).stdout
    return [shlex.split(line) for line in out.replace("\\\n", " ").splitlines() if line.strip()]


def sweeps(commands: list[list[str]]) -> list[list[str]]:
    """Each `reprolab-train` call's arguments, in order; `--next` separates the calls of one process."""
    return [call for words in commands if any(w.endswith("reprolab-train") for w in words)
            for call in split_calls(words[[w.endswith("reprolab-train") for w in words].index(True) + 1:])]


def sweep_dir(call: list[str]) -> str:
    return next(w for w in call if w.startswith("hydra.sweep.dir=")).rsplit("/", 1)[1]


def test_claim_chains_the_sweeps_of_its_parts_in_one_process_each_stage_1_first():
    commands = dry_run("claim-degradequery")
    trains = [i for i, words in enumerate(commands) if any(w.endswith("reprolab-train") for w in words)]
    assert trains == [0]  # one process; make ignores its failure (`-`), so the tables and verdicts still run
    assert "claim-degradequery: ##" in TARGETS and TARGETS.split("claim-degradequery: ##")[1].split("\n")[1].startswith("\t-")
    assert [words[-1] for words in commands[1:]] == ["experiments/degradequery/RESULTS.md"] * 6 + ["degradequery"]
    chained = sweeps(commands)
    part_sweeps = [call for part in PARTS for call in sweeps(dry_run(f"claim-degradequery-{part}"))
                   if not (part == "refit" and sweep_dir(call) in ("pretrain", "official"))]  # -official, its prerequisite
    assert chained == part_sweeps
    order = [sweep_dir(call) for call in chained]
    assert order == ["pretrain", "official", "pretrain", "holdouts", "protocol", "pretrain_refit", "refit", "search",
                     "pretrain_grid", "netgrid"]
