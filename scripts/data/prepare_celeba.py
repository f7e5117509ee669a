"""Download CelebA (aligned images, attributes, official split) into <data-dir>/celeba; torchvision checks MD5s.

python scripts/data/prepare_celeba.py --data-dir data
If Google Drive refuses (quota), download img_align_celeba.zip, list_attr_celeba.txt,
identity_CelebA.txt, list_bbox_celeba.txt, list_landmarks_align_celeba.txt and list_eval_partition.txt from
the CelebA site by hand into <data-dir>/celeba/ and re-run: the MD5 check then runs on your files.
"""

import argparse

from experiments.apt.data_celeba import celeba_split
from reprolab.cli.one_line_errors import one_line_errors

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="data")
    args = parser.parse_args()
    with one_line_errors(f"CelebA download into {args.data_dir}/celeba", "download its files by hand (this script's "
                         "docstring lists them) into that folder and re-run: the MD5 check then runs on your files"):
        sizes = {split: len(celeba_split(args.data_dir, split, download=True)) for split in ("train", "valid", "test")}
    print(f"CelebA ready under {args.data_dir}/celeba: {sizes} (expected 162770 / 19867 / 19962)")
