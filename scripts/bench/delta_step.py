"""DeltaAdamW vs AdamW(foreach) on the tiny Llama: measured whole-step overhead next to the analytic FLOP one.

    python scripts/bench/delta_step.py                                   # d 64 × 2 layers, 16×64 tokens
    python scripts/bench/delta_step.py --shape 64,2,64,16 --shape 256,4,128,8   # d, layers, seq, batch

Fairness: both optimizers get the same parameter groups (``param_groups``: decay / no decay), the same
model weights and batches; each round runs both, alternating which goes first, and the ratios are medians
over rounds. The "optimizer step" figure of DeltaAdamW includes the forward pre-hooks' Gram work (timed
inside the hooks), since that work exists only for the optimizer. Analytic FLOPs: Gram XᵀX per shared key
(2·N·d_in² each, half with a symmetric rank-k update), recall M·Ĉ per keyed weight (2·d_out·d_in²),
λ̂max (eigvalsh ≈ 4/3·d³ for d ≤ 256, else k warm mat-vecs of 2·d²), against 6·N·(matmul parameters)
+ attention (12·N·T·d per layer) for the forward and backward. Prints ratios; nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from experiments.deltamomentum.model import LlamaLM  # noqa: E402
from reprolab.optim import key_hooks  # noqa: E402
from reprolab.optim.build import param_groups  # noqa: E402
from reprolab.optim.delta import DeltaAdamW  # noqa: E402

PAPER_SHAPES = {"llama_67m": (512, 5, 8), "llama_370m": (1024, 21, 16)}
PAPER_REALISED = {"llama_67m": "7.3%", "llama_370m": "11.0%"}
HOOK_SECONDS = [0.0]
LAMBDA_SECONDS = [0.0]


def timed_hooks() -> None:
    """Make every KeyCapture hook add its wall time to HOOK_SECONDS (the forward-side Gram work)."""
    make_hook = key_hooks.KeyCapture._hook

    def timed(self, layer):
        hook = make_hook(self, layer)

        def run(module, args):
            start = time.perf_counter()
            hook(module, args)
            HOOK_SECONDS[0] += time.perf_counter() - start

        return run

    key_hooks.KeyCapture._hook = timed
    lambda_max = DeltaAdamW.lambda_max

    def timed_lambda(self, gram, cov):
        start = time.perf_counter()
        lam = lambda_max(self, gram, cov)
        LAMBDA_SECONDS[0] += time.perf_counter() - start
        return lam

    DeltaAdamW.lambda_max = timed_lambda


def analytic_overhead(model: LlamaLM, tokens: int, seq_len: int, exact_max: int = 256, power_iters: int = 10) -> dict:
    """FLOPs of one step: the LM's forward+backward, and DeltaAdamW's Grams, recalls and λ̂max."""
    d = model.embed.weight.shape[1]
    matmul_params = sum(m.weight.numel() for m in model.modules() if isinstance(m, torch.nn.Linear))
    base = 6 * tokens * matmul_params + 12 * tokens * seq_len * d * len(model.blocks)
    hidden = model.blocks[0].mlp.up.weight.shape[0]
    grams_per_block = [d, d, d, hidden]  # QKV (shared), O, gate/up (shared), down
    gram = len(model.blocks) * sum(2 * tokens * k * k for k in grams_per_block)
    recall = sum(2 * m.weight.shape[0] * m.weight.shape[1] ** 2 for name, m in model.named_modules()
                 if isinstance(m, torch.nn.Linear) and name != "lm_head")
    lam = len(model.blocks) * sum(4 / 3 * k ** 3 if k <= exact_max else 2 * k * k * power_iters
                                  for k in grams_per_block)
    block_asymptotic = 2 * (3 * d * d + hidden * hidden) / (6 * (4 * d * d + 3 * d * hidden))
    return {"base": base, "gram": gram, "recall": recall, "lambda": lam,
            "overhead": (gram + recall + lam) / base, "overhead_syrk": (gram / 2 + recall + lam) / base,
            "block_asymptotic": block_asymptotic}


def bench_shape(d, n_layer, seq_len, batch, a) -> dict:
    torch.manual_seed(0)
    models = {name: LlamaLM(a.vocab, d, n_layer, a.n_head, max_seq_len=seq_len) for name in ("adamw", "delta")}
    models["delta"].load_state_dict(models["adamw"].state_dict())
    opts = {"adamw": torch.optim.AdamW(param_groups(models["adamw"]), lr=1e-3, foreach=True),
            "delta": DeltaAdamW(models["delta"], lr=1e-3, eta=0.5, foreach=True, max_keys=a.max_keys,
                                power_iters=a.power_iters, power_tol=a.power_tol,
                                exact_eig_max_dim=a.exact_eig_max_dim)}
    x = torch.randint(0, a.vocab, (batch, seq_len + 1))
    whole = {k: [] for k in opts}
    step_only = {k: [] for k in opts}
    lam_times = []

    def block(name):
        model, opt = models[name], opts[name]
        HOOK_SECONDS[0] = LAMBDA_SECONDS[0] = 0.0
        t_step = 0.0
        start = time.perf_counter()
        for _ in range(a.steps):
            F.cross_entropy(model(x[:, :-1]).flatten(0, 1), x[:, 1:].flatten()).backward()
            s = time.perf_counter()
            opt.step()
            t_step += time.perf_counter() - s
            opt.zero_grad(set_to_none=True)
        whole[name].append((time.perf_counter() - start) / a.steps)
        step_only[name].append((t_step + (HOOK_SECONDS[0] if name == "delta" else 0.0)) / a.steps)
        if name == "delta":
            lam_times.append(LAMBDA_SECONDS[0] / a.steps)

    for name in opts:  # warm-up (allocations, the first cold power iterations)
        block(name)
        whole[name].clear(), step_only[name].clear()
    lam_times.clear()
    for r in range(a.rounds):
        for name in (("adamw", "delta") if r % 2 == 0 else ("delta", "adamw")):
            block(name)
    med = statistics.median
    flops = analytic_overhead(models["adamw"], batch * seq_len, seq_len)
    return {"shape": f"d {d} × {n_layer} layers, {batch}×{seq_len} tok", "params": models["adamw"].num_params(),
            "whole": {k: med(v) for k, v in whole.items()}, "step": {k: med(v) for k, v in step_only.items()},
            "flops": flops, "lambda": med(lam_times)}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shape", action="append", help="d_model,n_layer,seq_len,batch (repeatable; default 64,2,64,16)")
    p.add_argument("--n-head", type=int, default=4)
    p.add_argument("--vocab", type=int, default=257)
    p.add_argument("--steps", type=int, default=10, help="steps per timed block")
    p.add_argument("--rounds", type=int, default=6, help="rounds; even rounds run AdamW first, odd DeltaAdamW")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--max-keys", type=int, default=None, help="DeltaAdamW max_keys (key subsampling)")
    p.add_argument("--power-iters", type=int, default=100, help="DeltaAdamW power_iters (old estimator: 1)")
    p.add_argument("--power-tol", type=float, default=1e-3, help="DeltaAdamW power_tol (old estimator: 0)")
    p.add_argument("--exact-eig-max-dim", type=int, default=256, help="DeltaAdamW exact_eig_max_dim (old: 0)")
    a = p.parse_args(argv)
    torch.set_num_threads(a.threads)
    timed_hooks()
    print(f"{a.threads} thread(s), {a.rounds} rounds × {a.steps} steps (first optimizer alternates), "
          f"same param groups, max_keys {a.max_keys}, power_iters {a.power_iters}, power_tol {a.power_tol}, "
          f"exact_eig_max_dim {a.exact_eig_max_dim}; DeltaAdamW's optimizer step includes its hook time")
    print("| shape | params | whole step AdamW / Delta (ms) | measured overhead | analytic FLOP overhead "
          "(full XᵀX / syrk) | optim step AdamW / Delta+hooks (ms) | step ratio | λ̂ (ms) |")
    print("|---|---|---|---|---|---|---|---|")
    for spec in a.shape or ["64,2,64,16"]:
        d, n_layer, seq_len, batch = (int(v) for v in spec.split(","))
        r = bench_shape(d, n_layer, seq_len, batch, a)
        w, st, f = r["whole"], r["step"], r["flops"]
        print(f"| {r['shape']} | {r['params']:,} | {1e3 * w['adamw']:.2f} / {1e3 * w['delta']:.2f} | "
              f"{100 * (w['delta'] / w['adamw'] - 1):+.1f}% | {100 * f['overhead']:.1f}% / "
              f"{100 * f['overhead_syrk']:.1f}% | {1e3 * st['adamw']:.2f} / {1e3 * st['delta']:.2f} | "
              f"{st['delta'] / st['adamw']:.2f} | {1e3 * r['lambda']:.2f} |")
    for name, (d, layers, heads) in PAPER_SHAPES.items():  # analytic only, at 524,288 tokens per step
        with torch.device("meta"):
            big = LlamaLM(50304, d, layers, heads, max_seq_len=1024)
        f = analytic_overhead(big, 524_288, 1024)
        print(f"analytic {name}: Grams {100 * f['gram'] / f['base']:.1f}% (syrk {50 * f['gram'] / f['base']:.1f}%)"
              f" + recalls {100 * f['recall'] / f['base']:.2f}% + λ̂ {100 * f['lambda'] / f['base']:.3f}% = "
              f"{100 * f['overhead']:.1f}% full / {100 * f['overhead_syrk']:.1f}% syrk of the step's FLOPs; "
              f"per block asymptotic {100 * f['block_asymptotic']:.1f}% [paper realised: {PAPER_REALISED[name]}]")


if __name__ == "__main__":
    main()
