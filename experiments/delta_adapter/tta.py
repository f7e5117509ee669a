"""Test-time adaptation (TTA) on the exemplar pair, the paper's optional inference step (arXiv 2605.07940).

Before a query is edited, a copy of the trainable weights is fine-tuned on its exemplar alone, with the training
loss of single-pair supervision: the exemplar's source is the query and its target the prediction target (flow
matching plus the semantic-delta consistency term, task.py). The paper does not give the schedule; ours is the
standard per-instance fine-tune: Adam at `tta_lr` for `tta_steps` steps, each on `tta_batch` (noise, t) draws of
the one pair, over `tta_params` (name prefixes of the task's trainable parameters; all of them by default: the
adapter, and an editor's decoupled-attention projections where it holds them). The weights are restored after
every exemplar, so no test item sees another's adaptation. The query is never the exemplar's own source: that
pair's target is the adaptation target, so scoring on it would score a memorised image.
"""

from __future__ import annotations

import torch

from reprolab.cli.errors import ConfigError
from reprolab.tasks.test_time_adaptation import adapt


def check_query_is_not_the_source(batch: dict) -> None:
    """The trap of TTA: an item whose query is its exemplar's source would be scored on the adaptation target."""
    same = (batch["query"] == batch["ex_src"]).flatten(1).all(1)
    if bool(same.any()):
        raise ConfigError(f"test item {int(same.nonzero()[0])} queries its exemplar's own source: TTA would score on "
                          "its own adaptation target; test on pairs whose query is another image (pair_of_pairs test sets)")


def exemplar_as_query(item: dict, copies: int) -> dict:
    """The exemplar pair as a single-pair training batch of `copies` rows: query = source, target = exemplar target."""
    src, tgt = item["ex_src"].expand(copies, -1, -1, -1), item["ex_tgt"].expand(copies, -1, -1, -1)
    return {"ex_src": src, "ex_tgt": tgt, "query": src, "query_tgt": tgt}


def adapt_on_exemplar(loss_fn, item: dict, params: dict[str, torch.nn.Parameter], steps: int, lr: float,
                      copies: int, generator: torch.Generator) -> None:
    """`steps` Adam steps (reprolab.tasks.test_time_adaptation.adapt) of `loss_fn(batch, draw)` on one exemplar
    pair (`item`: tensors with a batch of 1); `draw(x0)` gives that step's (noise, t) from `generator`."""
    def draw(x0: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        noise = torch.randn(x0.shape, generator=generator).to(x0)
        return noise, torch.rand(len(x0), generator=generator).to(x0)

    batch = exemplar_as_query(item, copies)
    adapt(lambda: loss_fn(batch, draw), params, steps, lr)
