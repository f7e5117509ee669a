"""`make data-deeparrhythmia-physionet`: the WFDB databases from PhysioNet into `<data dir>/physionet/<db>/`
(`wfdb.dl_database`: `.hea`, `.dat`, `.atr` of every record), and optionally VitalDB ECG tracks.

    python -m experiments.deeparrhythmia.download mitdb svdb incartdb [--data-dir D]
    python -m experiments.deeparrhythmia.download --vitaldb 1 2 3      # optional, needs `pip install vitaldb`
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from experiments.deeparrhythmia.records import PHYSIONET_DATABASES, download_physionet, download_vitaldb
from reprolab.cli.errors import ReprolabError
from reprolab.config.paths import data_root


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("databases", nargs="*", default=[], help=f"any of {', '.join(PHYSIONET_DATABASES)}")
    parser.add_argument("--data-dir", type=Path, default=None, help="default: $REPROLAB_DATA, ../shared/data, ./data")
    parser.add_argument("--vitaldb", type=int, nargs="+", default=[], metavar="CASE", help="VitalDB case ids")
    args = parser.parse_args(argv)
    root = Path(args.data_dir or data_root())
    try:
        for db in args.databases:
            print(f"{download_physionet(db, root / 'physionet' / db)}: {db} present")
        if args.vitaldb:
            print(f"{download_vitaldb(root / 'physionet', args.vitaldb)}: {len(args.vitaldb)} VitalDB case(s)")
    except ReprolabError as err:
        sys.exit(f"error: {err}")


if __name__ == "__main__":
    main()
