"""`reprolab.fast_yaml` writes the same bytes as OmegaConf / Lightning, for every preset's config and for the
strings where libyaml's emitter would differ; the CSV hparams file is rewritten only when its content changes."""

from __future__ import annotations

from pathlib import Path

import hydra.core.utils as hydra_utils
import pytest
from hydra import compose, initialize_config_dir
from lightning.pytorch.core.saving import save_hparams_to_yaml
from lightning.pytorch.loggers import CSVLogger, csv_logs
from omegaconf import OmegaConf, open_dict
from omegaconf.errors import OmegaConfBaseException

from reprolab import fast_yaml
from reprolab.config import CONF_DIR
from reprolab.loggers import redact

PRESETS = sorted(p.relative_to(CONF_DIR / "experiment").with_suffix("").as_posix()
                 for p in (CONF_DIR / "experiment").rglob("*.yaml"))
ONE_PER_PAPER = sorted({preset.split("/")[0]: preset for preset in PRESETS}.values())


def test_one_preset_per_papers_saved_files_are_omegaconfs_text(tmp_path):
    _check_presets(ONE_PER_PAPER, tmp_path)


@pytest.mark.slow
def test_every_presets_saved_files_are_omegaconfs_text(tmp_path):
    _check_presets(PRESETS, tmp_path)


def _check_presets(presets: list[str], tmp_path: Path) -> None:
    """Hydra's three files and the logged hyper-parameters: fast_yaml's text is OmegaConf's, by the fast path."""
    fast_yaml.install()
    checked = 0
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base="1.3"):
        for preset in presets:
            cfg = compose("train", overrides=[f"experiment={preset}", f"paths.output_dir={tmp_path}"], return_hydra_config=True)
            hydra_cfg = OmegaConf.masked_copy(cfg, "hydra")
            with open_dict(cfg):
                del cfg["hydra"]
            for node in (cfg, hydra_cfg, hydra_cfg.hydra.overrides.task):
                assert fast_yaml.to_yaml(node) == OmegaConf.to_yaml(node), preset
            try:
                resolved = redact(OmegaConf.to_container(cfg, resolve=True))
            except OmegaConfBaseException:  # an interpolation needing the job (hydra:...) or the environment
                continue
            assert fast_yaml.is_plain(resolved), preset  # the fast path is the one taken, not the fallback
            assert fast_yaml.dump(resolved) == OmegaConf.to_yaml(OmegaConf.create(resolved)), preset
            checked += 1
    assert checked > len(presets) // 2


@pytest.mark.parametrize("value", ["é—ü 日本 🎉", "a\x85b", "line\nbreak " * 20, "tab\there", "a\u2028b", "plain words " * 30,
                                   "yes", "1e5", "0x1F", "~", "${oc.env:X}", "???", "", 1.0e16, float("nan"), None])
def test_strings_where_the_emitters_differ_fall_back_and_all_give_omegaconfs_text(value):
    for data in ({"key": value}, {"key": [value, {"inner": value}]}, {"": value}):
        assert fast_yaml.dump(data) == OmegaConf.to_yaml(OmegaConf.create(data))
    assert fast_yaml.is_plain({"key": "plain words " * 30, "n": [1, 2.5, None, True]})
    assert not fast_yaml.is_plain({"key": "é"}) and not fast_yaml.is_plain({"": 1}) and not fast_yaml.is_plain({"k": (1,)})


def test_hydra_writes_its_job_files_through_the_fast_path_unless_turned_off(tmp_path, monkeypatch):
    fast_yaml.install()
    assert hydra_utils._save_config is fast_yaml.save_config
    cfg = OmegaConf.create({"a": {"b": [1, "x"]}, "s": "true"})
    hydra_utils._save_config(cfg, "config.yaml", tmp_path / "fast")
    monkeypatch.setenv("REPROLAB_FAST_YAML", "0")
    hydra_utils._save_config(cfg, "config.yaml", tmp_path / "slow")
    assert (tmp_path / "fast/config.yaml").read_bytes() == (tmp_path / "slow/config.yaml").read_bytes()


