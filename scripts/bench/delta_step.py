"""DeltaAdamW vs AdamW(foreach) on the Llama LM: measured per-step CPU-time overhead next to the analytic FLOP one.

    python scripts/bench/delta_step.py                                   # d 64 × 2 layers, 16×64 tokens
    python scripts/bench/delta_step.py --shape 64,2,64,16 --shape 256,4,128,8   # d, layers, seq, batch
    python scripts/bench/delta_step.py --preset fineweb_67m --steps 4 --rounds 7   # the 67M preset

Time is the calling thread's CPU time (``time.thread_time``) with torch at one thread, so it does not
count the time the process waits for a core on a loaded machine. Fairness: both optimizers get the same
parameter groups (``param_groups``: decay / no decay), the same weights and batch; steps alternate
between the two (AdamW first on even steps, DeltaAdamW first on odd ones), and each round's overhead is
the ratio of the two optimizers' median step times in it, minus 1 (a median: a step that a neighbour's
cache traffic or an interrupt slowed down does not move it). DeltaAdamW's optimizer-step figure includes the forward pre-hooks'
Gram work (timed inside the hooks), since that work exists only for the optimizer. The overhead is the
median over rounds, its spread the min–max over rounds. Analytic FLOPs: Gram XᵀX per shared key (2·N·d_in²
each, half with a symmetric rank-k update), recall M·Ĉ per keyed weight (2·d_out·d_in²), λ̂max (eigvalsh
≈ 4/3·d³ for d ≤ 256, else k warm mat-vecs of 2·d²), against 6·N·(matmul parameters) + attention
(12·N·T·d per layer) for the forward and backward. Prints a table; nothing is asserted.

``--preset S`` composes ``experiment=deltamomentum/S_adamw`` and ``S_delta`` (model and optimizers as the
trainer builds them) and times micro-batches of ``--micro-batch`` sequences, each followed by an optimizer
step. The forward+backward (with the hooks' Gram) scales with the tokens and the optimizer step does not, so
besides the measured step at this micro-batch it composes the whole-step overhead at the preset's tokens per
optimizer step (batch × accumulation × seq) from the two measured parts, next to the analytic figure at
both token counts, and times the one-thread CPU cost of the full XᵀX GEMM against a symmetric rank-k update
(BLAS ``ssyrk``, SciPy) for each Gram size.
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

from reprolab.models.llama import LlamaLM  # noqa: E402
from reprolab.optim import key_hooks  # noqa: E402
from reprolab.optim.build import param_groups  # noqa: E402
from reprolab.optim.delta import DeltaAdamW  # noqa: E402
from reprolab.optim.delta_memory import DeltaMomentumBase  # noqa: E402

PAPER_SHAPES = {"llama_67m": (512, 5, 8), "llama_370m": (1024, 21, 16)}
PAPER_REALISED = {"llama_67m": "7.3%", "llama_370m": "11.0%"}
PARTS = {"hooks": 0.0, "lambda": 0.0, "recall": 0.0}  # CPU seconds inside DeltaAdamW's extra work
clock = time.thread_time


def add_time(part: str, fn):
    def timed(*args, **kwargs):
        start = clock()
        try:
            return fn(*args, **kwargs)
        finally:
            PARTS[part] += clock() - start
    return timed


def timed_parts() -> None:
    """Charge the KeyCapture hooks (Gram work), λ̂max and the recall M·Ĉ to PARTS."""
    make_hook = key_hooks.KeyCapture._hook
    key_hooks.KeyCapture._hook = lambda self, layer: add_time("hooks", make_hook(self, layer))
    DeltaMomentumBase.lambda_max = add_time("lambda", DeltaMomentumBase.lambda_max)
    DeltaMomentumBase.recall = add_time("recall", DeltaMomentumBase.recall)


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


def one_step(model, opt, x) -> dict[str, float]:
    """CPU seconds of one training step: forward+backward (with the hooks), the optimizer step, DeltaAdamW's parts."""
    before = dict(PARTS)
    start = clock()
    F.cross_entropy(model(x[:, :-1]).flatten(0, 1), x[:, 1:].flatten()).backward()
    mid = clock()
    opt.step()
    opt.zero_grad(set_to_none=True)
    end = clock()
    return {"fb": mid - start, "opt": end - mid, **{k: PARTS[k] - before[k] for k in PARTS}}


