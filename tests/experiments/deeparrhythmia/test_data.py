"""The record loaders (tpcp subset, WFDB through wfdb) and the leave-one-record-out datamodule on the shared data:
no record in both splits, paced records out, record 100's real A beats, the confounders, one-line errors."""

import numpy as np
import pytest

from experiments.deeparrhythmia import records as rec
from experiments.deeparrhythmia.data import FIELDS, ArrhythmiaDataModule
from reprolab.cli.errors import ConfigError, DatasetNotFoundError
from reprolab.config.paths import data_root

DATA = data_root()
TPCP = DATA / "mitbih-tpcp-subset"
MIT100 = DATA / "mitbih-100"
needs_tpcp = pytest.mark.skipif(not TPCP.is_dir(), reason="no mitbih-tpcp-subset in the data folder")
needs_100 = pytest.mark.skipif(not MIT100.is_dir(), reason="no mitbih-100 in the data folder (make data-mitbih-100)")


@needs_100
def test_wfdb_reads_record_100_with_its_modified_header():
    pytest.importorskip("wfdb")
    r = rec.load_wfdb(MIT100, "100", "MLII")
    assert r.fs == 360 and len(r.signal) == 650_000 and r.lead == "MLII"
    symbols, counts = np.unique(r.symbols, return_counts=True)
    assert dict(zip(symbols.tolist(), counts.tolist(), strict=True)) == {"A": 33, "N": 2239, "V": 1}
    assert rec.load_wfdb(MIT100, "100", "V5").lead == "V5"
    with pytest.raises(ConfigError, match="has no lead 'II'"):
        rec.load_wfdb(MIT100, "100", "II")


@needs_tpcp
@needs_100
def test_tpcp_record_100_matches_the_wfdb_record():
    pytest.importorskip("wfdb")
    tpcp = rec.load_tpcp(TPCP, "100", symbols_from=MIT100)
    wfdb_100 = rec.load_wfdb(MIT100, "100", "MLII")
    np.testing.assert_allclose(tpcp.signal, wfdb_100.signal, atol=1e-6)   # (ADC - 1024) / 200 both ways
    assert (tpcp.symbols == "A").sum() == 33
    assert (rec.load_tpcp(TPCP, "105").symbols == "V").sum() == 41


@needs_tpcp
def test_leave_one_record_out_never_splits_a_record(tmp_path):
    dm = ArrhythmiaDataModule(data_dir=str(DATA), test_record=100, cache_dir=str(tmp_path))
    assert dm.test_names == ["100"] and "100" not in dm.train_names
    assert not {"102", "104"} & set(dm.train_names) and len(dm.train_names) == 9
    dm.setup()
    test = dict(zip(FIELDS, dm.sets["test"].tensors, strict=True))
    scored = test["labels"] >= 0
    assert int((scored & (test["group"] == 1)).sum()) == 50                  # confounders, one per segment
    assert int((scored & test["atrial"]).sum()) == 33                         # every real A beat of record 100
    train = dict(zip(FIELDS, dm.sets["train"].tensors, strict=True))
    assert set(train["inner_fold"].tolist()) == {0, 1, 2} and (train["group"] == 0).all()
    again = ArrhythmiaDataModule(data_dir=str(DATA), test_record=100, cache_dir=str(tmp_path))
    again.setup()                                                              # from the array cache: the same
    for a, b in zip(dm.sets["test"].tensors, again.sets["test"].tensors, strict=True):
        assert (a == b).all()


def test_split_errors(tmp_path):
    with pytest.raises(ConfigError, match="test_record must be one of"):
        ArrhythmiaDataModule(test_record=102)                                  # paced: excluded
    with pytest.raises(ConfigError, match="never split"):
        ArrhythmiaDataModule(protocol="split", source="wfdb", train_records=[101, 106], test_records=[106])
    with pytest.raises(ConfigError, match="excluded"):
        ArrhythmiaDataModule(protocol="split", source="wfdb", train_records=[101, 217], test_records=[100])
    with pytest.raises(DatasetNotFoundError, match="mitbih-tpcp-subset"):
        rec.load_tpcp(tmp_path / "mitbih-tpcp-subset", "100")


def test_download_leaves_a_complete_folder_alone_and_fails_in_one_line(tmp_path, monkeypatch):
    wfdb = pytest.importorskip("wfdb")
    for name in ("100", "101"):
        (tmp_path / f"{name}.hea").write_text("")
    assert rec.download_physionet("mitdb", tmp_path, ["100", "101"]) == tmp_path

    def offline(*args, **kwargs):
        raise ConnectionError("no network")

    monkeypatch.setattr(wfdb, "dl_database", offline)
    with pytest.raises(DatasetNotFoundError, match="could not download mitdb from PhysioNet"):
        rec.download_physionet("mitdb", tmp_path / "empty", ["100"])
    with pytest.raises(ConfigError, match="unknown PhysioNet database"):
        rec.download_physionet("ptbdb", tmp_path)
