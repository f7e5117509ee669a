"""A plain MLP on flattened inputs: the smallest model, for tests, demos and distributed checks; as a policy it is
queried at every step (`executor()`)."""

from __future__ import annotations

from torch import nn

from reprolab.models.executor import OneStep, cpu_predictor


class MLP(nn.Module):
    def __init__(self, in_features: int, hidden: int = 128, depth: int = 2, num_classes: int = 10):
        super().__init__()
        layers, width = [nn.Flatten()], in_features
        for _ in range(depth):
            layers += [nn.Linear(width, hidden), nn.ReLU()]
            width = hidden
        layers.append(nn.Linear(width, num_classes))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)

    def executor(self) -> OneStep:
        """Closed loop: one query per step, its output executed."""
        return OneStep(cpu_predictor(self, self))
