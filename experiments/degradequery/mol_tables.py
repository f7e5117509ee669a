"""Molecule tables beyond ECFP bits for the scikit-learn models (`data.mol_tables`, batch key `mol_x`).

Each kind is one RDKit representation per distinct SMILES: `ecfp_count` (Morgan radius 2, counts), `fcfp_count`
(Morgan radius 2 on pharmacophoric feature invariants, counts), `atom_pair` and `torsion` (counts), `maccs`
(167 keys), `descriptors` (RDKit's 2-D descriptor list), and from the warhead / linker / E3-ligand split of the
record (`protac_parts.py`, which needs the record's ligase): `warhead_ecfp`, `linker_ecfp`, `e3_ligand_ecfp` (Morgan
radius 2 counts of the environments rooted in that part; zeros where the split failed) and `linker_descriptors`
(`protac_parts.LINKER_DESCRIPTORS`). Counting fingerprints hash into `bits` columns.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from reprolab.errors import ConfigError

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


@cache
def mol_row(smiles: str, kinds: tuple[str, ...], bits: int = 2048, e3_name: str = "") -> np.ndarray:
    """[sum of the kinds' widths] float32 of one molecule (with the ligase `e3_name` of its record, which only the
    part kinds read), the kinds side by side in the order given (cached: a sweep computes each molecule once, and a
    one-batch run only its batch's molecules)."""
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise ConfigError(f"data.mol_tables has unknown kinds {unknown}; choose from {list(KINDS)}")
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    mol = Chem.MolFromSmiles(smiles)
    parts = split_protac(mol, e3_name) if set(kinds) & set(PART_KINDS) else None
    return np.concatenate([_row(kind, mol, bits, parts) for kind in kinds])


def mol_tables(smiles: tuple[str, ...], kinds: tuple[str, ...], bits: int = 2048,
               e3_names: tuple[str, ...] | None = None) -> np.ndarray:
    """[len(smiles), sum of the kinds' widths] float32: `mol_row` of each molecule (with its record's ligase)."""
    if not set(kinds) & set(PART_KINDS):
        e3_names = ("",) * len(smiles)  # one cache entry per molecule
    elif not e3_names or not all(e3_names):
        raise ConfigError(f"the part kinds {PART_KINDS} need each record's E3 ligase name")
    return np.stack([mol_row(s, tuple(kinds), bits, e) for s, e in zip(smiles, e3_names, strict=True)])
