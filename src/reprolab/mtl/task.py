"""The shared MTL LightningModule: T losses → weighting → `.grad` → any optimizer (manual optimisation).

Manual optimisation lets the weighting write the combined gradient itself (`reprolab.mtl.engine`), so Adam,
Muon and APT drop in through the `optimizer` group unchanged. APT optimizers receive the task-conflict
signal of each step (`set_task_conflict`). `heads`: each head learns from its own loss (`own`) or from the task
weight times it (`weighted`; `reprolab.mtl.engine`). FAMO with `after=same_batch` gets this batch's losses again
after the optimiser step (one extra forward, as its authors' trainer). Logged: `train/loss` (Σ_t L_t), `train/loss_<task>`,
`train/weight_<task>`, `train/update_share` (cos of the applied update with −d_t, `reprolab.mtl.diagnostics`),
`train/momentum_input_share` (APT only), each also as `_mean` over the logged steps so far (the train/ keys only
on the steps the loggers write),
`val|test/<metric>`, `val|test/loss` (Σ_t L_t; the one task's
loss in a `single_task` run), and `val|test/delta_m` when the benchmark carries single-task baselines.
Single-process: DDP would need the `.grad` all-reduce that `loss.backward()` normally triggers, so a world size
above one is refused before set-up (`reprolab.run.device.check_world_size`); the paper-scale presets use one GPU,
as the MTL protocol does.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from reprolab.mtl.architectures import HardParameterSharing
from reprolab.mtl.benchmark import MTLBenchmark
from reprolab.mtl.diagnostics import UpdateShare
from reprolab.mtl.engine import MTLBackward, task_losses
from reprolab.mtl.metrics import delta_m
from reprolab.mtl.weightings import build_weighting
from reprolab.tasks.base import Task


class MTLTask(Task):
    single_process = "its weighting writes the combined gradient itself, bypassing DDP's gradient all-reduce"

    def __init__(self, model, optimizer: Callable, scheduler: Callable | None = None,
                 benchmark: MTLBenchmark | None = None, weighting: str = "ew", weighting_kwargs: dict | None = None,
                 jacobian_method: str = "loop", conflict_for_apt: bool = True, jacobian_wrt: str = "params",
                 single_task: str | None = None, heads: str = "own"):
        super().__init__(model, optimizer, scheduler)
        if benchmark is None:
            raise ValueError("MTLTask needs a `benchmark` (the task group's `benchmark:` entry)")
        for attr in ("shared_parameters", "task_specific_parameters"):
            if not hasattr(model, attr):
                raise TypeError(f"MTL models must define {attr}(); {type(model).__name__} does not "
                                "(use reprolab.mtl.architectures.HardParameterSharing or SegNetMTAN)")
        self.automatic_optimization = False
        self.benchmark = benchmark
        if single_task is not None:  # the STL baseline: one task's loss only, whatever `weighting` says
            if single_task not in benchmark.task_names:
                raise ValueError(f"single_task {single_task!r} is not a task of this benchmark; "
                                 f"choose from {', '.join(benchmark.task_names)}")
        self.single_index = None if single_task is None else benchmark.task_names.index(single_task)
        if self.single_index is not None:
            weighting, weighting_kwargs = "single", {"task": self.single_index}
        self.weighting = build_weighting(weighting, benchmark.n_tasks, **dict(weighting_kwargs or {}))
        self.jacobian_method = jacobian_method
        if jacobian_wrt not in ("params", "representation"):
            raise ValueError(f"jacobian_wrt must be 'params' or 'representation', got {jacobian_wrt!r}")
        if jacobian_wrt == "representation" and not self.weighting.on_representation:
            raise ValueError(f"jacobian_wrt=representation runs the method on ∂L/∂z of one batch, so it needs a method "
                             f"without gradient state across batches or loss scales (mgda, pcgrad, imtl, cagrad, "
                             f"alignedmtl, nashmtl, gradvac, fairgrad, graddrop); {weighting!r} is not one")
        self.jacobian_wrt = jacobian_wrt
        if heads not in ("own", "weighted"):
            raise ValueError(f"heads must be 'own' (each head by its own loss) or 'weighted' (by the task weight, as "
                             f"the official MGDA and Nash-MTL code), got {heads!r}")
        self.heads = heads
        self.conflict_for_apt = conflict_for_apt
        self.engine: MTLBackward | None = None

    def setup(self, stage: str) -> None:
        """Regression benchmarks report MAE in original units: take the datamodule's target std if it has one."""
        datamodule = getattr(self.trainer, "datamodule", None) if self._trainer is not None else None
        scale = getattr(datamodule, "target_scale", None)
        if scale is not None and hasattr(self.benchmark, "scale"):
            self.benchmark.scale = torch.as_tensor(scale, dtype=torch.float32).reshape(-1).clone()

    def on_fit_start(self) -> None:
        inner = self.optimizers().optimizer
        wants_conflict = self.conflict_for_apt and hasattr(inner, "set_task_conflict")
        representation = None
        if self.jacobian_wrt == "representation":
            if not isinstance(self.model, HardParameterSharing):
                raise ValueError("jacobian_wrt=representation (MGDA-UB style) needs a hard-sharing model with one "
                                 f"shared representation; {type(self.model).__name__} has none")
            representation = lambda: self.model.representation
        self._update_share = UpdateShare()
        self._share_sums: dict[str, tuple[float, int]] = {}
        self.engine = MTLBackward(self.weighting, self.model.shared_parameters(),
                                  self.model.task_specific_parameters(), self.jacobian_method,
                                  always_jacobian=wants_conflict and getattr(inner, "apt", {}).get("enabled", False),
                                  representation=representation, before_backward=self._before_backward,
                                  heads=self.heads)

    def _before_backward(self, losses: torch.Tensor) -> None:
        """What Lightning runs before `loss.backward()` (every callback's and this module's `on_before_backward`,
        the core's FiniteLossGuard among them), given the T task losses, since the engine runs its own backward."""
        self.trainer.precision_plugin.pre_backward(losses, self)

    def training_step(self, batch, batch_idx):
        inputs, targets = self.benchmark.split(batch)
        losses = task_losses(self.benchmark.losses(self.model(inputs), targets))
        opt = self.optimizers()
        opt.zero_grad(set_to_none=True)
        stats = self.engine(losses)
        inner = opt.optimizer
        if hasattr(inner, "set_task_conflict"):
            inner.set_task_conflict(stats["conflict"])
        logging = self._logger_writes_this_step(ahead=1)  # global_step counts this step only after opt.step()
        if logging:
            self._update_share.before(self.model.parameters())
        opt.step()
        if getattr(self.weighting, "wants_after_losses", False):  # FAMO's "after" losses: this batch, re-evaluated
            with torch.no_grad():
                self.weighting.observe_after(task_losses(self.benchmark.losses(self.model(inputs), targets)))
        if logging:
            stats["update_share"] = self._update_share.after()
        scheduler = self.lr_schedulers()
        if scheduler is not None:
            scheduler.step()
        if logging:
            self._log_step(losses, stats, inner)
        return losses.sum().detach()

    def _logger_writes_this_step(self, ahead: int = 0) -> bool:
        """Whether Lightning hands this step's on-step metrics to the loggers (every `log_every_n_steps`-th
        step, and the last): `self.log` costs ~0.1-1 ms a call on CPU, more than a small model's whole step."""
        trainer = self._trainer
        if trainer is None or trainer.fast_dev_run:
            return True
        step, every = self.global_step + ahead, trainer.log_every_n_steps  # the step count after this update
        last_epoch = trainer.max_epochs is not None and 0 < trainer.max_epochs <= trainer.current_epoch + 1
        last = 0 < trainer.max_steps <= step or trainer.should_stop or (trainer.is_last_batch and last_epoch)
        return last or (every > 0 and step % every == 0)

    def _log_step(self, losses: torch.Tensor, stats: dict, inner) -> None:
        self.log("train/loss", losses.sum().detach(), prog_bar=True)
        for name, loss, w in zip(self.benchmark.task_names, losses.detach(), stats["weights"], strict=True):
            self.log(f"train/loss_{name}", loss)
            self.log(f"train/weight_{name}", w.float())
        shares = {"update_share": stats.get("update_share", float("nan")),
                  "momentum_input_share": float(getattr(inner, "momentum_input_share", float("nan")))}
        for name, value in shares.items():
            if value == value:  # not NaN
                total, n = self._share_sums.get(name, (0.0, 0))
                self._share_sums[name] = (total + value, n + 1)
                self.log(f"train/{name}", value)
                self.log(f"train/{name}_mean", (total + value) / (n + 1))  # over the logged steps so far

    def on_load_checkpoint(self, checkpoint: dict) -> None:
        """Checkpoints written before weightings saved their running state lack its key: load them anyway."""
        checkpoint["state_dict"].setdefault("weighting._extra_state", {})

    def on_train_epoch_end(self) -> None:
        self.weighting.epoch_end()

    def _eval_step(self, batch, stage: str) -> None:
        inputs, targets = self.benchmark.split(batch)
        outputs = self.model(inputs)
        losses = task_losses(self.benchmark.losses(outputs, targets))
        if self.single_index is not None:  # its objective; the untrained heads' losses would pick the checkpoint
            losses = losses[self.single_index]
        self.log(f"{stage}/loss", losses.sum(), on_epoch=True, sync_dist=True)
        self.benchmark.update(stage, outputs, targets)

    def _eval_end(self, stage: str) -> None:
        metrics = self.benchmark.compute(stage)
        self.benchmark.reset(stage)
        for k, v in metrics.items():
            self.log(f"{stage}/{k}", float(v))
        stl = self.benchmark.stl
        if stl:
            self.log(f"{stage}/delta_m", delta_m(metrics, stl, self.benchmark.higher))

    def validation_step(self, batch, batch_idx):
        self._eval_step(batch, "val")

    def on_validation_epoch_end(self) -> None:
        self._eval_end("val")

    def test_step(self, batch, batch_idx):
        self._eval_step(batch, "test")

    def on_test_epoch_end(self) -> None:
        self._eval_end("test")
