"""The warhead / linker / E3-ligand split of a PROTAC, derived from its SMILES and the ligase named in its record.

PROTAC-8K gives no split (DegradeMaster's docked part files are not at hand), so we derive one (issue 14 §2):
1. E3 ligand: the first pattern of the named ligase's ladder (largest first: full ligand, then its core) that
   matches, grown by every ring system the match touches (a core whose name ends in '+' also by the ring systems
   bonded to it: the aryl of a bare glutarimide), and by every group the match cuts off from the largest rest (a
   cap, a side chain).
2. Linker: the acyclic atoms on the shortest path from the E3 ligand to the nearest ring atom of that rest, with
   the groups hanging off them (a carbonyl O, a methyl).
3. Warhead: what remains.
A record whose ligase has no pattern here, whose patterns do not match, or whose rest has no ring, is not split
(`ProtacParts.ok` is False); `part_row` then gives zero fingerprints, linker descriptors of -1 and `split_ok` 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

# SMARTS ladders per E3 ligase name (the record's `e3_name`), largest first; stereo is ignored.
E3_LIGANDS: dict[str, tuple[tuple[str, str], ...]] = {
    "CRBN": (
        ("thalidomide/pomalidomide", "O=C1NC(=O)CCC1N1C(=O)c2ccccc2C1=O"),
        ("lenalidomide", "O=C1NC(=O)CCC1N1Cc2ccccc2C1=O"),
        ("phenyl-glutarimide", "O=C1NC(=O)CCC1c1ccccc1"),
        ("glutarimide+", "O=C1NC(=O)CC[CX4]1"),
        ("dihydrouracil+", "O=C1NC(=O)N([#6])CC1"),
    ),
    "VHL": (
        ("VH032", "OC1CC(N(C1)C(=O)C(N)C(C)(C)C)C(=O)NCc1ccc(cc1)-c1scnc1C"),
        ("VH032 (any tert-leucine)", "OC1CC(N(C1)C(=O)C[#7])C(=O)NCc1ccc(cc1)-c1scnc1C"),
        ("hydroxyproline amide", "OC1CC(N(C1)C=O)C(=O)NCc1ccccc1"),
    ),
    "MDM2": (
        ("idasanutlin", "N#CC1(c2ccccc2)C(CC(C)(C)C)NC(C(=O)Nc2ccc(C=O)cc2OC)C1c1ccccc1"),
        ("idasanutlin core", "N#CC1(c2ccccc2)C(CC(C)(C)C)NC(C(=O)N)C1c1ccccc1"),
        ("nutlin-3", "c1ccccc1C1N=C(c2ccccc2)N(C(=O)N2CCNC(=O)C2)C1c1ccccc1"),
        ("nutlin core+", "c1ccccc1C1N=C(c2ccccc2)N(C=O)C1c1ccccc1"),
        ("spiro-oxindole", "O=C1Nc2ccccc2C11CCNC1"),
    ),
    "cIAP1": (
        ("bestatin", "NC(Cc1ccccc1)C(O)C(=O)NC(CC(C)C)C=O"),
        ("AVPI mimetic (LCL161, MV1)", "CNC(C)C(=O)NC([#6])C(=O)N(@[#6])@[#6]"),
    ),
    "FEM1B": (("EN106", "ClCC(=O)N(CCC#N)c1ccc2c(c1)OCCN2"),),
    "DCAF15": (("aryl sulfonamide (indisulam/E7820)", "O=S(=O)(Nc1cccc2[nH]cc(Cl)c12)c1ccccc1"),),
    "DCAF16": (("KB02", "ClCC(=O)N1CCCc2ccccc21"),),
    "DCAF11": (("21-SLF", "ClCC(=O)NC(C(=O)NCc1ccccc1)c1ccccc1"),),
    "DCAF1": (("DCAF1 acrylamide", "C=CC(=O)N1CC(c2ccccc2)C1C(=O)Nc1cccc2cccnc12"),),
    "RNF4": (("CCW16", "ClCC(=O)N(Cc1ccccc1)c1ccc(Oc2ccccc2)cc1"),),
    "AhR": (("beta-naphthoflavone", "O=c1cc(-c2ccccc2)oc2c1ccc1ccccc12"),),
    "KEAP1": (("KI696", "OC(=O)CC(c1ccc2nnn(C)c2c1)c1cccc(CN2CCOc3ccccc3S2(=O)=O)c1"),),
}
E3_LIGANDS["XIAP"] = E3_LIGANDS["cIAP1"]


@dataclass(frozen=True)
class ProtacParts:
    """Atom indices of each part (empty and ok=False when the split failed) and the linker's path length in bonds."""

    ok: bool
    pattern: str = ""
    e3: tuple[int, ...] = ()
    linker: tuple[int, ...] = ()
    warhead: tuple[int, ...] = ()
    path_bonds: int = 0


