"""The intent language against BFCL itself: the expert's plan for every held-out intent passes BFCL's own checker,
a wrong plan fails it, and every compact action names a real BFCL function and parameters."""

from __future__ import annotations

import pytest

pytest.importorskip("bfcl_eval", reason="bfcl-eval not installed (pip install --no-deps bfcl-eval)")

from experiments.trustee.bfcl import (  # noqa: E402
    bfcl_check,
    execute,
    function_doc,
    is_error,
    load_backends,
    multi_turn_tasks,
    same_outcome,  # noqa: E402
)
from experiments.trustee.env import held_out_intents  # noqa: E402
from experiments.trustee.intents import check_against_doc, clauses, plan, to_call  # noqa: E402
from reprolab.cli.errors import ConfigError  # noqa: E402


def test_plan_by_hand():
    assert plan("a/ move b c+; show d") == ["cd a", "mkdir c", "mv b c", "cat d", "end"]
    assert plan("list") == ["ls -a", "end"]
    assert plan("a/ new ?") == ["ask"] and plan("a/ new ?", asked="y") == ["ask", "cd a", "touch y", "end"]
    assert to_call("mv b c", {"b": "x.txt", "c": "y"}) == "mv(source='x.txt', destination='y')"
    assert to_call("tail b", {"b": "f"}) == "tail(file_name='f', lines=1)"
    assert to_call("wc -c b", {"b": "f"}) == "wc(file_name='f', mode='c')"
    assert to_call("mv b", {"b": "x"}) is None and to_call("mv b q", {"b": "x"}) is None and to_call("zz", {}) is None


def test_unknown_verb_is_one_clear_error():
    with pytest.raises(ConfigError, match="unknown verb 'remove'"):
        clauses("remove a")


def test_actions_match_bfcl_function_doc():
    check_against_doc(function_doc("GorillaFileSystem"))
    with pytest.raises(ConfigError, match="no 'cd'"):
        check_against_doc({"ls": {"parameters": {"properties": {"a": {}}}}})


def test_expert_passes_bfcl_checker_on_every_held_out_task_and_a_wrong_plan_fails():
    tasks = multi_turn_tasks()
    items = held_out_intents()
    assert len(items) == 30 and len({i["id"] for i in items}) == 30
    for item in items:
        calls = [to_call(a, item["slots"]) for a in plan(item["intent"])[:-1]]
        assert bfcl_check(tasks[item["id"]], [calls], turns=1), item
    first = tasks["multi_turn_base_0"]
    assert not bfcl_check(first, [["mkdir(dir_name='temp')"]], turns=1)  # no cd first: temp lands elsewhere
    assert not bfcl_check(first, [[]], turns=1)


def test_backends_and_sub_checkers():
    entry = multi_turn_tasks()["multi_turn_base_0"]
    backends = load_backends(entry["initial_config"], ["GorillaFileSystem"])
    assert is_error(execute(backends, "cd(folder='nope')")) and not is_error(execute(backends, "cd(folder='document')"))
    assert is_error(execute(backends, "not a call"))
    gold = entry["ground_truth"][0]
    assert same_outcome(entry["initial_config"], entry["involved_classes"], gold, gold)
    assert not same_outcome(entry["initial_config"], entry["involved_classes"], gold[:2], gold)
    assert not same_outcome(entry["initial_config"], entry["involved_classes"], [], gold)
