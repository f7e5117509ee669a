"""Molecule tables beyond ECFP bits for the scikit-learn models (`data.mol_tables`, batch key `mol_x`).

Each kind is one RDKit representation per distinct SMILES: `ecfp_count` (Morgan radius 2, counts), `fcfp_count`
(Morgan radius 2 on pharmacophoric feature invariants, counts), `atom_pair` and `torsion` (counts), `maccs`
(167 keys), `descriptors` (RDKit's 2-D descriptor list). Counting fingerprints hash into `bits` columns.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from reprolab.errors import ConfigError

KINDS = ("ecfp_count", "fcfp_count", "atom_pair", "torsion", "maccs", "descriptors")


def _generator(kind: str, bits: int):
    from rdkit.Chem import rdFingerprintGenerator as gen

    if kind == "ecfp_count":
        return gen.GetMorganGenerator(radius=2, fpSize=bits)
    if kind == "fcfp_count":
        return gen.GetMorganGenerator(radius=2, fpSize=bits, atomInvariantsGenerator=gen.GetMorganFeatureAtomInvGen())
    if kind == "atom_pair":
        return gen.GetAtomPairGenerator(fpSize=bits)
    return gen.GetTopologicalTorsionGenerator(fpSize=bits)


def _table(kind: str, mols: list, bits: int) -> np.ndarray:
    if kind == "maccs":
        from rdkit.Chem import MACCSkeys

        return np.array([list(MACCSkeys.GenMACCSKeys(m)) for m in mols], dtype=np.float32)
    if kind == "descriptors":
        from rdkit.Chem import Descriptors

        values = np.array([list(Descriptors.CalcMolDescriptors(m).values()) for m in mols], dtype=np.float64)
        return np.nan_to_num(np.clip(values, -1e6, 1e6)).astype(np.float32)
    generator = _generator(kind, bits)
    return np.stack([generator.GetCountFingerprintAsNumPy(m) for m in mols]).astype(np.float32)


@lru_cache(maxsize=16)
def kind_table(smiles: tuple[str, ...], kind: str, bits: int = 2048) -> np.ndarray:
    """[len(smiles), width] float32 of one kind (cached: a sweep computes each kind once)."""
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    return _table(kind, [Chem.MolFromSmiles(s) for s in smiles], bits)


def mol_tables(smiles: tuple[str, ...], kinds: tuple[str, ...], bits: int = 2048) -> np.ndarray:
    """[len(smiles), sum of the kinds' widths] float32, the kinds' columns side by side in the order given."""
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ConfigError(f"data.mol_tables has unknown kinds {unknown}; choose from {list(KINDS)}")
    return np.concatenate([kind_table(smiles, kind, bits) for kind in kinds], axis=1)
