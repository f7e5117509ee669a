"""Test-time adaptation on the exemplar pair: it lowers the exemplar's own loss and changes the edit, the weights
come back after every item (so items cannot leak into each other), TTA off or at lr 0 edits exactly as before, it
runs under Lightning's inference mode, and a query that is its exemplar's source or a bad setting is one line."""

from functools import partial

import pytest
import torch

from experiments.delta_adapter.adapter import DeltaAdapter
from experiments.delta_adapter.editor import TinyFlowEditor
from experiments.delta_adapter.encoder import TinyImageEncoder
from experiments.delta_adapter.task import DeltaAdapterTask
from experiments.delta_adapter.tta import adapt_on_exemplar
from reprolab.cli.errors import ConfigError
from reprolab.tasks.test_time_adaptation import adaptable_parameters, restored


def make_task(**kw) -> DeltaAdapterTask:
    """A tiny task whose editor and adapter are randomised (the zero-initialised heads too): every path is live."""
    torch.manual_seed(0)
    encoder = TinyImageEncoder(image_size=8, patch=4, width=16, heads=2)
    editor = TinyFlowEditor(image_size=8, patch=2, width=16, depth=2, heads=2)
    adapter = DeltaAdapter(encoder_width=16, editor_width=16, editor_depth=2, editor_heads=2, width=16, num_tokens=2)
    for module in (editor, adapter):
        for p in module.parameters():
            torch.nn.init.normal_(p, std=0.2)
    return DeltaAdapterTask(adapter, partial(torch.optim.Adam, lr=1e-3), encoder=encoder, editor=editor,
                            sample_steps=2, **kw).eval()


def pairs(n: int, seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    src, query = torch.rand(n, 3, 8, 8, generator=g), torch.rand(n, 3, 8, 8, generator=g)
    return {"ex_src": src, "ex_tgt": 1 - src, "query": query, "query_tgt": 1 - query}


def state(task) -> dict:
    return {k: v.clone() for k, v in task.state_dict().items()}


def test_tta_lowers_the_exemplars_loss_and_the_weights_come_back():
    task = make_task()
    params = adaptable_parameters(task, None)
    assert set(params) == {n for n, _ in task.model.named_parameters(prefix="model")}   # encoder, editor frozen
    item = {k: v[:1] for k, v in pairs(1, 0).items()}
    exemplar = {"ex_src": item["ex_src"].expand(4, -1, -1, -1), "ex_tgt": item["ex_tgt"].expand(4, -1, -1, -1)}
    exemplar |= {"query": exemplar["ex_src"], "query_tgt": exemplar["ex_tgt"]}
    g = torch.Generator().manual_seed(5)
    fixed = (torch.randn(4, 3, 8, 8, generator=g), torch.rand(4, generator=g))
    def exemplar_loss():
        return float(task.losses(exemplar, lambda x0: fixed)[0].detach())

    before, weights, tokens = exemplar_loss(), state(task), task.injection(item)[0][1]
    with restored(params):
        adapt_on_exemplar(lambda b, d: task.losses(b, d)[0], item, params, 20, 1e-2, 8, torch.Generator().manual_seed(1))
        assert exemplar_loss() < 0.8 * before                                   # fitted to its own pair
        assert not torch.allclose(task.injection(item)[0][1], tokens)          # the adapter's values moved
    assert all(torch.equal(v, weights[k]) for k, v in task.state_dict().items())
    assert exemplar_loss() == before


def test_tta_changes_the_edit_and_restores_the_weights_after_every_item():
    batch, plain, adapted = pairs(3, 0), make_task(), make_task(tta_steps=5, tta_lr=1e-2)
    weights = state(adapted)
    with torch.inference_mode():                                                 # as in Lightning's test loop
        out, reference = adapted.edit(batch, 7), plain.edit(batch, 7)
    assert out.shape == reference.shape == (3, 3, 8, 8)
    assert (out - reference).abs().flatten(1).amax(1).min() > 1e-3                # every item's edit changed
    assert all(torch.equal(v, weights[k]) for k, v in adapted.state_dict().items())


def test_an_item_edits_the_same_whichever_item_was_adapted_before_it():
    task, a, b = make_task(tta_steps=4, tta_lr=1e-2), pairs(2, 0), pairs(2, 1)
    mixed = {k: torch.cat([b[k][:1], a[k][1:]]) for k in a}                       # item 0 differs, item 1 is a's
    out_a, out_mixed = task.edit(a, 3), task.edit(mixed, 3)
    assert not torch.allclose(out_a[0], out_mixed[0])
    assert torch.equal(out_a[1], out_mixed[1])


def test_tta_off_or_at_lr_zero_edits_exactly_as_without_it():
    batch = pairs(3, 2)
    off, zero_lr = make_task(), make_task(tta_steps=3, tta_lr=0.0)
    first = off.edit(batch, 11)
    assert torch.equal(first, make_task(tta_steps=0, tta_lr=1.0).edit(batch, 11))     # steps 0: the lr is unused
    assert torch.allclose(zero_lr.edit(batch, 11), first, atol=1e-6)                 # one item at a time, same edit


def test_a_query_that_is_its_exemplars_source_and_bad_settings_are_one_line():
    batch = pairs(2, 0)
    batch["query"] = torch.stack([batch["query"][0], batch["ex_src"][1]])
    with pytest.raises(ConfigError, match="test item 1 queries its exemplar's own source"):
        make_task(tta_steps=1).edit(batch, 0)
    make_task().edit(batch, 0)   # without TTA the exemplar's target is no training target: no refusal
    with pytest.raises(ConfigError, match=r"tta_params=\['model.nope'\]: \['model.nope'\] names no trainable"):
        make_task(tta_steps=1, tta_params=["model.nope"])
    with pytest.raises(ConfigError, match="tta_steps=-1"):
        make_task(tta_steps=-1)
    only_gate = adaptable_parameters(make_task(), ["model.gate", "model.resampler"])
    assert "model.gate" in only_gate and "model.project.weight" not in only_gate
    assert all(n == "model.gate" or n.startswith("model.resampler.") for n in only_gate)
