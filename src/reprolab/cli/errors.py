"""Errors a user can act on. The entry points print them as one line and exit non-zero:
2 bad input or config, 3 non-finite loss, 4 a file or folder that cannot be written (or read)."""

import errno
import gc
import re
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path


class ReprolabError(Exception):
    """Base class: the message says what went wrong and what to do about it."""

    exit_code = 2


class ConfigError(ReprolabError):
    """The composed config asks for something impossible or inconsistent."""


class DeviceError(ReprolabError):
    """The device group asks for hardware this machine does not have."""


class DatasetNotFoundError(ReprolabError):
    """The dataset is not under `data_dir`; the message names the download command."""


class CorruptDataError(ReprolabError):
    """A dataset file exists but cannot be read."""


class NonFiniteLossError(ReprolabError):
    """The loss became NaN or Inf; the last good checkpoint is kept."""

    exit_code = 3


def exception_chain(err: BaseException | None) -> Iterator[BaseException]:
    """`err`, then what it was raised from or during (`__cause__`, else `__context__`), each once: a chain can
    loop back on itself."""
    seen = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        yield err
        err = err.__cause__ or err.__context__


def one_line(err: BaseException) -> str:
    """The user-facing line of an error, also when a DataLoader worker wrapped it in a traceback."""
    text = str(err).strip()
    if "Original Traceback" in text:
        last = text.splitlines()[-1]
        text = last.split(": ", 1)[1] if ": " in last else last
    return text.splitlines()[0] if text else type(err).__name__


def from_instantiation(err: Exception) -> Exception:
    """A config value a `_target_` rejects (Hydra wraps its ValueError/TypeError/KeyError) as a one-line
    ConfigError naming the target; a ReprolabError (itself or inside) is returned as it is; anything else is `err`."""
    if isinstance(err, ReprolabError):
        return err
    cause = err.__cause__
    if isinstance(cause, ReprolabError):
        return cause
    if isinstance(cause, ValueError | TypeError | KeyError):
        where = one_line(err).rstrip(":")
        return ConfigError(f"{where}: {type(cause).__name__}: {one_line(cause)}")
    return err


REJECTED_AT_SET_UP = (ValueError, TypeError, LookupError)  # Python's "this argument is wrong", from our own code too
CONTRACT_GROUPS = ("data", "model", "task")  # a swap of one changes what the others are handed (batches, attributes)


def _always_config() -> tuple[type, ...]:
    """Errors that mean a bad config wherever they arise: MemoryError, and Lightning's MisconfigurationException
    (looked up where Lightning is loaded, not imported here: the light console scripts do not pay for Lightning)."""
    lightning = sys.modules.get("lightning.fabric.utilities.exceptions")
    misconfigured = getattr(lightning, "MisconfigurationException", None)
    return (MemoryError,) if misconfigured is None else (MemoryError, misconfigured)


def _raised_where(err: BaseException) -> tuple[str | None, str, list[str]]:
    """The dependency (top package under site-packages) whose code raised `err`, or None for our own code; a
    name for the place (the package, or our file and function); the source lines of the last frames."""
    frames = traceback.extract_tb(err.__traceback__)
    if not frames:
        return None, "set-up", []
    parts = Path(frames[-1].filename).parts
    library = parts[parts.index("site-packages") + 1].removesuffix(".py") if "site-packages" in parts else None
    where = library or f"{'/'.join(parts[-2:])} {frames[-1].name}()"
    return library, where, [f.line or "" for f in frames[-4:]]


def _native(err: BaseException, lines: list[str]) -> bool:
    """A RuntimeError that a native op (torch, numpy) raised from one of our lines, e.g. a negative dimension or a
    size mismatch: the last frame's line is not one of our own `raise` statements."""
    return isinstance(err, RuntimeError) and not isinstance(err, NotImplementedError | RecursionError) \
        and bool(lines) and not lines[-1].lstrip().startswith("raise")


def _swaps(overrides: Sequence[str]) -> list[str]:
    """The overrides that put another option in a group of CONTRACT_GROUPS (`data=koopman_standard`)."""
    return [o for o in overrides if o.partition("=")[0].lstrip("+") in CONTRACT_GROUPS]


