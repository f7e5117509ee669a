"""Config YAML through libyaml's C emitter, byte for byte the text OmegaConf writes.

Each job writes `.hydra/config.yaml`, `hydra.yaml`, `overrides.yaml` (Hydra) and `csv/hparams.yaml` (Lightning's
CSVLogger) through OmegaConf's pure-Python emitter, ~3-7 ms a file; hparams.yaml also rebuilds the whole config as
a DictConfig first (~4 ms), and is rewritten whole each time Lightning logs hyper-parameters again (a datamodule
with `save_hyperparameters`: at fit and again at test). Here the same representers (OmegaConf's quoting of strings
that read as bool, int or float) feed libyaml's emitter where the two emitters agree: every key a non-empty string
and every string printable ASCII (they differ on characters beyond the BMP, line breaks inside strings and empty
keys); anything else goes through OmegaConf's own dumper. A CSV hparams file already holding the same
hyper-parameters is not rewritten. `REPROLAB_FAST_YAML=0` turns both off.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path

import yaml
from omegaconf import OmegaConf
from omegaconf._utils import get_omega_conf_dumper

_OMEGACONF_DUMPER = get_omega_conf_dumper()
_FLAT = (int, float, bool, type(None))


class OmegaConfCDumper(getattr(yaml, "CDumper", yaml.Dumper)):
    """libyaml's emitter (the Python one where PyYAML was built without it) with OmegaConf's representers."""


OmegaConfCDumper.yaml_representers = _OMEGACONF_DUMPER.yaml_representers
OmegaConfCDumper.yaml_multi_representers = _OMEGACONF_DUMPER.yaml_multi_representers
OmegaConfCDumper.yaml_implicit_resolvers = _OMEGACONF_DUMPER.yaml_implicit_resolvers


def _ascii_text(text: str) -> bool:
    return text.isascii() and text.isprintable()


def is_plain(value) -> bool:
    """Only dicts with non-empty printable-ASCII string keys, lists, printable-ASCII strings, numbers, bools, None."""
    kind = type(value)
    if kind is str:
        return _ascii_text(value)
    if kind in _FLAT:
        return True
    if kind is dict:
        return all(type(k) is str and k and _ascii_text(k) and is_plain(v) for k, v in value.items())
    if kind is list:
        return all(is_plain(v) for v in value)
    return False


def _emit(container, dumper) -> str:
    return yaml.dump(container, default_flow_style=False, allow_unicode=True, sort_keys=False, Dumper=dumper)


def dump(container) -> str:
    """`yaml.dump` as `OmegaConf.to_yaml` calls it, on a container `OmegaConf.to_container` made."""
    if is_plain(container):
        return _emit(container, OmegaConfCDumper)
    if _one_section(container):
        return _dump_by_parts(container)
    return _emit(container, _OMEGACONF_DUMPER)


_PARTS: dict[tuple[str, str, str], str] = {}  # (section, key, repr of its value) -> the lines OmegaConf's emitter wrote


def _one_section(container) -> bool:
    """`{name: {key: value, ...}}` with string keys: `hydra.yaml`'s shape."""
    if type(container) is not dict or len(container) != 1:
        return False
    (name, section), = container.items()
    return type(name) is str and _ascii_text(name) and name != "" and type(section) is dict and bool(section) \
        and all(type(key) is str for key in section)


def _dump_by_parts(container) -> str:
    """A one-section mapping emitted one key of its section at a time, at the indentation the whole would have: the
    plain parts by libyaml, the others (hydra.yaml's multi-line help templates, the same in every job) by OmegaConf's
    emitter once a process. Sibling keys of a block mapping do not affect each other's text (no anchors: every
    container `to_container` makes is a new object), so the lines joined are the whole's."""
    (name, section), = container.items()
    header, lines = "", []
    for key, value in section.items():
        part = {name: {key: value}}
        if is_plain(part):
            text = _emit(part, OmegaConfCDumper)
        else:
            memo = (name, key, repr(value))
            if memo not in _PARTS:
                if len(_PARTS) > 256:
                    _PARTS.clear()
                _PARTS[memo] = _emit(part, _OMEGACONF_DUMPER)
            text = _PARTS[memo]
        header, body = text.split("\n", 1)
        lines.append(body)
    return header + "\n" + "".join(lines)


def to_yaml(cfg) -> str:
    """`OmegaConf.to_yaml(cfg)` of a DictConfig / ListConfig, the same text."""
    return dump(OmegaConf.to_container(cfg, resolve=False, enum_to_str=True))


def enabled() -> bool:
    return os.environ.get("REPROLAB_FAST_YAML", "1") != "0"


def save_config(cfg, filename: str, output_dir: Path) -> None:
    """Hydra's `hydra.core.utils._save_config`, through `to_yaml`."""
    if not enabled():
        return _ORIGINAL["save_config"](cfg, filename, output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    with open(str(output_dir / filename), "w", encoding="utf-8") as file:
        file.write(to_yaml(cfg))


def log_hparams(self, params: dict) -> None:
    """Lightning's CSV `ExperimentWriter.log_hparams`: a plain dict (what `OmegaConf.create` then `to_container`
    give back unchanged) is written with `dump`, and not again while it stays the same; else Lightning's own."""
    self.hparams.update(params)
    path = os.path.join(self.log_dir, self.NAME_HPARAMS_FILE)
    if not enabled() or "://" in path or not os.path.isdir(self.log_dir) or not is_plain(self.hparams):
        self.__dict__.pop("_reprolab_hparams_written", None)
        return _ORIGINAL["save_hparams_to_yaml"](path, self.hparams)
    if self.__dict__.get("_reprolab_hparams_written") == self.hparams and os.path.isfile(path):
        return None
    with open(path, "w", encoding="utf-8") as file:
        file.write(dump(self.hparams))
    self._reprolab_hparams_written = copy.deepcopy(self.hparams)
    return None


_ORIGINAL: dict = {}


def install() -> None:
    """Put `save_config` under Hydra's job set-up and `log_hparams` under Lightning's CSV logger (idempotent)."""
    if _ORIGINAL:
        return
    import hydra.core.utils as hydra_utils
    from lightning.pytorch.loggers import csv_logs

    _ORIGINAL.update(save_config=hydra_utils._save_config, save_hparams_to_yaml=csv_logs.save_hparams_to_yaml,
                     log_hparams=csv_logs.ExperimentWriter.log_hparams)
    hydra_utils._save_config = save_config
    csv_logs.ExperimentWriter.log_hparams = log_hparams
