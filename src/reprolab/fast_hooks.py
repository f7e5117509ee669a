"""Lightning's hook dispatch without the calls that do nothing.

At every training step Lightning calls ~15 hooks (`on_train_batch_start`, `on_before_optimizer_step`, ... on
every callback, the LightningModule and the strategy), each through a dispatcher that formats a debug line,
sets and restores `pl_module._current_fx_name` (through `nn.Module.__setattr__`; here a plain attribute set
when the module has no `__setattr__` of its own) and opens a profiler context: ~5-10 µs a call on CPU, most
of them reaching an empty base-class method; and it re-reads the `training_step` signature
(`inspect.getfullargspec`) at every step and every `self.log` call. On a small model that is a tenth of the
step. `install` replaces the three dispatchers (trainer/call.py) by the same logic less the profiler context
and the debug line, which does not dispatch a hook whose method has an empty body (no instruction but
`return None`), and caches the signature check per function. What runs, in what order, with which arguments
and `_current_fx_name`, is unchanged; with a profiler or debug logging on, Lightning's own dispatch runs.
The three batch-transfer hooks (`on_before_batch_transfer`, `transfer_batch_to_device`,
`on_after_batch_transfer`) are dispatched at every batch after Lightning asks, per hook, whether the module or
the datamodule overrides it (~10 `is_overridden` calls a batch); when neither does (nor sets it on the instance),
their default bodies run directly: the batch as it is, `move_data_to_device(batch, device)`.
The Trainer's stage flags (`trainer.training`, ... read ~17 times a step) compare the stage by identity when it
is a `RunningStage` member or None, which is what `LightningEnum.__eq__`'s case-folded string comparison answers
for them (~1 µs each); any other stage value still goes through `==`.
`Trainer.enable_validation`, read at every step, tests `limit_val_batches > 0` first (two `is_overridden` look-ups
less a step when nothing is validated). The copied dispatchers are Lightning 2.6's: under another Lightning version, or with `REPROLAB_FAST_HOOKS=0`,
`install` leaves Lightning's own in place.
"""

from __future__ import annotations

import dis
import functools
import logging
import os

import lightning
import torch
from lightning.pytorch import LightningModule
from lightning.pytorch.callbacks import Checkpoint, EarlyStopping
from lightning.pytorch.core import module as lightning_module_file
from lightning.pytorch.core.hooks import DataHooks
from lightning.pytorch.loops import evaluation_loop, prediction_loop, training_epoch_loop
from lightning.pytorch.profilers import PassThroughProfiler
from lightning.pytorch.trainer import Trainer, call
from lightning.pytorch.trainer.states import RunningStage
from lightning.pytorch.utilities import move_data_to_device, signature_utils
from lightning.pytorch.utilities.model_helpers import is_overridden

_EMPTY_OPS = {"RESUME", "NOP", "RETURN_VALUE"}  # plus LOAD_CONST / RETURN_CONST of None


def does_nothing(fn) -> bool:
    """`fn`'s body is empty (a docstring, `pass`, `...` or `return None`): calling it has no effect."""
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    if code is None or code.co_freevars or code.co_cellvars:
        return False
    for ins in dis.get_instructions(code):
        if ins.opname in _EMPTY_OPS or (ins.opname in ("LOAD_CONST", "RETURN_CONST") and ins.argval is None):
            continue
        if ins.opname == "LOAD_CONST" and ins.argval is Ellipsis:  # `...` as a statement, then POP_TOP
            continue
        if ins.opname == "POP_TOP":
            continue
        return False
    return True


_empty_function = functools.cache(does_nothing)  # per function object: a method patched in later is read afresh


def hook_does_nothing(obj, hook_name: str) -> bool:
    """`obj.<hook_name>` is a method of its class (not an instance attribute) whose body is empty."""
    if hook_name in getattr(obj, "__dict__", ()):
        return False
    try:
        return _empty_function(getattr(type(obj), hook_name, None))
    except TypeError:  # an unhashable descriptor
        return False