def _lightning_text(tmp_path: Path, hparams: dict) -> str:
    save_hparams_to_yaml(tmp_path / "expected.yaml", hparams)
    return (tmp_path / "expected.yaml").read_text()


def test_csv_hparams_are_lightnings_text_and_rewritten_only_when_they_change(tmp_path, monkeypatch):
    fast_yaml.install()
    dumps = []
    monkeypatch.setattr(fast_yaml, "dump", lambda data, real=fast_yaml.dump: dumps.append(1) or real(data))
    logger = CSVLogger(tmp_path, name="csv", version="")
    config = {"model": {"width": 64, "act": "relu"}, "lr": 0.01, "tags": ["a", "on"]}
    logger.log_hyperparams(config)
    path = Path(logger.log_dir) / "hparams.yaml"
    assert path.read_text() == _lightning_text(tmp_path, config) and len(dumps) == 1
    logger.log_hyperparams({"lr": 0.01})  # Lightning logging the same values again (fit, then test)
    assert len(dumps) == 1
    logger.log_hyperparams({"batch_size": 32})  # a datamodule's own hyper-parameters join
    assert path.read_text() == _lightning_text(tmp_path, {**config, "batch_size": 32}) and len(dumps) == 2
    path.unlink()
    logger.log_hyperparams({"batch_size": 32})  # the file went away: written again
    assert path.read_text() == _lightning_text(tmp_path, {**config, "batch_size": 32})


def test_csv_hparams_that_are_not_plain_go_through_lightning(tmp_path, monkeypatch):
    fast_yaml.install()
    lightning = []
    monkeypatch.setitem(fast_yaml._ORIGINAL, "save_hparams_to_yaml",
                        lambda path, hparams: lightning.append(dict(hparams)) or save_hparams_to_yaml(path, hparams))
    logger = CSVLogger(tmp_path, name="csv", version="")
    logger.log_hyperparams({"shape": (1, 2), "name": "ü"})
    logger.log_hyperparams({"shape": (1, 2), "name": "ü"})
    assert len(lightning) == 2  # Lightning's own writer, as often as Lightning calls it
    monkeypatch.setenv("REPROLAB_FAST_YAML", "0")
    CSVLogger(tmp_path / "off", name="csv", version="").log_hyperparams({"lr": 0.1})
    assert len(lightning) == 3 and csv_logs.ExperimentWriter.log_hparams is fast_yaml.log_hparams


def test_a_one_section_file_is_emitted_by_parts_its_unchanging_non_plain_parts_once(monkeypatch):
    """hydra.yaml's shape: the multi-line help is emitted by OmegaConf's emitter once a process, the rest by libyaml,
    and the joined text is OmegaConf's, also when a part's value changes."""
    help_text = "usage:\n  reprolab-train [OPTIONS]\n" + "a long line of help " * 8 + "\n"
    slow = []
    real = fast_yaml._emit
    monkeypatch.setattr(fast_yaml, "_emit", lambda data, dumper: (slow.append(1) if dumper is not fast_yaml.OmegaConfCDumper
                                                                    else None) or real(data, dumper))
    monkeypatch.setattr(fast_yaml, "_PARTS", {})
    for job in range(3):
        data = {"hydra": {"run": {"dir": f"logs/{job}"}, "help": {"template": help_text}, "job": {"num": job, "id": None}}}
        assert fast_yaml.dump(data) == OmegaConf.to_yaml(OmegaConf.create(data))
    assert len(slow) == 1
    changed = {"hydra": {"help": {"template": help_text + "more\n"}, "verbose": False}}
    assert fast_yaml.dump(changed) == OmegaConf.to_yaml(OmegaConf.create(changed)) and len(slow) == 2
