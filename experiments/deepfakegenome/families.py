"""How each DeepfakeGenome family applies a forgery generator to a photo (the zoo's "where" and "how").

Face swap pastes a colour-matched donor, rendered by the generator, into a feathered central ellipse;
reenactment warps by a smooth random flow and re-renders; editing shifts colours in a band, rendered
globally or pasted back locally; entire-face synthesis decodes from a heavily down-sampled, restyled
code; text-to-image noises and denoises a latent before decoding. A colour pipeline ends every algorithm.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from experiments.deepfakegenome.zoo import FAMILIES, AlgorithmSpec, ForgeryGenerator


def _feathered_ellipse(size: int, centre: torch.Tensor, radius: float, feather: float) -> torch.Tensor:
    """[B, 1, size, size] soft mask: 1 inside an ellipse of ``radius`` pixels round each centre."""
    coords = torch.arange(size, dtype=torch.float32)
    dy = coords[None, :, None] - centre[:, 0, None, None]
    dx = coords[None, None, :] - centre[:, 1, None, None]
    dist = torch.sqrt(dy**2 + (0.8 * dx) ** 2)
    return torch.sigmoid((radius - dist) / feather)[:, None]


def _colour_match(source: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Give ``source`` the per-channel mean/std of ``target`` (the colour correction step of face swaps)."""
    ms, ss = source.mean((2, 3), keepdim=True), source.std((2, 3), keepdim=True) + 1e-5
    mt, st = target.mean((2, 3), keepdim=True), target.std((2, 3), keepdim=True)
    return (source - ms) / ss * st + mt


def _smooth_warp(x: torch.Tensor, amplitude_px: float, g: torch.Generator) -> torch.Tensor:
    """Warp by a smooth random flow (4x4 control grid, bicubic) of about ``amplitude_px`` pixels."""
    b, _, h, w = x.shape
    flow = torch.randn(b, 2, 4, 4, generator=g) * amplitude_px * 2 / h
    flow = F.interpolate(flow, size=(h, w), mode="bicubic", align_corners=True).permute(0, 2, 3, 1)
    ys, xs = torch.meshgrid(torch.linspace(-1, 1, h), torch.linspace(-1, 1, w), indexing="ij")
    grid = torch.stack([xs, ys], dim=-1)[None] + flow
    return F.grid_sample(x, grid, mode="bilinear", padding_mode="reflection", align_corners=True)


def _colour_pipeline(x: torch.Tensor, spec: AlgorithmSpec) -> torch.Tensor:
    g = torch.Generator().manual_seed(spec.weight_seed + 1)
    draw = float(torch.rand(1, generator=g))
    if spec.colour == "gamma":
        return x.clamp(0, 1) ** (0.8 + 0.4 * draw)
    if spec.colour == "saturation":
        grey = x.mean(1, keepdim=True)
        return grey + (0.8 + 0.5 * draw) * (x - grey)
    if spec.colour == "matrix":
        matrix = torch.eye(3) + 0.05 * torch.randn(3, 3, generator=g)
        return torch.einsum("ij,bjhw->bihw", matrix, x)
    if spec.colour == "ycbcr420":  # chroma subsampling: luma kept, Cb/Cr at half resolution
        to_ycc = torch.tensor([[0.299, 0.587, 0.114], [-0.1687, -0.3313, 0.5], [0.5, -0.4187, -0.0813]])
        ycc = torch.einsum("ij,bjhw->bihw", to_ycc, x)
        chroma = F.interpolate(F.avg_pool2d(ycc[:, 1:], 2), scale_factor=2, mode="nearest")
        return torch.einsum("ij,bjhw->bihw", torch.linalg.inv(to_ycc), torch.cat([ycc[:, :1], chroma], 1))
    return x


@torch.no_grad()
def forge(photos: torch.Tensor, donors: torch.Tensor, spec: AlgorithmSpec, image_seed: int) -> torch.Tensor:
    """Apply algorithm ``spec`` to ``photos`` [B, 3, H, W] in [0, 1]; returns fakes in [0, 1] (pre-JPEG).

    ``donors`` (same shape) supply the swapped-in identity for face swap. ``image_seed`` drives the
    per-image randomness (warp fields, edit directions, latent noise), independent of the weights.
    """
    g = torch.Generator().manual_seed(image_seed)
    gen = ForgeryGenerator(spec)
    b, _, size, _ = photos.shape
    if spec.family == "face_swap":
        centre = size / 2 + torch.randn(b, 2, generator=g) * size / 16
        mask = _feathered_ellipse(size, centre, size * (0.25 + 0.12 * spec.region), 0.5 + 2 * spec.region)
        swapped = gen(_colour_match(donors, photos))
        out = (1 - mask) * photos + mask * swapped
    elif spec.family == "face_reenactment":
        out = gen(_smooth_warp(photos, 0.5 + 1.5 * spec.region, g))
    elif spec.family == "face_editing":
        band = torch.zeros(1, 1, size, 1)
        start = int(spec.region * size / 2)
        band[:, :, start:start + size // 2] = 1.0
        direction = torch.randn(b, 3, 1, 1, generator=g) * 0.08
        edited = photos + band * direction
        out = gen(edited) if spec.weight_seed % 2 == 0 else photos * (1 - band) + band * gen(edited)
    elif spec.family == "entire_face_synthesis":
        style = 1 + 0.1 * torch.randn(b, 3, 1, 1, generator=g)
        out = gen(photos * style)
    elif spec.family == "text_to_image":
        low_shape = (b, 3, size // 2**spec.stages, size // 2**spec.stages)
        noise = (0.02 + 0.08 * spec.region) * torch.randn(*low_shape, generator=g)
        noisy = F.avg_pool2d(photos, 2**spec.stages) + noise
        denoised = F.avg_pool2d(F.pad(noisy, (1, 1, 1, 1), mode="replicate"), 3, stride=1)  # one "step"
        out = gen(photos, latent=0.5 * noisy + 0.5 * denoised)
    else:
        raise ValueError(f"unknown family {spec.family!r}; expected one of {FAMILIES}")
    return _colour_pipeline(out, spec).clamp(0, 1)
