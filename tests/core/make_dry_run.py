"""The console-script calls a make target would run, read with `make -n` so make variables expand as make does."""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def script_calls(target: str, script: str, *make_vars: str) -> list[list[str]]:
    """The argument lists of every `.venv/bin/<script>` call of `make -n <target>` (none if no such target)."""
    result = subprocess.run(["make", "-n", "--no-print-directory", target, "VENV=.venv", *make_vars], cwd=REPO,
                            capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        return []
    calls = []
    for line in result.stdout.replace("\\\n", " ").splitlines():
        if f"bin/{script}" not in line:
            continue
        words = shlex.split(line.strip().lstrip("-@"))
        calls += [words[i + 1:] for i, word in enumerate(words) if word.endswith(f"bin/{script}")][:1]
    return calls
