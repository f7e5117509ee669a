"""The fast hook dispatch (reprolab.fast_hooks) skips only hooks with an empty body: a fit makes the same calls, in
the same order, sees the same `_current_fx_name`, logs the same values and ends at the same weights."""

from __future__ import annotations

import sys

import lightning as L
import pytest
import torch
from lightning.pytorch.callbacks import Callback
from lightning.pytorch.trainer import call
from lightning.pytorch.utilities import signature_utils
from torch.utils.data import DataLoader, TensorDataset

from reprolab import fast_hooks


class Recorder(Callback):
    def __init__(self, events: list):
        self.events = events

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        self.events.append(("cb.on_train_batch_start", pl_module._current_fx_name, batch_idx))

    def on_before_backward(self, trainer, pl_module, loss):
        self.events.append(("cb.on_before_backward", pl_module._current_fx_name, round(float(loss), 6)))

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        pl_module.log("cb/step", float(trainer.global_step))  # logging from a callback hook needs its fx name
        self.events.append(("cb.on_train_batch_end", pl_module._current_fx_name, batch_idx))


class Silent(Callback):
    """Lightning's base hooks only: every dispatch to it is skippable."""


class Tiny(L.LightningModule):
    def __init__(self, events: list):
        super().__init__()
        self.layer = torch.nn.Linear(3, 1)
        self.events = events

    def training_step(self, batch, batch_idx):
        loss = torch.nn.functional.mse_loss(self.layer(batch[0]).squeeze(-1), batch[1])
        self.log("train/loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        self.log("val/loss", torch.nn.functional.mse_loss(self.layer(batch[0]).squeeze(-1), batch[1]))

    def on_train_epoch_end(self):
        self.events.append(("module.on_train_epoch_end", self._current_fx_name, self.current_epoch))

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


def _fit(tmp_path) -> tuple[list, dict, dict, torch.Tensor]:
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(24, 3), torch.randn(24))
    events: list = []
    module = Tiny(events)
    trainer = L.Trainer(max_epochs=2, log_every_n_steps=2, logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False, callbacks=[Silent(), Recorder(events)],
                        default_root_dir=tmp_path)
    trainer.fit(module, DataLoader(data, batch_size=8, shuffle=True), DataLoader(data, batch_size=12))
    metrics = {k: float(v) for k, v in trainer.callback_metrics.items()}
    logged = {k: float(v) for k, v in trainer.logged_metrics.items()}
    return events, metrics, logged, module.layer.weight.detach().clone()


def _lightnings_dispatch(monkeypatch) -> None:
    originals = fast_hooks._lightning
    for name in ("_call_callback_hooks", "_call_lightning_module_hook", "_call_strategy_hook"):
        monkeypatch.setattr(call, name, originals[name])
    monkeypatch.setattr(L.LightningModule, "_call_batch_hook", originals["_call_batch_hook"])
    for name in fast_hooks.STAGE_FLAGS:
        monkeypatch.setattr(L.Trainer, name, originals[name])


def test_a_fit_makes_the_same_calls_and_numbers_with_the_fast_dispatch(tmp_path, monkeypatch):
    fast_hooks.install()
    fast = _fit(tmp_path / "fast")
    with monkeypatch.context() as patch:
        _lightnings_dispatch(patch)
        lightning = _fit(tmp_path / "lightning")
    assert fast[0] == lightning[0] and len(fast[0]) == 2 * 3 * 3 + 2  # 3 batches x 2 epochs x 3 hooks + 2 epoch ends
    assert ("cb.on_train_batch_end", "on_train_batch_end", 0) in fast[0]
    assert fast[1] == lightning[1] and fast[2] == lightning[2] and "cb/step" in fast[2]
    assert torch.equal(fast[3], lightning[3])


def test_empty_base_hooks_are_skipped_and_overridden_ones_are_not(tmp_path, monkeypatch):
    fast_hooks.install()
    dispatched = []
    original = Recorder.on_before_backward
    monkeypatch.setattr(Silent, "on_before_optimizer_step", lambda self, *a: dispatched.append("silent"), raising=False)
    monkeypatch.setattr(Recorder, "on_before_backward", lambda self, *a: dispatched.append("rec") or original(self, *a))
    _fit(tmp_path)
    assert dispatched.count("silent") == dispatched.count("rec") == 6  # a patched-in hook is called at every step
    assert fast_hooks.hook_does_nothing(Silent(), "on_train_batch_start")
    assert not fast_hooks.hook_does_nothing(Recorder([]), "on_train_batch_start")
    instance = Silent()
    instance.on_train_batch_start = lambda *a: None  # an instance attribute: never skipped
    assert not fast_hooks.hook_does_nothing(instance, "on_train_batch_start")


