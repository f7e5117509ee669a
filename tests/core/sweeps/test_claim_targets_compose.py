"""Every `reprolab-train -m` call of every `make claim-<paper>` target composes as Hydra composes a multirun before
its first job: with the sweep overrides (`a,b`, ranges, globs) left out. A plain override of a key that only the
swept presets or data options have (`data.fit_on=…` beside `data=hetero_energy,…`) fails there, for the whole sweep,
and must be written `++key=…` (README, "Sweeps"). The commands are read with `make -n`, as make expands them."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from hydra.core.override_parser.overrides_parser import OverridesParser

from reprolab.config.compose import compose
from tests.core.make_dry_run import script_calls

REPO = Path(__file__).resolve().parents[3]
PAPERS = sorted(p.parent.name for p in (REPO / "experiments").glob("*/targets.mk"))


def train_calls(target: str) -> list[list[str]]:
    """The override lists of the `reprolab-train` calls `make -n <target>` would run (one per `--next` part)."""
    calls = []
    for args in script_calls(target, "reprolab-train", "JOBS=1"):
        part: list[str] = []
        for arg in args:
            if arg == "--next":
                calls.append(part)
                part = []
            elif arg not in ("-m", "--multirun"):
                part.append(arg)
        calls.append(part)
    return calls


def first_composition(args: list[str]) -> list[str]:
    """What Hydra applies before a multirun's jobs: the overrides that are not sweeps, Hydra's own keys aside."""
    parsed = OverridesParser.create().parse_overrides(args)
    return [arg for arg, o in zip(args, parsed, strict=True)
            if not o.is_sweep_override() and not o.key_or_group.startswith("hydra")]


def test_first_composition_leaves_out_sweeps():
    args = ["experiment=a/b,a/c", "seed=0,1", "++data.fit_on=x", "trainer.max_steps=3", "hydra.sweep.dir=logs/x"]
    assert first_composition(args) == ["++data.fit_on=x", "trainer.max_steps=3"]


@pytest.mark.parametrize("paper", PAPERS)
def test_claim_target_sweeps_compose_before_their_first_job(paper, tmp_path):
    calls = train_calls(f"claim-{paper}")
    for args in calls:
        try:
            compose(first_composition(args), output_dir=tmp_path)
        except Exception as err:  # noqa: BLE001 - the message names the key; the assertion names the call
            pytest.fail(f"claim-{paper}: `reprolab-train -m {shlex.join(args)}` fails before its first job: "
                        f"{str(err).splitlines()[0]}")


def experiment_presets(args: list[str]) -> list[str]:
    """The `experiment=` presets a call names, each value of a sweep (`a/b,a/c`) apart."""
    parsed = OverridesParser.create().parse_overrides(args)
    return [value for o in parsed if o.key_or_group == "experiment"
            for value in (o.sweep_string_iterator() if o.is_sweep_override() else [o.get_value_element_as_str()])]


@pytest.mark.parametrize("paper", PAPERS)
def test_claim_target_sweeps_only_its_own_presets(paper):
    """A claim target trains its own paper's presets: another paper's there means a make variable was taken from
    the wrong targets.mk (both DeepArrhythmia and Delta-Adapter once assigned `DA_ARMS`)."""
    foreign = [preset for args in train_calls(f"claim-{paper}") for preset in experiment_presets(args)
               if not preset.startswith(f"{paper}/")]
    assert not foreign, f"claim-{paper} trains presets of other papers: {sorted(set(foreign))}"
