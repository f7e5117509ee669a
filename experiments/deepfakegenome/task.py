"""The DeepfakeGenome LightningModule: trains a detector or an attributor and scores its protocol at test time.

``protocol`` decides the training target and the test metrics:
* ``binary`` — 2-way softmax real/fake on reals + seen fakes; test: ``test/{seen,unseen}/{auc,ap,eer,acc}`` and
  ``test/family/<family>/auc`` (reals vs the fakes of one family, seen and unseen algorithms).
* ``closed_set`` / ``open_set`` / ``retrieval`` — a softmax (``linear``) or ArcFace head over the seen
  algorithms, optionally plus ``supcon_weight`` x SupCon on the embeddings; test: the protocol's metrics
  (``test/closed/*``, ``test/open/*``, ``test/retrieval_k{K}/*``). ``evaluate_all`` scores every attribution
  protocol from one model (the claim does so).
The algorithm split (seen / unseen / distractors) is read from the datamodule.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from lightning.pytorch.utilities import rank_zero_warn
from torchmetrics.classification import BinaryAUROC, MulticlassAccuracy

from experiments.deepfakegenome import protocols
from experiments.deepfakegenome.models import supcon_loss
from reprolab.cli.errors import ConfigError
from reprolab.metrics.openset import OSCR_CONVENTIONS
from reprolab.tasks.base import Task

PROTOCOLS = ("binary", "closed_set", "open_set", "retrieval")


class DeepfakeTask(Task):
    def __init__(self, model, optimizer, scheduler=None, protocol: str = "closed_set", num_classes: int = 2,
                 supcon_weight: float = 0.0, supcon_temperature: float = 0.1, registry_k=(1, 5, 10),
                 registry_pool: int = 20, fpirs=(0.01, 0.1), registry_reduce: str = "max",
                 evaluate_all: bool = False, oscr: str = "dhamija"):
        super().__init__(model, optimizer, scheduler)
        if protocol not in PROTOCOLS:
            raise ConfigError(f"task.protocol must be one of {PROTOCOLS}, got {protocol!r}")
        if oscr not in OSCR_CONVENTIONS:
            raise ConfigError(f"task.oscr must be one of {OSCR_CONVENTIONS}, got {oscr!r}")
        if protocol == "binary" and num_classes != 2:
            raise ConfigError(f"the binary protocol needs task.num_classes=2, got {num_classes}")
        self.protocol, self.num_classes = protocol, num_classes
        self.supcon_weight, self.supcon_temperature = supcon_weight, supcon_temperature
        self.registry_k, self.registry_pool = tuple(registry_k), registry_pool
        self.fpirs, self.registry_reduce, self.evaluate_all = tuple(fpirs), registry_reduce, evaluate_all
        self.oscr = oscr
        self.val_metric = BinaryAUROC() if protocol == "binary" else MulticlassAccuracy(num_classes, average="micro")
        self._test_outputs: list[dict] = []

    def setup(self, stage: str) -> None:
        """Fail before training, not after, when the data's algorithm split cannot serve the protocol."""
        split = getattr(getattr(self.trainer, "datamodule", None), "split", None)
        wants_unseen = self.protocol == "open_set" or (self.evaluate_all and self.protocol != "binary")
        if split is not None and wants_unseen and not split.unseen:
            raise ConfigError("the open-set protocol needs unseen algorithms: set data.unseen (and "
                              "data.num_seen_algorithms) to your split's held-out algorithms")
        if split is not None and self.protocol == "retrieval" and not split.distractors:
            rank_zero_warn("no data.distractors: retrieval reports Rank-k and mAP but no TPIR@FPIR")

    def _target(self, batch) -> torch.Tensor:
        return batch["fake"] if self.protocol == "binary" else batch["label"]

    def _check(self, batch):
        if not isinstance(batch, dict) or batch.get("image") is None or batch["image"].ndim != 4:
            raise ConfigError("DeepfakeTask expects dict batches with 'image' [B,3,H,W] (DeepfakeDataModule)")

    def training_step(self, batch, batch_idx):
        self._check(batch)
        target = self._target(batch)
        if bool((target < 0).any()):
            raise ConfigError("a training batch holds images without a class: for attribution protocols set "
                              "data.train_reals=false so only seen-algorithm fakes are trained on")
        feats = self.model.features(batch["image"])
        loss = F.cross_entropy(self.model.logits(feats, target), target)
        if self.supcon_weight > 0 and self.protocol != "binary":
            loss = loss + self.supcon_weight * supcon_loss(F.normalize(feats, dim=1), target, self.supcon_temperature)
        self.log("train/loss", loss, on_step=True, on_epoch=True, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        self._check(batch)
        target = self._target(batch)
        logits = self.model(batch["image"])
        keep = target >= 0
        loss = F.cross_entropy(logits[keep], target[keep])
        if self.protocol == "binary":
            self.val_metric.update(logits.softmax(1)[:, 1], target)
            self.log("val/auc", self.val_metric, on_epoch=True, prog_bar=True)
        else:
            self.val_metric.update(logits[keep], target[keep])
            self.log("val/acc", self.val_metric, on_epoch=True, prog_bar=True)
        self.log("val/loss", loss, on_epoch=True, sync_dist=True)

    def test_step(self, batch, batch_idx):
        self._check(batch)
        feats = self.model.features(batch["image"])
        self._test_outputs.append({"logits": self.model.logits(feats).float().cpu(),
                                   "embeddings": F.normalize(feats, dim=1).float().cpu(),
                                   "algorithm": batch["algorithm"].cpu(), "label": batch["label"].cpu()})

    def on_test_epoch_end(self):
        outputs = {k: torch.cat([o[k] for o in self._test_outputs]) for k in self._test_outputs[0]}
        self._test_outputs.clear()
        for name, value in self.score(outputs, self.trainer.datamodule.split).items():
            self.log(f"test/{name}", value)

    def _skippable(self, name: str, fn, *args, **kwargs) -> dict:
        """Run one protocol. In a debug run on a few test batches (debug=fdr / limit) a protocol the partial
        test set cannot support is skipped with a warning; in a full run that is a configuration error."""
        try:
            return fn(*args, **kwargs)
        except ValueError as err:
            if not self._partial_test_set():
                raise ConfigError(f"DeepfakeGenome protocol '{name}': {err}") from err
            rank_zero_warn(f"DeepfakeGenome protocol '{name}' skipped on a partial test set: {err}")
            return {}

    def _partial_test_set(self) -> bool:
        """Whether this test run saw fewer batches than the test loaders hold (fast_dev_run, limit_test_batches)."""
        trainer = self.trainer
        loaders = trainer.test_dataloaders
        loaders = loaders if isinstance(loaders, list | tuple) else [loaders]
        return bool(trainer.fast_dev_run) or any(
            n < len(loader) for n, loader in zip(trainer.num_test_batches, loaders, strict=True))

    def score(self, outputs: dict, split) -> dict[str, float]:
        """All metrics of this task's protocol (or every attribution protocol) from gathered test outputs."""
        if self.protocol == "binary":
            fake_score = outputs["logits"].softmax(1)[:, 1]
            out = protocols.binary_detection(fake_score, outputs["algorithm"], split.seen, split.unseen)
            by_family = protocols.detection_by_family(fake_score, outputs["algorithm"], split.families)
            return out | {f"family/{k}": v for k, v in by_family.items()}
        which = PROTOCOLS[1:] if self.evaluate_all else ("closed_set", self.protocol)
        out = {}
        for name in dict.fromkeys(which):  # closed-set accuracy is always reported for an attributor
            out.update(self._skippable(name, score_attribution, outputs, split, which=(name,),
                                       registry_k=self.registry_k, registry_pool=self.registry_pool,
                                       fpirs=self.fpirs, reduce=self.registry_reduce, oscr=self.oscr))
        return out


def score_attribution(outputs: dict, split, which=("closed_set", "open_set", "retrieval"), registry_k=(1, 5, 10),
                      registry_pool: int = 20, fpirs=(0.01, 0.1), reduce: str = "max", seed: int = 0,
                      oscr: str = "dhamija") -> dict:
    """Closed-set, open-set and retrieval metrics of an attribution model's test outputs, flat-keyed."""
    P = protocols  # noqa: N806 (short alias for the protocol functions)
    out = {}
    if "closed_set" in which:
        class_family = [split.families[a] for a in split.seen]
        scores = P.closed_set_attribution(outputs["logits"], outputs["label"], class_family)
        out.update({f"closed/{k}": v for k, v in scores.items()})
    if "open_set" in which:
        scores = P.open_set_attribution(outputs["logits"], outputs["embeddings"], outputs["label"],
                                        outputs["algorithm"], split.unseen, seed, oscr)
        out.update({f"open/{k}": v for k, v in scores.items()})
    if "retrieval" in which:
        for k in registry_k:
            scores = P.retrieval_attribution(outputs["embeddings"], outputs["algorithm"], split.registered,
                                             split.distractors, split.seen, k, registry_pool, fpirs, reduce, seed)
            out.update({f"retrieval_k{k}/{name}": v for name, v in scores.items()})
    return out
