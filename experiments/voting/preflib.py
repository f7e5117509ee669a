"""PrefLib elections (.soc complete / .soi incomplete strict orders) as ballots, and their download step.

    python -m experiments.voting.preflib --out data/preflib   # `make data-preflib`

PrefLib's format: `# KEY: value` header lines (`# NUMBER ALTERNATIVES: m`), then `count: a,b,c` lines with
1-based alternatives, best first. An incomplete (.soi) ballot lists its unranked alternatives after the
ranked ones in index order (our choice; the rules need complete orders).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
from torchvision.datasets.utils import download_url

from reprolab.cli.errors import CorruptDataError, DatasetNotFoundError
from reprolab.cli.one_line_errors import one_line_errors

# A few real elections with 4-5 alternatives (PrefLib "netflix" 00004: 3-4 movies, thousands of voters;
# "tshirt" 00012: 11 designs). Override with --url; any .soc/.soi file works.
DEFAULT_URLS = (
    "https://www.preflib.org/static/data/netflix/00004-00000001.soc",
    "https://www.preflib.org/static/data/netflix/00004-00000002.soc",
    "https://www.preflib.org/static/data/netflix/00004-00000101.soc",
)


def parse_preflib(path: Path) -> torch.Tensor:
    """One election as ballots[n, m] (0-based candidates, best first)."""
    m, rows = None, []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if line.startswith("#"):
            key, _, value = line[1:].partition(":")
            if key.strip().upper() == "NUMBER ALTERNATIVES":
                m = int(value)
            continue
        if not line:
            continue
        count, sep, order = line.partition(":")
        if not sep or "{" in order or m is None:
            raise CorruptDataError(f"{path}:{number}: expected 'count: a,b,...' after a '# NUMBER ALTERNATIVES' "
                                   "header (strict orders only: .soc/.soi, no ties)")
        ranked = [int(a) - 1 for a in order.split(",") if a.strip()]
        rows += [ranked + [c for c in range(m) if c not in ranked]] * int(count)
    if not rows:
        raise CorruptDataError(f"{path} holds no ballots")
    return torch.tensor(rows, dtype=torch.int64)


def load_preflib_dir(folder: Path, num_candidates: int) -> list[torch.Tensor]:
    """Every .soc/.soi election in `folder` with exactly `num_candidates` alternatives."""
    files = sorted([*folder.glob("*.soc"), *folder.glob("*.soi")]) if folder.is_dir() else []
    if not files:
        raise DatasetNotFoundError(f"no PrefLib .soc/.soi files in '{folder}'; run 'make data-preflib' or set data.preflib_dir")
    elections = [b for b in map(parse_preflib, files) if b.shape[1] == num_candidates]
    if not elections:
        raise DatasetNotFoundError(f"no election in '{folder}' has data.num_candidates={num_candidates} alternatives")
    return elections


def download(urls: list[str], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for url in urls:
        target = out / url.rsplit("/", 1)[-1]
        download_url(url, str(out), target.name)   # torchvision's; skips a file already there
        parse_preflib(target)   # fails loudly on a page that is not an election
        paths.append(target)
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("data/preflib"))
    parser.add_argument("--url", action="append", help="a PrefLib .soc/.soi URL (repeatable)")
    args = parser.parse_args(argv)
    with one_line_errors(f"the PrefLib download into {args.out}", "without network, copy the .soc/.soi files from a "
                         "machine that has them and set data.preflib_dir"):
        paths = download(args.url or list(DEFAULT_URLS), args.out)
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
