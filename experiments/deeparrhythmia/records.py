"""ECG records with reference beat annotations: the MIT-BIH / SVDB / INCART WFDB databases (PhysioNet, read with
`wfdb`), the offline `mitbih-tpcp-subset` (channel 0, PVC-vs-rest labels), and the AAMI beat classes.

AAMI EC57 groups the MIT-BIH beat symbols into five classes (de Chazal, O'Dwyer & Reilly 2004, Table I):
N (N L R e j), S (A a J S), V (V E), F (F), Q (/ f Q). The paced records 102, 104, 107 and 217 are left out, as
AAMI recommends; de Chazal's inter-patient split trains on DS1 and tests on DS2 (22 records each, same paper, §II-A).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.signal import resample_poly

from reprolab.cli.errors import ConfigError, CorruptDataError, DatasetNotFoundError
from reprolab.config.extras import require

AAMI_CLASSES = ("N", "S", "V", "F", "Q")
AAMI_OF_SYMBOL = {
    **dict.fromkeys("NLRej", "N"), **dict.fromkeys("AaJS", "S"), **dict.fromkeys("VE", "V"), "F": "F",
    **dict.fromkeys("/fQ", "Q"),
}
NOT_V = "-"  # a beat known to be not a PVC whose symbol the source does not give (the tpcp subset)
PACED = ("102", "104", "107", "217")
DS1 = ("101", "106", "108", "109", "112", "114", "115", "116", "118", "119", "122", "124", "201", "203", "205",
       "207", "208", "209", "215", "220", "223", "230")
DS2 = ("100", "103", "105", "111", "113", "117", "121", "123", "200", "202", "210", "212", "213", "214", "219",
       "221", "222", "228", "231", "232", "233", "234")
TPCP_RECORDS = ("100", "102", "104", "105", "106", "108", "114", "116", "119", "121", "123", "200")
TPCP_GAIN = 200.0  # ADC units per mV (the subset's SOURCE.md)
TPCP_FS = 360
PHYSIONET_DATABASES = ("mitdb", "svdb", "incartdb")


@dataclass
class Record:
    """One lead of one record: `signal` in mV at `fs` Hz, `peaks` the annotated R-peak samples, `symbols` their
    beat symbols (MIT-BIH letters, or `NOT_V`)."""

    name: str
    signal: np.ndarray
    fs: float
    peaks: np.ndarray
    symbols: np.ndarray
    lead: str

    def resampled(self, fs: float) -> Record:
        """The record at `fs` Hz (polyphase resampling); peaks move to the nearest new sample."""
        if fs == self.fs:
            return self
        up, down = _ratio(fs, self.fs)
        signal = resample_poly(self.signal, up, down).astype(np.float32)
        peaks = np.clip(np.round(self.peaks * fs / self.fs).astype(np.int64), 0, len(signal) - 1)
        return Record(self.name, signal, fs, peaks, self.symbols, self.lead)


def _ratio(new: float, old: float) -> tuple[int, int]:
    from fractions import Fraction

    frac = Fraction(new / old).limit_denominator(1000)
    return frac.numerator, frac.denominator


def is_pvc(symbols: np.ndarray) -> np.ndarray:
    """AAMI class V (V and E beats)."""
    return np.isin(symbols, ["V", "E"])


def labels_for(symbols: np.ndarray, classes: str) -> np.ndarray:
    """Class indices: `pvc` -> 0 not-V, 1 V; `aami` -> index in AAMI_CLASSES (a beat with no AAMI class is -1)."""
    if classes == "pvc":
        return is_pvc(symbols).astype(np.int64)
    if classes == "aami":
        if (symbols == NOT_V).any():
            raise ConfigError("classes=aami needs full beat symbols, but these records only say PVC or not "
                            "(the tpcp subset); use data.classes=pvc or WFDB records")
        index = {c: i for i, c in enumerate(AAMI_CLASSES)}
        return np.array([index.get(AAMI_OF_SYMBOL.get(s, ""), -1) for s in symbols], dtype=np.int64)
    raise ConfigError(f"data.classes must be 'pvc' (V vs rest) or 'aami' (N, S, V, F, Q); got {classes!r}")


def class_names(classes: str) -> tuple[str, ...]:
    return ("non-V", "V") if classes == "pvc" else AAMI_CLASSES


# ---------------------------------------------------------------- the offline tpcp subset
def load_tpcp(folder: Path, name: str, symbols_from: Path | None = None) -> Record:
    """`<name>_ecg_adc.npy` (channel 0, ADC units minus baseline, mV = value / 200), R peaks from `<name>_all.csv`,
    PVCs from `<name>_pvc.csv`; every other beat is `NOT_V`. When `symbols_from` is a WFDB folder holding the same
    record (mitbih-100 for record 100), its reference symbols replace them, checked beat for beat."""
    folder = Path(folder)
    path = folder / f"{name}_ecg_adc.npy"
    if not path.is_file():
        raise DatasetNotFoundError(f"'{folder}' has no {path.name}; the tpcp subset holds records "
                                   f"{', '.join(TPCP_RECORDS)} (see its SOURCE.md), or set paths.data_dir")
    signal = np.load(path).astype(np.float32) / TPCP_GAIN
    peaks = _csv_column(folder / f"{name}_all.csv", "R")
    pvcs = _csv_column(folder / f"{name}_pvc.csv", "PVC")
    if not np.isin(pvcs, peaks).all():
        raise CorruptDataError(f"{folder}/{name}_pvc.csv names samples that are not beats of {name}_all.csv")
    symbols = np.where(np.isin(peaks, pvcs), "V", NOT_V).astype("<U1")
    if symbols_from is not None and (Path(symbols_from) / f"{name}.atr").is_file():
        reference = load_wfdb(Path(symbols_from), name, lead=None)
        if not np.array_equal(reference.peaks, peaks) or not np.array_equal(is_pvc(reference.symbols), symbols == "V"):
            raise CorruptDataError(f"{symbols_from}/{name}.atr does not match the tpcp subset's beats of record {name}")
        symbols = reference.symbols
    # SOURCE.md: channel 0 is MLII except 102 and 104 (V5) and 114 (signals swapped: V5)
    lead = "V5" if name in ("102", "104", "114") else "MLII"
    return Record(name, signal, TPCP_FS, peaks, symbols, lead)


def _csv_column(path: Path, column: str) -> np.ndarray:
    if not path.is_file():
        raise DatasetNotFoundError(f"no {path}; the tpcp subset is incomplete (see its SOURCE.md)")
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    if rows and column not in rows[0]:
        raise CorruptDataError(f"{path} has no column '{column}' (columns: {', '.join(rows[0])})")
    return np.array([int(r[column]) for r in rows], dtype=np.int64)


# ---------------------------------------------------------------- WFDB databases (PhysioNet)
def load_wfdb(folder: Path, name: str, lead: str | None = "MLII") -> Record:
    """One lead (`lead` by signal name, e.g. MLII; None: channel 0) and the beat annotations of `<folder>/<name>`
    (`.hea`, `.dat`, `.atr`); non-beat annotations (rhythm, noise, comments) are dropped."""
    wfdb = require("wfdb", "deeparrhythmia")

    base = Path(folder) / name
    if not base.with_suffix(".hea").is_file():
        raise DatasetNotFoundError(f"no WFDB record {base}.hea; run `make data-deeparrhythmia-physionet` "
                                   f"(downloads mitdb, svdb, incartdb) or set paths.data_dir")
    record = wfdb.rdrecord(str(base))
    channel = 0
    if lead is not None:
        if lead not in record.sig_name:
            raise ConfigError(f"record {base} has no lead {lead!r} (it has {', '.join(record.sig_name)}); "
                            "set data.lead or leave the record out")
        channel = record.sig_name.index(lead)
    annotation = wfdb.rdann(str(base), "atr")
    symbols = np.array(annotation.symbol)
    beats = np.isin(symbols, list(AAMI_OF_SYMBOL))
    signal = np.nan_to_num(record.p_signal[:, channel]).astype(np.float32)
    return Record(name, signal, float(record.fs), np.asarray(annotation.sample)[beats].astype(np.int64),
                  symbols[beats].astype("<U1"), record.sig_name[channel])


def download_physionet(database: str, target: Path, records: list[str] | None = None) -> Path:
    """`target/` with the WFDB files (`.hea`, `.dat`, `.atr`) of `records` (None: all) of PhysioNet's `database`
    (mitdb, svdb, incartdb), by `wfdb.dl_database`; a folder already holding every wanted header is left alone."""
    wfdb = require("wfdb", "deeparrhythmia")

    if database not in PHYSIONET_DATABASES:
        raise ConfigError(f"unknown PhysioNet database {database!r}; known: {', '.join(PHYSIONET_DATABASES)}")
    target = Path(target)
    try:
        names = records or wfdb.get_record_list(database)
        if all((target / f"{n}.hea").is_file() for n in names):
            return target
        target.mkdir(parents=True, exist_ok=True)
        wfdb.dl_database(database, dl_dir=str(target), records=list(names), annotators=["atr"],
                         keep_subdirs=False, overwrite=False)
    except Exception as err:  # requests' errors are not OSErrors
        raise DatasetNotFoundError(f"could not download {database} from PhysioNet ({type(err).__name__}: {err}); "
                                   f"without network, copy {target} from a machine that has it") from None
    return target


def download_vitaldb(folder: Path, case_ids: list[int], track: str = "SNUADC/ECG_II", fs: float = 500.0) -> Path:
    """Optional: VitalDB ECG tracks (the `vitaldb` package) as `<folder>/vitaldb/<case>.npy` at `fs` Hz. VitalDB
    has no reference beat annotations, so these signals feed the agent preset, not a scored split."""
    try:
        import vitaldb
    except ImportError:
        raise ConfigError("VitalDB needs the `vitaldb` package: pip install vitaldb") from None
    target = Path(folder) / "vitaldb"
    target.mkdir(parents=True, exist_ok=True)
    for case in case_ids:
        values = vitaldb.load_case(int(case), [track], 1.0 / fs)
        np.save(target / f"{case}.npy", np.asarray(values, dtype=np.float32)[:, 0])
    return target
