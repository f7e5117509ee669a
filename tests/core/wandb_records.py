"""Keys logged in an offline W&B run file, read with the results tool's record reader."""

from __future__ import annotations

import json
from pathlib import Path

from reprolab.results.wandb_log import item_key, iter_records


def read_records(path: Path) -> list:
    return list(iter_records(path))


def logged_keys(records: list, kind: str) -> set[str]:
    """Keys of 'history', 'summary' or 'config' records."""
    items = {"history": lambda r: r.history.item, "summary": lambda r: r.summary.update,
             "config": lambda r: r.config.update}[kind]
    return {item_key(i) for r in records if r.WhichOneof("record_type") == kind for i in items(r)}


def final_summary(records: list) -> dict:
    """The run summary as the last summary records leave it (key → decoded value)."""
    summary = {}
    for record in records:
        if record.WhichOneof("record_type") == "summary":
            summary.update({item_key(i): json.loads(i.value_json) for i in record.summary.update})
    return summary
