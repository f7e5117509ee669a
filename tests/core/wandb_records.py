"""What an offline W&B run file holds, for tests that check what a run sent to W&B.

The `.wandb` file is a LevelDB-style log of wandb protobuf records (a 7-byte header, then 32 KiB blocks of
chunks `crc32 (4) | length (2, LE) | kind (1) | payload`). W&B has no public reader of it; the project itself never
reads it (curves come from the CSV logger every W&B preset runs beside it), only these tests do."""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

BLOCK_SIZE, FILE_HEADER, CHUNK_HEADER = 32 * 1024, 7, 7
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4
STEP_KEYS = ("trainer/global_step", "_step")  # Lightning's step, else W&B's own counter


def iter_records(path: str | Path) -> Iterator:
    """Every protobuf `Record` in a .wandb file, in order (a truncated tail is ignored)."""
    from wandb.proto import wandb_internal_pb2

    data = Path(path).read_bytes()
    pos, parts = FILE_HEADER, []
    while pos + CHUNK_HEADER <= len(data):
        if BLOCK_SIZE - pos % BLOCK_SIZE < CHUNK_HEADER:  # the block's zero-padded tail
            pos += BLOCK_SIZE - pos % BLOCK_SIZE
            continue
        _, length, kind = struct.unpack("<IHB", data[pos : pos + CHUNK_HEADER])
        payload = data[pos + CHUNK_HEADER : pos + CHUNK_HEADER + length]
        pos += CHUNK_HEADER + length
        parts = [payload] if kind in (FULL, FIRST) else [*parts, payload]
        if kind in (FULL, LAST):
            record = wandb_internal_pb2.Record()
            record.ParseFromString(b"".join(parts))
            yield record


def item_key(item) -> str:
    return item.key or "/".join(item.nested_key)


def history(path: str | Path) -> pd.DataFrame:
    """One row per `wandb.log` call, one column per logged key, plus a `step` column."""
    rows = []
    for record in iter_records(path):
        if record.WhichOneof("record_type") == "history":
            rows.append({item_key(i): json.loads(i.value_json) for i in record.history.item})
    frame = pd.DataFrame(rows)
    for key in STEP_KEYS:
        if key in frame.columns:
            frame["step"] = frame[key]
            break
    return frame


def run_history_files(run_dir: str | Path) -> list[Path]:
    """The .wandb files of a run folder (the WandbLogger's save_dir is the run folder)."""
    return sorted(Path(run_dir).glob("wandb/*run-*/run-*.wandb"))


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
