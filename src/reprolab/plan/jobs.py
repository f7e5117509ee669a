"""Which `reprolab-train` jobs a `reproduce-*` target runs, read from `make -n`: each distinct preset, the
overrides it is measured with (the first value of each swept key) and how many runs the target makes of it."""

from __future__ import annotations

import math
import os
import re
import shlex
import subprocess
from pathlib import Path

from reprolab.config.compose import REPO_ROOT
from reprolab.sweeps.chain import split_calls

# Make variables a target needs from its user; the plan measures with a stand-in (10 of DFG's 100 algorithms unseen,
# 5 of them distractors) and says so.
UNSEEN = [f"unseen{i}" for i in range(10)]
STAND_IN_SPLIT = [f"data.unseen=[{','.join(UNSEEN)}]", f"data.distractors=[{','.join(UNSEEN[5:])}]",
                  "data.num_seen_algorithms=90"]
MAKE_VARS = {"reproduce-deepfakegenome-open_set": [f"DFG_SPLIT={' '.join(STAND_IN_SPLIT)}"]}
DROPPED = ("paths.", "hydra.", "hydra/", "logger", "data.download", "print_config", "++mean_runs")  # where and how jobs run, not what


def reproduce_targets(root: Path = REPO_ROOT) -> list[str]:
    text = "\n".join(p.read_text() for p in [root / "Makefile", *sorted(root.glob("experiments/*/targets.mk"))])
    names = re.findall(r"^(reproduce-[A-Za-z0-9_.-]+):", text, flags=re.M)
    return sorted(set(names) - {"reproduce-all"})


def sweep_values(value: str) -> list[str]:
    """`a,b,c` → three values; commas inside [...] or {...} do not split (Hydra's sweep grammar)."""
    parts, depth, current = [], 0, ""
    for ch in value:
        depth += (ch in "[{(") - (ch in "]})")
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    return [*parts, current]


def target_jobs(target: str, root: Path = REPO_ROOT) -> list[dict]:
    """Each distinct preset a target trains: the overrides it is measured with and how many runs it makes."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}  # under `make plan`
    dry = subprocess.run(["make", "-n", "-s", "--no-print-directory", target, *MAKE_VARS.get(target, [])], cwd=root, capture_output=True,
                         text=True, check=True, env=env).stdout.replace("\\\n", " ")
    jobs = []
    for line in dry.splitlines():
        words = shlex.split(line)
        while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):  # VAR=value before the command
            words = words[1:]
        if not words or not words[0].endswith("reprolab-train"):
            continue
        for call in split_calls(words[1:]):  # `reprolab-train -m A --next -m B`: each call on its own
            jobs += call_jobs(call)
    return jobs


def call_jobs(args: list[str]) -> list[dict]:
    """The jobs of one `reprolab-train` call's arguments."""
    overrides = [w for w in args if w != "-m" and "=" in w and not w.startswith(DROPPED)]
    values = {k: sweep_values(v) if "-m" in args else [v] for k, v in (w.split("=", 1) for w in overrides)}
    experiments, seeds = values.pop("experiment", []), len(values.pop("seed", ["0"]))
    runs = math.prod(len(v) for v in values.values()) * seeds
    fixed = [f"{k}={v[0]}" for k, v in values.items()]
    return [{"preset": e, "overrides": fixed, "runs": runs} for e in experiments]
