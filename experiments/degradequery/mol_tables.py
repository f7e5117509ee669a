"""Molecule tables beyond ECFP bits for the scikit-learn models (`data.mol_tables`, batch key `mol_x`).

Each kind is one RDKit representation per distinct SMILES: `ecfp_count` (Morgan radius 2, counts), `fcfp_count`
(Morgan radius 2 on pharmacophoric feature invariants, counts), `atom_pair` and `torsion` (counts), `maccs`
(167 keys), `descriptors` (RDKit's 2-D descriptor list). Counting fingerprints hash into `bits` columns.
"""

from __future__ import annotations

from functools import cache

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


def _row(kind: str, mol, bits: int) -> np.ndarray:
    if kind == "maccs":
        from rdkit.Chem import MACCSkeys

        return np.array(list(MACCSkeys.GenMACCSKeys(mol)), dtype=np.float32)
    if kind == "descriptors":
        from rdkit.Chem import Descriptors

        values = np.array(list(Descriptors.CalcMolDescriptors(mol).values()), dtype=np.float64)
        return np.nan_to_num(np.clip(values, -1e6, 1e6)).astype(np.float32)
    return _generator(kind, bits).GetCountFingerprintAsNumPy(mol).astype(np.float32)


@cache
def mol_row(smiles: str, kinds: tuple[str, ...], bits: int = 2048) -> np.ndarray:
    """[sum of the kinds' widths] float32 of one molecule, the kinds side by side in the order given (cached: a
    sweep computes each molecule once, and a one-batch run only its batch's molecules)."""
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ConfigError(f"data.mol_tables has unknown kinds {unknown}; choose from {list(KINDS)}")
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    mol = Chem.MolFromSmiles(smiles)
    return np.concatenate([_row(kind, mol, bits) for kind in kinds])


def mol_tables(smiles: tuple[str, ...], kinds: tuple[str, ...], bits: int = 2048) -> np.ndarray:
    """[len(smiles), sum of the kinds' widths] float32: `mol_row` of each molecule."""
    return np.stack([mol_row(s, tuple(kinds), bits) for s in smiles])
