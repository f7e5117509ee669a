"""Run `-c CODE` or `-m MODULE ARGS…` as `python` would, counting its `optimizer.step()` calls (torch's global step
hook); at exit the count is appended to the file named by $REPROLAB_STEP_COUNT.

    REPROLAB_STEP_COUNT=steps.txt python scripts/bench/step_count.py -m reprolab.cli.train -m experiment=…
"""

from __future__ import annotations

import atexit
import os
import runpy
import sys

from torch.optim.optimizer import register_optimizer_step_post_hook

steps = [0]


def _count(optimizer, args, kwargs) -> None:
    steps[0] += 1


def _write() -> None:
    with open(os.environ["REPROLAB_STEP_COUNT"], "a") as out:
        out.write(f"{steps[0]}\n")


def main() -> None:
    if len(sys.argv) < 3 or sys.argv[1] not in ("-c", "-m"):
        sys.exit("usage: step_count.py -c CODE | -m MODULE [ARGS…]")
    register_optimizer_step_post_hook(_count)
    atexit.register(_write)
    flag, target, rest = sys.argv[1], sys.argv[2], sys.argv[3:]
    if flag == "-c":
        sys.argv, sys.path[0] = ["-c", *rest], ""
        exec(compile(target, "<string>", "exec"), {"__name__": "__main__"})
    else:
        sys.argv, sys.path[0] = [target, *rest], os.getcwd()
        runpy.run_module(target, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
