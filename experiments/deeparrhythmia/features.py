"""Beat segmentation around annotated R peaks and the evidence blocks every arm reads.

Per beat i with R peak t_i (seconds):
- `beat`: the band-passed waveform on [t_i - pre_s, t_i + post_s) (mV);
- `rr` (de Chazal et al. 2004, §II-C "RR interval features"): pre-RR t_i - t_{i-1}, post-RR t_{i+1} - t_i,
  the local mean of the 2k RR intervals around the beat (k = `local_beats`), and pre/local, post/local;
- `rhythm`, over the beat's segment of L consecutive beats: the segment's median RR, its coefficient of variation,
  the fraction of the segment's beats with pre-RR < 0.85 x local RR, and pre-RR and post-RR over the median RR;
- `context`, against the segment's own median beat m (elementwise median of its L waveforms): the difference
  (beat - m) / ptp(m) as a waveform, the Pearson correlation of beat and m, and ||beat - m|| / ||m||.

A segment is L = `segment_beats` consecutive beats of one record; the last one of a record is completed backwards
with beats of the segment before it, which are not scored twice (`scored` False).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.signal import butter, sosfiltfilt

from experiments.deeparrhythmia.records import NOT_V

RR_FEATURES = 5
RHYTHM_FEATURES = 5
CONTEXT_SCALARS = 2
PREMATURE = 0.85  # pre-RR below this fraction of the local RR counts as premature (rhythm block)


@dataclass(frozen=True)
class Windowing:
    """How beats are cut: `fs` the model's sampling rate, the window around R, the segment and the local RR span,
    the band-pass (Hz) applied to the whole record first."""

    fs: float = 120.0
    pre_s: float = 0.25
    post_s: float = 0.45
    segment_beats: int = 10
    local_beats: int = 5
    band: tuple[float, float] = (0.5, 40.0)

    @property
    def pre(self) -> int:
        return int(round(self.pre_s * self.fs))

    @property
    def length(self) -> int:
        return self.pre + int(round(self.post_s * self.fs))


def band_passed(signal: np.ndarray, fs: float, band: tuple[float, float]) -> np.ndarray:
    """Zero-phase 2nd-order Butterworth band-pass (baseline wander and high-frequency noise out)."""
    low, high = band
    sos = butter(2, [low, min(high, 0.45 * fs)], btype="band", fs=fs, output="sos")
    return sosfiltfilt(sos, signal).astype(np.float32)


def usable_beats(peaks: np.ndarray, n_samples: int, w: Windowing) -> np.ndarray:
    """Indices of beats with a previous and a next beat and a whole window inside the signal."""
    i = np.arange(1, len(peaks) - 1)
    inside = (peaks[i] - w.pre >= 0) & (peaks[i] - w.pre + w.length <= n_samples)
    return i[inside]


def beat_waveforms(signal: np.ndarray, peaks: np.ndarray, index: np.ndarray, w: Windowing) -> np.ndarray:
    """[n, length] windows around the R peaks `peaks[index]`."""
    starts = peaks[index] - w.pre
    return signal[starts[:, None] + np.arange(w.length)[None, :]]


def rr_features(peaks: np.ndarray, index: np.ndarray, fs: float, local_beats: int) -> np.ndarray:
    """[n, 5]: pre-RR, post-RR, local mean RR (the RR intervals of beats i-k+1 .. i+k, clipped to the record),
    pre/local, post/local; seconds and ratios."""
    rr = np.diff(peaks) / fs                   # rr[j] = t_{j+1} - t_j
    pre, post = rr[index - 1], rr[index]
    csum = np.concatenate([[0.0], np.cumsum(rr)])
    lo = np.clip(index - local_beats, 0, len(rr))
    hi = np.clip(index + local_beats, 0, len(rr))
    local = (csum[hi] - csum[lo]) / np.maximum(hi - lo, 1)
    return np.stack([pre, post, local, pre / local, post / local], axis=1).astype(np.float32)


def segments_of(n: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    """[S, length] positions 0..n-1 cut into consecutive segments, and which of them are scored: each position is
    scored exactly once; the last segment ends at n - 1 and re-uses earlier positions unscored."""
    if n < length:
        raise ValueError(f"a record with {n} usable beats is shorter than one segment of {length}")
    starts = list(range(0, n - length + 1, length))
    if starts[-1] + length < n:
        starts.append(n - length)
    positions = np.array(starts)[:, None] + np.arange(length)[None, :]
    scored = np.ones_like(positions, dtype=bool)
    if len(starts) > 1 and starts[-1] % length:
        scored[-1, : starts[-2] + length - starts[-1]] = False
    return positions, scored


def rhythm_features(rr: np.ndarray) -> np.ndarray:
    """[S, L, 5] from the segments' RR block [S, L, 5] (see the module docstring)."""
    pre, post, local = rr[..., 0], rr[..., 1], rr[..., 2]
    median = np.median(pre, axis=1, keepdims=True)
    cv = pre.std(axis=1, keepdims=True) / pre.mean(axis=1, keepdims=True)
    premature = (pre < PREMATURE * local).mean(axis=1, keepdims=True)
    shape = pre.shape
    return np.stack([np.broadcast_to(median, shape), np.broadcast_to(cv, shape), np.broadcast_to(premature, shape),
                     pre / median, post / median], axis=-1).astype(np.float32)


