"""Read the records of an offline W&B run file (`run-*.wandb`: a LevelDB-style log of protobufs)."""

from __future__ import annotations

import struct
from pathlib import Path

from wandb.proto import wandb_internal_pb2

BLOCK, HEADER, FILE_HEADER = 32768, 7, 7  # block size, record header, ':W&B' + magic + version
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4


def read_records(path: Path) -> list:
    data, pos, records, pending = Path(path).read_bytes(), FILE_HEADER, [], b""
    while pos + HEADER <= len(data):
        left_in_block = BLOCK - pos % BLOCK
        if left_in_block < HEADER:
            pos += left_in_block  # zero padding at a block's end
            continue
        _, length, kind = struct.unpack("<IHB", data[pos:pos + HEADER])
        chunk = data[pos + HEADER:pos + HEADER + length]
        pos += HEADER + length
        pending = chunk if kind in (FULL, FIRST) else pending + chunk
        if kind in (FULL, LAST):
            record = wandb_internal_pb2.Record()
            record.ParseFromString(pending)
            records.append(record)
    return records


def logged_keys(records: list, kind: str) -> set[str]:
    """Keys of 'history', 'summary' or 'config' records."""
    items = {"history": lambda r: r.history.item, "summary": lambda r: r.summary.update,
             "config": lambda r: r.config.update}[kind]
    return {i.key or "/".join(i.nested_key) for r in records if r.WhichOneof("record_type") == kind for i in items(r)}
