"""The argument parser of the project's small console scripts: a wrong flag is one line, like every other error."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


class OneLineParser(argparse.ArgumentParser):
    """`argparse` prints its usage block before the error; here the error is one `error:` line naming `--help`."""

    def error(self, message: str) -> NoReturn:
        print(f"error: {message}; see `{self.prog} --help`", file=sys.stderr)
        sys.exit(2)
