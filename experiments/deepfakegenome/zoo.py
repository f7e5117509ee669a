"""The procedural "forgery zoo": an offline stand-in for DeepfakeGenome's 100 forgery algorithms.

Each algorithm is a small image generator with fixed random weights and its own architectural
fingerprint — the traces attribution relies on (Sec. 1 of the paper: generators leave algorithm-specific
artefacts): upsampling by transposed convolution (checkerboard), nearest, bilinear or pixel-shuffle; the
kernel size; the number of upsampling stages; the normalisation; the non-linearity; a colour pipeline;
an optional JPEG re-compression. Like a trained generator, every layer starts as a near-identity map
(interpolation / delta kernels) and is perturbed by algorithm-specific random weights, so fakes keep the
photo's content and differ from it, and from each other, in their traces.

Algorithms come in DFG's five families (face swap, reenactment, editing, entire-face synthesis,
text-to-image); where and how each family applies its generator to a photo is in ``families.py``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F

FAMILIES = ("face_swap", "face_reenactment", "face_editing", "entire_face_synthesis", "text_to_image")
FAMILY_CODES = {"face_swap": "fsw", "face_reenactment": "fre", "face_editing": "fed",
                "entire_face_synthesis": "efs", "text_to_image": "t2i"}
UPSAMPLERS = ("transposed", "nearest", "bilinear", "pixelshuffle")
NORMS = ("none", "instance", "batch")
ACTIVATIONS = {"relu": F.relu, "lrelu": lambda x: F.leaky_relu(x, 0.2), "tanh": torch.tanh, "gelu": F.gelu}
COLOUR_PIPELINES = ("none", "gamma", "saturation", "ycbcr420", "matrix")
JPEG_QUALITIES = (None, None, 70, 80, 90)  # None = saved losslessly


@dataclass(frozen=True)
class AlgorithmSpec:
    """Everything that defines one forgery algorithm; its weights are drawn from ``weight_seed``."""

    name: str
    family: str
    upsample: str
    kernel: int
    stages: int
    norm: str
    activation: str
    kernel_noise: float      # std of the random part of every upsampling kernel
    texture: float           # gain of the residual random-conv branch (the generator's "texture")
    skip: float              # gain of the U-Net-style skip that carries the photo's high frequencies
    colour: str
    jpeg_quality: int | None
    region: float            # family knob: swap radius / warp amplitude / edit band / latent noise
    weight_seed: int

    def as_row(self) -> dict:
        return {k: ("" if v is None else v) for k, v in asdict(self).items()}


def sample_specs(num_algorithms: int, seed: int) -> list[AlgorithmSpec]:
    """``num_algorithms`` specs assigned to families round-robin, each fingerprint drawn from ``seed``."""
    rng = torch.Generator().manual_seed(seed)
    pick = lambda options: options[int(torch.randint(len(options), (1,), generator=rng))]
    uniform = lambda lo, hi: lo + (hi - lo) * float(torch.rand(1, generator=rng))
    counts = dict.fromkeys(FAMILIES, 0)
    specs = []
    for i in range(num_algorithms):
        family = FAMILIES[i % len(FAMILIES)]
        upsample = pick(UPSAMPLERS)
        stages = pick((2, 3)) if family == "entire_face_synthesis" else pick((1, 2))
        specs.append(AlgorithmSpec(
            name=f"{FAMILY_CODES[family]}{counts[family]:02d}",
            family=family,
            upsample=upsample,
            kernel=pick((3, 4, 5)) if upsample == "transposed" else pick((3, 5)),
            stages=stages,
            norm=pick(NORMS),
            activation=pick(tuple(ACTIVATIONS)),
            kernel_noise=round(uniform(0.03, 0.15), 4),
            texture=round(uniform(0.02, 0.08), 4),
            skip=round({"entire_face_synthesis": uniform(0.3, 0.7), "text_to_image": uniform(0.5, 0.9)}
                       .get(family, 1.0), 4),
            colour=pick(COLOUR_PIPELINES),
            jpeg_quality=pick(JPEG_QUALITIES),
            region=round(uniform(0.0, 1.0), 4),
            weight_seed=int(torch.randint(2**31 - 1, (1,), generator=rng)),
        ))
        counts[family] += 1
    return specs


def _interpolation_kernel(k: int) -> torch.Tensor:
    """2-D triangle kernel for x2 transposed-conv upsampling, normalised per output phase (sums to 1)."""
    factor = (k + 1) // 2
    centre = factor - 1 if k % 2 == 1 else factor - 0.5
    taps = 1 - (torch.arange(k, dtype=torch.float32) - centre).abs() / factor
    taps[0::2] /= taps[0::2].sum()
    taps[1::2] /= taps[1::2].sum()
    return taps[:, None] * taps[None, :]


def _zero_dc(noise: torch.Tensor, phases: int = 1) -> torch.Tensor:
    """Remove each kernel's (per output phase, for strided kernels) mean: the perturbation keeps colours
    and brightness and only adds structured high-frequency error, as a nearly-trained generator would."""
    for py in range(phases):
        for px in range(phases):
            part = noise[..., py::phases, px::phases]
            noise[..., py::phases, px::phases] = part - part.mean((-2, -1), keepdim=True)
    return noise


def _delta(k: int) -> torch.Tensor:
    kernel = torch.zeros(k, k)
    kernel[k // 2, k // 2] = 1.0
    return kernel


class ForgeryGenerator:
    """The fixed decoder of one algorithm: down-sample by 2**stages, then ``stages`` x2 up-sampling blocks,
    plus a skip connection carrying ``skip`` x the photo's high frequencies (what the down-sampling lost).

    Block: up-sample (the spec's method; near-identity kernel + zero-mean random perturbation) →
    normalisation → residual texture branch ``h + texture * act(W h)`` with a zero-mean random 3x3 ``W``.
    Weights are frozen at construction; borders are replicate-padded.
    """

    def __init__(self, spec: AlgorithmSpec):
        self.spec = spec
        g = torch.Generator().manual_seed(spec.weight_seed)
        randn = lambda *shape: torch.randn(*shape, generator=g)
        eye = torch.eye(3)[:, :, None, None]
        k, sigma = spec.kernel, spec.kernel_noise
        self.blocks = []
        for _ in range(spec.stages):
            if spec.upsample == "transposed":  # weight [in, out, k, k]
                up = eye * _interpolation_kernel(k) + _zero_dc(sigma * randn(3, 3, k, k) / k, phases=2)
            elif spec.upsample == "pixelshuffle":  # conv to 3*4 channels, sub-pixel c*4+s copies channel c
                up = torch.stack([_delta(k)[None] * torch.eye(3)[c][:, None, None] for c in range(3)])
                up = up.repeat_interleave(4, dim=0) + _zero_dc(sigma * randn(12, 3, k, k) / k)
            else:  # interpolate, then a k x k conv [out, in, k, k]
                up = eye * _delta(k) + _zero_dc(sigma * randn(3, 3, k, k) / k)
            norm_affine = (1 + 0.05 * randn(3), 0.02 * randn(3))
            texture_weight = _zero_dc(randn(3, 3, 3, 3) / 3)
            self.blocks.append((up, norm_affine, texture_weight))

    def _upsample(self, h: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
        k = self.spec.kernel
        if self.spec.upsample == "transposed":  # pad 1 low-res pixel, then crop the 2 extra output pixels
            out = F.conv_transpose2d(F.pad(h, (1, 1, 1, 1), mode="replicate"), up, stride=2,
                                     padding=(k - 1) // 2, output_padding=1 - (k % 2 == 0))
            return out[..., 2:-2, 2:-2]
        if self.spec.upsample == "pixelshuffle":
            return F.pixel_shuffle(_conv_same(h, up), 2)
        h = F.interpolate(h, scale_factor=2, mode=self.spec.upsample,
                          **({"align_corners": False} if self.spec.upsample == "bilinear" else {}))
        return _conv_same(h, up)

    def _normalise(self, h: torch.Tensor, affine) -> torch.Tensor:
        gain, shift = affine[0][None, :, None, None], affine[1][None, :, None, None]
        if self.spec.norm == "instance":  # AdaIN-style: normalise, then restore the statistics with a gain
            mean, std = h.mean((2, 3), keepdim=True), h.std((2, 3), keepdim=True) + 1e-5
            return (h - mean) / std * (std * gain) + mean + shift
        if self.spec.norm == "batch":  # inference-mode batch norm = a fixed per-channel affine
            return (h - 0.5) * gain + 0.5 + shift
        return h

    @torch.no_grad()
    def decode(self, low: torch.Tensor) -> torch.Tensor:
        h = low
        act = ACTIVATIONS[self.spec.activation]
        for up, affine, texture_weight in self.blocks:
            h = self._normalise(self._upsample(h, up), affine)
            h = h + self.spec.texture * act(_conv_same(h - 0.5, texture_weight))
        return h

    @torch.no_grad()
    def __call__(self, x: torch.Tensor, latent: torch.Tensor | None = None) -> torch.Tensor:
        """Render ``x``; ``latent`` (default: ``x`` down-sampled) replaces the code the decoder starts from."""
        factor = 2**self.spec.stages
        low = F.avg_pool2d(x, factor)
        detail = x - F.interpolate(low, scale_factor=factor, mode="bilinear", align_corners=False)
        return self.decode(low if latent is None else latent) + self.spec.skip * detail


def _conv_same(h: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    p = weight.shape[-1] // 2
    return F.conv2d(F.pad(h, (p, p, p, p), mode="replicate"), weight)


def describe(spec: AlgorithmSpec) -> str:
    """One-line human description of an algorithm's fingerprint."""
    jpeg = f"jpeg q{spec.jpeg_quality}" if spec.jpeg_quality else "lossless"
    return (f"{spec.name}: {spec.family}, {spec.upsample} k{spec.kernel} x{2**spec.stages}, norm {spec.norm}, "
            f"{spec.activation}, colour {spec.colour}, {jpeg}, noise {spec.kernel_noise:.2f}")


__all__ = ["FAMILIES", "AlgorithmSpec", "ForgeryGenerator", "sample_specs", "describe"]
