"""Build PROTAC-8K's `protac8k.csv` (+ `test_ids_seed111.txt`) from DegradeMaster's `name.json`.

    make data-protac-8k                                                      # fetch name.json, build, check
    python scripts/data/prepare_protac8k.py --name-json path/to/name.json --out data/protac-8k   # a local copy

`name.json` is `data/PROTAC/name.json` of Jackson117/DegradeMaster at its first commit (3f4b038; later
commits removed it); the repository carries no licence, so reprolab fetches rather than redistributes it.
The split is DegradeMaster's `split_dataset` (reprolab.data.derived.protac8k_table).
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from reprolab.data.derived import protac8k_table


def prepare(name_json: Path, out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    if not (out / "name.json").exists():
        shutil.copyfile(name_json, out / "name.json")
    protac8k_table(out)
    return out / "protac8k.csv"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name-json", type=Path, required=True, help="a local name.json (make data-protac-8k fetches it)")
    parser.add_argument("--out", type=Path, default=Path("data/protac-8k"))
    args = parser.parse_args(argv)
    print(prepare(args.name_json, args.out))


if __name__ == "__main__":
    main()