class Doubling(L.LightningDataModule):
    """Overrides one batch hook; the module overrides another: both must still run at every batch."""

    def __init__(self):
        super().__init__()
        self.data = TensorDataset(torch.randn(24, 3), torch.randn(24))

    def train_dataloader(self):
        return DataLoader(self.data, batch_size=8)

    def on_before_batch_transfer(self, batch, dataloader_idx):
        return [batch[0] * 2, batch[1]]


def test_batch_hooks_run_without_dispatch_unless_the_module_or_datamodule_overrides_one(tmp_path, monkeypatch):
    from lightning.pytorch.trainer.connectors.data_connector import _DataHookSelector

    fast_hooks.install()
    lookups = []
    original = _DataHookSelector.get_instance
    monkeypatch.setattr(_DataHookSelector, "get_instance", lambda self, name: lookups.append(name) or original(self, name))
    _fit(tmp_path / "plain")
    assert lookups == []  # Tiny and its DataLoaders override no batch hook: nothing to look up at any batch

    seen = []

    class Sees(Tiny):
        def on_after_batch_transfer(self, batch, dataloader_idx):
            seen.append(float(batch[0].abs().sum()))
            return batch

    datamodule = Doubling()
    trainer = L.Trainer(max_epochs=1, logger=False, enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False, default_root_dir=tmp_path)
    trainer.fit(Sees([]), datamodule=datamodule)
    doubled = [float(2 * x.abs().sum()) for x, _ in datamodule.train_dataloader()]
    assert seen == pytest.approx(doubled)  # the datamodule's hook ran before the module's, at every batch
    assert set(lookups) == {"on_before_batch_transfer", "on_after_batch_transfer"}  # the overridden ones only


def test_the_fx_name_is_set_without_module_setattr_unless_the_module_brings_its_own(tmp_path, monkeypatch):
    fast_hooks.install()
    names = []
    original = torch.nn.Module.__setattr__
    monkeypatch.setattr(torch.nn.Module, "__setattr__",
                        lambda self, name, value: names.append(name) or original(self, name, value))
    events = _fit(tmp_path / "plain")[0]
    fast = names.count("_current_fx_name")
    names.clear()
    with monkeypatch.context() as patch:
        _lightnings_dispatch(patch)
        assert _fit(tmp_path / "lightning")[0] == events
    assert fast < 10 < names.count("_current_fx_name")  # Lightning's own sets remain (module init); no dispatch's

    class Watching(Tiny):
        def __setattr__(self, name, value):
            names.append(("own", name))
            super().__setattr__(name, value)

    monkeypatch.setattr(sys.modules[__name__], "Tiny", Watching)
    events = _fit(tmp_path / "own")[0]
    assert ("own", "_current_fx_name") in names and ("cb.on_train_batch_end", "on_train_batch_end", 0) in events


def test_stage_flags_answer_as_lightnings_without_its_string_comparison(tmp_path, monkeypatch):
    from lightning.pytorch.trainer.states import RunningStage
    from lightning_utilities.core.enums import StrEnum

    fast_hooks.install()
    trainer = L.Trainer(logger=False, enable_checkpointing=False, enable_progress_bar=False,
                        enable_model_summary=False, default_root_dir=tmp_path)
    compared = []
    original = StrEnum.__eq__
    monkeypatch.setattr(StrEnum, "__eq__", lambda self, other: compared.append(other) or original(self, other))
    for stage in [None, *RunningStage, "train", "TEST", "other"]:
        trainer.state.stage = stage
        for name in fast_hooks.STAGE_FLAGS:
            assert getattr(trainer, name) == fast_hooks._lightning[name].fget(trainer), (stage, name)
    n_lightning = len(compared)
    compared.clear()
    for stage in [None, *RunningStage]:
        trainer.state.stage = stage
        flags = [getattr(trainer, name) for name in fast_hooks.STAGE_FLAGS]
        assert sum(flags) == (stage is not None)
    assert compared == [] and n_lightning > 0
    trainer.training = True  # the setters are Lightning's
    assert trainer.state.stage is RunningStage.TRAINING and trainer.training
    trainer.training = False
    assert trainer.state.stage is None


def _empty(a, b):
    """Only a docstring."""


def _returns(a):
    return a


def _prints(a):
    print(a)


def _ellipsis():
    ...


@pytest.mark.parametrize(("fn", "empty"), [(_empty, True), (_ellipsis, True), (lambda: None, True),
                                           (_returns, False), (_prints, False), (len, False)])
