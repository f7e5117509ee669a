"""Key capture for DeltaMomentum: forward pre-hooks that accumulate the key covariance C = XᵀX / N.

For a linear weight W (d_out × d_in) the per-sample gradient is rank-1, g = δ xᵀ: the layer input x
is the *key* and the output error δ the *value* (paper §3, "the buffer as an associative memory").
The batch-level delta rule needs C = XᵀX / N over the N keys of one optimizer step. Conv layers use
their im2col patches as keys (d_in = C_in·k_h·k_w, one key per output position).

Layers that read the same input tensor (Q/K/V, gate/up) share one Gram: the first hooked layer that
sees a tensor accumulates XᵀX, the others point at it. Sums and counts accumulate across gradient
accumulation micro-batches and are summed over DDP ranks at the optimizer step, so C always matches
the gradient it is paired with. Only training forwards with grad enabled are captured.
"""

from __future__ import annotations

import fnmatch
import warnings
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn


class KeyCovariance:
    """Σ x xᵀ and the key count N for one layer input, plus a warm power-iteration vector for λmax."""

    def __init__(self, dim: int):
        self.dim = dim
        self.sum: torch.Tensor | None = None  # fp32 (dim, dim), allocated on first use
        self.count = 0
        self.top_vector: torch.Tensor | None = None

    def add(self, keys: torch.Tensor) -> None:
        # keys.T @ keys runs in the key dtype (bf16 under autocast: tensor cores, fp32 accumulation)
        gram = keys.T @ keys
        if self.sum is None:
            self.sum = gram.float()
        else:
            self.sum.add_(gram)
        self.count += keys.shape[0]

    def mean(self) -> torch.Tensor:
        """C = XᵀX / N."""
        return self.sum / self.count

    def reset(self) -> None:
        if self.sum is not None:
            self.sum.zero_()
        self.count = 0


def top_eigenvalue(cov: torch.Tensor, vector: torch.Tensor, max_iters: int, tol: float = 0.0,
                   check_every: int = 4) -> tuple[torch.Tensor, torch.Tensor]:
    """Power iteration from a warm unit vector until the residual ‖Cv − λv‖ ≤ tol·λ (or ``max_iters``).

    Returns (Rayleigh quotient λ = vᵀCv, next unit vector). For symmetric C some eigenvalue lies within
    ‖Cv − λv‖ of λ, and from a vector not orthogonal to the top eigenvector it is λmax, so the stopping
    rule bounds the relative error of λ̂max by ``tol`` (the Rayleigh quotient's own error is second order).
    The tolerance is checked every ``check_every`` mat-vecs (one host sync each); tol = 0 runs all of them.
    λ is formed only where it is read (at a check and after the last mat-vec): the same numbers, fewer ops.
    """
    iters = max(1, max_iters)
    for i in range(iters):
        w = cov @ vector
        check = tol > 0 and (i + 1) % check_every == 0
        if check or i == iters - 1:
            lam = vector @ w
        vector_next = w / w.norm().clamp_min(1e-30)
        if check and float((w - lam * vector).norm()) <= tol * float(lam):
            return lam, vector_next
        vector = vector_next
    return lam, vector


def top_eigenvalue_exact(cov: torch.Tensor) -> torch.Tensor:
    """λmax(C) from ``torch.linalg.eigvalsh`` (used for small d_in, where it is cheap)."""
    return torch.linalg.eigvalsh(cov)[-1]


def linear_keys(x: torch.Tensor, module: nn.Linear) -> torch.Tensor:
    return x.reshape(-1, module.in_features)


def conv_keys(x: torch.Tensor, module: nn.Conv2d) -> torch.Tensor:
    """im2col patches (B·L, C_in·k_h·k_w), ordered like ``weight.view(C_out, -1)``."""
    cols = F.unfold(x, module.kernel_size, module.dilation, module.padding, module.stride)
    return cols.transpose(1, 2).reshape(-1, cols.shape[1])


def conv_positions(x: torch.Tensor, module: nn.Conv2d) -> int:
    """Output positions per image (keys per image) of a conv layer."""
    n = 1
    for size, k, s, p, d in zip(x.shape[-2:], module.kernel_size, module.stride, module.padding,
                                module.dilation, strict=True):
        n *= (size + 2 * p - d * (k - 1) - 1) // s + 1
    return n


def key_dim(module: nn.Module) -> int | None:
    """d_in of the key for a supported layer, or None (the layer's weight keeps the plain EMA)."""
    if isinstance(module, nn.Linear):
        return module.in_features
    if isinstance(module, nn.Conv2d) and unsupported_conv(module) is None:
        return module.in_channels * module.kernel_size[0] * module.kernel_size[1]
    return None


def unsupported_conv(module: nn.Conv2d) -> str | None:
    """Why a Conv2d's im2col keys are not built here (None: supported)."""
    if module.groups != 1:
        return f"groups={module.groups}"
    if module.padding_mode != "zeros":
        return f"padding_mode={module.padding_mode!r}"
    if isinstance(module.padding, str):
        return f"padding={module.padding!r}"
    return None


