"""`python -m reprolab.data.torchvision_download MNIST data/mnist`: a torchvision dataset's own download of its
train and test splits (the `make data-mnist` / `data-cifar10` targets), a failure as one line instead of a traceback."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from reprolab.cli.one_line_errors import one_line_errors

USAGE = "usage: python -m reprolab.data.torchvision_download <torchvision dataset class, e.g. MNIST> <folder>"


def download(name: str, root: str) -> None:
    import torchvision.datasets

    dataset = getattr(torchvision.datasets, name, None)
    if not isinstance(dataset, type):
        raise ValueError(f"torchvision.datasets has no dataset '{name}'")
    for train in (True, False):
        dataset(root, train=train, download=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 2:
        print(f"error: {USAGE}", file=sys.stderr)
        return 2
    name, root = args
    try:
        with one_line_errors(f"the {name} download into {root}"):
            download(name, root)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"{root}: {name} train and test splits present")
    return 0


if __name__ == "__main__":
    sys.exit(main())
