"""PROTAC-8K: read the flattened CSV, resolve duplicate triplets, featurise molecules, targets and E3s.

A record is a (PROTAC SMILES, target, E3 ligase) tuple with a label 1 (high degradation), 0 (low) or
-1 (unlabeled). `load_protac8k` returns a `Protac8K` bundle that the Lightning datamodule and the
scikit-learn baselines index into: one ECFP row per distinct SMILES, integer ids for targets and E3s
(built from names only, never labels), and optional sequence features for the proteins that
PROTAC-Degradation-DB gives a sequence for.

Duplicate / conflicting triplets (the data has 86 labelled triplets with several records, 22 of
them with both labels): the official test records are never touched (all 301 stay, as published).
Among the *training* records of a split, `resolve_duplicates` keeps one row per triplet; a triplet
whose training records disagree is dropped (`conflicts=drop`, default), resolved by majority
(`majority`, ties dropped) or kept as it is (`keep`). Only training labels decide it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from reprolab.cli.errors import CorruptDataError, DatasetNotFoundError
from reprolab.config.extras import require
from reprolab.data.array_cache import cached_array

CSV_NAME = "protac8k.csv"
COLUMNS = ("id", "smiles", "target_name", "target_uniprot", "e3_name", "e3_uniprot", "label", "split_seed111")
PREPARE_HINT = ("run `make data-protac-8k` (fetches and checks it; scripts/data/prepare_protac8k.py builds it "
                "from a local name.json) or set REPROLAB_DATA or paths.data_dir")
AMINO_ACIDS = "ACDEFGHIKLMNPQRSTVWY"
SEQ_DIM = len(AMINO_ACIDS) + len(AMINO_ACIDS) ** 2  # composition + dipeptide composition


def read_protac8k_csv(path: Path) -> pd.DataFrame:
    """Read and check `protac8k.csv`; add `target`/`e3` keys (name_UniProt, as in the .pdb names)."""
    if not path.is_file():
        raise DatasetNotFoundError(f"PROTAC-8K not found at '{path}'; {PREPARE_HINT}")
    try:
        df = pd.read_csv(path)
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as err:
        raise CorruptDataError(f"'{path}' is not a readable CSV ({err}); re-create it: {PREPARE_HINT}") from err
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise CorruptDataError(f"'{path}' lacks columns {missing}; re-create it: {PREPARE_HINT}")
    if df[list(COLUMNS)].isna().any().any() or not df.label.isin([-1, 0, 1]).all():
        raise CorruptDataError(f"'{path}' has empty fields or labels outside {{-1, 0, 1}}; {PREPARE_HINT}")
    df = df.copy()
    df["target"] = df.target_name.astype(str) + "_" + df.target_uniprot.astype(str)
    df["e3"] = df.e3_name.astype(str) + "_" + df.e3_uniprot.astype(str)
    return df.reset_index(drop=True)


def resolve_duplicates(records: pd.DataFrame, conflicts: str = "drop") -> pd.DataFrame:
    """One labelled row per (smiles, target, e3) triplet among `records` (training records only).

    conflicts: 'drop' removes triplets whose records disagree, 'majority' keeps the majority label
    (ties dropped), 'keep' returns the records unchanged (duplicates and conflicts included).
    """
    if conflicts == "keep":
        return records
    if conflicts not in ("drop", "majority"):
        raise ValueError(f"conflicts must be 'drop', 'majority' or 'keep', got '{conflicts}'")
    keys = ["smiles", "target", "e3"]
    mean = records.groupby(keys, sort=False).label.transform("mean")
    keep = (mean == 0) | (mean == 1) if conflicts == "drop" else mean != 0.5
    out = records[keep].copy()
    out["label"] = (mean[keep] > 0.5).astype(int)
    return out.drop_duplicates(keys).reset_index(drop=True)


@lru_cache(maxsize=4)
def ecfp_matrix(smiles: tuple[str, ...], radius: int = 2, n_bits: int = 2048, cache_dir: str | None = None) -> np.ndarray:
    """RDKit Morgan (ECFP{2r}) bit fingerprints, one uint8 0/1 row per SMILES (kept under `cache_dir`, keyed by the
    SMILES, radius, bits and RDKit version; memoised in the process)."""
    require("rdkit", "degradequery")
    import rdkit

    inputs = {"smiles": smiles, "radius": radius, "bits": n_bits, "fingerprint": "morgan_bits", "rdkit": rdkit.__version__}
    return cached_array(cache_dir, "protac8k-ecfp", inputs, lambda: _morgan_bits(smiles, radius, n_bits))


def _morgan_bits(smiles: tuple[str, ...], radius: int, n_bits: int) -> np.ndarray:
    from rdkit import Chem, RDLogger
    from rdkit.Chem import rdFingerprintGenerator

    RDLogger.DisableLog("rdApp.*")
    gen = rdFingerprintGenerator.GetMorganGenerator(radius=radius, fpSize=n_bits)
    out = np.zeros((len(smiles), n_bits), dtype=np.uint8)
    for i, smi in enumerate(smiles):
        mol = Chem.MolFromSmiles(smi)
        if mol is None:
            raise CorruptDataError(f"RDKit cannot parse SMILES #{i} '{smi[:60]}...'")
        out[i] = gen.GetFingerprintAsNumPy(mol)
    return out


@cache
def sequence_features(sequence: str) -> np.ndarray:
    """Amino-acid composition (20) + dipeptide composition (400) of one protein sequence (memoised: every run of a
    sweep builds the same tables; callers copy the row)."""
    seq = "".join(c for c in sequence.upper() if c in AMINO_ACIDS)
    index = {a: i for i, a in enumerate(AMINO_ACIDS)}
    mono = np.zeros(len(AMINO_ACIDS), dtype=np.float32)
    di = np.zeros(len(AMINO_ACIDS) ** 2, dtype=np.float32)
    for a in seq:
        mono[index[a]] += 1
    for a, b in zip(seq, seq[1:], strict=False):
        di[index[a] * len(AMINO_ACIDS) + index[b]] += 1
    return np.concatenate([mono / max(len(seq), 1), di / max(len(seq) - 1, 1)])


@lru_cache(maxsize=4)
def protein_sequences(db_csv: Path) -> dict[str, str]:
    """UniProt id -> sequence from PROTAC-Degradation-DB (POI and E3 columns); {} when absent (memoised; read only)."""
    if not db_csv.is_file():
        return {}
    cols = ["Uniprot", "POI Sequence", "E3 Ligase Uniprot", "E3 Ligase Sequence"]
    db = pd.read_csv(db_csv, usecols=cols)
    pairs = list(zip(db["Uniprot"], db["POI Sequence"], strict=False)) + list(zip(db["E3 Ligase Uniprot"], db["E3 Ligase Sequence"], strict=False))
    return {str(u): str(s) for u, s in pairs if isinstance(s, str) and isinstance(u, str)}


@dataclass
class Protac8K:
    """Records plus the lookup tables every model indexes into (built without looking at labels)."""

    records: pd.DataFrame  # one row per record; columns of the CSV + mol/target_id/e3_id
    fingerprints: np.ndarray  # [n_smiles, n_bits] uint8, row = records.mol
    targets: list[str]
    e3s: list[str]
    target_seq: np.ndarray = field(default=None)  # [n_targets, SEQ_DIM] float32, zeros where unknown
    e3_seq: np.ndarray = field(default=None)

    @property
    def smiles(self) -> list[str]:
        return list(self.records.drop_duplicates("mol").sort_values("mol").smiles)

    def tuples(self, rows: pd.DataFrame) -> np.ndarray:
        """[n, 3] int64 (mol, target_id, e3_id) of `rows`."""
        return rows[["mol", "target_id", "e3_id"]].to_numpy(dtype=np.int64, copy=True)


def load_protac8k(
    data_dir: str | Path,
    subdir: str = "protac-8k",
    fp_radius: int = 2,
    fp_bits: int = 2048,
    sequence_db: str | None = "protac-degradation-db/PROTAC-Degradation-DB.csv",
    cache_dir: str | None = None,
) -> Protac8K:
    """Read `<data_dir>/<subdir>/protac8k.csv` and build fingerprints (kept under `cache_dir` when given), ids and
    sequence features."""
    records = read_protac8k_csv(Path(data_dir) / subdir / CSV_NAME)
    smiles = tuple(pd.unique(records.smiles))
    mol_of = {s: i for i, s in enumerate(smiles)}
    targets, e3s = sorted(records.target.unique()), sorted(records.e3.unique())
    records["mol"] = records.smiles.map(mol_of)
    records["target_id"] = records.target.map({t: i for i, t in enumerate(targets)})
    records["e3_id"] = records.e3.map({e: i for i, e in enumerate(e3s)})
    seqs = protein_sequences(Path(data_dir) / sequence_db) if sequence_db else {}

    def seq_table(keys: list[str]) -> np.ndarray:
        table = np.zeros((len(keys), SEQ_DIM), dtype=np.float32)
        for i, key in enumerate(keys):
            uniprot = key.rsplit("_", 1)[-1]
            if uniprot in seqs:
                table[i] = sequence_features(seqs[uniprot])
        return table

    return Protac8K(
        records=records,
        fingerprints=ecfp_matrix(smiles, fp_radius, fp_bits, None if cache_dir is None else str(cache_dir)),
        targets=targets,
        e3s=e3s,
        target_seq=seq_table(targets),
        e3_seq=seq_table(e3s),
    )


def print_records_report(report, argv: list[str] | None = None) -> dict:
    """`report(records)` of the PROTAC-8K records as JSON, the data folder from the composed
    `experiment=degradequery/main` config and command-line overrides (e.g. `paths.data_dir=...`)."""
    import json
    import sys

    from reprolab.config.compose import compose

    cfg = compose(["experiment=degradequery/main", *(sys.argv[1:] if argv is None else argv)])
    result = report(load_protac8k(cfg.data.data_dir, cfg.data.subdir).records)
    print(json.dumps(result, indent=1))
    return result