def _plain(trainer) -> bool:
    """No profiler and no debug logging: nothing records a dispatch that calls nothing."""
    return type(trainer.profiler) is PassThroughProfiler and not call.log.isEnabledFor(logging.DEBUG)


def _set_fx_name(module, name) -> None:
    """`module._current_fx_name = name`, without `nn.Module.__setattr__`'s parameter / buffer / submodule checks
    (a string is none of them; ~2 µs, twice a dispatch) unless the module's class brings its own `__setattr__`."""
    if type(module).__setattr__ is torch.nn.Module.__setattr__:
        object.__setattr__(module, "_current_fx_name", name)
    else:
        module._current_fx_name = name


def _call_lightning_module_hook(trainer, hook_name, *args, pl_module=None, **kwargs):
    """Lightning's `_call_lightning_module_hook` (trainer/call.py), not dispatching an empty hook."""
    module = pl_module or trainer.lightning_module
    if module is None or not _plain(trainer):
        return _lightning["_call_lightning_module_hook"](trainer, hook_name, *args, pl_module=pl_module, **kwargs)
    if hook_does_nothing(module, hook_name):
        return None
    fn = getattr(module, hook_name)
    if not callable(fn):
        return None
    prev_fx_name = module._current_fx_name
    _set_fx_name(module, hook_name)
    output = fn(*args, **kwargs)
    _set_fx_name(module, prev_fx_name)
    return output


def _call_strategy_hook(trainer, hook_name, *args, **kwargs):
    """Lightning's `_call_strategy_hook` (trainer/call.py), not dispatching an empty hook."""
    pl_module = trainer.lightning_module
    if pl_module is None or not _plain(trainer):
        return _lightning["_call_strategy_hook"](trainer, hook_name, *args, **kwargs)
    strategy = trainer.strategy
    if hook_does_nothing(strategy, hook_name):
        return None
    prev_fx_name = pl_module._current_fx_name
    _set_fx_name(pl_module, hook_name)
    fn = getattr(strategy, hook_name)
    if not callable(fn):
        return None  # as Lightning: `_current_fx_name` stays the hook's
    output = fn(*args, **kwargs)
    _set_fx_name(pl_module, prev_fx_name)
    return output


def _call_callback_hooks(trainer, hook_name, *args, monitoring_callbacks=None, **kwargs) -> None:
    """Lightning's `_call_callback_hooks` (trainer/call.py), over the callbacks whose hook does something."""
    if not _plain(trainer):
        return _lightning["_call_callback_hooks"](trainer, hook_name, *args, monitoring_callbacks=monitoring_callbacks,
                                                  **kwargs)
    callbacks = trainer.callbacks
    if monitoring_callbacks is True:
        callbacks = [cb for cb in callbacks if isinstance(cb, (EarlyStopping, Checkpoint))]
    elif monitoring_callbacks is False:
        callbacks = [cb for cb in callbacks if not isinstance(cb, (EarlyStopping, Checkpoint))]
    callbacks = [cb for cb in callbacks if not hook_does_nothing(cb, hook_name)]
    if not callbacks:
        return None
    pl_module = trainer.lightning_module
    if pl_module:
        prev_fx_name = pl_module._current_fx_name
        _set_fx_name(pl_module, hook_name)
    for callback in callbacks:
        fn = getattr(callback, hook_name)
        if callable(fn):
            fn(trainer, trainer.lightning_module, *args, **kwargs)
    if pl_module:
        _set_fx_name(pl_module, prev_fx_name)
    return None


def _default_data_hook(obj, hook_name: str) -> bool:
    """`obj` (a module, a datamodule or None) runs Lightning's own `DataHooks.<hook_name>`: neither its class nor
    the instance replaces it."""
    if obj is None:
        return True
    return hook_name not in getattr(obj, "__dict__", ()) and getattr(type(obj), hook_name, None) is getattr(
        DataHooks, hook_name)


_DEFAULT_DATA_HOOKS = {"on_before_batch_transfer": lambda batch, *_: batch,
                       "on_after_batch_transfer": lambda batch, *_: batch,
                       "transfer_batch_to_device": lambda batch, device, *_: move_data_to_device(batch, device)}


