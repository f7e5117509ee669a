"""The DAG a deep GP is built on: node → parents, where a parent is another node or an exogenous input.

Validation refuses a cycle with one line naming it, and gives the topological order the samples are
propagated in (parents before children).
"""

from __future__ import annotations

from reprolab.cli.errors import ConfigError


def find_cycle(parents: dict[str, list[str]]) -> list[str] | None:
    """A cycle among the nodes as [n0, n1, ..., n0] following parent → child edges, or None."""
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for parent in parents.get(node, []):
            if parent not in parents:
                continue
            if state.get(parent) == 1:  # parent → ... → node → parent, read along edges parent → child
                return _as_edges(stack[stack.index(parent):])
            if parent not in state and (found := visit(parent)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in parents:
        if node not in state and (found := visit(node)):
            return found
    return None


def _as_edges(loop: list[str]) -> list[str]:
    """The stack holds child → parent steps; reverse it so the cycle reads along parent → child edges."""
    path = list(reversed(loop))
    return path + [path[0]]


def topological_order(parents: dict[str, list[str]], inputs: list[str]) -> list[str]:
    """Nodes with every node-parent before its children; refuses unknown parents and cycles (one line)."""
    for node, pars in parents.items():
        if node in inputs:
            raise ConfigError(f"model.graph: '{node}' is both a node and an exogenous input")
        for parent in pars:
            if parent not in parents and parent not in inputs:
                raise ConfigError(f"model.graph: parent '{parent}' of '{node}' is neither a node nor an input {inputs}")
    if cycle := find_cycle(parents):
        raise ConfigError(f"model.graph has a cycle: {' -> '.join(cycle)}; drop one of its edges")
    order: list[str] = []
    placed: set[str] = set()
    while len(order) < len(parents):
        for node in parents:  # config order among nodes whose parents are placed: deterministic
            if node not in placed and all(p in placed or p in inputs for p in parents[node]):
                order.append(node)
                placed.add(node)
    return order


def children(parents: dict[str, list[str]]) -> dict[str, list[str]]:
    """node → its node-children (edges to exogenous inputs are not edges of the graph)."""
    out: dict[str, list[str]] = {node: [] for node in parents}
    for node, pars in parents.items():
        for parent in pars:
            if parent in out:
                out[parent].append(node)
    return out
