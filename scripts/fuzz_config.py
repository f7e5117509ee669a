"""Config fuzzing (issue 46): every override a user can type ends in a run (exit 0) or in exactly one `error:` line
(exit 2, 3 or 4) naming the key(s) and what to do; never a traceback, never exit 1.

    python scripts/fuzz_config.py --n 500 --seed 0 --jobs 2        # `make fuzz-config N=500 SEED=0`

For a fixed seed it draws cases from the composed config of every CPU preset (those whose device group is `cpu`):
a numeric key set to text, zero, a negative, a huge value, a fraction where an integer stood and the reverse, null;
a misspelt key added with `+`; a misspelt group option; two keys that constrain each other (limits vs intervals,
batch size vs dataset size, accumulation vs steps, no validation vs the monitor); a swapped data group. Each case
is one `reprolab-train` command in its own temporary folder, under `debug=fdr`, or, where a trainer or callback key
is drawn (fast_dev_run would override it), capped at two steps and two val/test batches instead.

Each case runs as a child process forked from one interpreter that has already imported what `reprolab-train`
imports (torch, Lightning, the presets' `_target_` modules): the child calls the console script's `main()` with the
case's argv, its own working folder, stdout, stderr and exit status, under a memory limit and a timeout. That saves
the ~10 s of imports a fresh process pays on this machine; `--fresh` runs every case as a real `reprolab-train`
subprocess instead (tests/core/test_fuzz_config.py holds both equal on a few cases). It prints the counts by outcome
and, for every failure, the command line to paste into tests/core/test_bad_input_table.py.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import resource
import shutil
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import asdict
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO_ROOT / "src"), str(REPO_ROOT)]  # this checkout's code, also in the forked cases
BIN = Path(sys.executable).parent
sys.path.insert(0, str(Path(__file__).parent))  # fuzz_cases beside this file, also when loaded by path (tests)

from fuzz_cases import CACHE, GROUPS, KINDS, Case, Preset, draw_cases, survey  # noqa: E402, F401 - KINDS: for tests

MEMORY_LIMIT = 6 * 2**30  # bytes of address space a case may take: a huge width fails to allocate, it does not swap
CPU_LIMIT = 120  # CPU seconds a case may take (SIGXCPU then); wall time on a shared machine says little


# ---------------------------------------------------------------- running cases

def child_env(workdir: Path) -> dict[str, str]:
    """The cases' environment: one thread, W&B off, generated data (featurised molecules, the forgery zoo) in a
    cache of the fuzzer's own, kept between runs, so a fuzzed size never rebuilds the one real runs use."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT / "src"), str(REPO_ROOT)]),
           "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "WANDB_MODE": "disabled",
           "REPROLAB_CACHE": str(CACHE / "data")}
    env.pop("HYDRA_FULL_ERROR", None)
    return env


def limit_resources() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT, CPU_LIMIT + 5))


