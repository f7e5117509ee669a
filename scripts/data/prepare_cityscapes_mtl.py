"""Unpack MTAN's pre-processed Cityscapes (128×256, label_7, depth) into <data-dir>/cityscapes and checksum it.

Get the archive from the dataset link in the MTAN README (github.com/lorenmt/mtan), then
python scripts/data/prepare_cityscapes_mtl.py --data-dir data --archive cityscapes.zip   (or --url <link>)
"""

import argparse

from experiments.apt.data_dense import prepare

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="data")
    parser.add_argument("--archive", default=None)
    parser.add_argument("--url", default=None)
    args = parser.parse_args()
    prepare("cityscapes", args.data_dir, args.archive, args.url)
