"""The project root and the data folder, resolved in one place for configs, tests, make targets and errors.

The root is the checkout holding this package (its `pyproject.toml` beside `conf/`), so a run started in
any subfolder finds the same `conf/`, data and `logs/` (lightning-hydra-template anchors paths to a
root marker the same way). The data folder is `$REPROLAB_DATA`, else a `shared/data` folder beside the
checkout when there is one (a read-only cache of small real datasets), else `<root>/data`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from omegaconf import OmegaConf

MARKERS = ("pyproject.toml", "conf")


def _is_root(folder: Path) -> bool:
    return all((folder / marker).exists() for marker in MARKERS)


def project_root() -> Path:
    """`$REPROLAB_ROOT`, else the checkout this package was imported from, else the nearest folder above the
    working directory that holds `pyproject.toml` and `conf/`, else the working directory."""
    if os.environ.get("REPROLAB_ROOT"):
        return Path(os.environ["REPROLAB_ROOT"]).expanduser().resolve()
    for start in (Path(__file__).resolve().parent, Path.cwd().resolve()):
        for folder in (start, *start.parents):
            if _is_root(folder):
                return folder
    return Path.cwd().resolve()


def other_checkout_warning(prog: str) -> str | None:
    """A line when the working folder is inside another reprolab checkout than the one imported (a venv whose
    editable install is a different clone): its code, `conf/` and `logs/` would be used, not this one's."""
    if os.environ.get("REPROLAB_ROOT"):
        return None
    cwd = Path.cwd().resolve()
    here = next((f for f in (cwd, *cwd.parents) if _is_root(f)), None)
    if here is None or here == project_root() or 'name = "reprolab"' not in (here / "pyproject.toml").read_text():
        return None
    return (f"warning: {prog} runs the reprolab of {project_root()} (its code, conf/ and logs/), not of the checkout "
            f"you are in ({here}); run `pip install -e .` there, or set PYTHONPATH={here}/src:{here}")


def data_root(root: Path | None = None) -> Path:
    """`$REPROLAB_DATA` (relative paths are taken from the project root), else `<root>/../shared/data` when
    that folder exists, else `<root>/data` (where `make data-<name>` puts what it fetches)."""
    root = root or project_root()
    if os.environ.get("REPROLAB_DATA"):
        return (root / Path(os.environ["REPROLAB_DATA"]).expanduser()).resolve()
    shared = root.parent / "shared" / "data"
    return shared.resolve() if shared.is_dir() else root / "data"


# `${project_root:}` and `${data_root:}` in conf/paths/default.yaml.
OmegaConf.register_new_resolver("project_root", lambda: str(project_root()), replace=True)
OmegaConf.register_new_resolver("data_root", lambda: str(data_root()), replace=True)


if __name__ == "__main__":  # `python -m reprolab.config.paths [root|data]`: what the make targets and scripts use
    print(data_root() if sys.argv[1:] != ["root"] else project_root())
