"""Post-hoc symbolic readout of finished Deep-Koopman-KANDy runs (arXiv 2605.06000, abstract), plus EDMD.

    python -m experiments.koopman.readout logs/claims/koopman [more run folders ...]

For every finished koopman run below the given folders: rebuild data and model from the run's composed
config (`.hydra/config.yaml`), load the best checkpoint with `weights_only=True`, regress the whitened
latents on the run's `readout` library (STLSQ, threshold chosen on validation orbits), and merge into the
run's metrics.json: `readout/jaccard`, `readout/recall`, `readout/full_recall` (when a target dictionary is
given), `readout/n_active`, `readout/heldout_r2`, `readout/threshold`, `readout/low_order_fraction`,
`readout/closure_residual`, `readout/dictionary`, `readout/inner_spearman` (max |Spearman| of an inner
function with `readout.inner_target`), `readout/inner_gradient_alignment` (the level-set version of the
same check: max over inner functions of the mean |cos| between ∇g_q and ∇target, input gradients by
`torch.func.jacrev`), `koopman/pred_rel` and `edmd/pred_rel` on the test orbits.

A run of a baseline fitted in closed form (`closed_form.py`: SINDy, EDMD) has no latents to read and no checkpoint
(no optimizer step): it is refitted on the run's orbits (deterministic, so the model the run tested) and gets
`koopman/pred_rel` (its own k-step prediction, by the same code on the same test windows) and `edmd/pred_rel`,
and SINDy's active terms get the same dictionary scores (`readout/jaccard`, ...) as the deep model's readout.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
from hydra.utils import instantiate
from omegaconf import OmegaConf
from scipy.stats import spearmanr
from torch.func import jacrev, vmap

from experiments.koopman.closed_form import ClosedFormDynamics
from experiments.koopman.dictionary import (
    active_terms,
    closure_residual,
    fourier_library,
    jaccard_recall,
    polynomial_library,
    select_threshold,
    whiten,
)
from experiments.koopman.edmd import EDMD, relative_prediction_error
from experiments.koopman.sindy import SINDy
from reprolab.cli.errors import ConfigError
from reprolab.results.runs import find_runs
from reprolab.run.finished_model import model_state
from reprolab.run.folder import run_checkpoint, write_metrics


def build_library(rcfg, datamodule):
    """states (n, d) → (Θ (n, L), names, orders) for the run's chosen library."""
    names = list(rcfg.variables)
    if rcfg.library == "polynomial":
        return lambda s: polynomial_library(s, names, rcfg.degree)
    if rcfg.library == "fourier":
        if datamodule.period is None:
            raise ConfigError("readout.library=fourier needs a system on a torus (cat, standard)")
        return lambda s: fourier_library(2 * np.pi * s / datamodule.period, names, rcfg.order)
    raise ConfigError(f"readout.library must be polynomial or fourier; got '{rcfg.library}'")


def load_model(cfg, run_dir: Path, datamodule) -> torch.nn.Module:
    """The run's network (built from `cfg`, the config the readout composed for it) with its tested weights; a
    closed-form baseline (no optimizer step, so no checkpoint) refitted on the same orbits, which gives the same model."""
    model = instantiate(cfg.model)
    if isinstance(model, ClosedFormDynamics):
        return model.fit(datamodule).eval()
    model.load_state_dict(model_state(run_checkpoint(run_dir)))
    return model.eval()


