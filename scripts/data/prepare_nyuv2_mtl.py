"""Download (or unpack a downloaded) MTAN pre-processed NYUv2 into <data-dir>/nyuv2 and checksum it.

python scripts/data/prepare_nyuv2_mtl.py --data-dir data            # downloads from the Nash-MTL README link
python scripts/data/prepare_nyuv2_mtl.py --data-dir data --archive nyuv2.zip
"""

import argparse

from experiments.apt.data_dense import NYUV2_URL, prepare
from reprolab.cli.one_line_errors import OFFLINE_ADVICE, one_line_errors

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default="data")
    parser.add_argument("--archive", default=None, help="a zip/tar you downloaded by hand")
    parser.add_argument("--url", default=NYUV2_URL)
    args = parser.parse_args()
    with one_line_errors(f"NYUv2 {'unpacking' if args.archive else 'download'} into {args.data_dir}/nyuv2",
                         f"{OFFLINE_ADVICE}, or download the archive by hand and pass --archive"):
        prepare("nyuv2", args.data_dir, args.archive, None if args.archive else args.url)
