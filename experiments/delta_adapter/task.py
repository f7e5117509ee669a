"""Stage 3: the Delta-Adapter trained into the frozen editor by flow matching plus semantic-delta consistency.

Per batch: the frozen encoder reads the exemplar's source and target; the adapter turns them into decoupled
cross-attention keys and values; the frozen editor, given the query as context, predicts the velocity of the
query's edited image (flow.py). With single-pair supervision the query IS the exemplar's source, so its
target is the exemplar's target: one pair, no pair-of-pairs (the target is never an input of the editor).
Loss (paper, method section): L = ||v_theta - (eps - x_0)||^2 + lambda_c w(t) (1 - cos(Delta_out, Delta_ex)),
Delta_out = e(x0_hat) - e(query), Delta_ex = e(ex_tgt) - e(ex_src), e = mean of the per-token LayerNormed
frozen features, x0_hat = x_t - t v_theta the one-step clean estimate, w(t) = 1 - t (our choice: x0_hat is
reliable only at small t; the paper's weighting is not given).
Test: Euler-sample the edit of a query that is never the exemplar's source, from noise fixed by (batch,
split), and log test/<seen|unseen>/{psnr,ssim,dir_cos,leakage,pixel_leakage}. With `tta_steps` > 0 each item's
trainable weights are first fine-tuned on its own exemplar pair by the same loss, then restored (tta.py).
The frozen parts come from earlier stages' run folders (`encoder_from`, `editor_from`: the CPU claim check)
or as modules (`encoder`, `editor`: SigLIP and FLUX.1-Kontext at paper scale). The flow runs in the editor's
own space (`editor.encode` / `decode`: pixels for the tiny DiT, VAE latents for FLUX). `init_from`: a finished
stage-3 run whose trained adapter (and editor projections) this task starts from (a test-only TTA arm).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from experiments.delta_adapter import metrics
from experiments.delta_adapter.flow import clean_estimate, euler_sample, interpolate, velocity_target
from experiments.delta_adapter.tta import adapt_on_exemplar, check_query_is_not_the_source
from reprolab.cli.errors import ConfigError
from reprolab.optim.build import build_optimizer, build_scheduler
from reprolab.run.finished_model import load_initial_weights, load_run_model
from reprolab.run.folder import run_checkpoint
from reprolab.tasks.base import Task
from reprolab.tasks.test_time_adaptation import adaptable_parameters, restored

SPLITS = ("seen", "unseen")


def frozen_stage(module: torch.nn.Module | None, run_dir: str | None, key: str, stage: str) -> torch.nn.Module:
    """The given module, else the network of the run folder `run_dir`; frozen except an editor's `injection`."""
    if module is not None and run_dir:
        raise ConfigError(f"give {key}_from or {key}, not both")
    if module is None:
        if not run_dir:
            raise ConfigError(f"task.{key}_from is not set; give the {stage} run folder (make claim-delta_adapter "
                              f"trains it first) or a task.{key} module")
        module, _ = load_run_model(run_dir, to_make_it=f"run the {stage} preset first, or point task.{key}_from at "
                                   "its run folder (experiments/delta_adapter/README.md)")
    module.requires_grad_(False)
    for injection in getattr(module, "injection", ()):
        injection.requires_grad_(True)
    return module


