"""Hand-over from the pretraining stage to fine-tuning: find stage 1's checkpoint and load its encoder."""

from __future__ import annotations

from pathlib import Path

from torch import nn

from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.run.finished_model import model_state

PRETRAIN_COMMAND = ("run its pretraining stage first (make pretrain-degradequery for the claim splits, or "
                    "reprolab-train experiment=degradequery/pretrain[_gin|_sequences] with that split and seed)")
FINETUNE_ONLY = ("classifier.",)  # the degradation head is not trained by pretraining: it keeps its own init


def resolve_pretrained(path: str) -> Path:
    """A .ckpt file, or a finished pretraining run's folder (its checkpoints/last.ckpt)."""
    ckpt = Path(path)
    if ckpt.is_dir():
        ckpt = ckpt / "checkpoints" / "last.ckpt"
    if not ckpt.is_file():
        raise DatasetNotFoundError(f"no pretrained DegradeQuery checkpoint at '{ckpt}'; {PRETRAIN_COMMAND}")
    return ckpt


def load_pretrained(model: nn.Module, path: str) -> None:
    """Copy the pretrained molecule encoder, target/E3 embeddings, fusion MLP and compatibility head into `model`."""
    weights = {k: v for k, v in model_state(resolve_pretrained(path)).items() if not k.startswith(FINETUNE_ONLY)}
    missing, unexpected = model.load_state_dict(weights, strict=False)
    missing = [k for k in missing if not k.startswith(FINETUNE_ONLY)]
    if missing or unexpected:
        raise ConfigError(f"task.pretrained_ckpt '{path}' does not fit the model (pretrain with the same data/model "
                          f"settings): missing {missing[:3]}, unexpected {unexpected[:3]}")
