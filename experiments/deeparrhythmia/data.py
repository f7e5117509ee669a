"""The beat-segment datamodule: records split by patient (never inside a record), segments of L beats with every
evidence block, and the test record's early-normal confounders.

Protocols (`protocol`):
- `loro`: leave one record out; `test_record` is the test set, every other record of `records` (less `exclude`)
  trains. A claim sweep runs one job per (arm, test record, seed).
- `split`: `train_records` -> `test_records` (de Chazal's DS1 -> DS2, or a cross-database test).
Validation re-reads the training segments (no test record ever reaches a choice); the router's inner folds
(`inner_folds`, records dealt round-robin) give each training segment an out-of-fold index.
"""

from __future__ import annotations

import zlib
from dataclasses import asdict
from pathlib import Path

import lightning as L
import numpy as np
import torch
from torch.utils.data import TensorDataset

from experiments.deeparrhythmia import records as rec
from experiments.deeparrhythmia.features import (
    CONTEXT_SCALARS,
    RHYTHM_FEATURES,
    RR_FEATURES,
    Segments,
    Windowing,
    band_passed,
    confounder_segments,
    pack,
    record_segments,
    unpack,
)
from reprolab.cli.errors import ConfigError, CorruptDataError, DatasetNotFoundError
from reprolab.data.array_cache import cached_array
from reprolab.data.tensor_loader import tensor_loader

FIELDS = ("beats", "rr", "rhythm", "context", "context_scalars", "labels", "group", "atrial", "inner_fold")
SOURCES = ("tpcp", "wfdb")
FEATURES_VERSION = 1  # bump when features.py changes what a cached record holds


def batch_dict(batch) -> dict[str, torch.Tensor]:
    """A loader's tuple as the named fields the models and tasks read."""
    return dict(zip(FIELDS, batch, strict=True))


