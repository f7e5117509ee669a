"""Weights from the Hugging Face Hub: one that is neither cached nor reachable is a DatasetNotFoundError whose one
line names the download command and the config key that takes a local folder instead."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from reprolab.cli.errors import DatasetNotFoundError


@contextmanager
def from_hub(name: str, key: str, hint: str | None = None) -> Iterator[None]:
    """Around a `from_pretrained(name)` call configured by `key` (`model.pretrained`, `tokenizer.name`, …); `hint`
    replaces the default way out (`hf download`) where a config has its own (e.g. a `local_files_only` switch)."""
    try:
        yield
    except OSError as err:  # transformers, diffusers and huggingface_hub raise OSError subclasses when offline
        hint = hint or f"download it where the Hub is reachable (hf download {name})"
        raise DatasetNotFoundError(f"{key}='{name}' could not be loaded ({str(err).splitlines()[0]}); {hint} "
                                   f"or set {key} to a local folder") from None
