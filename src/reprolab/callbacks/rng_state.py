"""Save and restore every RNG in checkpoints, so a resumed run continues exactly as an unbroken one.

Stored as tensors and plain numbers, so the checkpoint still loads with `torch.load(weights_only=True)`.
"""

from __future__ import annotations

import random

import lightning as L
import numpy as np
import torch


class RNGStateCheckpoint(L.Callback):
    def state_dict(self) -> dict:
        kind, keys, pos, has_gauss, gauss = np.random.get_state()
        numpy_state = [kind, torch.from_numpy(keys.astype(np.int64)), int(pos), int(has_gauss), float(gauss)]
        state = {"python": random.getstate(), "numpy": numpy_state, "torch": torch.get_rng_state()}
        if torch.cuda.is_available():
            state["cuda"] = torch.cuda.get_rng_state_all()
        return state

    def load_state_dict(self, state: dict) -> None:
        random.setstate(state["python"])
        kind, keys, pos, has_gauss, gauss = state["numpy"]
        np.random.set_state((kind, keys.numpy().astype(np.uint32), pos, has_gauss, gauss))
        torch.set_rng_state(state["torch"])
        if "cuda" in state and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(state["cuda"])