def run_forked(main, argv: list[str], folder: Path) -> int:
    """Fork; the child runs `main()` as the console script would (its argv, working folder, stdout/stderr
    files, exit status, uncaught errors printed with their traceback and exit 1). Returns the child's pid."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        os.setpgid(0, 0)
        os.chdir(folder)
        for fd, name in ((1, "stdout"), (2, "stderr")):
            out = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(out, fd)
            os.close(out)
        limit_resources()
        sys.argv = ["reprolab-train", *argv]
        try:
            main()
            code = 0
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
            if not isinstance(stop.code, int | None):
                print(stop.code, file=sys.stderr)
        except BaseException:  # noqa: BLE001 - what the interpreter does with an uncaught error
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def run_fresh(argv: list[str], folder: Path, env: dict) -> int:
    """The reference path: a real `reprolab-train` process. Returns its pid (reaped by run_cases)."""
    import subprocess

    with open(folder / "stdout", "wb") as out, open(folder / "stderr", "wb") as err:
        proc = subprocess.Popen([str(BIN / "reprolab-train"), *argv], cwd=folder, env=env, stdout=out, stderr=err,
                                start_new_session=True, preexec_fn=limit_resources)
    proc.returncode = 0  # reaped with os.wait4 below, for its CPU time: Popen must not wait for it
    return proc.pid


def classify(case: Case, stderr: str) -> None:
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    case.error_line = errors[0] if len(errors) == 1 else " | ".join(errors)[:500]
    if case.rc is None:
        case.outcome = "timeout"
    elif "Traceback (most recent call last)" in stderr:
        case.outcome = "traceback"
    elif case.rc == 0:
        case.outcome = "ok, misspelt key ignored" if case.kind == "plus_typo" else "ok"
    elif case.rc == 1:
        case.outcome = "exit 1"
    elif case.rc in (2, 3, 4):
        if len(errors) != 1:
            case.outcome = f"exit {case.rc}, {len(errors)} error lines"
        elif not names_a_key(case, errors[0]):
            case.outcome = f"exit {case.rc}, key not named"
        else:
            case.outcome = f"exit {case.rc}"
    elif case.rc == -signal.SIGXCPU:
        case.outcome = "over the CPU limit"
    else:
        case.outcome = f"exit {case.rc}" if case.rc > 0 else f"killed by {signal.Signals(-case.rc).name}"
    if case.outcome in ("exit 2", "exit 3", "exit 4") and not says_what_to_do(errors[0]):
        case.outcome += ", no advice"


ADVICE = re.compile(r"; |did you mean|\b(set|use|run|drop|give|change|fix|pick|choose|write|free|remove|add|need|needs|must)\b")


def names_a_key(case: Case, line: str) -> bool:
    """The error line names a key the case set (its dotted path or last part, or the group), or another key of
    the config (`group.key`), or the preset."""
    if any(k in line or k.rpartition(".")[2] in line for k in case.keys):
        return True
    roots = {*GROUPS, "seed", "monitor", "paths", "ckpt_path", "experiment", "hydra"}
    return any(token.split(".")[0] in roots for token in re.findall(r"[\w+~]+\.[\w.]+", line)) or "experiment=" in line


def says_what_to_do(line: str) -> bool:
    return ADVICE.search(line.partition(":")[2]) is not None


BAD = ("traceback", "exit 1", "timeout", "killed")  # "over the CPU limit": a run too long to judge, listed apart


def is_failure(case: Case) -> bool:
    return case.outcome.startswith(BAD) or any(w in case.outcome for w in ("error lines", "not named", "no advice"))


def warm_imports(presets: list[Preset]):
    """Import the console script and every `_target_`'s module, once, before forking."""
    from reprolab.cli.train import main

    for target in sorted({t for p in presets for t in p.targets}):
        module = target.rpartition(".")[0]
        while module:
            try:
                importlib.import_module(module)
                break
            except Exception:  # noqa: BLE001 - a class path (module.Class.method) or an optional extra: try the parent
                module = module.rpartition(".")[0]
    return main