def _call_batch_hook(self, hook_name, *args):
    """Lightning's `LightningModule._call_batch_hook` (core/module.py), running a data hook that neither the
    module nor the datamodule overrides without its dispatch."""
    trainer = self._trainer
    selector = trainer._data_connector._datahook_selector if trainer is not None else None
    if (selector is not None and hook_name in _DEFAULT_DATA_HOOKS and _plain(trainer)
            and all(_default_data_hook(obj, hook_name) for obj in (self, selector.model, selector.datamodule))):
        return _DEFAULT_DATA_HOOKS[hook_name](*args)
    return _lightning["_call_batch_hook"](self, hook_name, *args)


STAGE_FLAGS = {"training": RunningStage.TRAINING, "testing": RunningStage.TESTING,
               "predicting": RunningStage.PREDICTING, "validating": RunningStage.VALIDATING,
               "sanity_checking": RunningStage.SANITY_CHECKING}


def _enable_validation(trainer) -> bool:
    """`Trainer.enable_validation` (read at every training step) with its cheapest condition first: the same three
    side-effect-free conditions, so a run with `limit_val_batches=0` skips the two `is_overridden` look-ups."""
    return (trainer.limit_val_batches > 0 and trainer.fit_loop.epoch_loop.val_loop._data_source.is_defined()
            and is_overridden("validation_step", trainer.lightning_module))


def _stage_flag(member: RunningStage):
    def flag(trainer) -> bool:
        stage = trainer.state.stage
        if stage is None or type(stage) is RunningStage:
            return stage is member
        return stage == member

    return flag


_call_callback_hooks.reprolab_fast = True
_lightning: dict = {}  # Lightning's own functions, as they were before `install`


def _cached_signature_check(check):
    cache: dict = {}

    @functools.wraps(check)
    def cached(hook_fx, param: str, explicit: bool = False, min_args: int | None = None) -> bool:
        key = (getattr(hook_fx, "__func__", hook_fx), param, explicit, min_args)
        try:
            return cache[key]
        except KeyError:
            cache[key] = result = check(hook_fx, param, explicit, min_args)
            return result
        except TypeError:  # an unhashable callable
            return check(hook_fx, param, explicit, min_args)

    cached.reprolab_fast = True
    return cached


def supported() -> bool:
    """The installed Lightning is the one whose dispatchers these copy, and the user has not turned them off."""
    return lightning.__version__.startswith(TESTED_LIGHTNING) and os.environ.get("REPROLAB_FAST_HOOKS", "1") != "0"


TESTED_LIGHTNING = "2.6."


def install() -> None:
    """Wrap Lightning's hook dispatchers and the loops' signature check (idempotent; see the module docstring)."""
    if getattr(call._call_callback_hooks, "reprolab_fast", False) or not supported():
        return
    _lightning.update(_call_callback_hooks=call._call_callback_hooks,
                      _call_lightning_module_hook=call._call_lightning_module_hook,
                      _call_strategy_hook=call._call_strategy_hook,
                      is_param_in_hook_signature=signature_utils.is_param_in_hook_signature,
                      _call_batch_hook=LightningModule._call_batch_hook)
    LightningModule._call_batch_hook = _call_batch_hook
    _lightning["enable_validation"] = Trainer.enable_validation
    Trainer.enable_validation = property(_enable_validation, doc=Trainer.enable_validation.__doc__)
    for name, member in STAGE_FLAGS.items():
        _lightning[name] = getattr(Trainer, name)
        setattr(Trainer, name, property(_stage_flag(member), _lightning[name].fset, doc=_lightning[name].__doc__))
    call._call_lightning_module_hook = _call_lightning_module_hook
    call._call_strategy_hook = _call_strategy_hook
    call._call_callback_hooks = _call_callback_hooks
    cached = _cached_signature_check(signature_utils.is_param_in_hook_signature)
    for module in (training_epoch_loop, evaluation_loop, prediction_loop, lightning_module_file):
        module.is_param_in_hook_signature = cached