def test_does_nothing_reads_the_body(fn, empty):
    assert fast_hooks.does_nothing(fn) is empty


def test_signature_check_is_cached_per_function_and_answers_as_lightning():
    fast_hooks.install()
    from lightning.pytorch.loops import training_epoch_loop

    cached = training_epoch_loop.is_param_in_hook_signature
    assert fast_hooks.lightning_module_file.is_param_in_hook_signature is cached  # `self.log` asks it at every call
    original = fast_hooks._lightning["is_param_in_hook_signature"]
    assert original is signature_utils.is_param_in_hook_signature and cached is not original
    module = Tiny([])
    for fn, param, kwargs in [(module.training_step, "batch_idx", {"min_args": 2}),
                              (module.training_step, "dataloader_iter", {"explicit": True}),
                              (lambda self, *args: None, "batch_idx", {})]:
        assert cached(fn, param, **kwargs) == original(fn, param, **kwargs)


def test_a_trainer_still_gets_each_registered_callback_but_packages_are_scanned_once(monkeypatch, tmp_path):
    from importlib import metadata

    from reprolab import fast_setup

    class Registered(Callback):
        pass

    class EntryPoint:
        name = "test"

        def load(self):
            return Registered

    scans = []
    monkeypatch.setattr(metadata, "entry_points",
                        lambda **params: scans.append(params) or ([EntryPoint()] if params == {"group": "g"} else []))
    fast_setup._group.cache_clear()
    fast_setup.install()
    trainers = [L.Trainer(logger=False, enable_checkpointing=False, enable_progress_bar=False,
                          enable_model_summary=False, default_root_dir=tmp_path) for _ in range(2)]
    assert scans == [{"group": "lightning.pytorch.callbacks_factory"}]  # one scan for two Trainers
    assert fast_setup.entry_points(group="g") == fast_setup.entry_points(group="g") and scans.count({"group": "g"}) == 1
    fast_setup._group.cache_clear()
    monkeypatch.setattr(metadata, "entry_points", lambda **params: [EntryPoint()])
    first, second = (L.Trainer(logger=False, enable_checkpointing=False, enable_progress_bar=False,
                               enable_model_summary=False, default_root_dir=tmp_path) for _ in range(2))
    ours = [[c for c in t.callbacks if isinstance(c, Registered)] for t in (first, second)]
    assert len(ours[0]) == len(ours[1]) == 1 and ours[0][0] is not ours[1][0]  # each Trainer its own instance
    assert len(trainers) == 2
    fast_setup._group.cache_clear()


def test_the_fast_dispatch_stays_off_under_another_lightning_or_when_turned_off(monkeypatch):
    from reprolab import fast_hooks

    assert fast_hooks.supported()  # the pinned Lightning here is the one the dispatchers were copied from
    monkeypatch.setenv("REPROLAB_FAST_HOOKS", "0")
    assert not fast_hooks.supported()
    monkeypatch.delenv("REPROLAB_FAST_HOOKS")
    monkeypatch.setattr(fast_hooks.lightning, "__version__", "2.7.0")
    assert not fast_hooks.supported()


class ValidatingTiny(L.LightningModule):
    def __init__(self, with_val_step: bool):
        super().__init__()
        self.layer = torch.nn.Linear(2, 1)
        if not with_val_step:
            self.validation_step = None  # is_overridden: an instance attribute, not an overriding method

    def training_step(self, batch, batch_idx):
        return self.layer(batch[0]).sum()

    def validation_step(self, batch, batch_idx):
        return None

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


@pytest.mark.parametrize("limit", [0, 0.0, 1, 0.5])
@pytest.mark.parametrize(("val_step", "val_loader"), [(True, True), (True, False), (False, True)])
def test_enable_validation_answers_as_lightnings_with_the_limit_tested_first(tmp_path, limit, val_step, val_loader):
    fast_hooks.install()
    answers = []

    class Ask(Callback):
        def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
            answers.append((trainer.enable_validation, fast_hooks._lightning["enable_validation"].fget(trainer)))

    data = DataLoader(TensorDataset(torch.randn(4, 2)), batch_size=2)
    trainer = L.Trainer(max_steps=2, limit_val_batches=limit, num_sanity_val_steps=0, logger=False, callbacks=[Ask()],
                        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
                        default_root_dir=tmp_path)
    trainer.fit(ValidatingTiny(val_step), train_dataloaders=data, val_dataloaders=data if val_loader else None)
    assert len(answers) == 2 and all(ours == theirs for ours, theirs in answers)
    assert answers[0][0] == (val_step and val_loader and limit > 0)
