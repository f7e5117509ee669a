"""RMSE as the guided depth super-resolution (DSR) literature reports it: one function, the dataset's
convention as an argument.

Every loader in this package hands the network depth normalised to about [0, 1] together with the
per-image `(max, min)` it was normalised with (in the dataset's raw unit). The conventions below turn
the normalised maps back into the unit the papers report, after cropping a 6-pixel border
(DKN / DCTNet / SGNet evaluation code):

| convention   | normalised -> raw                        | reported unit          |
| ------------ | ---------------------------------------- | ---------------------- |
| `nyu`        | d * (max - min) + min, metres            | cm (x 100)             |
| `rgbdd`      | d * (max - min) + min, millimetres       | cm (/ 10)              |
| `middlebury` | d * 255 (the 8-bit map divided by 255)   | 0-255 grey levels      |
| `lu`         | same as `middlebury`                     | 0-255 grey levels      |

RMSE is computed per image and then averaged over images (the papers' mean over the test set).
"""

from __future__ import annotations

from torch import Tensor

BORDER = 6
CONVENTIONS = ("nyu", "rgbdd", "middlebury", "lu")
_UNIT_SCALE = {"nyu": 100.0, "rgbdd": 0.1, "middlebury": 255.0, "lu": 255.0}


def dsr_rmse(pred: Tensor, gt: Tensor, convention: str, minmax: Tensor | None = None, border: int = BORDER) -> Tensor:
    """Per-image RMSE of normalised depth maps in the convention's reported unit.

    pred, gt: (H, W), (B, H, W) or (B, 1, H, W), normalised as the loaders return them.
    minmax: (B, 2) or (2,) rows of (max, min) in raw units; required for `nyu` and `rgbdd`, must be
    None for the 8-bit sets (their normalisation is a fixed /255).
    Returns a (B,) tensor (a 0-d tensor for a single (H, W) map).
    """
    if convention not in CONVENTIONS:
        raise ValueError(f"unknown DSR convention '{convention}'; choose one of {', '.join(CONVENTIONS)}")
    if pred.shape != gt.shape:
        raise ValueError(f"pred {tuple(pred.shape)} and gt {tuple(gt.shape)} must have the same shape")
    single = pred.dim() == 2
    pred, gt = _as_bhw(pred), _as_bhw(gt)
    if border > 0:
        if min(pred.shape[-2:]) <= 2 * border:
            raise ValueError(f"image {tuple(pred.shape[-2:])} is too small for a {border}-pixel border crop")
        pred = pred[:, border:-border, border:-border]
        gt = gt[:, border:-border, border:-border]
    pred, gt = pred.double(), gt.double()
    if convention in ("nyu", "rgbdd"):
        if minmax is None:
            raise ValueError(f"convention '{convention}' de-normalises with per-image (max, min); pass minmax")
        mm = minmax.reshape(-1, 2).to(pred)
        hi, lo = mm[:, 0].view(-1, 1, 1), mm[:, 1].view(-1, 1, 1)
        pred, gt = pred * (hi - lo) + lo, gt * (hi - lo) + lo
    elif minmax is not None:
        raise ValueError(f"convention '{convention}' is the fixed 0-255 scale; minmax must be None")
    diff = (pred - gt) * _UNIT_SCALE[convention]
    rmse = diff.pow(2).mean(dim=(-2, -1)).sqrt()
    return rmse[0] if single else rmse


def _as_bhw(x: Tensor) -> Tensor:
    if x.dim() == 2:
        return x.unsqueeze(0)
    if x.dim() == 3:
        return x
    if x.dim() == 4 and x.shape[1] == 1:
        return x[:, 0]
    raise ValueError(f"depth maps must be (H, W), (B, H, W) or (B, 1, H, W); got {tuple(x.shape)}")