def context_features(beats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each beat against its segment's median beat: ([S, L, T] (beat - m) / ptp(m), [S, L, 2] corr and relative
    distance), from the segments' waveforms [S, L, T]."""
    median = np.median(beats, axis=1, keepdims=True)
    scale = np.ptp(median, axis=-1, keepdims=True) + 1e-3
    diff = (beats - median) / scale
    b = beats - beats.mean(-1, keepdims=True)
    m = median - median.mean(-1, keepdims=True)
    corr = (b * m).sum(-1) / (np.linalg.norm(b, axis=-1) * np.linalg.norm(m, axis=-1) + 1e-6)
    distance = np.linalg.norm(beats - median, axis=-1) / (np.linalg.norm(median, axis=-1) + 1e-6)
    return diff.astype(np.float32), np.stack([corr, distance], axis=-1).astype(np.float32)


@dataclass
class Segments:
    """The evidence of S segments of L beats: waveforms [S, L, T], rr / rhythm [S, L, 5], context [S, L, T] and
    [S, L, 2], labels [S, L] (class index, -1 unscored), `group` [S, L] (0 real beat, 1 spliced confounder),
    `atrial` [S, L] (a real A beat)."""

    beats: np.ndarray
    rr: np.ndarray
    rhythm: np.ndarray
    context: np.ndarray
    context_scalars: np.ndarray
    labels: np.ndarray
    group: np.ndarray
    atrial: np.ndarray

    @staticmethod
    def concat(parts: list[Segments]) -> Segments:
        return Segments(*(np.concatenate([getattr(p, f) for p in parts]) for f in Segments.__dataclass_fields__))

    def __len__(self) -> int:
        return len(self.labels)


def build_segments(signal: np.ndarray, peaks: np.ndarray, labels: np.ndarray, symbols: np.ndarray,
                   positions: np.ndarray, scored: np.ndarray, w: Windowing, group: int = 0) -> Segments:
    """Segments whose beats are `positions` [S, L] (beat indices into `peaks`); `scored` [S, L] marks the beats
    whose label counts (others get -1). `signal` is already band-passed at `w.fs`."""
    flat = positions.reshape(-1)
    beats = beat_waveforms(signal, peaks, flat, w).reshape(*positions.shape, w.length)
    rr = rr_features(peaks, flat, w.fs, w.local_beats).reshape(*positions.shape, RR_FEATURES)
    context, context_scalars = context_features(beats)
    y = np.where(scored & (labels[positions] >= 0), labels[positions], -1)
    return Segments(beats.astype(np.float32), rr, rhythm_features(rr), context, context_scalars, y.astype(np.int64),
                    np.full(positions.shape, group, dtype=np.int64), (symbols[positions] == "A") & (y >= 0))


