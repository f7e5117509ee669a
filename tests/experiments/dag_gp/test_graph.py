"""The DAG config: cycles refused in one line naming them, topological order, unknown parents."""

from __future__ import annotations

import csv

import pytest
import yaml

from experiments.dag_gp.graph import children, topological_order
from reprolab.cli.errors import ConfigError
from reprolab.config.compose import CONF_DIR
from reprolab.config.paths import data_root

SACHS = data_root() / "sachs" / "cyto_full_target.csv"


def test_cycle_is_refused_with_one_line_naming_it():
    graph = {"a": [], "b": ["a", "d"], "c": ["b"], "d": ["c"]}
    with pytest.raises(ConfigError) as err:
        topological_order(graph, inputs=[])
    line = str(err.value)
    path = line.split(": ")[1].split(";")[0].split(" -> ")
    assert "\n" not in line and path[0] == path[-1] and sorted(path[:-1]) == ["b", "c", "d"]
    for parent, child in zip(path, path[1:], strict=False):
        assert parent in graph[child]


def test_sachs_consensus_cycle_is_named():
    try:
        with open(SACHS) as f:
            edges = list(csv.reader(f))[1:]
    except FileNotFoundError:
        pytest.skip(f"Sachs consensus network not at {SACHS} (make data-sachs)")
    graph: dict[str, list[str]] = {}
    for cause, effect in edges:
        graph.setdefault(cause, [])
        graph.setdefault(effect, []).append(cause)
    with pytest.raises(ConfigError, match="cycle") as err:
        topological_order(graph, inputs=[])
    nodes = str(err.value).split(": ")[1].split(";")[0].split(" -> ")
    assert nodes[0] == nodes[-1] and set(nodes) == {"plcg", "PIP2", "PIP3"}
    for parent, child in zip(nodes, nodes[1:], strict=False):
        assert parent in graph[child]   # the named path follows real edges parent → child


def test_acyclic_sachs_config_is_the_consensus_minus_one_edge_in_topological_order():
    graph = yaml.safe_load((CONF_DIR / "model" / "dag_gp_sachs.yaml").read_text())["graph"]
    inputs = ["plcg", "PKA"]
    order = topological_order(graph, inputs)
    assert sorted(order) == sorted(graph)
    for node, parents in graph.items():
        for parent in parents:
            assert parent in inputs or order.index(parent) < order.index(node)
    assert sum(len(p) for p in graph.values()) == 17   # 18 consensus edges minus PIP3 → plcg
    assert "PIP3" not in graph.get("plcg", []) and children(graph)["PKC"] == ["praf", "pmek", "P38", "pjnk"]


def test_unknown_parent_and_input_clash_are_refused():
    with pytest.raises(ConfigError, match="parent 'z' of 'a'"):
        topological_order({"a": ["z"]}, inputs=["x"])
    with pytest.raises(ConfigError, match="both a node and an exogenous input"):
        topological_order({"x": []}, inputs=["x"])