def interleaved_rounds(models, opts, x, a) -> list[dict]:
    """Per round, each optimizer's median of every part over ``a.steps`` steps, AdamW first on even steps."""
    for _ in range(a.warmup):  # allocations, first λ̂
        for name in opts:
            one_step(models[name], opts[name], x)
    rounds = []
    for _ in range(a.rounds):
        times = {k: [] for k in opts}
        for i in range(a.steps):
            for name in (("adamw", "delta") if i % 2 == 0 else ("delta", "adamw")):
                times[name].append(one_step(models[name], opts[name], x))
        rounds.append({k: {part: statistics.median(t[part] for t in v) for part in v[0]} for k, v in times.items()})
    return rounds


def over_rounds(values) -> tuple[float, float, float]:
    values = list(values)
    return statistics.median(values), min(values), max(values)


def bench_shape(d, n_layer, seq_len, batch, a) -> dict:
    torch.manual_seed(0)
    models = {name: LlamaLM(a.vocab, d, n_layer, a.n_head, max_seq_len=seq_len) for name in ("adamw", "delta")}
    models["delta"].load_state_dict(models["adamw"].state_dict())
    opts = {"adamw": torch.optim.AdamW(param_groups(models["adamw"]), lr=1e-3, foreach=True),
            "delta": DeltaAdamW(models["delta"], lr=1e-3, eta=0.5, foreach=True, max_keys=a.max_keys,
                                power_iters=a.power_iters, power_tol=a.power_tol,
                                exact_eig_max_dim=a.exact_eig_max_dim)}
    x = torch.randint(0, a.vocab, (batch, seq_len + 1))
    rounds = interleaved_rounds(models, opts, x, a)
    for r in rounds:  # whole step; the optimizer step counts the hooks' Gram work
        for t in r.values():
            t["whole"], t["step"] = t["fb"] + t["opt"], t["opt"] + t["hooks"]
    med, lo, hi = over_rounds(r["delta"]["whole"] / r["adamw"]["whole"] - 1 for r in rounds)
    return {"shape": f"d {d} × {n_layer} layers, {batch}×{seq_len} tok", "params": models["adamw"].num_params(),
            "adamw": {k: statistics.median(r["adamw"][k] for r in rounds) for k in ("whole", "step")},
            "delta": {k: statistics.median(r["delta"][k] for r in rounds) for k in rounds[0]["delta"]},
            "overhead": med, "spread": (lo, hi),
            "flops": analytic_overhead(models["adamw"], batch * seq_len, seq_len)}


