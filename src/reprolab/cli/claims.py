"""`reprolab-claims`: evaluate papers' claims on their runs; write claims.json, the RESULTS.md block
and the scorecard.

    reprolab-claims deltamomentum              # evaluate one paper (runs under its runs_root)
    reprolab-claims --all                      # every paper with a claims.yaml
    reprolab-claims --scorecard                # REPRODUCTIONS.md from every recorded claims.json
    reprolab-claims --file my/claims.yaml --runs-root logs/x --no-write   # print only
    reprolab-claims deltamomentum --claim regression_delta_sgd_fewer_steps --runs-root logs/demo  # one claim
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from reprolab.claims.evaluate import evaluate_claims
from reprolab.claims.report import TOOL, merge_with_recorded, render_markdown, write_json
from reprolab.claims.scorecard import write_scorecard
from reprolab.claims.spec import ClaimsError, load_claims, papers_with_claims
from reprolab.cli.closed_stdout import quiet_on_closed_stdout
from reprolab.cli.parser import OneLineParser
from reprolab.results.markdown import write_block


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = OneLineParser(prog="reprolab-claims", description=__doc__.split("\n\n")[0])
    p.add_argument("papers", nargs="*", help="paper names (experiments/<paper>/claims.yaml)")
    p.add_argument("--all", action="store_true", help="every paper that has a claims.yaml")
    p.add_argument("--file", type=Path, help="a claims file by path instead of a paper name")
    p.add_argument("--runs-root", type=Path, help="read the claims' runs under this folder instead of runs_root")
    p.add_argument("--claim", action="append", default=[], metavar="ID",
                   help="only these claims (repeatable); implies --no-write")
    p.add_argument("--no-write", action="store_true", help="print the verdicts; write no file")
    p.add_argument("--scorecard", nargs="?", const=True, default=None, metavar="PATH",
                   help="(re)write REPRODUCTIONS.md (or PATH) from every paper's recorded claims.json")
    args = p.parse_args(list(argv))
    if not (args.papers or args.all or args.file or args.scorecard):
        p.error("name a paper, or give --all, --file or --scorecard")
    return args


def evaluate_one(source: str | Path, runs_root: Path | None, write: bool, only: Sequence[str] = ()) -> str:
    claims_file = load_claims(source)
    if only:
        unknown = sorted(set(only) - {c.id for c in claims_file.everything})
        if unknown:
            raise ClaimsError(f"{claims_file.path}: no claim {', '.join(unknown)}; its claims: "
                              f"{', '.join(c.id for c in claims_file.everything)}")
        claims_file = replace(claims_file, claims=tuple(c for c in claims_file.claims
                                                        if c.id in only or (c.is_meta and set(c.of) <= set(only))),
                              sanity=tuple(c for c in claims_file.sanity if c.id in only))
    entries = merge_with_recorded(claims_file, evaluate_claims(claims_file, runs_root))
    body = render_markdown(claims_file, entries, runs_root)
    if write:
        print(f"wrote {write_json(claims_file, entries)}", file=sys.stderr)
        results_md = claims_file.path.parent / "RESULTS.md"
        write_block(results_md, claims_file.paper, body, tool=TOOL)
        print(f"updated {results_md}", file=sys.stderr)
    return body


@quiet_on_closed_stdout
def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    sources: list[str | Path] = [*args.papers, *(papers_with_claims() if args.all else []), *([args.file] if args.file else [])]
    try:
        for source in sources:
            print(evaluate_one(source, args.runs_root, write=not (args.no_write or args.claim), only=args.claim))
        if args.scorecard:
            path = write_scorecard(None if args.scorecard is True else Path(args.scorecard))
            print(f"wrote {path}", file=sys.stderr)
    except ClaimsError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
