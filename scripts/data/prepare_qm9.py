"""Download and process QM9 with PyTorch Geometric into <data-dir>/qm9 and check the molecule count.

python scripts/data/prepare_qm9.py --data-dir data
"""

import argparse

from experiments.apt.data_qm9 import QM9DataModule
from reprolab.cli.one_line_errors import one_line_errors

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="data")
    args = parser.parse_args()
    with one_line_errors(f"QM9 download into {args.data_dir}"):
        dm = QM9DataModule(args.data_dir, download=True, num_workers=0)
        dm.setup()
    print(f"QM9 ready under {dm.root}: " + ", ".join(f"{k} {len(v)}" for k, v in dm.sets.items()))
