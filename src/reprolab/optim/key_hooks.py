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
import weakref
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


def top_eigenvalue(cov: torch.Tensor, vector: torch.Tensor, iters: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Power iteration from a warm vector: returns (Rayleigh quotient ≈ λmax(C), next unit vector)."""
    lam = cov.new_zeros(())
    for _ in range(iters):
        w = cov @ vector
        lam = vector @ w
        vector = w / w.norm().clamp_min(1e-30)
    return lam, vector


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
    if (
        isinstance(module, nn.Conv2d)
        and module.groups == 1
        and module.padding_mode == "zeros"
        and not isinstance(module.padding, str)
    ):
        return module.in_channels * module.kernel_size[0] * module.kernel_size[1]
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
    """

    def __init__(self, model: nn.Module, exclude=("lm_head",), share: bool = True, max_keys: int | None = None):
        self.share, self.max_keys = share, max_keys
        self.layers: dict[nn.Parameter, HookedLayer] = {}
        self._seen: dict[tuple, tuple[weakref.ref, KeyCovariance]] = {}
        for name, module in model.named_modules():
            dim = key_dim(module)
            if dim is None or any(fnmatch.fnmatch(name, pat) for pat in exclude):
                continue
            kind = ("linear",) if isinstance(module, nn.Linear) else (
                "conv", module.kernel_size, module.stride, module.padding, module.dilation)
            layer = HookedLayer(name, module, KeyCovariance(dim), (*kind, dim))
            layer.handle = module.register_forward_pre_hook(self._hook(layer))
            self.layers[module.weight] = layer

    def _hook(self, layer: HookedLayer):
        keys_of = linear_keys if isinstance(layer.module, nn.Linear) else conv_keys

        def capture(module, args):
            if not (module.training and torch.is_grad_enabled()):
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