def encode(model, datamodule, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    with torch.no_grad():
        x = torch.from_numpy(datamodule.features(states)).float()
        return model.encode(x).double().numpy(), model.encoder.inner(x).double().numpy()


def names_are_constant(names: list[str]) -> np.ndarray:
    return np.array([n == "1" for n in names])


def subsample(states: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    return states[rng.choice(len(states), size=min(n, len(states)), replace=False)]


def inner_gradients(model, datamodule, states: np.ndarray) -> np.ndarray:
    """∇_s g_q(s) for every inner function, (n, h, d), with respect to the system's own coordinates."""
    if datamodule.period is not None:
        raise ConfigError("readout.inner_target needs a system in plain coordinates (lorenz, ikeda)")
    scale = torch.from_numpy(datamodule.scale).float()
    inner = lambda s: model.encoder.inner((s / scale).unsqueeze(0)).squeeze(0)  # noqa: E731
    return vmap(jacrev(inner))(torch.from_numpy(states).float()).double().detach().numpy()


def level_set_alignment(grad_inner: np.ndarray, grad_target: np.ndarray) -> float:
    """max_q mean_x |cos∠(∇g_q, ∇target)|: 1 when an inner function has the target's level sets."""
    norm = np.linalg.norm(grad_inner, axis=-1) * np.linalg.norm(grad_target, axis=-1)[:, None]
    cos = np.abs(np.einsum("nqd,nd->nq", grad_inner, grad_target)) / np.maximum(norm, 1e-300)
    return float(cos.mean(0).max())


def central_gradient(fn, states: np.ndarray, step: float = 1e-5) -> np.ndarray:
    """(n, d) gradient of a scalar function of the states by central differences."""
    eye = np.eye(states.shape[1]) * step
    return np.stack([(fn(states + e) - fn(states - e)) / (2 * step) for e in eye], axis=1)


def prediction_errors(model, datamodule, library, steps: int) -> dict[str, float]:
    """k-step relative prediction error of the deep model and of EDMD on the test orbits (same windows)."""
    now, nxt = datamodule.pairs("train")
    lib_now, lib_next = library(now)[0], library(nxt)[0]
    edmd = EDMD().fit(lib_now, lib_next, datamodule.features(now))
    orbits = datamodule.orbits["test"]
    starts = orbits[:, : orbits.shape[1] - steps].reshape(-1, orbits.shape[-1])
    target = np.stack([datamodule.features(orbits[:, m: orbits.shape[1] - steps + m]).reshape(len(starts), -1)
                       for m in range(1, steps + 1)], axis=1)
    with torch.no_grad():
        deep = model(torch.from_numpy(datamodule.features(starts)).float(), steps).double().numpy()
    return {"koopman/pred_rel": relative_prediction_error(deep, target),
            "edmd/pred_rel": relative_prediction_error(edmd.predict(library(starts)[0], steps), target)}


def dictionary_scores(found: list[str], order_of: dict[str, int], rcfg) -> dict:
    """The scores of a named dictionary: size, low-order share and, given `readout.target`, Jaccard and recall."""
    out = {"readout/n_active": len(found), "readout/dictionary": " ".join(found),
           "readout/low_order_fraction": float(np.mean([order_of[n] <= rcfg.low_order for n in found])) if found else 0.0}
    if rcfg.get("target"):
        jaccard, recall = jaccard_recall(found, list(rcfg.target))
        out.update({"readout/jaccard": jaccard, "readout/recall": recall, "readout/full_recall": float(recall == 1.0)})
    return out


def closed_form_readout(model: ClosedFormDynamics, datamodule, library, rcfg, steps: int) -> dict:
    """A baseline fitted in closed form has no latents: SINDy's dictionary is its active terms, scored like the
    readout's; every such model is scored by the same k-step prediction errors as the deep model."""
    out = prediction_errors(model, datamodule, library, steps)
    if isinstance(model, SINDy):
        out.update(dictionary_scores(model.active_terms(), dict(zip(model.names, model.orders, strict=True)), rcfg))
    return out


def readout(cfg, run_dir: Path) -> dict:
    rcfg = cfg.readout
    datamodule = instantiate(cfg.data)
    datamodule.setup("fit")
    model = load_model(cfg, run_dir, datamodule)
    library = build_library(rcfg, datamodule)
    if isinstance(model, ClosedFormDynamics):
        return closed_form_readout(model, datamodule, library, rcfg, cfg.data.window)
    rng = np.random.default_rng(cfg.seed)
    s_train, s_val = (subsample(datamodule.states(split), rcfg.n_points, rng) for split in ("train", "val"))
    (z_train, _), (z_val, g_val) = encode(model, datamodule, s_train), encode(model, datamodule, s_val)
    y_train, y_val = whiten(z_train, z_val)
    (lib_train, names, orders), lib_val = library(s_train), library(s_val)[0]
    scale = np.where(names_are_constant(names), 1.0, lib_train.std(0))   # scale columns, never centre them
    threshold, coef, err = select_threshold((lib_train / scale, y_train), (lib_val / scale, y_val),
                                            list(rcfg.thresholds), rcfg.tolerance)
    found = active_terms(coef, names)
    out = {"readout/threshold": threshold, "readout/heldout_r2": 1.0 - err,
           **dictionary_scores(found, dict(zip(names, orders, strict=True)), rcfg)}
    keep = [0] + [names.index(n) for n in found]
    (now, nxt), (t_now, t_next) = datamodule.pairs("train"), datamodule.pairs("test")
    out["readout/closure_residual"] = closure_residual(*(library(s)[0][:, keep] for s in (now, nxt, t_now, t_next)))
    if rcfg.get("inner_target"):
        columns = [names.index(n) for n in rcfg.inner_target]
        target_fn = lambda s: library(s)[0][:, columns].sum(1)  # noqa: E731
        target = target_fn(s_val)
        out["readout/inner_gradient_alignment"] = level_set_alignment(
            inner_gradients(model, datamodule, s_val), central_gradient(target_fn, s_val))
        out["readout/inner_spearman"] = float(max(abs(spearmanr(g, target).statistic) for g in g_val.T))
    out.update(prediction_errors(model, datamodule, library, cfg.data.window))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="run or sweep folders")
    args = parser.parse_args(argv)
    runs = [r for r in find_runs(args.runs) if r.finished and r.get("paper") == "koopman"]
    if not runs:
        raise SystemExit(f"error: no finished koopman runs under {args.runs}; run make claim-koopman first")
    for run in runs:
        cfg = OmegaConf.load(run.path / ".hydra" / "config.yaml")
        metrics = {**run.metrics, **readout(cfg, run.path)}
        write_metrics(run.path, metrics)
        shown = {k: round(v, 3) if isinstance(v, float) else v for k, v in metrics.items() if k.startswith(("readout/", "edmd/", "koopman/"))}
        print(f"{run.path}: {shown}")


if __name__ == "__main__":
    main()
