"""`make data-mcconkey`: McConkey et al.'s cases from Kaggle into <data_dir>/mcconkey, checked (`mcconkey`).

    python -m experiments.darsm.mcconkey_fetch --cases DUCT_1100 PHLL_case_1p0 [--model komegasst] [--data-dir D]
    python -m experiments.darsm.mcconkey_fetch --verify [--data-dir D]

Kaggle serves the dataset (https://www.kaggle.com/datasets/ryleymcconkey/ml-turbulence-dataset) to signed-in users
only: the `kaggle` CLI (`pip install kaggle`) and an API token (kaggle.com > Settings > API > Create New Token, saved
as ~/.kaggle/kaggle.json, or KAGGLE_USERNAME and KAGGLE_KEY). Only the named cases' files are fetched, one
`kaggle datasets download -f <file>` each (a zipped reply is unpacked), not the multi-GB archive. Checks: each case
loads with the dataset's shapes (`mcconkey.load_case`: the same N cells in every field, U (N, 3), finite values);
the dataset publishes no checksums, so MANIFEST.sha256 records each fetched file's SHA-256 and `--verify` re-checks
the folder against it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

from experiments.darsm.mcconkey import KAGGLE_DATASET, RANS_FIELDS, REFERENCE, load_case
from reprolab.cli.errors import CorruptDataError, DatasetNotFoundError, ReprolabError
from reprolab.config.paths import data_root
from reprolab.data.fetch import manifest

MANIFEST = "MANIFEST.sha256"
TOKEN_HELP = ("an API token: kaggle.com > Settings > API > Create New Token, saved as ~/.kaggle/kaggle.json "
              "(or KAGGLE_USERNAME and KAGGLE_KEY set)")


def kaggle_ready() -> None:
    """One line naming what is missing: the CLI or a token (whether the token is valid, Kaggle says on download)."""
    if shutil.which("kaggle") is None:
        raise DatasetNotFoundError(f"the McConkey dataset is fetched with the kaggle CLI: `pip install kaggle`, then {TOKEN_HELP}")
    token = Path(os.environ.get("KAGGLE_CONFIG_DIR", Path.home() / ".kaggle")) / "kaggle.json"
    env = (os.environ.get("KAGGLE_USERNAME") and os.environ.get("KAGGLE_KEY")) or os.environ.get("KAGGLE_API_TOKEN")
    if not token.is_file() and not env:
        raise DatasetNotFoundError(f"Kaggle needs {TOKEN_HELP}; none found")


def kaggle_download(remote: str, into: Path) -> bool:
    """Fetch one dataset file into `into` (unzipping a zipped reply); False when Kaggle has no such file."""
    into.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["kaggle", "datasets", "download", "-d", KAGGLE_DATASET, "-f", remote, "-p", str(into),
                           "--quiet"], capture_output=True, text=True)
    if done.returncode != 0:
        if "404" in done.stdout + done.stderr:
            return False
        raise ReprolabError(f"kaggle could not fetch {remote}: {(done.stderr or done.stdout).strip().splitlines()[-1:]}")
    zipped = into / f"{Path(remote).name}.zip"
    if zipped.is_file():
        with zipfile.ZipFile(zipped) as archive:
            archive.extractall(into)
        zipped.unlink()
    return (into / Path(remote).name).is_file()


def case_files(case: str, model: str) -> tuple[list[str], list[list[str]]]:
    """The RANS files of a case, and the reference's alternatives (each a list of files: U, or Ux, Uy, Uz) per layout."""
    rans = [f"{model}/{model}_{case}_{field}.npy" for field in RANS_FIELDS]
    reference = [[pattern.format(case=case, field=f) for f in fields] for pattern in REFERENCE
                 for fields in (["U"], ["Ux", "Uy", "Uz"])]
    return rans, reference


def fetch_case(root: Path, case: str, model: str, download: Callable[[str, Path], bool]) -> None:
    rans, reference = case_files(case, model)
    for remote in rans:
        if not (root / remote).is_file() and not download(remote, (root / remote).parent):
            raise DatasetNotFoundError(f"Kaggle's {KAGGLE_DATASET} has no {remote}: is '{case}' a case of it?")
    for files in reference:
        if all((root / f).is_file() for f in files) or all(download(f, (root / f).parent) for f in files):
            break
    else:
        raise DatasetNotFoundError(f"Kaggle's {KAGGLE_DATASET} has no reference velocity of {case} "
                                   f"(tried {', '.join(f[0] for f in reference)})")
    load_case(root, case, model)     # the dataset's shapes, or a one-line error


def fetch(root: Path, cases: list[str], model: str = "komegasst",
          download: Callable[[str, Path], bool] | None = None) -> Path:
    if download is None:
        kaggle_ready()
        download = kaggle_download
    root.mkdir(parents=True, exist_ok=True)
    for case in cases:
        fetch_case(root, case, model, download)
    (root / MANIFEST).write_text("\n".join(manifest(root)) + "\n")
    return root


def verify(root: Path) -> int:
    """The number of files checked against MANIFEST.sha256; a missing or changed file is a one-line error."""
    recorded = root / MANIFEST
    if not recorded.is_file():
        raise DatasetNotFoundError(f"{recorded} not found: run `make data-mcconkey` first")
    now = {line.split(maxsplit=1)[1]: line.split(maxsplit=1)[0] for line in manifest(root)}
    lines = [line.split(maxsplit=1) for line in recorded.read_text().splitlines() if line.strip()]
    bad = [path for digest, path in lines if now.get(path) != digest]
    if bad:
        raise CorruptDataError(f"{len(bad)} McConkey file(s) missing or changed since they were fetched, e.g. {bad[0]}: "
                               "fetch those cases again (make data-mcconkey)")
    return len(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=[], help="e.g. DUCT_1100 PHLL_case_1p0")
    parser.add_argument("--model", default="komegasst")
    parser.add_argument("--data-dir", type=Path, default=None, help="default: $REPROLAB_DATA, ../shared/data, ./data")
    parser.add_argument("--verify", action="store_true", help="re-check the folder against its MANIFEST.sha256")
    args = parser.parse_args(argv)
    if not args.cases and not args.verify:
        parser.error("name the cases to fetch (--cases DUCT_1100 ...) or --verify")
    root = (args.data_dir or data_root()) / "mcconkey"
    try:
        if args.verify:
            print(f"{root}: {verify(root)} files match {MANIFEST}")
        else:
            fetch(root, args.cases, args.model)
            print(f"{root}: {', '.join(args.cases)} fetched, shapes checked, {MANIFEST} written")
    except ReprolabError as err:
        sys.exit(f"error: {err}")


if __name__ == "__main__":
    main()
