"""Build the DeepfakeGenome stand-in "forgery zoo" as a DFG tree (cached; a rebuild only if a setting changes).

    python scripts/data/make_forgery_zoo.py --out .cache/forgery_zoo   # photos: <data folder>/cifar10-jpeg-subset
    python scripts/data/make_forgery_zoo.py --out .cache/forgery_zoo --photos none   # scikit-learn's photos
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from experiments.deepfakegenome.zoo import AlgorithmSpec, describe
from experiments.deepfakegenome.zoo_build import build_zoo
from reprolab.config.paths import data_root


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(".cache/forgery_zoo"),
                        help="where data=forgery_zoo looks by default (data.zoo_dir = ${paths.cache_dir}/forgery_zoo)")
    parser.add_argument("--photos", default=str(data_root() / "cifar10-jpeg-subset"),
                        help="a folder of real photos, or 'none' for scikit-learn's bundled sample photos")
    parser.add_argument("--algorithms", type=int, default=36)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--per-algorithm", type=int, nargs=3, default=[64, 16, 40], metavar=("TRAIN", "VAL", "TEST"))
    args = parser.parse_args()
    start = time.time()
    photos = None if args.photos.lower() == "none" else args.photos
    root = build_zoo(args.out, photos, args.algorithms, args.seed, dict(zip(("train", "val", "test"),
                                                                         args.per_algorithm, strict=True)))
    for row in json.loads((root / "algorithms.json").read_text()):
        row["jpeg_quality"] = row["jpeg_quality"] or None
        print(describe(AlgorithmSpec(**row)))
    print(f"forgery zoo at {root} ({time.time() - start:.0f}s)")


if __name__ == "__main__":
    main()