def record_segments(signal: np.ndarray, peaks: np.ndarray, labels: np.ndarray, symbols: np.ndarray,
                    w: Windowing) -> Segments:
    """Every usable beat of a record, in consecutive segments, each scored once."""
    usable = usable_beats(peaks, len(signal), w)
    # RR and local means use all annotated beats; segments only usable ones
    positions, scored = segments_of(len(usable), w.segment_beats)
    return build_segments(signal, peaks, labels, symbols, usable[positions], scored, w)


def splice_early(signal: np.ndarray, peaks: np.ndarray, i: int, fraction: float, w: Windowing
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The record with beat i moved `fraction` of its pre-RR earlier and every later beat with it (no compensatory
    pause: post-RR unchanged): the d = fraction x pre-RR samples just before beat i's window are cut out, so the
    beat's own window is the real beat, untouched."""
    d = int(round(fraction * (peaks[i] - peaks[i - 1])))
    end = peaks[i] - w.pre
    start = end - d
    if start <= peaks[i - 1]:
        raise ValueError(f"beat {i}: cutting {d} samples would reach the previous R peak")
    spliced = np.concatenate([signal[:start], signal[end:]])
    moved = np.where(np.arange(len(peaks)) >= i, peaks - d, peaks)
    return spliced, moved


def confounder_segments(signal: np.ndarray, peaks: np.ndarray, labels: np.ndarray, symbols: np.ndarray,
                        w: Windowing, count: int, fractions: tuple[float, float], seed: int,
                        normal_label: int = 0) -> Segments | None:
    """Up to `count` early normal-morphology beats: real non-V beats in a regular run (the beat and its two
    neighbours non-V, pre-RR within 10 % of the local RR) spliced early by a fraction drawn from U(`fractions`);
    each sits at the middle of its own segment and is the only beat scored there (label `normal_label`)."""
    usable = usable_beats(peaks, len(signal), w)
    half = w.segment_beats // 2
    pvc = np.isin(symbols, ["V", "E"])
    normal = np.isin(symbols, ["N", NOT_V])  # a real normal beat (the tpcp subset only knows 'not V')
    rr = rr_features(peaks, usable, w.fs, w.local_beats)
    regular = np.abs(rr[:, 3] - 1.0) < 0.1
    ok = (usable >= half + w.local_beats + 1) & (usable < len(peaks) - half - w.local_beats - 1) & regular
    ok &= normal[usable] & ~pvc[usable - 1] & ~pvc[usable + 1]
    candidates = usable[ok]
    if len(candidates) == 0:
        return None
    rng = np.random.default_rng(seed)
    chosen = np.sort(rng.choice(candidates, size=min(count, len(candidates)), replace=False))
    parts = []
    for i in chosen:
        spliced, moved = splice_early(signal, peaks, int(i), float(rng.uniform(*fractions)), w)
        positions = np.arange(i - half, i - half + w.segment_beats)[None, :]
        scored = positions == i
        forced = labels.copy()
        forced[i] = normal_label
        parts.append(build_segments(spliced, moved, forced, symbols, positions, scored, w, group=1))
    return Segments.concat(parts)


def pack(seg: Segments) -> np.ndarray:
    """One float32 array [S, L, 2T + 15] holding every field of `seg` (for the array cache)."""
    return np.concatenate([seg.beats, seg.rr, seg.rhythm, seg.context, seg.context_scalars,
                           seg.labels[..., None], seg.group[..., None], seg.atrial[..., None]], axis=-1).astype(np.float32)


def unpack(packed: np.ndarray, length: int) -> Segments:
    """The inverse of `pack` for waveforms of `length` samples."""
    cuts = np.cumsum([length, RR_FEATURES, RHYTHM_FEATURES, length, CONTEXT_SCALARS, 1, 1])
    beats, rr, rhythm, context, scalars, labels, group, atrial = np.split(packed, cuts, axis=-1)
    return Segments(beats, rr, rhythm, context, scalars, labels[..., 0].astype(np.int64),
                    group[..., 0].astype(np.int64), atrial[..., 0] > 0.5)