def print_shapes(a) -> None:
    print("| shape | params | whole step AdamW / Delta (ms) | measured overhead, median [min, max] of rounds | "
          "analytic (full XᵀX / syrk) | Gram: measured / analytic | λ̂: measured / analytic | "
          "recall M·Ĉ: measured / analytic | rest of the optimizer step | optim step AdamW / Delta+hooks (ms) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for spec in a.shape or ["64,2,64,16"]:
        d, n_layer, seq_len, batch = (int(v) for v in spec.split(","))
        r = bench_shape(d, n_layer, seq_len, batch, a)
        ad, de, f = r["adamw"], r["delta"], r["flops"]
        lo, hi = r["spread"]
        pct = {k: 100 * de[k] / ad["whole"] for k in PARTS}  # % of AdamW's whole step, like the overhead
        rest = 100 * (de["step"] - de["hooks"] - de["lambda"] - de["recall"] - ad["step"]) / ad["whole"]
        parts = " | ".join(f"{pct[k]:.1f}% / {100 * f[g] / f['base']:.1f}%"
                           for k, g in (("hooks", "gram"), ("lambda", "lambda"), ("recall", "recall")))
        print(f"| {r['shape']} | {r['params']:,} | {1e3 * ad['whole']:.2f} / {1e3 * de['whole']:.2f} | "
              f"**{100 * r['overhead']:+.1f}%** [{100 * lo:+.1f}, {100 * hi:+.1f}] | **{100 * f['overhead']:.1f}%** / "
              f"{100 * f['overhead_syrk']:.1f}% | {parts} | {rest:+.1f}% | "
              f"{1e3 * ad['step']:.2f} / {1e3 * de['step']:.2f} |", flush=True)


def composed_overhead(t_adamw: dict, t_delta: dict, micro_batches: float) -> float:
    """Whole-step overhead with ``micro_batches`` forward+backward passes per optimizer step (accumulation)."""
    whole = {k: micro_batches * t["fb"] + t["opt"] for k, t in (("adamw", t_adamw), ("delta", t_delta))}
    return whole["delta"] / whole["adamw"] - 1


def preset_models(setting: str, micro_batch: int):
    """Model and optimizer of ``<setting>_adamw`` / ``<setting>_delta`` as the trainer builds them, and the
    preset's tokens per optimizer step and sequence length."""
    from hydra.utils import instantiate

    from reprolab.config.compose import CONF_DIR, compose
    from reprolab.optim.build import build_optimizer

    for arm in ("adamw", "delta"):
        if not (CONF_DIR / "experiment" / "deltamomentum" / f"{setting}_{arm}.yaml").is_file():
            raise SystemExit(f"--preset {setting}: no conf/experiment/deltamomentum/{setting}_{arm}.yaml; "
                             "give a setting with an _adamw and a _delta preset, e.g. fineweb_67m")
    cfgs = {arm: compose([f"experiment=deltamomentum/{setting}_{arm}"]) for arm in ("adamw", "delta")}
    if cfgs["adamw"].model != cfgs["delta"].model:
        raise SystemExit(f"{setting}_adamw and {setting}_delta compose different models; nothing to compare")
    cfg = cfgs["adamw"]
    seq_len = cfg.data.seq_len
    tokens_per_step = cfg.data.batch_size * cfg.trainer.accumulate_grad_batches * seq_len
    torch.manual_seed(0)
    models = {arm: instantiate(c.model) for arm, c in cfgs.items()}
    models["delta"].load_state_dict(models["adamw"].state_dict())
    opts = {arm: build_optimizer(instantiate(c.optimizer), models[arm]) for arm, c in cfgs.items()}
    x = torch.randint(0, cfg.data.vocab_size, (micro_batch, seq_len + 1))
    return models, opts, x, tokens_per_step, seq_len


def gram_forms(n_keys: int, dims, repeats: int = 5) -> dict[int, tuple[float, float]]:
    """Median one-thread CPU seconds of XᵀX as torch's GEMM and as BLAS ssyrk (one triangle), per d_in."""
    import numpy as np
    from scipy.linalg.blas import ssyrk
    from threadpoolctl import threadpool_limits

    out = {}
    with threadpool_limits(1):
        for d in dims:
            x = torch.randn(n_keys, d)
            xt = np.asfortranarray(x.numpy().T)  # (d, N): ssyrk(a) = a·aᵀ
            times = {"gemm": [], "syrk": []}
            for _ in range(repeats):
                start = clock()
                x.T @ x
                times["gemm"].append(clock() - start)
                start = clock()
                ssyrk(1.0, xt)
                times["syrk"].append(clock() - start)
            out[d] = (statistics.median(times["gemm"]), statistics.median(times["syrk"]))
    return out


def print_preset(a) -> None:
    models, opts, x, tokens_per_step, seq_len = preset_models(a.preset, a.micro_batch)
    model = models["adamw"]
    tokens = x.shape[0] * seq_len
    micro_batches = tokens_per_step / tokens
    print(f"{a.preset}: {model.num_params():,} parameters, micro-batch {x.shape[0]}×{seq_len} tokens; the preset "
          f"takes {tokens_per_step:,} tokens per optimizer step = {micro_batches:g} such micro-batches; "
          f"optimizers {type(opts['adamw']).__name__} / {type(opts['delta']).__name__} as built by the trainer",
          flush=True)
    rounds = interleaved_rounds(models, opts, x, a)
    med = {arm: {k: statistics.median(r[arm][k] for r in rounds) for k in rounds[0][arm]} for arm in opts}
    f_micro, f_step = analytic_overhead(model, tokens, seq_len), analytic_overhead(model, tokens_per_step, seq_len)
    rows = [("forward+backward, Delta with its hooks' Gram (per micro-batch)",
             over_rounds(r["delta"]["fb"] / r["adamw"]["fb"] - 1 for r in rounds), f_micro["gram"] / f_micro["base"]),
            (f"whole step at 1 micro-batch per step ({tokens:,} tokens)",
             over_rounds(composed_overhead(r["adamw"], r["delta"], 1) for r in rounds), f_micro["overhead"]),
            (f"whole step at the preset's {tokens_per_step:,} tokens (composed from the measured parts)",
             over_rounds(composed_overhead(r["adamw"], r["delta"], micro_batches) for r in rounds),
             f_step["overhead"])]
    print("| what | measured overhead, median [min, max] of rounds | analytic FLOP overhead (full XᵀX) |")
    print("|---|---|---|")
    for what, (m, lo, hi), analytic in rows:
        print(f"| {what} | **{100 * m:+.1f}%** [{100 * lo:+.1f}, {100 * hi:+.1f}] | {100 * analytic:.1f}% |")
    ad, de = med["adamw"], med["delta"]
    flops_s = f_micro["base"] / ad["fb"]  # the step's FLOP rate on this core
    ms = {f"{arm}_{k}": f"{1e3 * v:.0f}" for arm in med for k, v in med[arm].items()}
    print(f"median CPU ms: forward+backward AdamW {ms['adamw_fb']} / Delta {ms['delta_fb']} (hooks {ms['delta_hooks']}; "
          f"the analytic Gram FLOPs at this step's FLOP rate, {flops_s / 1e9:.1f} GFLOP/s: "
          f"{1e3 * f_micro['gram'] / flops_s:.0f}); optimizer step AdamW {ms['adamw_opt']} / Delta {ms['delta_opt']} "
          f"(λ̂ {ms['delta_lambda']}, recall {ms['delta_recall']} for {f_micro['recall'] / 1e9:.1f} GFLOP, rest "
          f"{1e3 * (de['opt'] - de['lambda'] - de['recall']):.0f})")
    d, hidden = model.embed.weight.shape[1], model.blocks[0].mlp.up.weight.shape[0]
    forms = gram_forms(tokens, sorted({d, hidden}))
    print("Gram XᵀX of one micro-batch, one thread: " + "; ".join(
        f"d_in {k}: GEMM {1e3 * g:.1f} ms, ssyrk {1e3 * s:.1f} ms (ratio {s / g:.2f})" for k, (g, s) in forms.items()))


def print_analytic_paper_shapes() -> None:
    for name, (d, layers, heads) in PAPER_SHAPES.items():  # analytic only, at 524,288 tokens per step
        with torch.device("meta"):
            big = LlamaLM(50304, d, layers, heads, max_seq_len=1024)
        f = analytic_overhead(big, 524_288, 1024)
        print(f"analytic {name}: Grams {100 * f['gram'] / f['base']:.1f}% (syrk {50 * f['gram'] / f['base']:.1f}%)"
              f" + recalls {100 * f['recall'] / f['base']:.2f}% + λ̂ {100 * f['lambda'] / f['base']:.3f}% = "
              f"{100 * f['overhead']:.1f}% full / {100 * f['overhead_syrk']:.1f}% syrk of the step's FLOPs; "
              f"per block asymptotic {100 * f['block_asymptotic']:.1f}% [paper realised: {PAPER_REALISED[name]}]")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--shape", action="append", help="d_model,n_layer,seq_len,batch (repeatable; default 64,2,64,16)")
    p.add_argument("--n-head", type=int, default=4)
    p.add_argument("--vocab", type=int, default=257)
    p.add_argument("--steps", type=int, default=20, help="steps of each optimizer per round (interleaved)")
    p.add_argument("--rounds", type=int, default=7, help="rounds; the overhead is their median, spread min–max")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps of each optimizer first")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--max-keys", type=int, default=None, help="DeltaAdamW max_keys (key subsampling; --shape only)")
    p.add_argument("--power-iters", type=int, default=100, help="DeltaAdamW power_iters (old estimator: 1)")
    p.add_argument("--power-tol", type=float, default=1e-3, help="DeltaAdamW power_tol (old estimator: 0)")
    p.add_argument("--exact-eig-max-dim", type=int, default=256, help="DeltaAdamW exact_eig_max_dim (old: 0)")
    p.add_argument("--preset", help="a setting with <S>_adamw and <S>_delta presets, e.g. fineweb_67m (replaces --shape)")
    p.add_argument("--micro-batch", type=int, default=1, help="sequences per micro-batch with --preset")
    a = p.parse_args(argv)
    torch.set_num_threads(a.threads)
    timed_parts()
    print(f"thread CPU time, {a.threads} thread(s), {a.rounds} rounds × {a.steps} interleaved steps each, "
          "same param groups; DeltaAdamW's optimizer step includes its hook time; " + (
              "optimizers from the presets" if a.preset else
              f"max_keys {a.max_keys}, power_iters {a.power_iters}, power_tol {a.power_tol}, "
              f"exact_eig_max_dim {a.exact_eig_max_dim}"))
    if a.preset:
        print_preset(a)
    else:
        print_shapes(a)
    print_analytic_paper_shapes()


if __name__ == "__main__":
    main()
