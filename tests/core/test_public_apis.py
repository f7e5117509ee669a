"""Dependencies are used, not patched: no code of ours assigns into a third-party module or class, derives from a
private class, imports a private name or reaches through a private module, except `reprolab/deps/compat.py`."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OWN = {"reprolab", "experiments", "scripts", "tests", "conf"}
STDLIB = set(sys.stdlib_module_names) | {"__future__"}
COMPAT = ROOT / "src" / "reprolab" / "deps" / "compat.py"
CALLED_AS_TORCH_OPTIM_DOES = "torch._foreach_"  # torch.optim's multi-tensor kernels (compat.py's docstring)


def _third_party(module: str) -> bool:
    top = module.split(".")[0]
    return bool(top) and top not in OWN and top not in STDLIB


def _private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def _dotted(node: ast.AST) -> list[str] | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def reaches(source: str) -> list[tuple[int, str]]:
    """(line, what) for every reach into a third-party package's internals in `source`."""
    tree = ast.parse(source)
    origin: dict[str, str] = {}  # local name → the third-party dotted name it stands for
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _third_party(alias.name):
                    origin[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
                    if any(map(_private, alias.name.split("."))):
                        found.append((node.lineno, f"imports private module {alias.name}"))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and _third_party(node.module):
            for alias in node.names:
                origin[alias.asname or alias.name] = f"{node.module}.{alias.name}"
                if any(map(_private, node.module.split("."))) or _private(alias.name):
                    found.append((node.lineno, f"imports private name {node.module}.{alias.name}"))

    def resolve(expr: ast.AST) -> str | None:
        parts = _dotted(expr)
        if parts is None or parts[0] not in origin:
            return None
        return ".".join([origin[parts[0]], *parts[1:]])

    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for target in targets:
            if isinstance(target, ast.Attribute) and resolve(target.value) and not resolve(target).startswith("torch.backends."):
                found.append((node.lineno, f"assigns {resolve(target)}"))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr") \
                and node.args and resolve(node.args[0]):
            found.append((node.lineno, f"{node.func.id} on {resolve(node.args[0])}"))
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                name = resolve(base)
                if name and any(map(_private, name.split("."))):
                    found.append((node.lineno, f"class {node.name} derives from private {name}"))
        if isinstance(node, ast.Attribute):
            name = resolve(node)
            if name and any(map(_private, name.split("."))) and not name.startswith(CALLED_AS_TORCH_OPTIM_DOES):
                found.append((node.lineno, f"reaches {name}"))
    return sorted(set(found))


def _files():
    for folder in ("src", "experiments", "scripts"):
        yield from sorted((ROOT / folder).rglob("*.py"))


def test_no_code_reaches_into_a_dependency_outside_compat():
    found = [f"{path.relative_to(ROOT)}:{line}: {what}" for path in _files() if path != COMPAT
             for line, what in reaches(path.read_text())]
    assert found == []


@pytest.mark.parametrize(("source", "expected"), [
    ("import lightning.pytorch as pl\npl.Trainer.fit = None", "assigns lightning.pytorch.Trainer.fit"),
    ("from hydra.core import utils\nsetattr(utils, 'x', 1)", "setattr on hydra.core.utils"),
    ("from hydra._internal.utils import _locate", "imports private name hydra._internal.utils._locate"),
    ("from torch.utils.data.dataloader import _SingleProcessDataLoaderIter as It\nclass A(It): pass",
     "class A derives from private torch.utils.data.dataloader._SingleProcessDataLoaderIter"),
    ("import torch\nclass M(torch.utils._python_dispatch.TorchDispatchMode): pass",
     "reaches torch.utils._python_dispatch.TorchDispatchMode"),
    ("import omegaconf._utils", "imports private module omegaconf._utils"),
])
def test_each_kind_of_reach_is_found(source, expected):
    assert expected in [what for _, what in reaches(source)]


@pytest.mark.parametrize("source", [
    "import torch\ntorch.backends.cudnn.benchmark = True",  # a documented switch
    "import torch\ntorch._foreach_mul_([], 1.0)",  # torch.optim's own kernels
    "from reprolab.cli import errors\nerrors.X = 1",  # our own module
    "import os\nos.environ['A'] = '1'\nos._exit",  # the standard library
])
def test_public_uses_are_not_reaches(source):
    assert reaches(source) == []


def test_compat_names_every_reach_it_holds():
    text = COMPAT.read_text()
    for _, what in reaches(text):
        assert what.split()[-1].split(".")[-1] in text.split('"""')[1], what  # each reach is in its docstring