def run_cases(cases: list[Case], jobs: int, timeout: float, fresh: bool, workdir: Path, main) -> None:
    """`jobs` cases at a time, each in its own folder, reaped with its CPU time; one over `timeout` wall seconds
    is killed with its process group (DataLoader workers too)."""
    env = child_env(workdir)
    if not fresh:
        os.environ.clear()
        os.environ.update(env)
    pending = list(cases)
    running: dict[int, tuple[Case, float, Path]] = {}
    done = 0
    try:
        while pending or running:
            while pending and len(running) < jobs:
                case = pending.pop(0)
                folder = workdir / f"case{case.index:04d}"
                folder.mkdir()
                argv = [*case.args, f"hydra.run.dir={folder / 'run'}"]
                pid = run_fresh(argv, folder, env) if fresh else run_forked(main, argv, folder)
                running[pid] = (case, time.monotonic(), folder)
            time.sleep(0.05)
            for pid, (case, started, folder) in list(running.items()):
                ended, status, usage = os.wait4(pid, os.WNOHANG)
                if not ended and time.monotonic() - started < timeout:
                    continue
                if not ended:
                    os.killpg(pid, signal.SIGKILL)
                    _, status, usage = os.wait4(pid, 0)
                try:
                    os.killpg(pid, signal.SIGKILL)  # a DataLoader worker left behind
                except ProcessLookupError:
                    pass
                case.rc = os.waitstatus_to_exitcode(status) if ended else None
                case.seconds, case.cpu = time.monotonic() - started, usage.ru_utime + usage.ru_stime
                stderr = (folder / "stderr").read_text(errors="replace")
                classify(case, stderr)
                case.tail = stderr[-1500:] if is_failure(case) else ""
                del running[pid]
                shutil.rmtree(folder, ignore_errors=True)
                done += 1
                mark = "FAIL" if is_failure(case) else "ok  "
                print(f"[{done}/{len(cases)}] {mark} {case.outcome:<18} {case.cpu:5.1f}s cpu {case.preset} "
                      f"{' '.join(case.overrides)}", flush=True)
    finally:  # interrupted: no case outlives the fuzzer
        for pid in running:
            try:
                os.killpg(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass


# ---------------------------------------------------------------- report

def report(cases: list[Case], seed: int, seconds: float, presets: list[Preset]) -> str:
    counts: dict[str, int] = {}
    for case in cases:
        counts[case.outcome] = counts.get(case.outcome, 0) + 1
    kinds: dict[str, dict[str, int]] = {}
    for case in cases:
        end = "ok" if case.rc == 0 else ("failure" if is_failure(case) else "error line")
        kinds.setdefault(case.kind, {})[end] = kinds.get(case.kind, {}).get(end, 0) + 1
    failures = [c for c in cases if is_failure(c)]
    unjudged = [c for c in cases if c.outcome == "over the CPU limit" or c.outcome.startswith("ok, ")]
    cpu = sum(c.cpu for c in cases)
    lines = [f"fuzz-config: {len(cases)} cases, seed {seed}, {len(presets)} CPU presets, {seconds:.0f} s wall, "
             f"{cpu:.0f} s CPU in the cases ({cpu / max(len(cases), 1):.1f} s a case)",
             "outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())),
             "by kind: " + "; ".join(f"{k}: " + ", ".join(f"{o} {n}" for o, n in sorted(v.items()))
                                     for k, v in sorted(kinds.items())),
             f"tracebacks {sum(c.outcome == 'traceback' for c in cases)}, exit 1 {sum(c.outcome == 'exit 1' for c in cases)}, "
             f"failures {len(failures)}"]
    for case in unjudged:
        lines.append(f"note [{case.outcome}] reprolab-train {' '.join(case.args)}")
    for case in failures:
        lines.append(f"FAIL [{case.outcome}] reprolab-train {' '.join(case.args)}")
        lines.append("     " + (case.error_line or case.tail.strip().splitlines()[-1] if case.tail.strip() else "")[:400])
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=60, help="cases to draw")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2, help="cases run at once")
    parser.add_argument("--timeout", type=float, default=1800.0,
                        help=f"wall seconds a case may take (a safety net: each case has {CPU_LIMIT} s of CPU)")
    parser.add_argument("--presets", nargs="*", default=["*"], help="glob(s) over conf/experiment names")
    parser.add_argument("--fresh", action="store_true", help="run every case as a real reprolab-train subprocess")
    parser.add_argument("--json", type=Path, help="write every case and its outcome here")
    args = parser.parse_args()
    start = time.monotonic()
    presets = survey(args.presets)
    if not presets:
        print(f"error: no CPU preset matches {args.presets}", file=sys.stderr)
        return 2
    cases = draw_cases(presets, args.n, args.seed)
    main_fn = None if args.fresh else warm_imports(presets)
    workdir = Path(tempfile.mkdtemp(prefix="fuzz-config-"))
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # `kill` like Ctrl-C: report the finished cases
    try:
        run_cases(cases, args.jobs, args.timeout, args.fresh, workdir, main_fn)
    except KeyboardInterrupt:
        print("interrupted: the report covers the finished cases", flush=True)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    cases = [c for c in cases if c.outcome]
    text = report(cases, args.seed, time.monotonic() - start, presets)
    print(text)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"seed": args.seed, "n": args.n, "cases": [asdict(c) for c in cases]}, indent=1))
    return 1 if any(is_failure(c) for c in cases) else 0


if __name__ == "__main__":
    sys.exit(main())
