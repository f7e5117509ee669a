"""Errors a user can act on. The entry points print them as one line and exit non-zero:
2 bad input or config, 3 non-finite loss, 4 a file or folder that cannot be written (or read)."""

import errno


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
