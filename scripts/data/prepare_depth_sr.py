"""Download and lay out the guided depth super-resolution data that `experiments/degbins` reads.

    python scripts/data/prepare_depth_sr.py --data-dir data            # everything below
    python scripts/data/prepare_depth_sr.py --data-dir data --only nyu # NYU v2 arrays only
    python scripts/data/prepare_depth_sr.py --verify ../shared/data    # checksums of what is there

Produces, under --data-dir:
- `nyuv2-dsr/`: from the labelled NYU v2 file `nyu_depth_v2_labeled.mat` (1449 RGB-D pairs, MATLAB
  v7.3 / HDF5, about 2.8 GB, http://horatio.cs.nyu.edu/mit/silberman/nyu_depth_v2/nyu_depth_v2_labeled.mat),
  the DKN/SGNet arrays: images 1-1000 -> `train_images_split.npy` (uint8, N x 480 x 640 x 3) and
  `train_depth_split.npy` (float32, per-image min/max normalised), images 1001-1449 -> `test_images_v2.npy`,
  `test_depth.npy` and `test_minmax.npy` (2 x 449: rows max, min in metres), and `train_minmax.npy`.
- `depth-sr/`: the DCTNet `RawDatasets/` test sets (Middlebury, Lu, NYUDepthv2_Test, RGBDD,
  RGBDD_Test_Realscene) from github.com/Zhaozixiang1228/GDSR-DCTNet at commit 5243875 (git sparse
  checkout; needs git and network).
Every file that `experiments/degbins/checksums.sha256` lists is verified after download; a mismatch
stops with the file name. The NYU .mat has no published checksum: its SHA-256 is printed and written
to `nyuv2-dsr/SOURCE.txt` so a later run can be compared.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from torchvision.datasets.utils import download_url

from reprolab.config.extras import require
from reprolab.data.fetch import sha256_file as sha256

NYU_URL = "http://horatio.cs.nyu.edu/mit/silberman/nyu_depth_v2/nyu_depth_v2_labeled.mat"
DCTNET_REPO = "https://github.com/Zhaozixiang1228/GDSR-DCTNet.git"
DCTNET_COMMIT = "5243875223398fd7996bca2e54dc2792bb96862a"
CHECKSUMS = Path(__file__).resolve().parents[2] / "experiments" / "degbins" / "checksums.sha256"
N_TRAIN = 1000


def verify(root: Path, strict: bool = True) -> tuple[int, list[str]]:
    """Check every listed file under `root` (paths relative to a `depth-sr/` folder); (checked, bad)."""
    checked, bad = 0, []
    for line in CHECKSUMS.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        digest, rel = line.split(maxsplit=1)
        path = root / "depth-sr" / rel
        if rel.startswith("RGBDD/") and not path.exists():  # the shared folder's 45-pair subset
            path = root / "depth-sr" / "RGBDD_subset" / rel[len("RGBDD/"):]
        if not path.exists():
            if strict:
                bad.append(f"missing {path}")
            continue
        checked += 1
        if sha256(path) != digest:
            bad.append(f"checksum mismatch {path}")
    return checked, bad


def nyu_arrays(mat_path: Path, out: Path) -> None:
    """The DKN/SGNet split arrays from the labelled .mat (HDF5: images 1449x3x640x480, depths 1449x640x480)."""
    h5py = require("h5py", "degbins")   # the .mat is MATLAB v7.3 (HDF5)
    out.mkdir(parents=True, exist_ok=True)
    with h5py.File(mat_path, "r") as f:
        images = np.asarray(f["images"]).transpose(0, 3, 2, 1)  # -> N, 480, 640, 3
        depths = np.asarray(f["depths"]).transpose(0, 2, 1).astype(np.float32)  # -> N, 480, 640 metres
    hi, lo = depths.max(axis=(1, 2)), depths.min(axis=(1, 2))
    normalised = (depths - lo[:, None, None]) / (hi - lo)[:, None, None]
    np.save(out / "train_images_split.npy", images[:N_TRAIN])
    np.save(out / "train_depth_split.npy", normalised[:N_TRAIN])
    np.save(out / "train_minmax.npy", np.stack([hi[:N_TRAIN], lo[:N_TRAIN]]))
    np.save(out / "test_images_v2.npy", images[N_TRAIN:])
    np.save(out / "test_depth.npy", normalised[N_TRAIN:])
    np.save(out / "test_minmax.npy", np.stack([hi[N_TRAIN:], lo[N_TRAIN:]]))


def prepare_nyu(data_dir: Path) -> None:
    out = data_dir / "nyuv2-dsr"
    mat = out / "nyu_depth_v2_labeled.mat"
    out.mkdir(parents=True, exist_ok=True)
    if not mat.exists():
        print(f"downloading {NYU_URL} (about 2.8 GB) ...")
        download_url(NYU_URL, str(out), mat.name)
    digest = sha256(mat)
    print(f"{mat}: sha256 {digest}")
    (out / "SOURCE.txt").write_text(f"{NYU_URL}\nsha256 {digest}\n")
    nyu_arrays(mat, out)
    print(f"wrote the NYU v2 split arrays to {out}")


def prepare_dctnet(data_dir: Path) -> None:
    if shutil.which("git") is None:
        sys.exit("git is needed to fetch the DCTNet RawDatasets")
    with tempfile.TemporaryDirectory() as tmp:
        run = lambda *a: subprocess.run(["git", *a], cwd=tmp, check=True)
        run("init", "-q")
        run("remote", "add", "origin", DCTNET_REPO)
        run("sparse-checkout", "set", "RawDatasets")
        run("fetch", "-q", "--depth", "1", "origin", DCTNET_COMMIT)
        run("checkout", "-q", "FETCH_HEAD")
        target = data_dir / "depth-sr"
        target.mkdir(parents=True, exist_ok=True)
        for folder in sorted((Path(tmp) / "RawDatasets").iterdir()):
            if folder.is_dir():
                shutil.copytree(folder, target / folder.name, dirs_exist_ok=True)
    checked, bad = verify(data_dir, strict=False)
    if bad:
        sys.exit("\n".join(bad))
    print(f"copied the DCTNet RawDatasets to {data_dir / 'depth-sr'}; {checked} files match checksums.sha256")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("data"))
    parser.add_argument("--only", choices=("nyu", "dctnet"), default=None)
    parser.add_argument("--verify", type=Path, default=None, help="check the files under this data dir and stop")
    args = parser.parse_args()
    if args.verify is not None:
        checked, bad = verify(args.verify, strict=False)
        print("\n".join(bad) or f"{checked} files match {CHECKSUMS.name}")
        sys.exit(1 if bad or checked == 0 else 0)
    if args.only in (None, "dctnet"):
        prepare_dctnet(args.data_dir)
    if args.only in (None, "nyu"):
        prepare_nyu(args.data_dir)


if __name__ == "__main__":
    main()