@cache
def _patterns(e3_name: str):
    from rdkit import Chem

    return tuple((name, Chem.MolFromSmarts(smarts)) for name, smarts in E3_LIGANDS.get(e3_name, ()))


def _grow_by_ring_systems(mol, atoms: set[int], bonded: bool = False) -> set[int]:
    """`atoms` plus every ring system (rings sharing atoms) that one of them belongs to (`bonded`: or is bonded to)."""
    rings = [set(r) for r in mol.GetRingInfo().AtomRings()]
    if bonded:
        atoms = atoms | {n.GetIdx() for a in atoms for n in mol.GetAtomWithIdx(a).GetNeighbors() if n.IsInRing()}
    grown, changed = set(atoms), True
    while changed:
        changed = False
        for ring in rings:
            if ring & grown and not ring <= grown:
                grown |= ring
                changed = True
    return grown


def _components(mol, keep: set[int]) -> list[set[int]]:
    """Connected components of the atoms in `keep`."""
    seen, parts = set(), []
    for start in keep:
        if start in seen:
            continue
        part, stack = set(), [start]
        while stack:
            a = stack.pop()
            if a in part:
                continue
            part.add(a)
            stack += [n.GetIdx() for n in mol.GetAtomWithIdx(a).GetNeighbors() if n.GetIdx() in keep]
        seen |= part
        parts.append(part)
    return parts


def _path_to_ring(mol, e3: set[int], rest: set[int]) -> list[int] | None:
    """Atoms of `rest` on the shortest path from the E3 ligand to the nearest ring atom of `rest` (that atom last)."""
    frontier = [(n.GetIdx(), None) for a in sorted(e3) for n in mol.GetAtomWithIdx(a).GetNeighbors() if n.GetIdx() in rest]
    parent: dict[int, int | None] = {}
    while frontier:
        nxt = []
        for atom, prev in frontier:
            if atom in parent:
                continue
            parent[atom] = prev
            if mol.GetAtomWithIdx(atom).IsInRing():
                path = [atom]
                while parent[path[-1]] is not None:
                    path.append(parent[path[-1]])
                return path[::-1]
            nxt += [(n.GetIdx(), atom) for n in mol.GetAtomWithIdx(atom).GetNeighbors() if n.GetIdx() in rest]
        frontier = nxt
    return None


def split_protac(mol, e3_name: str) -> ProtacParts:
    """Warhead / linker / E3-ligand atoms of an RDKit molecule for the ligase `e3_name` (module docstring)."""
    found = next(((n, m) for n, p in _patterns(e3_name) if (m := mol.GetSubstructMatch(p))), None)
    if found is None:
        return ProtacParts(ok=False)
    name, match = found
    every = set(range(mol.GetNumAtoms()))
    e3 = _grow_by_ring_systems(mol, set(match), bonded=name.endswith("+"))
    rest = sorted(_components(mol, every - e3), key=len)
    if not rest:
        return ProtacParts(ok=False, pattern=name)
    main = rest.pop()
    e3 = e3.union(*rest)
    path = _path_to_ring(mol, e3, main)
    if path is None:
        return ProtacParts(ok=False, pattern=name)
    warhead = next(part for part in _components(mol, main - set(path[:-1])) if path[-1] in part)
    linker = main - warhead  # the path and the groups hanging off it
    return ProtacParts(True, name, tuple(sorted(e3)), tuple(sorted(linker)), tuple(sorted(warhead)), len(path))


