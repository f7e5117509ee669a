"""Step time of MTL methods against the unavoidable cost: T backward passes + one optimizer step.

Same model, same batch, methods interleaved round-robin in one process; medians over `--reps`.
Per-task gradients: `reprolab.mtl.jacobian.task_jacobian` (T `autograd.grad` passes over shared + head
parameters, flattened into one (T, n) matrix), or `--jacobian batched` (one vmapped backward).

  python scripts/bench/mtl_overhead.py                 # MLP, 3 tasks
  python scripts/bench/mtl_overhead.py --model mtan    # small SegNet-MTAN (seg/depth/normal)
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import torch
import torch.nn.functional as F

from reprolab.mtl.architectures import MLPHardSharing
from reprolab.mtl.engine import MTLBackward, task_losses
from reprolab.mtl.segnet_mtan import SegNetMTAN
from reprolab.mtl.weightings import build_weighting

METHODS = ("ew", "pcgrad", "cagrad", "nashmtl")


def setup(kind: str, batch: int):
    torch.manual_seed(0)
    if kind == "mlp":
        model = MLPHardSharing(256, [512, 512, 512], [10, 10, 10])
        x, ys = torch.randn(batch, 256), [torch.randint(10, (batch,)) for _ in range(3)]
        losses = lambda: task_losses([F.cross_entropy(o, y) for o, y in zip(model(x), ys, strict=True)])
    else:
        model = SegNetMTAN(filters=(16, 32, 64, 64, 64))
        x = torch.randn(batch, 3, 64, 96)
        seg, depth = torch.randint(13, (batch, 64, 96)), torch.rand(batch, 1, 64, 96)
        normal = F.normalize(torch.randn(batch, 3, 64, 96), dim=1)

        def losses():
            s, d, n = model(x)
            return task_losses([F.cross_entropy(s, seg), (d - depth).abs().mean(), (1 - (n * normal).sum(1)).mean()])
    return model, losses


def reference_step(model, losses_fn, opt):
    """The unavoidable cost: T backward passes (one per task loss, accumulating into .grad) + one step."""
    opt.zero_grad(set_to_none=True)
    losses = losses_fn()
    for t in range(losses.shape[0]):
        losses[t].backward(retain_graph=t < losses.shape[0] - 1)
    opt.step()


def method_step(engine, losses_fn, opt):
    opt.zero_grad(set_to_none=True)
    engine(losses_fn())
    opt.step()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("mlp", "mtan"), default="mlp")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--jacobian", choices=("loop", "batched"), default="loop")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    warnings.filterwarnings("ignore")
    model, losses_fn = setup(args.model, args.batch)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    steps = {"T backward + step": lambda: reference_step(model, losses_fn, opt)}
    for name in METHODS:
        engine = MTLBackward(build_weighting(name, 3), model.shared_parameters(), model.task_specific_parameters(),
                             jacobian_method=args.jacobian)
        steps[name] = lambda engine=engine: method_step(engine, losses_fn, opt)
    times = {k: [] for k in steps}
    for k in steps:  # warm-up
        steps[k]()
    for _ in range(args.reps):
        for k, step in steps.items():
            t0 = time.perf_counter()
            step()
            times[k].append(time.perf_counter() - t0)
    ref = statistics.median(times["T backward + step"])
    n = sum(p.numel() for p in model.parameters())
    print(f"model={args.model} ({n / 1e6:.2f} M params) batch={args.batch} jacobian={args.jacobian} "
          f"threads={args.threads} reps={args.reps}")
    print(f"{'method':<20}{'median ms':>10}{'÷ ref':>8}{'overhead':>10}")
    for k, ts in times.items():
        med = statistics.median(ts)
        print(f"{k:<20}{1e3 * med:>10.2f}{med / ref:>8.3f}{100 * (med / ref - 1):>9.1f}%")


if __name__ == "__main__":
    main()
