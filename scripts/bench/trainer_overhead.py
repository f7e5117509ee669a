"""Lightning trainer vs a plain PyTorch loop: same model, data and optimizer, interleaved in one process.

    python scripts/bench/trainer_overhead.py [--steps 60] [--rounds 5]

Prints the median time of each and their ratios (target ≤ 1.03). Two Lightning arms: the shared
ClassificationTask as every run uses it (per-step accuracy metric and logging), and a bare module with
the same loss only, which isolates the trainer's own overhead. All include building the data loader
iterator; the trainers also build themselves, which a real run pays once.
"""

from __future__ import annotations

import argparse
import statistics
import time

import lightning as L
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from reprolab.models.resnet_cifar import CifarResNet
from reprolab.tasks.classification import ClassificationTask


def make_loader(n: int, batch: int) -> DataLoader:
    g = torch.Generator().manual_seed(0)
    data = TensorDataset(torch.randn(n, 3, 32, 32, generator=g), torch.randint(0, 10, (n,), generator=g))
    return DataLoader(data, batch_size=batch, shuffle=False)


def sgd(params):
    return torch.optim.SGD(params, lr=0.05, momentum=0.9, nesterov=True, foreach=True)


def plain_loop(loader: DataLoader, steps: int) -> float:
    torch.manual_seed(0)
    model = CifarResNet((1, 1, 1), width=16)
    opt = sgd(model.parameters())
    start = time.perf_counter()
    model.train()
    for step, (x, y) in enumerate(loader):
        if step == steps:
            break
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return time.perf_counter() - start


class BareTask(L.LightningModule):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def training_step(self, batch, batch_idx):
        x, y = batch
        return F.cross_entropy(self.model(x), y)

    def configure_optimizers(self):
        return sgd(self.parameters())


def lightning_loop(loader: DataLoader, steps: int, bare: bool = False) -> float:
    torch.manual_seed(0)
    model = CifarResNet((1, 1, 1), width=16)
    task = BareTask(model) if bare else ClassificationTask(model, optimizer=sgd)
    start = time.perf_counter()
    trainer = L.Trainer(max_steps=steps, accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False, num_sanity_val_steps=0,
                        limit_val_batches=0)
    trainer.fit(task, train_dataloaders=loader)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--batch", type=int, default=128)
    args = parser.parse_args()
    loader = make_loader(args.steps * args.batch, args.batch)
    L.seed_everything(0, verbose=False)
    plain_loop(loader, 3), lightning_loop(loader, 3)  # warm-up
    plain, bare, task = [], [], []
    for _ in range(args.rounds):
        plain.append(plain_loop(loader, args.steps))
        bare.append(lightning_loop(loader, args.steps, bare=True))
        task.append(lightning_loop(loader, args.steps))
    p, b, t = (statistics.median(x) for x in (plain, bare, task))
    print(f"steps={args.steps} batch={args.batch} rounds={args.rounds} threads={torch.get_num_threads()}")
    for name, value in (("plain PyTorch loop", p), ("Lightning, bare module", b), ("Lightning, ClassificationTask", t)):
        print(f"{name:30s}: {value:.3f} s  ({1e3 * value / args.steps:.1f} ms/step)")
    print(f"ratio bare Lightning / plain = {b / p:.3f}  (target <= 1.03)")
    print(f"ratio ClassificationTask / plain = {t / p:.3f}  (adds per-step accuracy and logging)")


if __name__ == "__main__":
    main()