@dataclass(eq=False)
class HookedLayer:
    name: str
    module: nn.Module
    own: KeyCovariance
    signature: tuple
    source: KeyCovariance | None = None  # the Gram this layer's keys went into this step
    handle: object = field(default=None, repr=False)


class KeyCapture:
    """Registers a forward pre-hook on every linear / conv weight of ``model`` not matched by ``exclude``.

    ``exclude``: fnmatch patterns on module names (default keeps the LM head on the plain EMA).
    ``share``: let layers reading the same input tensor share one Gram (identical result, less work).
    ``max_keys``: use every k-th key so at most this many enter XᵀX per forward (an unbiased estimate of
    C for conv layers, whose im2col Gram costs 9·C_in/C_out of the forward for 3×3 filters); None = all.
    ``active``: called by every hook; when it returns False no key work is done (the optimizer passes
    "some group has η ≠ 0"). A Conv2d that cannot be keyed (groups > 1, ``padding='same'``, a non-zero
    padding mode) warns once here; a keyed weight that got no keys warns once at the step (``missing``).
    """

    def __init__(self, model: nn.Module, exclude=("lm_head",), share: bool = True, max_keys: int | None = None,
                 active: Callable[[], bool] = lambda: True):
        self.share, self.max_keys, self.active = share, max_keys, active
        self.layers: dict[nn.Parameter, HookedLayer] = {}
        self._seen: dict[tuple, tuple[weakref.ref, KeyCovariance]] = {}
        self._warned: set[str] = set()
        for name, module in model.named_modules():
            if any(fnmatch.fnmatch(name, pat) for pat in exclude):
                continue
            dim = key_dim(module)
            if dim is None:
                if isinstance(module, nn.Conv2d):
                    self._warn(name, f"conv {name!r} ({unsupported_conv(module)}) has no im2col keys here: "
                                     "its weight keeps the plain EMA (add it to `exclude` to silence this)")
                continue
            kind = ("linear",) if isinstance(module, nn.Linear) else (
                "conv", module.kernel_size, module.stride, module.padding, module.dilation)
            layer = HookedLayer(name, module, KeyCovariance(dim), (*kind, dim))
            layer.handle = module.register_forward_pre_hook(self._hook(layer))
            self.layers[module.weight] = layer

    def _hook(self, layer: HookedLayer):
        keys_of = linear_keys if isinstance(layer.module, nn.Linear) else conv_keys

        def capture(module, args):
            if not (module.training and torch.is_grad_enabled() and self.active()):
                return
            x = args[0]
            sig = (id(x), *layer.signature)
            hit = self._seen.get(sig)
            if self.share and hit is not None and hit[0]() is x:
                layer.source = hit[1]  # same tensor already captured by a sibling (Q/K/V, gate/up)
                return
            layer.source = layer.own
            x_keys = x.detach()
            if self.max_keys and isinstance(module, nn.Conv2d):  # whole images: no unfold of the rest
                x_keys = x_keys[: max(1, -(-self.max_keys // conv_positions(x_keys, module)))]
            keys = keys_of(x_keys, module)
            if self.max_keys and keys.shape[0] > self.max_keys and isinstance(module, nn.Linear):
                keys = keys[:: -(-keys.shape[0] // self.max_keys)]
            layer.own.add(keys)
            self._seen[sig] = (weakref.ref(x), layer.own)

        return capture

    def grams(self) -> dict[KeyCovariance, list[nn.Parameter]]:
        """The Grams filled this step and the weights that read each (in a fixed order)."""
        out: dict[KeyCovariance, list[nn.Parameter]] = {}
        for weight, layer in self.layers.items():
            if layer.source is not None and layer.source.count > 0:
                out.setdefault(layer.source, []).append(weight)
        return out

    def _warn(self, name: str, message: str) -> None:
        if name not in self._warned:
            self._warned.add(name)
            warnings.warn(message, RuntimeWarning, stacklevel=3)

    def missing(self, weights) -> None:
        """Warn once per keyed weight that has a gradient but got no keys this step (eval-mode or
        no-grad forward, the weight used outside its module's forward): it takes the plain EMA step."""
        for weight in weights:
            layer = self.layers.get(weight)
            if layer is not None and (layer.source is None or layer.source.count == 0):
                self._warn(layer.name, f"{layer.name or 'the model'!r} has a gradient but no keys this step "
                                       "(eval mode or a no-grad forward?): its weight took the plain EMA step")

    def all_reduce(self, grams) -> None:
        """Sum XᵀX and N over DDP ranks (every rank runs the same model code, so the same Grams)."""
        if not (dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1):
            return
        sums = [g.sum for g in grams]
        counts = torch.tensor([float(g.count) for g in grams], device=sums[0].device)
        dist.all_reduce(counts)
        for s in sums:
            dist.all_reduce(s)
        for g, n in zip(grams, counts.tolist(), strict=True):
            g.count = int(n)

    def reset(self) -> None:
        for layer in self.layers.values():
            layer.own.reset()
            layer.source = None
        self._seen.clear()

    def remove(self) -> None:
        for layer in self.layers.values():
            layer.handle.remove()
