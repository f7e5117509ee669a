"""Save and restore every RNG in checkpoints, so a resumed run continues exactly as an unbroken one."""

from __future__ import annotations

import random

import lightning as L
import numpy as np
import torch


class RNGStateCheckpoint(L.Callback):
    def state_dict(self) -> dict:
        state = {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}
        if torch.cuda.is_available():
            state["cuda"] = torch.cuda.get_rng_state_all()
        return state

    def load_state_dict(self, state: dict) -> None:
        random.setstate(state["python"])
        np.random.set_state(state["numpy"])
        torch.set_rng_state(state["torch"])
        if "cuda" in state and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(state["cuda"])
