"""Beat segmentation, RR / rhythm / context features, the splice, AAMI labels and the router's pieces against
hand-worked numbers."""

import numpy as np
import pytest
import torch

from experiments.deeparrhythmia import features as ft
from experiments.deeparrhythmia.metrics import beat_scores
from experiments.deeparrhythmia.records import labels_for
from experiments.deeparrhythmia.router import oracle, routed, segment_confidence, threshold_candidates
from experiments.deeparrhythmia.task import balanced_weights
from reprolab.cli.errors import ConfigError

W = ft.Windowing(fs=10.0, pre_s=0.2, post_s=0.3, segment_beats=3, local_beats=1, band=(0.5, 4.0))


def test_rr_features_by_hand():
    peaks = np.array([0, 10, 18, 30, 40])       # RR 1.0, 0.8, 1.2, 1.0 s at 10 Hz
    rr = ft.rr_features(peaks, np.array([2]), 10.0, local_beats=1)
    # beat 2: pre 0.8, post 1.2, local = mean(rr[1], rr[2]) = 1.0
    np.testing.assert_allclose(rr[0], [0.8, 1.2, 1.0, 0.8, 1.2], rtol=1e-6)
    rr2 = ft.rr_features(peaks, np.array([1, 3]), 10.0, local_beats=2)
    # beat 1: intervals 0..2 clipped -> mean(1.0, 0.8, 1.2)... lo = max(1-2, 0) = 0, hi = 3 -> (1 + .8 + 1.2) / 3
    np.testing.assert_allclose(rr2[0, 2], 1.0, rtol=1e-6)
    np.testing.assert_allclose(rr2[1, 2], (0.8 + 1.2 + 1.0) / 3, rtol=1e-6)


def test_segments_score_every_beat_once():
    positions, scored = ft.segments_of(7, 3)
    assert positions.tolist() == [[0, 1, 2], [3, 4, 5], [4, 5, 6]]
    assert scored.tolist() == [[True] * 3, [True] * 3, [False, False, True]]
    counts = np.bincount(positions[scored], minlength=7)
    assert (counts == 1).all()
    with pytest.raises(ValueError, match="shorter than one segment"):
        ft.segments_of(2, 3)


def test_rhythm_and_context_features():
    rr = np.zeros((1, 3, 5), np.float32)
    rr[0, :, 0] = [1.0, 0.5, 1.0]             # pre
    rr[0, :, 1] = [0.5, 1.0, 1.0]             # post
    rr[0, :, 2] = 1.0                          # local
    rh = ft.rhythm_features(rr)
    np.testing.assert_allclose(rh[0, 0, :3], [1.0, np.std([1, .5, 1]) / np.mean([1, .5, 1]), 1 / 3], rtol=1e-5)
    np.testing.assert_allclose(rh[0, 1, 3:], [0.5, 1.0], rtol=1e-6)
    beats = np.array([[[0, 1, 0], [0, 1, 0], [0, -2, 0]]], np.float32)
    diff, scalars = ft.context_features(beats)
    # median beat [0, 1, 0], ptp 1: beat 3 differs by [0, -3, 0]; its correlation with the median is -1
    np.testing.assert_allclose(diff[0, 2], [0, -3 / 1.001, 0], rtol=1e-5)
    np.testing.assert_allclose(scalars[0, :, 0], [1, 1, -1], atol=1e-4)
    np.testing.assert_allclose(scalars[0, 2, 1], 3.0, rtol=1e-4)


def test_splice_moves_the_beat_early_without_a_compensatory_pause():
    peaks = np.array([10, 30, 50, 70, 90])
    signal = np.arange(120, dtype=np.float32)
    spliced, moved = ft.splice_early(signal, peaks, 2, 0.25, W)     # d = 0.25 * 20 = 5 samples, before 50 - 2
    assert moved.tolist() == [10, 30, 45, 65, 85]
    assert len(spliced) == 115
    np.testing.assert_array_equal(spliced[moved[2] - W.pre:moved[2] - W.pre + W.length],
                                  signal[48:48 + W.length])     # the beat's own window is untouched
    rr = ft.rr_features(moved, np.array([2]), W.fs, 1)[0]
    assert rr[0] == pytest.approx(1.5) and rr[1] == pytest.approx(2.0)   # pre shortened 25 %, post unchanged


def test_confounders_are_regular_normal_beats_scored_alone():
    n = 40
    peaks = np.arange(1, n + 1) * 10
    signal = np.sin(np.arange(peaks[-1] + 20) / 3).astype(np.float32)
    symbols = np.array(["N"] * n)
    symbols[20] = "V"
    labels = labels_for(symbols, "pvc")
    seg = ft.confounder_segments(signal, peaks, labels, symbols, W, count=5, fractions=(0.2, 0.35), seed=0)
    assert len(seg) == 5 and (seg.group == 1).all()
    assert ((seg.labels >= 0).sum(1) == 1).all() and (seg.labels[seg.labels >= 0] == 0).all()
    scored_pre = seg.rr[seg.labels >= 0][:, 3]                           # pre/local of the spliced beat
    assert (scored_pre < 0.9).all()


def test_aami_labels_and_errors():
    symbols = np.array(list("NLAVEF/Q"))
    assert labels_for(symbols, "aami").tolist() == [0, 0, 1, 2, 2, 3, 4, 4]
    assert labels_for(symbols, "pvc").tolist() == [0, 0, 0, 1, 1, 0, 0, 0]
    with pytest.raises(ConfigError, match="needs full beat symbols"):
        labels_for(np.array(["-", "V"]), "aami")
    with pytest.raises(ConfigError, match="data.classes"):
        labels_for(symbols, "five")


def test_beat_scores_and_weights():
    labels = np.array([0, 0, 0, 1, 0, 0, -1])
    pred = np.array([0, 0, 1, 1, 1, 0, 1])
    group = np.array([0, 0, 0, 0, 1, 1, 0])
    atrial = np.array([0, 1, 0, 0, 0, 0, 0], bool)
    s = beat_scores(pred, labels, group, atrial, v_class=1)
    # real beats: y = [0,0,0,1], p = [0,0,1,1]: F1(V) = 2/3, F1(non-V) = 0.8
    assert s["v_f1"] == pytest.approx(2 / 3) and s["macro_f1"] == pytest.approx((2 / 3 + 0.8) / 2)
    assert s["confounder_not_v"] == pytest.approx(0.5) and s["atrial_not_v"] == 1.0
    np.testing.assert_allclose(balanced_weights(torch.tensor([90, 10, 0])), [100 / 270, 100 / 30, 0], rtol=1e-6)


def test_router_pieces():
    probs = torch.tensor([[[0.9, 0.1], [0.6, 0.4]], [[0.2, 0.8], [0.99, 0.01]]])
    scored = torch.tensor([[True, True], [True, False]])
    assert segment_confidence(probs, scored).tolist() == pytest.approx([0.6, 0.8])
    a, b = torch.tensor([[0, 0], [1, 1]]), torch.tensor([[1, 1], [0, 0]])
    assert routed(a, b, torch.tensor([0.6, 0.8]), 0.7).tolist() == [[1, 1], [1, 1]]
    labels = torch.tensor([[1, -1], [1, 1]])
    assert oracle(a, b, labels).tolist() == [[1, 1], [1, 1]]
    cands = threshold_candidates(np.array([0.5, 0.7]), quantiles=2)
    assert cands[0] == 0.0 and cands[-1] > 1.0 and 0.6 in cands.tolist()
