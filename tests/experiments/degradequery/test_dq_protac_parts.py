"""The warhead / linker / E3-ligand split on hand-checked PROTACs (dBET6, MZ1) and its clean fallback."""

import numpy as np
import pytest

pytest.importorskip("rdkit")
from rdkit import Chem  # noqa: E402

from experiments.degradequery.mol_tables import mol_tables  # noqa: E402
from experiments.degradequery.protac_parts import LINKER_DESCRIPTORS, linker_descriptors, split_protac  # noqa: E402
from reprolab.cli.errors import ConfigError  # noqa: E402

JQ1_CORE = "CC1=C(C)C2=C(S1)N1C(C)=NN=C1[C@H](C)N=C2C1=CC=C(Cl)C=C1"  # JQ1 without its tert-butyl acetate, + the CH
# dBET6: JQ1 acetamide - NH(CH2)8NH - C(=O)CH2O - thalidomide (4-oxy), C42H45ClN8O7S (59 heavy atoms)
DBET6 = ("CC1=C(C)C2=C(S1)N1C(C)=NN=C1[C@H](CC(=O)NCCCCCCCCNC(=O)COC1=CC=CC3=C1C(=O)N(C1CCC(=O)NC1=O)C3=O)"
         "N=C2C1=CC=C(Cl)C=C1")
# MZ1: JQ1 acetamide - NH(CH2CH2O)3CH2C(=O) - VH032 (tert-leucine NH), C49H60ClN9O8S2 (69 heavy atoms)
MZ1 = ("CC1=C(C)C2=C(S1)N1C(C)=NN=C1[C@H](CC(=O)NCCOCCOCCOCC(=O)N[C@H](C(=O)N1C[C@H](O)C[C@H]1C(=O)NCC1=CC=C("
       "C3=C(C)N=CS3)C=C1)C(C)(C)C)N=C2C1=CC=C(Cl)C=C1")


def _fragment(mol, atoms) -> str:
    return Chem.MolToSmiles(Chem.MolFromSmiles(Chem.MolFragmentToSmiles(mol, atomsToUse=list(atoms))))


def test_dbet6_split_by_hand():
    mol = Chem.MolFromSmiles(DBET6)
    parts = split_protac(mol, "CRBN")
    assert parts.ok and parts.pattern == "thalidomide/pomalidomide"
    assert _fragment(mol, parts.e3) == Chem.MolToSmiles(Chem.MolFromSmiles("O=C1CCC(N2C(=O)c3ccccc3C2=O)C(=O)N1"))
    # warhead: the thienotriazolodiazepine with its chlorophenyl, 23 heavy atoms; the acetamide CH2 is linker
    assert len(parts.warhead) == 23 and len(parts.e3) == 19 and len(parts.linker) == 59 - 19 - 23
    assert _fragment(mol, parts.linker) == Chem.MolToSmiles(Chem.MolFromSmiles("O=C(CO)NCCCCCCCCNC(=O)C"))
    # O-CH2-C(=O)-NH-(CH2)8-NH-C(=O)-CH2 is 15 atoms: 16 bonds from the phthalimide carbon to the diazepine ring
    bonds, atoms, peg, alkyl, rotatable, amides = linker_descriptors(mol, parts)[1:]
    assert (bonds, atoms, peg, alkyl, amides) == (16, 17, 0, 10, 2)
    assert rotatable == 16  # RDKit's rotatable-bond SMARTS: every path bond is single, acyclic, between non-terminal atoms


def test_mz1_split_by_hand():
    mol = Chem.MolFromSmiles(MZ1)
    parts = split_protac(mol, "VHL")
    assert parts.ok and parts.pattern == "VH032"
    assert len(parts.e3) == 30  # VH032 amine, C22H30N4O3S
    assert _fragment(mol, parts.linker) == Chem.MolToSmiles(Chem.MolFromSmiles("CC(=O)NCCOCCOCCOCC=O"))
    assert len(parts.warhead) == 69 - 30 - 16
    values = dict(zip(LINKER_DESCRIPTORS, linker_descriptors(mol, parts), strict=True))
    assert values["split_ok"] == 1 and values["linker_bonds"] == 15 and values["linker_peg_units"] == 3
    assert values["linker_alkyl_carbons"] == 8 and values["linker_amides"] == 2


def test_split_fails_cleanly():
    hydroxamic = Chem.MolFromSmiles("O=C(CCCCCCC(=O)NC1=CC=CC2=C1C(=O)N(C1CCC(=O)NC1=O)C2=O)NO")  # no ring beyond CRBN's
    assert not split_protac(hydroxamic, "CRBN").ok
    assert not split_protac(Chem.MolFromSmiles(DBET6), "VHL").ok  # no VH032 in dBET6
    assert not split_protac(Chem.MolFromSmiles(DBET6), "KLHL20").ok  # a ligase without patterns
    failed = linker_descriptors(hydroxamic, split_protac(hydroxamic, "CRBN"))
    assert failed[0] == 0 and (failed[1:] == -1).all()


def test_part_tables_zero_where_the_split_fails():
    kinds = ("warhead_ecfp", "linker_ecfp", "e3_ligand_ecfp", "linker_descriptors")
    table = mol_tables((DBET6, DBET6), kinds, 256, ("CRBN", "VHL"))
    assert table.shape == (2, 3 * 256 + len(LINKER_DESCRIPTORS))
    ok, failed = table
    assert ok[:768].sum() > 0 and failed[:768].sum() == 0
    # the three part fingerprints count the environments rooted in each part: together the whole molecule's
    whole = mol_tables((DBET6,), ("ecfp_count",), 256)[0]
    np.testing.assert_array_equal(ok[:256] + ok[256:512] + ok[512:768], whole)
    with pytest.raises(ConfigError, match="E3 ligase name"):
        mol_tables((DBET6,), kinds, 256)
