"""Benchmark losses and metrics on hand-made tensors (dense, CelebA F1, regression MAE in units, accuracy)."""

import math

import pytest
import torch

from experiments.apt.benchmarks import (
    CelebABenchmark,
    ClassificationBenchmark,
    DenseBenchmark,
    QM9Benchmark,
    RegressionBenchmark,
)
from reprolab.cli.errors import ConfigError


def test_dense_metrics_by_hand():
    bench = DenseBenchmark(("seg", "depth", "normal"), num_classes=2)
    seg_logits = torch.zeros(1, 2, 1, 4)
    seg_logits[0, 1, 0, :2] = 1.0  # predicts [1, 1, 0, 0]
    seg_target = torch.tensor([[[1, 0, 0, -1]]])  # last pixel ignored
    depth_pred = torch.tensor([[[[2.0, 1.0, 5.0, 0.0]]]])
    depth_target = torch.tensor([[[[1.0, 1.0, 4.0, 0.0]]]])  # last pixel invalid
    normal_target = torch.zeros(1, 3, 1, 4)
    normal_target[0, 2] = 1.0
    normal_pred = normal_target.clone()
    normal_pred[0, :, 0, 1] = torch.tensor([1.0, 0.0, 0.0])  # 90° off on pixel 1
    outputs = [seg_logits, depth_pred, normal_pred]
    targets = {"seg": seg_target, "depth": depth_target, "normal": normal_target}
    bench.update("test", outputs, targets)
    m = bench.compute("test")
    # confusion (rows=target): class0 → pred1 once, pred0 once; class1 → pred1 once. IoU0 = 1/2, IoU1 = 1/2
    assert m["seg_miou"] == pytest.approx(50.0) and m["seg_pixacc"] == pytest.approx(200 / 3)
    assert m["depth_abs"] == pytest.approx(2 / 3) and m["depth_rel"] == pytest.approx((1 + 0 + 0.25) / 3)
    assert m["normal_mean"] == pytest.approx(22.5, abs=0.01) and m["normal_11.25"] == pytest.approx(75.0)
    losses = bench.losses(outputs, targets)
    assert losses[1].item() == pytest.approx(2 / 3)
    assert losses[2].item() == pytest.approx(0.25)  # 1 − cos: 0, 1, 0, 0
    bench.reset("test")
    assert bench.metrics_of("test")["seg"].confusion.sum() == 0


def test_dense_unknown_task():
    with pytest.raises(ConfigError, match="unknown"):
        DenseBenchmark(("seg", "edges"))


def test_celeba_f1_per_attribute():
    bench = CelebABenchmark(n_attributes=2)
    logits = [torch.tensor([1.0, 1.0, -1.0, -1.0]), torch.tensor([1.0, -1.0, -1.0, -1.0])]
    target = torch.tensor([[1, 1], [0, 1], [1, 0], [0, 0]])
    bench.update("val", logits, target)
    m = bench.compute("val")
    # attr0: tp 1, fp 1, fn 1 → F1 = 2/4; attr1: tp 1, fp 0, fn 1 → 2/3
    assert m["f1_attr0"] == pytest.approx(50.0) and m["f1_attr1"] == pytest.approx(200 / 3)
    assert m["f1_mean"] == pytest.approx((50 + 200 / 3) / 2)
    assert len(bench.losses(logits, target)) == 2


def test_regression_mae_in_reported_units_and_shape_error():
    bench = RegressionBenchmark(["a", "b"], scale=[2.0, 10.0])
    bench.update("test", [torch.tensor([1.0, 1.0]), torch.tensor([0.0, 0.0])], torch.tensor([[0.0, 1.0], [1.0, -1.0]]))
    assert bench.compute("test") == {"a": pytest.approx(1.0), "b": pytest.approx(10.0)}
    with pytest.raises(ConfigError, match="expected targets"):
        bench.losses([torch.zeros(2)] * 2, torch.zeros(2, 3))


def test_qm9_benchmark_reads_pyg_batches():
    bench = QM9Benchmark()
    assert bench.n_tasks == 11 and bench.stl["homo"] == pytest.approx(60.576)

    class FakeBatch:
        y = torch.zeros(3, 11)

    losses = bench.losses([torch.ones(3, 1)] * 11, FakeBatch())
    assert all(math.isclose(loss.item(), 1.0) for loss in losses)


def test_classification_accuracy_by_hand_and_shape_error():
    bench = ClassificationBenchmark(["left", "right"])
    left = torch.tensor([[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 2.0], [2.0, 0.0, 0.0]])  # predicts 0 1 2 0
    right = torch.tensor([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0], [1.0, 0.0]])  # predicts 1 1 0 0
    targets = torch.tensor([[0, 1], [1, 1], [1, 1], [0, 0]])
    bench.update("val", [left, right], targets)
    assert bench.compute("val") == {"left_acc": pytest.approx(75.0), "right_acc": pytest.approx(75.0)}
    assert bench.higher == {"left_acc": True, "right_acc": True}
    losses = bench.losses([left, right], targets)
    assert losses[0].item() == pytest.approx(torch.nn.functional.cross_entropy(left, targets[:, 0]).item())
    with pytest.raises(ConfigError, match=r"\(B, 2\)"):
        bench.losses([left, right], targets[:, 0])