LINKER_DESCRIPTORS = ("split_ok", "linker_bonds", "linker_atoms", "linker_peg_units", "linker_alkyl_carbons",
                      "linker_rotatable_bonds", "linker_amides")


def linker_descriptors(mol, parts: ProtacParts) -> np.ndarray:
    """[split_ok, path length in bonds, heavy atoms, PEG units (ether O between two CH2), alkyl sp3 carbons,
    rotatable bonds and amide bonds on the path]; -1 for every linker value where the split failed."""
    if not parts.ok:
        return np.array([0.0] + [-1.0] * (len(LINKER_DESCRIPTORS) - 1), dtype=np.float32)
    from rdkit import Chem
    from rdkit.Chem import Lipinski

    linker = set(parts.linker)
    atoms = [mol.GetAtomWithIdx(a) for a in parts.linker]
    peg = sum(a.GetSymbol() == "O" and a.GetDegree() == 2 and all(n.GetSymbol() == "C" and n.GetIdx() in linker
                                                                     and n.GetTotalNumHs() == 2 for n in a.GetNeighbors())
              for a in atoms)
    alkyl = sum(a.GetSymbol() == "C" and a.GetHybridization() == Chem.HybridizationType.SP3 for a in atoms)
    on_path = linker | {a for a in parts.e3 if any(n.GetIdx() in linker for n in mol.GetAtomWithIdx(a).GetNeighbors())}
    on_path |= {a for a in parts.warhead if any(n.GetIdx() in linker for n in mol.GetAtomWithIdx(a).GetNeighbors())}

    def bonds_on_path(pattern) -> int:
        return sum(set(m) <= on_path and bool(set(m) & linker) for m in mol.GetSubstructMatches(pattern))

    amide = Chem.MolFromSmarts("C(=O)-[NX3]")
    return np.array([1.0, parts.path_bonds, len(linker), peg, alkyl, bonds_on_path(Lipinski.RotatableBondSmarts),
                     sum(bool({m[0], m[2]} <= on_path and {m[0], m[2]} & linker) for m in mol.GetSubstructMatches(amide))],
                    dtype=np.float32)


def split_report(records) -> dict[str, float]:
    """Share of records split (all, labelled, per ligase) and how often each pattern matched."""
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    pairs = records[["smiles", "e3_name"]].drop_duplicates()
    parts = {(s, e): split_protac(Chem.MolFromSmiles(s), e) for s, e in zip(pairs.smiles, pairs.e3_name, strict=True)}
    ok = records.apply(lambda r: parts[(r.smiles, r.e3_name)].ok, axis=1)
    out = {"records": len(records), "split_ok": float(ok.mean()), "labelled_split_ok": float(ok[records.label >= 0].mean())}
    out |= {f"split_ok/{e3}": float(share) for e3, share in ok.groupby(records.e3_name).mean().items()}
    patterns = records.apply(lambda r: parts[(r.smiles, r.e3_name)].pattern or "none", axis=1)
    return out | {f"pattern/{p}": int(n) for p, n in patterns[ok].value_counts().items()}


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Print the split's success shares: `python -m experiments.degradequery.protac_parts [overrides]` (the data
    folder from the composed `experiment=degradequery/main` config, e.g. `paths.data_dir=...`)."""
    from .data import print_records_report

    return print_records_report(split_report, argv)


if __name__ == "__main__":
    main()
