"""The few places the project reaches past a dependency's public API, each named here with the versions it was
tested on (STYLE.md, "Dependencies are used, not patched"). Everything else calls public APIs only, which
`tests/core/test_public_apis.py` checks by walking the code; `tests/core/test_compat.py` fails when an installed
version leaves a range below, and `pyproject.toml` bounds each of these dependencies to it.

- `TorchDispatchMode` (torch, private module `torch.utils._python_dispatch`): `make plan` counts aten ops (eager
  kernel launches) of one step; torch exports no public dispatch mode that sees every op.
- `workspace_spec` (wandb-workspaces, `Workspace._spec`): the view spec a workspace would save, built offline for
  `reprolab-dashboard` without a W&B server; the package has no public getter of it.
- `torch._foreach_*` (the multi-tensor kernels of torch.optim's own foreach optimizers) are called as torch.optim
  calls them, in `reprolab.optim`; they are covered by torch's exact pin.
"""

from __future__ import annotations

from importlib.metadata import version

from torch.utils._python_dispatch import TorchDispatchMode  # noqa: F401 — re-exported: the one import of it

# distribution → (lowest tested, first untested) versions; pyproject.toml bounds each the same way
TESTED = {
    "torch": ("2.14.1", "2.14.2"),
    "wandb-workspaces": ("0.4", "0.5"),
    "lightning": ("2.6", "2.7"),
    "hydra-core": ("1.3", "1.4"),
    "omegaconf": ("2.3", "2.4"),
}


def workspace_spec(workspace) -> dict:
    """The JSON view spec W&B would store for this `wandb_workspaces` Workspace (offline, no API call)."""
    return workspace._spec


def _key(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split("+")[0].split(".")[:3] if part.isdigit())


def untested_versions() -> list[str]:
    """One line per installed dependency outside its tested range (empty when all are inside)."""
    out = []
    for dist, (low, high) in TESTED.items():
        installed = version(dist)
        if not _key(low) <= _key(installed) < _key(high):
            out.append(f"{dist} {installed} is outside the tested range [{low}, {high})")
    return out