class ArrhythmiaDataModule(L.LightningDataModule):
    def __init__(self, source: str = "tpcp", data_dir: str = "data", folder: str = "mitbih-tpcp-subset",
                 symbols_folder: str | None = "mitbih-100", databases: dict | None = None,
                 records: list | None = None, exclude: list | None = None, protocol: str = "loro",
                 test_record: str | int | None = None, train_records: list | None = None,
                 test_records: list | None = None, classes: str = "pvc", num_classes: int | None = None,
                 lead: str | None = "MLII", leads: dict | None = None,
                 fs: float = 120.0, pre_s: float = 0.25, post_s: float = 0.45, segment_beats: int = 10,
                 local_beats: int = 5, band: list | None = None, confounders: int = 50,
                 confounder_fractions: list | None = None, confounder_seed: int = 0, inner_folds: int = 3,
                 batch_size: int = 32, eval_batch_size: int = 512, download: bool = False,
                 cache_dir: str | None = None):
        super().__init__()
        if source not in SOURCES:
            raise ConfigError(f"data.source must be one of {', '.join(SOURCES)}; got {source!r}")
        if protocol not in ("loro", "split"):
            raise ConfigError(f"data.protocol must be 'loro' (leave one record out) or 'split'; got {protocol!r}")
        self.source, self.data_dir, self.folder, self.symbols_folder = source, Path(data_dir), folder, symbols_folder
        self.databases = dict(databases or {})
        self.exclude = [str(r) for r in (rec.PACED if exclude is None else exclude)]
        self.train_names, self.test_names = self._split(protocol, records, test_record, train_records, test_records)
        self.classes, self.lead, self.leads, self.inner_folds = classes, lead, dict(leads or {}), inner_folds
        self.window = Windowing(fs, pre_s, post_s, segment_beats, local_beats, tuple(band or (0.5, 40.0)))
        self.confounders, self.confounder_seed = confounders, confounder_seed
        self.confounder_fractions = tuple(confounder_fractions or (0.20, 0.35))
        if not 0 < self.confounder_fractions[0] <= self.confounder_fractions[1] < 1:
            raise ConfigError(f"data.confounder_fractions must be 0 < low <= high < 1; got {self.confounder_fractions}")
        self.batch_size, self.eval_batch_size, self.download = batch_size, eval_batch_size, download
        self.cache_dir = cache_dir
        self.num_classes = len(rec.class_names(classes)) if classes in ("pvc", "aami") else None
        if self.num_classes is None or num_classes not in (None, self.num_classes):
            raise ConfigError(f"data.classes={classes!r} with data.num_classes={num_classes}: use pvc (2 classes) "
                              "or aami (5)")
        self.sets: dict[str, TensorDataset] = {}
        self.class_counts: torch.Tensor | None = None

    # ------------------------------------------------------------ which records
    def _split(self, protocol, records, test_record, train_records, test_records) -> tuple[list[str], list[str]]:
        names = lambda xs: [str(x) for x in xs]  # noqa: E731
        if protocol == "loro":
            pool = [r for r in names(records or rec.TPCP_RECORDS) if r not in self.exclude]
            if test_record is None or str(test_record) not in pool:
                raise ConfigError(f"data.test_record must be one of the records left after excluding "
                                  f"{self.exclude}: {', '.join(pool)}; got {test_record!r}")
            train, test = [r for r in pool if r != str(test_record)], [str(test_record)]
        else:
            if not train_records or not test_records:
                raise ConfigError("protocol=split needs data.train_records and data.test_records")
            train, test = names(train_records), names(test_records)
        shared = sorted(set(train) & set(test))
        if shared:
            raise ConfigError(f"records {', '.join(shared)} are in both the training and the test set: "
                              "a record is never split")
        excluded = [r for r in train + test if r in self.exclude]
        if excluded:
            raise ConfigError(f"records {', '.join(excluded)} are excluded (paced: data.exclude) but listed")
        return train, test

    def inner_fold_of(self) -> dict[str, int]:
        """Training record -> inner fold (dealt round-robin in the listed order)."""
        k = max(1, int(self.inner_folds))
        return {name: i % k for i, name in enumerate(self.train_names)}

    # ------------------------------------------------------------ loading
    def prepare_data(self) -> None:
        if self.source == "wfdb" and self.download:
            by_db: dict[str, list[str]] = {}
            for name in self.train_names + self.test_names:
                db, _, record = name.rpartition(":")
                by_db.setdefault(db or "mitdb", []).append(record)
            for db, names in by_db.items():
                wanted = None if "*" in names else names
                rec.download_physionet(db, self.data_dir / self.databases.get(db, db), wanted)

    def load(self, name: str) -> rec.Record:
        """A record by name (`100`, or `svdb:800` for another database), at the model's rate."""
        if self.source == "tpcp":
            symbols = self.data_dir / self.symbols_folder if self.symbols_folder else None
            record = rec.load_tpcp(self.data_dir / self.folder, name, symbols)
        else:
            db, _, number = name.rpartition(":")
            db = db or "mitdb"
            record = rec.load_wfdb(self.data_dir / self.databases.get(db, db), number, self.leads.get(db, self.lead))
        return record.resampled(self.window.fs)

    def record_sets(self, name: str, with_confounders: bool) -> Segments:
        """A record's segments (and, for a test record, its confounders), computed once per input set and kept
        under `cache_dir` (`reprolab.data.array_cache`): a sweep's jobs read them instead of re-filtering."""
        inputs = {"version": FEATURES_VERSION, "record": name, "source": self.source, "files": self._file_stamps(name),
                  "classes": self.classes,
                  "lead": self.leads.get(name.rpartition(":")[0] or "mitdb", self.lead), "window": asdict(self.window),
                  "confounders": [self.confounders, list(self.confounder_fractions), self.confounder_seed]
                  if with_confounders else None}
        packed = cached_array(self.cache_dir, f"deeparrhythmia-{name.replace(':', '_')}", inputs,
                              lambda: pack(self._compute(name, with_confounders)))
        return unpack(packed, self.window.length)

    def _file_stamps(self, name: str) -> list:
        if self.source == "tpcp":
            files = [self.data_dir / self.folder / f"{name}{s}" for s in ("_ecg_adc.npy", "_all.csv", "_pvc.csv")]
            if self.symbols_folder:
                files += [self.data_dir / self.symbols_folder / f"{name}{s}" for s in (".hea", ".atr")]
        else:
            db, _, number = name.rpartition(":")
            base = self.data_dir / self.databases.get(db or "mitdb", db or "mitdb") / number
            files = [base.with_suffix(s) for s in (".hea", ".dat", ".atr")]
        return [[str(p), p.stat().st_size, int(p.stat().st_mtime)] if p.is_file() else [str(p), None] for p in files]

    def _compute(self, name: str, with_confounders: bool) -> Segments:
        record = self.load(name)
        signal = band_passed(record.signal, record.fs, self.window.band)
        labels = rec.labels_for(record.symbols, self.classes)
        parts = [record_segments(signal, record.peaks, labels, record.symbols, self.window)]
        if with_confounders and self.confounders > 0:
            seed = self.confounder_seed * 1_000_003 + zlib.crc32(name.encode())
            spliced = confounder_segments(signal, record.peaks, labels, record.symbols, self.window,
                                          self.confounders, self.confounder_fractions, seed)
            if spliced is not None:
                parts.append(spliced)
        return Segments.concat(parts)

    def expand(self, names: list[str]) -> list[str]:
        """`db:*` -> every record of that database folder (`db:<name>` each), once it is downloaded."""
        out = []
        for name in names:
            db, _, number = name.rpartition(":")
            if number != "*":
                out.append(name)
                continue
            folder = self.data_dir / self.databases.get(db, db)
            found = sorted(p.stem for p in folder.glob("*.hea"))
            if not found:
                raise DatasetNotFoundError(f"no WFDB headers in {folder} for '{name}'; run `make "
                                           "data-deeparrhythmia-physionet` or set paths.data_dir")
            out += [f"{db}:{n}" for n in found if n not in self.exclude]
        return out

    def setup(self, stage: str | None = None) -> None:
        if self.sets:
            return
        self.train_names, self.test_names = self.expand(self.train_names), self.expand(self.test_names)
        folds = self.inner_fold_of()
        train = [(self.record_sets(name, False), folds[name]) for name in self.train_names]
        test = [(self.record_sets(name, True), -1) for name in self.test_names]
        self.sets["train"] = self._tensors(train)
        self.sets["test"] = self._tensors(test)
        labels = self.sets["train"].tensors[FIELDS.index("labels")]
        self.class_counts = torch.bincount(labels[labels >= 0], minlength=self.num_classes)

    def _tensors(self, parts: list[tuple[Segments, int]]) -> TensorDataset:
        if not parts:
            raise CorruptDataError("no segments: every record was excluded or too short")
        seg = Segments.concat([p for p, _ in parts])
        fold = np.concatenate([np.full(len(p), f) for p, f in parts])
        arrays = [seg.beats, seg.rr, seg.rhythm, seg.context, seg.context_scalars, seg.labels, seg.group, seg.atrial,
                  fold]
        return TensorDataset(*(torch.from_numpy(np.ascontiguousarray(a)) for a in arrays))

    def fake_setup(self, stage: str | None = None) -> None:
        """`+data/fake=on`: random segments of the real shapes, labels in range (no files read)."""
        g = torch.Generator().manual_seed(0)
        length, seg = self.window.length, self.window.segment_beats

        def random_set(n: int) -> TensorDataset:
            labels = torch.randint(0, self.num_classes, (n, seg), generator=g)
            return TensorDataset(torch.randn(n, seg, length, generator=g), torch.rand(n, seg, RR_FEATURES, generator=g) + 0.5,
                                 torch.rand(n, seg, RHYTHM_FEATURES, generator=g), torch.randn(n, seg, length, generator=g),
                                 torch.rand(n, seg, CONTEXT_SCALARS, generator=g), labels,
                                 torch.randint(0, 2, (n, seg), generator=g), torch.zeros(n, seg, dtype=torch.bool),
                                 torch.randint(0, max(1, self.inner_folds), (n,), generator=g))
        self.sets = {"train": random_set(4 * self.batch_size), "test": random_set(self.batch_size)}
        self.class_counts = torch.ones(self.num_classes, dtype=torch.long)

    # ------------------------------------------------------------ loaders
    def train_dataloader(self):
        return tensor_loader(self.sets["train"], self.batch_size, shuffle=True)

    def val_dataloader(self):
        return tensor_loader(self.sets["train"], self.eval_batch_size)

    def test_dataloader(self):
        return tensor_loader(self.sets["test"], self.eval_batch_size)