class DeltaAdapterTask(Task):
    def __init__(self, model, optimizer, scheduler=None, encoder_from: str | None = None,
                 editor_from: str | None = None, consistency_weight: float = 0.1, ip_scale: float = 1.0,
                 sample_steps: int = 8, ssim_kernel: int = 7, encoder=None, editor=None, init_from: str | None = None,
                 tta_steps: int = 0, tta_lr: float = 1e-3, tta_batch: int = 4, tta_params=None):
        super().__init__(model, optimizer, scheduler)
        self.encoder = frozen_stage(encoder, encoder_from, "encoder", "encoder (stage 1)")
        self.editor = frozen_stage(editor, editor_from, "editor", "editor (stage 2)")
        if tuple(self.editor.injection_shape) != tuple(model.injection_shape):
            raise ConfigError(f"the adapter injects (blocks, heads, head width) {tuple(model.injection_shape)} but the "
                              f"editor at '{editor_from}' takes {tuple(self.editor.injection_shape)}; set "
                              "model.editor_depth / editor_heads / editor_width to the editor's")
        if self.encoder.width != model.encoder_width:
            raise ConfigError(f"model.encoder_width={model.encoder_width} but the encoder at '{encoder_from}' "
                              f"gives {self.encoder.width} features per token; set model.encoder_width={self.encoder.width}")
        self.consistency_weight, self.ip_scale = consistency_weight, ip_scale
        self.sample_steps, self.ssim_kernel = sample_steps, ssim_kernel
        if tta_steps < 0 or tta_lr < 0 or tta_batch < 1:
            raise ConfigError(f"task.tta_steps={tta_steps}, tta_lr={tta_lr}, tta_batch={tta_batch}: need steps >= 0 "
                              "(0: no test-time adaptation), lr >= 0 and at least one (noise, t) draw per step")
        self.tta_steps, self.tta_lr, self.tta_batch = tta_steps, tta_lr, tta_batch
        self.tta_params = None if tta_params is None else list(tta_params)
        adaptable_parameters(self, self.tta_params)   # a prefix naming nothing fails here, before any run
        if init_from:
            self.load_trained(init_from)

    def load_trained(self, init_from: str) -> None:
        """The adapter of a finished stage-3 run, and the editor's trainable projections where it holds them."""
        load_initial_weights(self.model, init_from, to_make_it="run its single_pair_cpu arm first (make claim-delta_adapter)")
        injection = {n for n, p in self.editor.named_parameters() if p.requires_grad}
        if injection:
            state = torch.load(run_checkpoint(init_from), map_location="cpu", weights_only=True)["state_dict"]
            self.editor.load_state_dict({n: state[f"editor.{n}"] for n in injection}, strict=False)

    def configure_optimizers(self):
        """The adapter and the editor's decoupled-attention projections, if it holds them (requires_grad)."""
        trainable = torch.nn.ModuleList([self.model, self.editor])
        optimizer = build_optimizer(self.optimizer_factory, trainable)
        scheduler = build_scheduler(self.scheduler_factory, optimizer, self.trainer.estimated_stepping_batches)
        return optimizer if scheduler is None else {"optimizer": optimizer, "lr_scheduler": scheduler}

    def semantic(self, images: torch.Tensor) -> torch.Tensor:
        """e(x): the mean of the per-token LayerNormed frozen features (B, D)."""
        features = self.encoder(images)
        return F.layer_norm(features, features.shape[-1:]).mean(1)

    def injection(self, batch) -> list:
        with torch.no_grad():
            source, target = self.encoder(batch["ex_src"]), self.encoder(batch["ex_tgt"])
        return self.model(source, target)

    def losses(self, batch, draw) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """(loss, flow-matching loss, consistency term or None) of a batch; `draw(x0)` gives (noise, t)."""
        query = batch["query"]
        x0, context = self.editor.encode(batch["query_tgt"]), self.editor.encode(query)
        noise, t = draw(x0)
        x_t = interpolate(x0, noise, t)
        velocity = self.editor(x_t, t, context, self.injection(batch), self.ip_scale)
        flow_loss = F.mse_loss(velocity, velocity_target(x0, noise))
        loss, consistency = flow_loss, None
        if self.consistency_weight > 0:
            with torch.no_grad():
                exemplar_delta = self.semantic(batch["ex_tgt"]) - self.semantic(batch["ex_src"])
                query_e = self.semantic(query)
            output_delta = self.semantic(self.editor.decode(clean_estimate(x_t, t, velocity))) - query_e
            consistency = ((1 - t) * (1 - F.cosine_similarity(output_delta, exemplar_delta, dim=-1))).mean()
            loss = loss + self.consistency_weight * consistency
        return loss, flow_loss, consistency

    def training_step(self, batch, batch_idx):
        loss, flow_loss, consistency = self.losses(
            batch, lambda x0: (torch.randn_like(x0), torch.rand(len(x0), device=x0.device)))
        if consistency is not None:
            self.log("train/consistency", consistency, on_step=True)
        self.log("train/flow_loss", flow_loss, on_step=True)
        self.log("train/loss", loss, on_step=True, prog_bar=True)
        return loss

    def sample(self, batch, context: torch.Tensor, noise: torch.Tensor) -> torch.Tensor:
        ip = self.injection(batch)
        velocity = lambda x, t: self.editor(x, t, context, ip, self.ip_scale)  # noqa: E731
        return self.editor.decode(euler_sample(velocity, noise, self.sample_steps)).clamp(0, 1)

    def edit(self, batch, seed: int) -> torch.Tensor:
        """The sampled edit of batch['query'] by the exemplar pair, in [0, 1], from noise seeded by `seed`; with
        TTA, item i first adapts a copy of the weights on its exemplar (draws seeded by `seed` and i)."""
        context = self.editor.encode(batch["query"])
        noise = torch.randn(context.shape, generator=torch.Generator().manual_seed(seed)).to(context)
        if self.tta_steps == 0:
            return self.sample(batch, context, noise)
        check_query_is_not_the_source(batch)
        params, out = adaptable_parameters(self, self.tta_params), []
        loss = lambda b, draw: self.losses(b, draw)[0]  # noqa: E731
        for i in range(len(noise)):
            # gradients at test time: outside Lightning's inference mode, on normal (cloned) tensors
            with torch.inference_mode(False), torch.enable_grad(), restored(params):
                item = {k: batch[k][i : i + 1].clone() for k in ("ex_src", "ex_tgt", "query")}
                generator = torch.Generator().manual_seed(1_000_003 * seed + i)
                adapt_on_exemplar(loss, item, params, self.tta_steps, self.tta_lr, self.tta_batch, generator)
                with torch.no_grad():
                    out.append(self.sample(item, context[i : i + 1].clone(), noise[i : i + 1].clone()))
        return torch.cat(out)

    def test_step(self, batch, batch_idx, dataloader_idx: int = 0):
        split = SPLITS[dataloader_idx]
        out = self.edit(batch, 10_000 * dataloader_idx + batch_idx)
        truth, query = batch["query_tgt"], batch["query"]
        pooled = {k: self.encoder.pooled(v) for k, v in (("out", out), ("ex", batch["ex_tgt"]), ("truth", truth))}
        values = {
            "psnr": metrics.psnr(out, truth),
            "ssim": metrics.ssim(out, truth, self.ssim_kernel),
            "dir_cos": metrics.direction_cosine(self.semantic(out), self.semantic(query), self.semantic(truth)),
            "leakage": metrics.leakage(pooled["out"], pooled["ex"], pooled["truth"]),
            "pixel_leakage": metrics.psnr(out, batch["ex_tgt"]) - metrics.psnr(out, truth),
            "copy_psnr": metrics.psnr(query, truth),
        }
        for name, value in values.items():
            self.log(f"test/{split}/{name}", value.mean(), batch_size=len(out), add_dataloader_idx=False)
