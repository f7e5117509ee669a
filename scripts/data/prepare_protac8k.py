"""Build PROTAC-8K's `protac8k.csv` (+ `test_ids_seed111.txt`) from DegradeMaster's `name.json`.

    python scripts/data/prepare_protac8k.py --out data/protac-8k            # downloads name.json
    python scripts/data/prepare_protac8k.py --name-json path/to/name.json --out data/protac-8k

`name.json` is `data/PROTAC/name.json` of Jackson117/DegradeMaster at its first commit (3f4b038; later
commits removed it). The repository carries no licence, so reprolab does not redistribute the data:
this script fetches it for you. The test split is DegradeMaster's `split_dataset`: Python
`random.seed(111)`, shuffle all record positions, the first int(0.2 * n_labelled) labelled records
are the test set (301 records, 110 high / 191 low); all other records are train (labelled) or
unlabeled.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import urllib.request
from pathlib import Path

COMMIT = "3f4b0387ea83803c93b630bdce4efea9f5e17747"
URL = f"https://raw.githubusercontent.com/Jackson117/DegradeMaster/{COMMIT}/data/PROTAC/name.json"
FIELDS = ["id", "pro_comp_id", "smiles", "target_name", "target_uniprot", "e3_name", "e3_uniprot", "label", "split_seed111"]
EXPECTED = {"records": 8640, "test": 301, "test_positive": 110}


def name_and_uniprot(pdb_file: str) -> tuple[str, str]:
    """'BRD9_Q9H8M2.pdb' -> ('BRD9', 'Q9H8M2'); splits at the last underscore ('EGFR_L858R_P00533')."""
    name, _, uniprot = pdb_file.removesuffix(".pdb").rpartition("_")
    return name, uniprot


def official_test_ids(records: dict[str, dict], seed: int = 111, test_rate: float = 0.2) -> list[str]:
    """DegradeMaster's test set: shuffle positions with random.seed(seed), keep the first labelled ones."""
    keys = list(records)
    labelled = [k for k in keys if records[k]["label"] != -1]
    random.seed(seed)
    positions = list(range(len(keys)))
    random.shuffle(positions)
    return [keys[p] for p in positions if records[keys[p]]["label"] != -1][: int(test_rate * len(labelled))]


def rows(records: dict[str, dict], test_ids: set[str]):
    for key, rec in records.items():
        target, target_uniprot = name_and_uniprot(rec["tar_path"])
        e3, e3_uniprot = name_and_uniprot(rec["e3_ligase_path"])
        label = int(rec["label"])
        split = "test" if key in test_ids else ("unlabeled" if label == -1 else "train")
        yield [key, rec["pro_comp_id"], rec["smiles"], target, target_uniprot, e3, e3_uniprot, label, split]


def prepare(name_json: Path, out: Path) -> Path:
    records = json.loads(name_json.read_text())
    test = official_test_ids(records)
    positives = sum(records[k]["label"] == 1 for k in test)
    got = {"records": len(records), "test": len(test), "test_positive": positives}
    if got != EXPECTED:
        raise SystemExit(f"{name_json} does not look like PROTAC-8K at {COMMIT[:7]}: {got} != {EXPECTED}")
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "protac8k.csv", "w", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(FIELDS)
        writer.writerows(rows(records, set(test)))
    (out / "test_ids_seed111.txt").write_text("\n".join(test) + "\n")
    return out / "protac8k.csv"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name-json", type=Path, help="a local name.json (default: download it)")
    parser.add_argument("--out", type=Path, default=Path("data/protac-8k"))
    args = parser.parse_args(argv)
    source = args.name_json
    if source is None:
        args.out.mkdir(parents=True, exist_ok=True)
        source = args.out / "name.json"
        if not source.exists():
            print(f"downloading {URL}", file=sys.stderr)
            urllib.request.urlretrieve(URL, source)
    print(prepare(source, args.out))


if __name__ == "__main__":
    main()
