"""Claim check 3: SGD + Nesterov momentum vs DeltaSGD on the real 3,000-image CIFAR-10 subset.

A plain PyTorch loop over tensors held in memory (the trainer path is `experiment=cifar10/small_sgd_cpu`
vs `experiment=deltamomentum/cifar10_small_delta_sgd_cpu`): the foundation's small CIFAR ResNet, random
crop (pad 4) + flip, cosine LR, the same learning rate for both (DeltaSGD with κ = 1 is a drop-in: η = 0
is the baseline exactly). Test accuracy on the subset's 1,000 test images, several seeds.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torchvision import datasets, transforms

from reprolab.models.resnet_cifar import CifarResNet
from reprolab.optim.build import param_groups
from reprolab.optim.delta import DeltaSGD

MEAN, STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


def load_subset(root: Path) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
    to_tensor = transforms.Compose([transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    out = {}
    for split in ("train", "test"):
        ds = datasets.ImageFolder(str(root / split), transform=to_tensor)
        xs, ys = zip(*[ds[i] for i in range(len(ds))], strict=True)
        out[split] = (torch.stack(xs), torch.tensor(ys))
    return out


def augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Random crop with 4-pixel zero padding and horizontal flip, per image."""
    n = x.shape[0]
    padded = F.pad(x, (4, 4, 4, 4))
    dx, dy = torch.randint(0, 9, (2, n), generator=gen)
    crops = torch.stack([padded[i, :, dy[i]:dy[i] + 32, dx[i]:dx[i] + 32] for i in range(n)])
    flip = torch.rand(n, generator=gen) < 0.5
    crops[flip] = crops[flip].flip(-1)
    return crops


def train_cifar(data, name: str, seed: int, *, epochs=8, lr=0.05, batch=64, eta=0.5, width=16,
                blocks=(1, 1, 1), max_keys=None) -> dict:
    torch.manual_seed(seed)
    model = CifarResNet(blocks=blocks, width=width, num_classes=10)
    kw = dict(lr=lr, momentum=0.9, nesterov=True, weight_decay=5e-4)
    opt = torch.optim.SGD(param_groups(model), **kw) if name == "sgdm" else \
        DeltaSGD(model, eta=eta, max_keys=max_keys, exclude=("head",), **kw)
    x_train, y_train = data["train"]
    steps_per_epoch = len(x_train) // batch
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs * steps_per_epoch)
    gen = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        model.train()
        order = torch.randperm(len(x_train), generator=gen)
        for b in range(steps_per_epoch):
            idx = order[b * batch:(b + 1) * batch]
            loss = F.cross_entropy(model(augment(x_train[idx], gen)), y_train[idx])
            loss.backward()
            opt.step()
            opt.zero_grad()
            sched.step()
    model.eval()
    x_test, y_test = data["test"]
    with torch.no_grad():
        acc = float((model(x_test).argmax(1) == y_test).float().mean())
    return {"optimizer": name, "seed": seed, "test_acc": acc, "final_train_loss": loss.item()}


def compare(data, seeds, **kw) -> dict:
    runs = {name: [train_cifar(data, name, s, **kw) for s in seeds] for name in ("sgdm", "delta_sgd")}
    return {name: {"acc": [r["test_acc"] for r in rs],
                   "mean": float(np.mean([r["test_acc"] for r in rs])),
                   "std": float(np.std([r["test_acc"] for r in rs], ddof=1))} for name, rs in runs.items()}
