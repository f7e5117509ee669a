"""The FIML arm's two stages as tasks on the channel and the duct (`fiml.py` for the method).

`stage: invert` (model `BetaFields`): each training step solves every training case with its own beta field and
back-propagates e^2 + prior_weight * mean((beta - 1)^2) through the solve with the discrete adjoint (the channel's
or duct's loss e^2, `DarsmChannelTask._case_loss`). Its checkpoint holds the inverted fields by case name; its test
reports the training cases' error with those fields (unseen cases have none: they are solved with beta = 1).
`stage: learn` (model `BetaNet`): reads the inverted fields from `inversion_run` (a finished stage-1 run folder or
its checkpoint), re-solves each training case with its field to get the features at the inverted state, and fits
log beta by full-batch regression, one optimiser step per training step (no solver in training). Validation and
test solve every case, training and unseen, with beta = network(features(q)) inside the solve: FIML's prediction.
"""

from __future__ import annotations

from pathlib import Path

import torch

from experiments.darsm.duct_task import DarsmDuctTask
from experiments.darsm.fiml import BetaFields, BetaNet, ProductionMultiplier, baseline_arsm
from experiments.darsm.model import invariant_inputs
from experiments.darsm.solver import newton_solve
from experiments.darsm.task import DarsmChannelTask
from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.run.finished_model import model_state
from reprolab.run.folder import run_checkpoint

STAGES = {"invert": BetaFields, "learn": BetaNet}
RUN_INVERSION = "run the inversion stage first (make claim-darsm-fiml, or reprolab-train experiment=darsm/<case>_fiml_invert_cpu)"


def inverted_fields(inversion_run: str | None) -> dict[str, torch.Tensor]:
    """{case name: beta} from a finished stage-1 run's folder (the checkpoint it tested) or a checkpoint file."""
    if not inversion_run:
        raise ConfigError(f"task.stage=learn needs task.inversion_run=<stage-1 run folder>; {RUN_INVERSION}")
    path = Path(inversion_run)
    ckpt = run_checkpoint(path) if path.is_dir() else path
    if not ckpt.is_file():
        raise DatasetNotFoundError(f"no inversion checkpoint at '{ckpt}'; {RUN_INVERSION}")
    return {k.removeprefix("fields."): v for k, v in model_state(ckpt).items() if k.startswith("fields.")}


class Fiml:
    """The FIML stages over a DARSM task (mixed in before `DarsmChannelTask` or `DarsmDuctTask`)."""

    def __init__(self, model, optimizer, scheduler=None, stage: str = "invert", source: str = "omega",
                 prior_weight: float = 1e-3, inversion_run: str | None = None, mode: str = "adjoint", **task):
        if stage not in STAGES:
            raise ConfigError(f"task.stage '{stage}' unknown; one of {', '.join(STAGES)}")
        if not isinstance(model, STAGES[stage]):
            raise ConfigError(f"task.stage={stage} needs model {STAGES[stage].__name__}; got {type(model).__name__} "
                              f"(model=darsm_beta_{'fields' if stage == 'invert' else 'net'})")
        if mode != "adjoint":
            raise ConfigError(f"the FIML inversion's gradient is the discrete adjoint; task.mode must be adjoint, got {mode}")
        if prior_weight < 0:
            raise ConfigError(f"task.prior_weight must be >= 0; got {prior_weight}")
        super().__init__(model, optimizer, scheduler, mode=mode, **task)
        ProductionMultiplier(None, None, source)   # checks the name
        self.stage, self.source, self.prior_weight, self.inversion_run = stage, source, prior_weight, inversion_run
        self.base = baseline_arsm()
        self.closure = self.base
        self._regression: tuple[torch.Tensor, torch.Tensor] | None = None

    def _training_cases(self) -> list[dict]:
        datamodule = self.trainer.datamodule
        return [datamodule.cases[key] for key in datamodule.train_keys]

    def setup(self, stage: str) -> None:
        if self.stage == "invert":
            for case in self._training_cases():
                nodes = self.geometry(case).initial_state().numel() // self.geometry(case).n_vars
                if case["name"] not in self.model.fields or self.model.fields[case["name"]].numel() != nodes:
                    raise ConfigError(f"model.cases/model.shape give fields {sorted(self.model.fields)} that do not fit "
                                      f"training case '{case['name']}' ({nodes} nodes); set them from data (the presets do)")
        elif stage == "fit" and self._regression is None:
            self._regression = self.regression_pairs(inverted_fields(self.inversion_run))

    def with_field(self, beta_of) -> ProductionMultiplier:
        return ProductionMultiplier(self.base, beta_of, self.source)

    def closure_for(self, case: dict):
        if self.stage == "learn":
            return self.with_field(self.model)
        if case["name"] in self.model.fields:
            return self.with_field(lambda f, name=case["name"]: self.model.field(name, f["k"]))
        return self.base

    def solve(self, case: dict, warm: bool):
        self.closure = self.closure_for(case)
        return super().solve(case, warm)

    def regression_pairs(self, fields: dict) -> tuple[torch.Tensor, torch.Tensor]:
        """(features (N, 3), log beta (N,)) at every node of every training case, at its inverted solve."""
        inputs, targets = [], []
        for case in self._training_cases():
            if case["name"] not in fields:
                raise ConfigError(f"inversion run '{self.inversion_run}' has no field for training case "
                                  f"'{case['name']}' (it has {sorted(fields)}); invert the same training cases")
            geometry, beta = self.geometry(case), fields[case["name"]].to(self.device, torch.float64)
            closure = self.with_field(lambda f, b=beta: b.view_as(f["k"]))
            q, _ = newton_solve(lambda q, g=geometry, c=closure: g.residual(q, c), geometry.initial_state(),
                                n_vars=geometry.n_vars, jacobian_fn=geometry.jacobian, **self.solver)
            inputs.append(invariant_inputs(geometry.features(q)).reshape(-1, 3))
            targets.append(torch.log(beta.clamp_min(1e-3)))
        return torch.cat(inputs), torch.cat(targets)

    def _case_loss(self, case: dict) -> torch.Tensor:
        beta = self.model.fields[case["name"]]
        prior = ((beta - 1.0) ** 2).mean()
        self.log(f"train/{case['name']}/beta_rms_change", prior.detach().sqrt(), on_step=True, on_epoch=False,
                 batch_size=1)
        return super()._case_loss(case) + self.prior_weight * prior

    def training_step(self, batch, batch_idx):
        if self.stage == "invert":
            return super().training_step(batch, batch_idx)
        inputs, targets = self._regression
        loss = ((self.model.log_beta(inputs) - targets) ** 2).mean()
        self.log("train/loss", loss, on_step=True, on_epoch=False, prog_bar=True, batch_size=1)
        return loss


class ChannelFimlTask(Fiml, DarsmChannelTask):
    """FIML on the channel twin (training Re_tau from `data.train_re_tau`)."""


class DuctFimlTask(Fiml, DarsmDuctTask):
    """FIML on the duct (training ducts from `data.train_cases`)."""