def _named(text: str, word: str, attribute: bool = False) -> bool:
    """`word` stands alone in `text` (or, with `attribute`, also as `obj.word`, as source code reads a setting)."""
    before = r"(?<![\w])" if attribute else r"(?<![\w.])"
    return bool(word) and re.search(rf"{before}{re.escape(word)}(?![\w])", text) is not None


def _culprits(message: str, lines: list[str], overrides: Sequence[str]) -> list[str]:
    """The overrides that `message` or the raising source lines name (a key's last part, or the value in the
    message), else every override."""
    code = "\n".join(lines)
    found = []
    for override in overrides:
        key, _, value = override.partition("=")
        last = key.lstrip("+~").rpartition(".")[2].rpartition("/")[2]
        if _named(message, last) or _named(code, last, attribute=True) or (len(value) > 1 and _named(message, value)):
            found.append(override)
    return found or list(overrides)


def _related_keys(message: str, config: dict | None, named: list[str]) -> list[str]:
    """Config keys (with their values) that `message` names by their last part, e.g. Lightning's
    `val_check_interval` → trainer.val_check_interval=250; at most three, none the overrides already name."""
    if not config:
        return []
    taken = {o.partition("=")[0].lstrip("+~") for o in named}
    found: list[str] = []

    def walk(node: dict, path: str) -> None:
        for key, value in node.items():
            where = f"{path}.{key}" if path else str(key)
            if isinstance(value, dict):
                walk(value, where)
            elif len(str(key)) >= 4 and "_" in str(key) and where not in taken and _named(message, str(key)):
                found.append(f"{where}={value}")

    walk({k: v for k, v in config.items() if k not in ("hydra", "paths")}, "")
    return found[:3]


def _unwrap(err: BaseException) -> BaseException:
    """What a `_target_` raised, from inside Hydra's InstantiationException (also once from_instantiation made it
    a ConfigError); else `err`."""
    if isinstance(err, ConfigError) and type(err.__cause__).__name__ == "InstantiationException":
        err = err.__cause__
    if type(err).__name__ == "InstantiationException" and err.__cause__ is not None:
        return err.__cause__
    return err


def from_rejection(err: BaseException, overrides: Sequence[str], config: dict | None = None,
                   setting_up: bool = True) -> BaseException:
    """A command line that a library or our code refuses, as a one-line ConfigError naming the override(s) (and
    the config keys the refusal names) and what to do. Refusals: Lightning's MisconfigurationException, whatever
    Lightning's own code raises (its loops' and callbacks' checks), MemoryError, anywhere; and while `setting_up`
    (config check, construction, fit up to its first optimizer step, validation and test, which rerun the same
    code on the same data: where the config's values first meet the code): whatever a library's code raises
    (torch, scikit-learn, LightGBM: each has its own types), a ValueError/TypeError/LookupError of ours, a
    RuntimeError of a native op called from our code (_native), and anything at all when a group of
    CONTRACT_GROUPS was swapped (the swap is named). With no overrides (each preset as shipped is tested by
    test_presets: a bug), a file or disk error (from_os_error's), or anything else, `err` is returned as it is.
    `config`: the resolved config as a container, to name the keys a message names."""
    rejected = _unwrap(err)
    if isinstance(rejected, ReprolabError | OSError) or not overrides:
        return err
    library, where, lines = _raised_where(rejected)
    memory = out_of_memory(rejected)
    anywhere = memory or isinstance(rejected, _always_config()) or library == "lightning"
    refused = anywhere or (setting_up and (library is not None or isinstance(rejected, REJECTED_AT_SET_UP)
                                           or _native(rejected, lines)))
    swapped = [] if refused or not setting_up else _swaps(overrides)
    if not (refused or swapped):
        return err
    message = one_line(rejected)
    if swapped:  # e.g. AttributeError: 'SachsDataModule' object has no attribute 'world'
        group = swapped[0].partition("=")[0].lstrip("+")
        return ConfigError(f"{', '.join(swapped)}: this preset's code cannot use it (rejected by {where}: "
                           f"{type(rejected).__name__}: {message}); drop it, or pick a {group} option made for "
                           "this preset's task (`reprolab-train ... --cfg job` prints the composed config)")
    first = message.split(". ")[0]  # Lightning's advice sentences name other keys
    culprits = _culprits(first, lines, overrides)
    related = _related_keys(first, config, culprits)
    keys = ", ".join([*culprits, *(f"the config's {k}" for k in related)])
    if memory:
        return ConfigError(f"{keys}: needs more memory than this run may take ({type(rejected).__name__}: {message}); "
                           "use smaller sizes")
    if rejected is not err:
        found = re.search(r"target '([^']+)'", str(err.__cause__ if isinstance(err, ConfigError) else err))
        where = found.group(1) if found else where
    what = "drop it or give it a value of the kind the preset has" if len(culprits) == 1 and not related else \
        "change one of them on the command line or in the preset"
    return ConfigError(f"{keys}: rejected by {where} ({type(rejected).__name__}: {message}); {what} "
                       "(`reprolab-train ... --cfg job` prints the composed config)")


