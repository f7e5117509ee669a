"""The datamodule: every arm meets the very same test states, the filter leaves every arm the same number
of demos, and bad options are one clear line (Hydra wraps the ConfigError when it instantiates)."""

import pytest
import torch
from hydra.errors import InstantiationException
from hydra.utils import instantiate

from experiments.deformgen.data import fingerprint
from reprolab.cli.errors import ConfigError
from reprolab.config.compose import compose

SMALL = ["data.n_demos=3", "data.n_test=3", "data.gen_batch=8"]
ARMS = ["deformgen/dg_cpu", "deformgen/source_cpu", "deformgen/smg_cpu", "deformgen/dgstar_cpu",
        "deformgen/noise_cpu", "deformgen/dg_k5_cpu"]


def datamodule(experiment, *overrides):
    return instantiate(compose(overrides=[f"experiment={experiment}", *SMALL, *overrides]).data)


def test_every_arm_is_tested_on_the_same_states():
    sets = {arm: datamodule(arm).test_states() for arm in ARMS}
    reference = sets[ARMS[0]]
    assert list(reference) == ["impulse", "grid", "drag"]
    for arm, states in sets.items():
        for name, s in states.items():
            assert torch.equal(s, reference[name]), (arm, name)
    # an arm's own state-process options and seed never reach the test states
    other = datamodule("deformgen/dg_cpu", "data.process.speed=[0.1,0.2]", "seed=7").test_states()
    assert all(fingerprint(other[n]) == fingerprint(reference[n]) for n in reference)


def test_the_three_test_sets_differ_and_are_settled():
    dm = datamodule("deformgen/dg_cpu")
    states = dm.test_states()
    prints = {fingerprint(s) for s in states.values()}
    assert len(prints) == 3
    source = dm.source
    for s in states.values():
        assert float((s - source).norm(dim=-1).max()) > 0.01        # every state moved from the source


@pytest.mark.parametrize("arm", ["deformgen/dg_cpu", "deformgen/smg_cpu"])
def test_the_replay_filter_leaves_exactly_n_demos(arm):
    dm = datamodule(arm)
    dm.setup("fit")
    assert dm.stats["n_demos"] == 3
    steps = dm.env.horizon
    n_val = round(3 * dm.val_fraction)
    assert len(dm.splits["train"]) == (3 - n_val) * steps
    assert 0 < dm.stats["accept_rate"] <= 1


def test_the_source_arm_has_the_one_expert_demo():
    dm = datamodule("deformgen/source_cpu")
    dm.setup("fit")
    assert dm.stats == {"n_demos": 1.0, "accept_rate": 1.0, "candidates": 1.0}
    assert len(dm.splits["train"]) == dm.env.horizon


def test_unknown_options_are_one_clear_error():
    with pytest.raises((ConfigError, InstantiationException), match="Generator has no option"):
        datamodule("deformgen/dg_cpu", "+data.generator.wrap=field")
    with pytest.raises((ConfigError, InstantiationException), match="data.test_sets"):
        datamodule("deformgen/dg_cpu", "data.test_sets=[impulse,teleport]")
