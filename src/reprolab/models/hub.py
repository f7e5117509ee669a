"""Weights from the Hugging Face Hub: one that is neither cached nor reachable is a DatasetNotFoundError whose one
line names the download command and the config key that takes a local folder instead."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from reprolab.cli.errors import DatasetNotFoundError


@contextmanager
def from_hub(name: str, key: str) -> Iterator[None]:
    """Around a `from_pretrained(name)` call configured by `key` (`model.pretrained`, `tokenizer.name`, …)."""
    try:
        yield
    except OSError as err:  # transformers, diffusers and huggingface_hub raise OSError subclasses when offline
        raise DatasetNotFoundError(f"{key}='{name}' could not be loaded ({str(err).splitlines()[0]}); download it "
                                   f"where the Hub is reachable (hf download {name}) or set {key} to a local folder") from None
