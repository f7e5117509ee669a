"""Molecule tables beyond ECFP bits for the scikit-learn models (`data.mol_tables`, batch key `mol_x`).

Each kind is one RDKit representation per distinct SMILES: `ecfp_count` (Morgan radius 2, counts), `fcfp_count`
(Morgan radius 2 on pharmacophoric feature invariants, counts), `atom_pair` and `torsion` (counts), `maccs`
(167 keys), `descriptors` (RDKit's 2-D descriptor list), and from the warhead / linker / E3-ligand split of the
record (`protac_parts.py`, which needs the record's ligase): `warhead_ecfp`, `linker_ecfp`, `e3_ligand_ecfp` (Morgan
radius 2 counts of the environments rooted in that part; zeros where the split failed) and `linker_descriptors`
(`protac_parts.LINKER_DESCRIPTORS`). Counting fingerprints hash into `bits` columns.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from reprolab.cli.errors import ConfigError
from reprolab.data.array_cache import cache_path, load_array, save_array

from .protac_parts import ProtacParts, linker_descriptors, split_protac

PART_KINDS = ("warhead_ecfp", "linker_ecfp", "e3_ligand_ecfp", "linker_descriptors")
KINDS = ("ecfp_count", "fcfp_count", "atom_pair", "torsion", "maccs", "descriptors", *PART_KINDS)


def _generator(kind: str, bits: int):
    from rdkit.Chem import rdFingerprintGenerator as gen

    if kind == "ecfp_count":
        return gen.GetMorganGenerator(radius=2, fpSize=bits)
    if kind == "fcfp_count":
        return gen.GetMorganGenerator(radius=2, fpSize=bits, atomInvariantsGenerator=gen.GetMorganFeatureAtomInvGen())
    if kind == "atom_pair":
        return gen.GetAtomPairGenerator(fpSize=bits)
    return gen.GetTopologicalTorsionGenerator(fpSize=bits)


def _part_row(kind: str, mol, bits: int, parts: ProtacParts) -> np.ndarray:
    if kind == "linker_descriptors":
        return linker_descriptors(mol, parts)
    atoms = {"warhead_ecfp": parts.warhead, "linker_ecfp": parts.linker, "e3_ligand_ecfp": parts.e3}[kind]
    if not atoms:
        return np.zeros(bits, dtype=np.float32)
    return _generator("ecfp_count", bits).GetCountFingerprintAsNumPy(mol, fromAtoms=list(atoms)).astype(np.float32)


def _row(kind: str, mol, bits: int, parts: ProtacParts | None) -> np.ndarray:
    if kind in PART_KINDS:
        return _part_row(kind, mol, bits, parts)
    if kind == "maccs":
        from rdkit.Chem import MACCSkeys

        return np.array(list(MACCSkeys.GenMACCSKeys(mol)), dtype=np.float32)
    if kind == "descriptors":
        from rdkit.Chem import Descriptors

        values = np.array(list(Descriptors.CalcMolDescriptors(mol).values()), dtype=np.float64)
        return np.nan_to_num(np.clip(values, -1e6, 1e6)).astype(np.float32)
    return _generator(kind, bits).GetCountFingerprintAsNumPy(mol).astype(np.float32)


_FULL: dict[Path | tuple, np.ndarray] = {}  # complete tables, by `_table_key`
_ROWS: dict[Path | tuple, dict[int, np.ndarray]] = {}  # tables being filled: row index -> row


def _table_key(kind: str, smiles: tuple[str, ...], bits: int, e3_names: tuple[str, ...], cache_dir: str | None):
    """The cache file of one kind's table (every input that decides it hashed into the name), or without a cache
    folder the inputs themselves (the in-process key)."""
    width = None if kind in ("maccs", "descriptors", "linker_descriptors") else bits
    inputs = (kind, width, smiles, e3_names if kind in PART_KINDS else None)
    if cache_dir is None:
        return inputs
    import rdkit

    return cache_path(cache_dir, f"protac8k-{kind}", {"table": inputs, "rdkit": rdkit.__version__})


class MolTables:
    """The `kinds` tables of the molecules `smiles` (with their records' ligases `e3_names`, which only the part kinds
    read), rows computed on first use and shared in the process by every MolTables of the same inputs (a sweep
    computes each molecule once, a one-batch run only its batch's); a kind's table, once complete, is kept under
    `cache_dir` (keyed by kind, bits, SMILES, [ligases] and RDKit version) and read from there."""

    def __init__(self, smiles: tuple[str, ...], kinds: tuple[str, ...], bits: int = 2048,
                 e3_names: tuple[str, ...] | None = None, cache_dir: str | None = None):
        unknown = [k for k in kinds if k not in KINDS]
        if unknown:
            raise ConfigError(f"data.mol_tables has unknown kinds {unknown}; choose from {list(KINDS)}")
        if not set(kinds) & set(PART_KINDS):
            e3_names = ("",) * len(smiles)
        elif not e3_names or not all(e3_names):
            raise ConfigError(f"the part kinds {PART_KINDS} need each record's E3 ligase name")
        self.smiles, self.e3_names, self.kinds, self.bits = tuple(smiles), tuple(e3_names), tuple(kinds), bits
        self.keys = {k: _table_key(k, self.smiles, bits, self.e3_names, cache_dir) for k in kinds}
        for key in self.keys.values():
            if key not in _FULL and key not in _ROWS:
                table = load_array(key) if isinstance(key, Path) else None
                if table is not None:
                    _FULL[key] = table
                else:
                    _ROWS[key] = {}

    def rows(self, index: np.ndarray) -> np.ndarray:
        """[len(index), sum of the kinds' widths] float32: the rows `index` of each kind, side by side."""
        self._fill(np.unique(index).tolist())
        return np.concatenate([_FULL[key][index] if key in _FULL else np.stack([_ROWS[key][i] for i in index])
                               for key in (self.keys[k] for k in self.kinds)], axis=1)

    def _fill(self, wanted: list[int]) -> None:
        """Compute the wanted rows some kind lacks (each molecule parsed, and split for the part kinds, once); store
        each table that became complete."""
        from rdkit import Chem, RDLogger

        RDLogger.DisableLog("rdApp.*")
        filling = {k: self.keys[k] for k in dict.fromkeys(self.kinds) if self.keys[k] in _ROWS}
        for i in wanted:
            kinds = [k for k, key in filling.items() if i not in _ROWS[key]]
            if not kinds:
                continue
            mol = Chem.MolFromSmiles(self.smiles[i])
            parts = split_protac(mol, self.e3_names[i]) if set(kinds) & set(PART_KINDS) else None
            for kind in kinds:
                _ROWS[filling[kind]][i] = _row(kind, mol, self.bits, parts)
        for key in filling.values():
            if len(_ROWS[key]) == len(self.smiles):
                rows = _ROWS.pop(key)
                _FULL[key] = np.stack([rows[i] for i in range(len(self.smiles))])
                if isinstance(key, Path):
                    save_array(key, _FULL[key])


def mol_tables(smiles: tuple[str, ...], kinds: tuple[str, ...], bits: int = 2048,
               e3_names: tuple[str, ...] | None = None, cache_dir: str | None = None) -> np.ndarray:
    """[len(smiles), sum of the kinds' widths] float32: every row of `MolTables`."""
    return MolTables(smiles, kinds, bits, e3_names, cache_dir).rows(np.arange(len(smiles)))
