"""Numeric CSV tables read strictly: a row cut short, an empty or text cell in a numeric column, or a missing
column ends the run with one line naming the file, line and column (never NaNs that train "successfully").
A table read is kept for the process while its file is unchanged (same size, modification time and inode):
the jobs of a sweep read the same file (~5 ms of Python for ENB2012's 768 rows); each caller gets its own copy."""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from reprolab.cli.errors import CorruptDataError


def _number(cell: str, where: str, hint: str) -> float:
    try:
        value = float(cell)
    except ValueError:
        raise CorruptDataError(f"{where}: {cell!r} is not a number; {hint}") from None
    if not math.isfinite(value):
        raise CorruptDataError(f"{where}: {cell!r} is a missing or infinite value; {hint}")
    return value


_KEPT: dict[tuple, np.ndarray] = {}  # (path, columns, size, mtime, inode) → the table as read
KEPT_TABLES = 16


def read_numeric_csv(path: str | Path, columns: Sequence[str] | None = None, *, hint: str) -> np.ndarray:
    """The `columns` (all when None) of the CSV at `path` as a float64 array, one row per data line; every line
    must have the header's number of fields. `hint` says what to do (e.g. the command that re-creates the file)."""
    try:
        stat = Path(path).stat()
    except OSError:
        return _read(Path(path), columns, hint)  # the read names what is wrong
    key = (str(Path(path).resolve()), None if columns is None else tuple(columns), stat.st_size, stat.st_mtime_ns,
           stat.st_ino)
    if key not in _KEPT:
        if len(_KEPT) >= KEPT_TABLES:
            _KEPT.pop(next(iter(_KEPT)))
        _KEPT[key] = _read(Path(path), columns, hint)
    return _KEPT[key].copy()


def _read(path: Path, columns: Sequence[str] | None, hint: str) -> np.ndarray:
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            lines = [(i, row) for i, row in enumerate(csv.reader(handle), start=1) if row]
    except (UnicodeDecodeError, csv.Error) as err:
        raise CorruptDataError(f"'{path}' is not a readable CSV ({err}); {hint}") from None
    if len(lines) < 2:
        raise CorruptDataError(f"'{path}' has no data rows; {hint}")
    header = [name.strip() for name in lines[0][1]]
    wanted = list(columns) if columns is not None else header
    missing = [c for c in wanted if c not in header]
    if missing:
        raise CorruptDataError(f"'{path}' lacks the columns {missing} (has {header}); {hint}")
    index = [header.index(c) for c in wanted]
    table = np.empty((len(lines) - 1, len(wanted)))
    for r, (line, row) in enumerate(lines[1:]):
        if len(row) != len(header):
            raise CorruptDataError(f"'{path}' line {line} has {len(row)} fields where the header has {len(header)} "
                                   f"(a cut or damaged file); {hint}")
        table[r] = [_number(row[i].strip(), f"'{path}' line {line}, column '{header[i]}'", hint) for i in index]
    return table
