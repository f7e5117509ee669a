"""Everything this package takes from BFCL (PyPI `bfcl-eval`, Berkeley Function Calling Leaderboard v4, Apache-2.0):
its `multi_turn_base` tasks and gold call sequences, its function docs, its executable multi-turn backends
(`GorillaFileSystem`, ...) and its own multi-turn checker.

Two ways to score a call list, both BFCL's code:
- `bfcl_check(entry, calls, turns)`: the leaderboard's `multi_turn_checker` on a held-out task (the test score);
- `same_outcome(config, classes, calls, gold)`: its `state_checker` + `response_checker` on backends we load
  ourselves, for generated training tasks (the exact judge of arms e and f). `multi_turn_checker` keeps every
  backend it built in a module global keyed by model name; a judge called thousands of times per run would leak,
  so the training path builds its instances here and hands them to the same two sub-checkers.
"""

from __future__ import annotations

import ast
import copy
import importlib
import itertools
import json
from functools import cache
from pathlib import Path

from reprolab.cli.errors import ConfigError, DatasetNotFoundError

INSTALL = "pip install --no-deps bfcl-eval==2026.3.23 (see experiments/trustee/README.md)"
_names = itertools.count()


def bfcl_root() -> Path:
    try:
        import bfcl_eval
    except ImportError:
        raise DatasetNotFoundError(f"bfcl-eval is not installed; {INSTALL}") from None
    return Path(bfcl_eval.__file__).parent


def read_jsonl(path: Path) -> list[dict]:
    if not path.exists():
        raise DatasetNotFoundError(f"BFCL file '{path}' is missing; reinstall bfcl-eval ({INSTALL})")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@cache
def multi_turn_tasks(category: str = "multi_turn_base") -> dict[str, dict]:
    """id -> BFCL entry (question, initial_config, involved_classes) with its `ground_truth` call lists per turn."""
    data = bfcl_root() / "data"
    gold = {g["id"]: g["ground_truth"] for g in read_jsonl(data / "possible_answer" / f"BFCL_v4_{category}.json")}
    return {e["id"]: {**e, "ground_truth": gold[e["id"]]} for e in read_jsonl(data / f"BFCL_v4_{category}.json")}


@cache
def function_doc(class_name: str) -> dict[str, dict]:
    """name -> BFCL function doc (its `parameters.properties` and `required`) of one backend class."""
    from bfcl_eval.constants.executable_backend_config import MULTI_TURN_FUNC_DOC_FILE_MAPPING

    if class_name not in MULTI_TURN_FUNC_DOC_FILE_MAPPING:
        raise ConfigError(f"BFCL has no backend {class_name!r}; choose one of {', '.join(MULTI_TURN_FUNC_DOC_FILE_MAPPING)}")
    path = bfcl_root() / "data" / "multi_turn_func_doc" / MULTI_TURN_FUNC_DOC_FILE_MAPPING[class_name]
    return {doc["name"]: doc for doc in read_jsonl(path)}


def load_backends(initial_config: dict, classes: list[str]) -> dict:
    """Fresh BFCL backend instances in the task's initial state, loaded as BFCL's own executor loads them."""
    from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING, STATELESS_CLASSES

    instances = {}
    for name in classes:
        instance = getattr(importlib.import_module(CLASS_FILE_PATH_MAPPING[name]), name)()
        if name not in STATELESS_CLASSES:
            instance._load_scenario(copy.deepcopy(initial_config.get(name, {})), long_context=False)
        instances[name] = instance
    return instances


def parse_call(call: str) -> tuple[str, dict]:
    """`"mv(source='a', destination='b')"` -> ("mv", {"source": "a", "destination": "b"}) (keyword literals only)."""
    node = ast.parse(call, mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.args:
        raise ValueError(f"not a keyword-only call: {call!r}")
    return node.func.id, {k.arg: ast.literal_eval(k.value) for k in node.keywords}


def execute(instances: dict, call: str) -> str:
    """Run one call on the backend that has the method; its result as BFCL's executor renders it (str or JSON)."""
    try:
        name, kwargs = parse_call(call)
        owner = next(i for i in instances.values() if callable(getattr(i, name, None)) and not name.startswith("_"))
        result = getattr(owner, name)(**kwargs)
    except Exception as err:  # noqa: BLE001 - a policy's bad call is an observation, as in BFCL's executor
        return f"Error during execution: {err}"
    if isinstance(result, str):
        return result
    try:
        return json.dumps(result)
    except TypeError:
        return str(result)


def is_error(result: str) -> bool:
    """A backend answer that reports failure: BFCL backends return {"error": ...} or raise."""
    return result.startswith("Error during execution") or result.lstrip().startswith('{"error"')


def same_outcome(initial_config: dict, classes: list[str], calls: list[str], gold: list[str]) -> bool:
    """BFCL's state_checker and response_checker (one turn): the policy's calls leave every backend in the gold
    calls' state and their results contain every gold result."""
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import response_checker, state_checker

    model, truth = load_backends(initial_config, classes), load_backends(initial_config, classes)
    model_results = [execute(model, c) for c in calls]
    gold_results = [execute(truth, c) for c in gold]
    if not calls and gold:
        return False
    return state_checker(model, truth)["valid"] and response_checker(model_results, gold_results, 0)["valid"]


def bfcl_check(entry: dict, calls_per_turn: list[list[str]], turns: int | None = None) -> bool:
    """BFCL's `multi_turn_checker` on a held-out task, over its first `turns` user turns (all when None); each turn's
    calls are one step of model output. A fresh model name per call: BFCL caches backends under it."""
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    gold = entry["ground_truth"][:turns]
    if len(calls_per_turn) != len(gold):
        raise ValueError(f"{entry['id']}: {len(calls_per_turn)} turns of calls for {len(gold)} gold turns")
    decoded = [[list(calls)] for calls in calls_per_turn]
    result = multi_turn_checker(decoded, gold, entry, entry["id"].rsplit("_", 1)[0], f"trustee_{next(_names)}")
    return bool(result["valid"])
