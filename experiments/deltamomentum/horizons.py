"""Per-direction memory horizons of DeltaSGD (analysis of the optimizer, no training): `figures/horizons.png`.

    python -m experiments.deltamomentum.horizons [--seeds 0,1,2] [hydra overrides…]

Composes `experiment=deltamomentum/horizons` (claim 1's stream, the optimizer, batch and steps), starts the
memory at M₀ = I, feeds keys with zero gradient and sums qᵢᵀMₜqᵢ along each eigenvector qᵢ of the input
covariance. E[Mₜ] = M₀(βI − ηC)ᵗ, so the sum is τᵢ = 1/((1−β) + ηλᵢ), truncated at the run's horizon.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import torch
from hydra import compose, initialize_config_dir
from hydra.utils import instantiate
from torch import nn

from experiments.deltamomentum.plotting import pyplot, save
from reprolab.config.compose import CONF_DIR

HERE = Path(__file__).resolve().parent


def impulse_response(cfg) -> torch.Tensor:
    """Σₜ qᵢᵀMₜqᵢ for t = 0…max_steps along each eigenvector, one seed (cfg.seed)."""
    stream = instantiate(cfg.data.stream)
    dim = len(stream.eigenvalues)
    layer = nn.Linear(dim, dim, bias=False)
    optimizer = instantiate(cfg.optimizer)(model=layer)
    generator = torch.Generator().manual_seed(cfg.seed)
    layer.weight.grad = torch.zeros(dim, dim)
    optimizer.step()  # creates the buffer
    memory = optimizer.state[layer.weight]["momentum_buffer"]
    memory.copy_(torch.eye(dim))
    q, total = stream.rotation, torch.ones(dim)
    for _ in range(cfg.trainer.max_steps):
        layer(stream.sample(generator, cfg.data.batch_size)[0])  # the forward hook records the keys
        layer.weight.grad = torch.zeros(dim, dim)
        optimizer.step()
        total += torch.einsum("ij,ji->i", q.T @ memory, q)
    return total


def theory(cfg, eigenvalues: torch.Tensor) -> torch.Tensor:
    r = cfg.optimizer.momentum - cfg.optimizer.eta * eigenvalues
    return (1 - r ** (cfg.trainer.max_steps + 1)) / (1 - r)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--figure", type=Path, default=HERE / "figures" / "horizons.png")
    p.add_argument("overrides", nargs="*")
    a = p.parse_args(argv)
    torch.set_num_threads(1)
    with initialize_config_dir(str(CONF_DIR), version_base="1.3"):
        cfgs = [compose("train", overrides=["experiment=deltamomentum/horizons", f"seed={s}", *a.overrides])
                for s in a.seeds.split(",")]
    measured = torch.stack([impulse_response(c) for c in cfgs])
    lam = instantiate(cfgs[0].data.stream).eigenvalues
    tau, beta = theory(cfgs[0], lam), cfgs[0].optimizer.momentum
    ema = (1 - beta ** (cfgs[0].trainer.max_steps + 1)) / (1 - beta)
    err = (measured.mean(0) / tau - 1).abs()
    print(f"measured Σₜ qᵢᵀMₜqᵢ vs τᵢ = 1/((1−β)+ηλᵢ): max relative error {100 * float(err.max()):.1f} % over "
          f"{len(lam)} directions, {len(cfgs)} seeds; τ from {float(tau.min()):.2f} to {float(tau.max()):.2f} "
          f"steps (EMA: {ema:.2f})")
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.plot(lam, tau, "-", label="τᵢ = 1/((1−β)+ηλᵢ)")
    std = measured.std(0, correction=int(len(cfgs) > 1))
    ax.errorbar(lam, measured.mean(0), yerr=std, fmt="o", ms=3, label="measured")
    ax.axhline(ema, ls="--", c="gray", label="EMA (η = 0)")
    ax.set(xscale="log", xlabel="key eigenvalue λᵢ", ylabel="memory horizon (steps)")
    ax.legend()
    save(fig, a.figure)


if __name__ == "__main__":
    main()