def out_of_memory(err: BaseException) -> bool:
    return isinstance(err, MemoryError) or "can't allocate memory" in str(err)  # the latter: torch's CPU allocator


def release_frames(err: BaseException) -> None:
    """Drop the local variables of the frames that `err` and its causes unwound (their tracebacks keep file and
    line), so that a half-built model which ran out of memory is freed before the error is mapped and printed."""
    pending, seen = [err], set()
    while pending:
        exc = pending.pop()
        if exc is None or id(exc) in seen:
            continue
        seen.add(id(exc))
        traceback.clear_frames(exc.__traceback__)
        pending += [exc.__cause__, exc.__context__]
    gc.collect()


def _evaluating(err: BaseException) -> bool:
    """`err` arose in Lightning's evaluation loop (validation, its sanity check, test), read off the traceback:
    the trainer's state is reset by the time the error reaches us."""
    return any(f.filename.endswith("loops/evaluation_loop.py") for f in traceback.extract_tb(err.__traceback__))


@contextmanager
def rejected_at_set_up(overrides: Callable[[], Sequence[str]], config: Callable[[], dict | None] = lambda: None,
                       started: Callable[[], bool] = lambda: False) -> Iterator[None]:
    """from_rejection's ConfigError for what the block raises (set-up until `started()` says training began, and
    any evaluation).
    `overrides`, `config`: called only on an error."""
    try:
        yield
    except Exception as err:
        if out_of_memory(_unwrap(err)):
            release_frames(err)
        try:
            resolved = config()
        except Exception:  # noqa: BLE001 - an interpolation that does not resolve: no keys to name
            resolved = None
        mapped = from_rejection(err, overrides(), resolved, setting_up=not started() or _evaluating(err))
        if mapped is err:
            raise
        raise mapped from err


class CheckpointError(ReprolabError):
    """A checkpoint is missing, damaged, or asks to run code when unpickled."""


class RunFolderBusyError(ReprolabError):
    """Another run holds the lock of this run folder."""


class StorageError(ReprolabError):
    """A run folder or file cannot be created or written: read-only, no permission, disk full."""

    exit_code = 4


STORAGE_ERRNOS = {errno.ENOSPC: "free disk space or write elsewhere", errno.EDQUOT: "free disk space or write elsewhere",
                  errno.EROFS: "choose a writable place", errno.EACCES: "fix its permissions or choose another place",
                  errno.EPERM: "fix its permissions or choose another place",
                  errno.ENOTDIR: "a file stands where a folder is needed: choose another place",
                  errno.EEXIST: "a file stands where a folder is needed: choose another place"}


def from_os_error(err: BaseException) -> BaseException:
    """A full disk or a permission refused as a one-line StorageError naming the file; anything else is `err`."""
    if not isinstance(err, OSError) or err.errno not in STORAGE_ERRNOS:
        return err
    where = f" '{err.filename}'" if err.filename else ""
    return StorageError(f"{err.strerror or 'cannot write'}{where}; {STORAGE_ERRNOS[err.errno]} "
                        "(hydra.run.dir=..., paths.log_dir=..., or paths.data_dir=... for input)")
