"""`reprolab-dashboard <paper>`: the paper's W&B workspace as code, from conf/dashboard/<paper>.yaml.

    reprolab-dashboard cifar10                       # offline: writes logs/dashboards/cifar10.json
    reprolab-dashboard cifar10 --online --entity me  # saves the workspace to W&B, prints its URL
    reprolab-dashboard --list

Offline (the default unless WANDB_MODE=online) nothing touches the network: the file holds the
spec and the W&B view that `--online` would save.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from reprolab.cli.closed_stdout import quiet_on_closed_stdout
from reprolab.cli.errors import ConfigError, ReprolabError, one_line
from reprolab.cli.parser import OneLineParser
from reprolab.dashboards.spec import available, load_spec


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    p = OneLineParser(prog="reprolab-dashboard", description=__doc__.split("\n\n")[0])
    p.add_argument("paper", nargs="?", help="a paper with a conf/dashboard/<paper>.yaml")
    p.add_argument("--spec", type=Path, help="another spec file instead of conf/dashboard/<paper>.yaml")
    p.add_argument("--out", type=Path, help="offline output (default logs/dashboards/<paper>.json)")
    p.add_argument("--online", action="store_true", default=os.environ.get("WANDB_MODE") == "online",
                   help="save the workspace to W&B (needs `wandb login`)")
    p.add_argument("--entity", default=os.environ.get("WANDB_ENTITY"), help="W&B entity (default $WANDB_ENTITY)")
    p.add_argument("--project", default=os.environ.get("WANDB_PROJECT", "reprolab"), help="W&B project")
    p.add_argument("--list", action="store_true", help="list the papers that have a dashboard")
    args = p.parse_args(list(argv))
    if not args.list and not args.paper:
        p.error("name a paper (see --list)")
    return args


@quiet_on_closed_stdout
def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.list:
        print("\n".join(available()))
        return 0
    try:
        return save_online(args) if args.online else write_offline(args)
    except ReprolabError as err:
        print(f"error: {one_line(err)}", file=sys.stderr)
        return err.exit_code


def build(args: argparse.Namespace, entity: str):
    """The spec and its workspace; a spec wandb-workspaces rejects is a one-line ConfigError."""
    from reprolab.dashboards.workspace import build_workspace

    spec = load_spec(args.paper, args.spec)
    try:
        return spec, build_workspace(spec, entity=entity, project=args.project)
    except ValueError as err:  # pydantic's ValidationError
        raise ConfigError(f"dashboard spec '{args.paper}' is not a valid workspace: {one_line(err)} "
                          f"{str(err).splitlines()[1:3]}") from err


def write_offline(args: argparse.Namespace) -> int:
    from reprolab.deps.compat import workspace_spec

    spec, workspace = build(args, entity=args.entity or "offline")
    out = args.out or Path("logs") / "dashboards" / f"{args.paper}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"spec": spec, "workspace": workspace_spec(workspace)}, indent=2) + "\n")
    n_panels = sum(len(s.get("panels", [])) for s in spec["sections"])
    print(f"{args.paper}: {len(spec['sections'])} sections, {n_panels} panels → {out} (offline; --online saves it)")
    return 0


def save_online(args: argparse.Namespace) -> int:
    if not args.entity:
        raise ConfigError("--online needs a W&B entity: pass --entity or set WANDB_ENTITY")
    _, workspace = build(args, entity=args.entity)
    try:
        workspace.save()
    except Exception as err:  # no key, no network, unknown project: one line, not a traceback
        raise ConfigError(f"W&B refused the workspace ({type(err).__name__}: {one_line(err)}); "
                          "check `wandb login`, --entity and --project") from err
    print(f"saved {args.paper} workspace: {workspace.url}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
