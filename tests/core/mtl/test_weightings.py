"""Hand-worked checks of every weighting on two or three known task gradients."""

import numpy as np
import pytest
import torch

from reprolab.mtl.weightings import NAMES, build_weighting

G1, G2 = torch.tensor([1.0, 0.0]), torch.tensor([-1.0, 1.0])  # conflicting: g1·g2 = −1
J = torch.stack([G1, G2])
LOSSES = torch.tensor([1.0, 2.0])


def combine(name, jac=J, losses=LOSSES, **kw):
    w = build_weighting(name, jac.shape[0], **kw)
    return w(losses, jac if w.needs_jacobian else None)


def test_pcgrad_projects_each_gradient_on_the_normal_plane_of_the_other():
    # g1' = g1 − (g1·g2/|g2|²) g2 = (0.5, 0.5); g2' = g2 − (g2·g1/|g1|²) g1 = (0, 1); sum = (0.5, 1.5)
    out = combine("pcgrad").shared_grad
    assert torch.allclose(out, torch.tensor([0.5, 1.5]), atol=1e-6)


def test_pcgrad_leaves_non_conflicting_gradients_alone():
    jac = torch.tensor([[1.0, 0.0], [1.0, 1.0]])
    assert torch.allclose(combine("pcgrad", jac).shared_grad, jac.sum(0))


def test_mgda_finds_the_min_norm_point_of_the_convex_hull():
    # |a g1 + (1−a) g2|² = (2a−1)² + (1−a)² is minimised at a = 0.6 → (0.2, 0.4)
    comb = combine("mgda")
    assert torch.allclose(comb.loss_weights, torch.tensor([0.6, 0.4]), atol=1e-3)
    assert torch.allclose(comb.shared_grad, torch.tensor([0.2, 0.4]), atol=1e-3)


def test_cagrad_matches_its_dual_solved_by_grid_search():
    # CAGrad: d = g0 + (√φ/|g_w|) g_w, w = argmin_{w∈Δ} g_w·g0 + √φ |g_w|, g0 = mean, √φ = c|g0|
    c = 0.4
    g0 = J.mean(0)
    sqrt_phi = c * g0.norm()
    best, best_a = float("inf"), None
    for a in np.linspace(0, 1, 200001):
        gw = a * G1 + (1 - a) * G2
        f = float(gw @ g0 + sqrt_phi * gw.norm())
        if f < best:
            best, best_a = f, a
    gw = best_a * G1 + (1 - best_a) * G2
    expected = (g0 + sqrt_phi / gw.norm() * gw) * 2  # torchjd returns the sum-scaled direction (weights 1/m + …)·J
    out = combine("cagrad", c=c).shared_grad
    assert torch.allclose(out / out.norm(), expected / expected.norm(), atol=1e-3)
    assert float(out @ G1) > 0 and float(out @ G2) > 0  # conflict-averse: descends on both


def test_cagrad_with_c_zero_is_the_mean():
    out = combine("cagrad", c=0.0)
    assert torch.allclose(out.loss_weights, torch.tensor([0.5, 0.5]), atol=1e-5)


def test_imtl_gives_equal_projections_on_every_task_gradient():
    # IMTL-G: the aggregated d has the same projection on each unit task gradient
    d = combine("imtl").shared_grad
    proj = torch.stack([d @ G1 / G1.norm(), d @ G2 / G2.norm()])
    assert torch.allclose(proj[0], proj[1], atol=1e-5) and proj[0] > 0


def test_gradvac_and_nash_and_aligned_and_fairgrad_descend_on_both_tasks():
    for name in ("gradvac", "nashmtl", "alignedmtl", "fairgrad"):
        d = combine(name).shared_grad
        assert float(d @ G1) >= -1e-6 and float(d @ G2) >= -1e-6, name


def test_graddrop_keeps_per_coordinate_signs_consistent():
    torch.manual_seed(0)
    d = combine("graddrop").shared_grad
    # coordinate 0 has +1 and −1: GradDrop keeps one sign, so |d_0| == 1; coordinate 1 is only +1
    assert abs(float(d[0])) == pytest.approx(1.0) and float(d[1]) == pytest.approx(1.0)


def test_ew_and_rlw_and_dwa_weights():
    assert torch.equal(combine("ew").loss_weights, torch.ones(2))
    torch.manual_seed(0)
    rlw = combine("rlw").loss_weights
    assert rlw.sum() == pytest.approx(1.0) and (rlw > 0).all()
    dwa = build_weighting("dwa", 2, temp=2.0)
    for epoch_losses in ([4.0, 4.0], [2.0, 4.0]):  # task 0 halves, task 1 stalls
        dwa(torch.tensor(epoch_losses))
        dwa.epoch_end()
    w = dwa(torch.tensor([1.0, 1.0])).loss_weights
    expected = 2 * torch.softmax(torch.tensor([0.5, 1.0]) / 2.0, 0)
    assert torch.allclose(w, expected, atol=1e-6) and w[1] > w[0]


def test_uw_learns_log_variance_towards_the_loss():
    # ∂/∂s [½ e^{−s} L + ½ s] = 0 at s = log L: the task with the larger loss gets the smaller weight
    uw = build_weighting("uw", 2, lr=0.05)
    for _ in range(400):
        comb = uw(torch.tensor([1.0, 4.0]))
    assert torch.allclose(uw.log_vars.detach(), torch.log(torch.tensor([1.0, 4.0])), atol=0.05)
    assert comb.loss_weights[0] > comb.loss_weights[1]


def test_famo_weights_are_c_z_over_loss_and_favour_the_slower_task():
    famo = build_weighting("famo", 2, after="next_batch")
    w0 = famo(torch.tensor([1.0, 2.0])).loss_weights
    # z = (½, ½): c = 1/(½/1 + ½/2) = 4/3 → weights (2/3, 1/3)
    assert torch.allclose(w0, torch.tensor([2 / 3, 1 / 3]), atol=1e-5)
    losses = torch.tensor([1.0, 2.0])
    for _ in range(20):  # task 0 improves 10 % per step, task 1 not at all
        losses = losses * torch.tensor([0.9, 1.0])
        famo(losses)
    z = torch.softmax(famo.logits.detach(), 0)
    assert z[1] > z[0]


def test_gradnorm_raises_the_weight_of_the_task_with_the_smaller_gradient():
    jac = torch.tensor([[10.0, 0.0], [0.0, 1.0]])
    gn = build_weighting("gradnorm", 2, alpha=0.0, lr=0.05)
    for _ in range(200):
        comb = gn(torch.tensor([1.0, 1.0]), jac)
    w = gn.weights.detach()
    assert w.sum() == pytest.approx(2.0, abs=1e-5) and w[1] > 5 * w[0]
    assert torch.allclose(comb.shared_grad, comb.loss_weights @ jac, atol=1e-4)


def test_dbmtl_balances_log_gradient_norms_to_the_largest():
    jac = torch.tensor([[4.0, 0.0], [0.0, 1.0]])
    comb = combine("dbmtl", jac=jac, losses=torch.tensor([1.0, 2.0]))
    # log-grads (4,0), (0,½); the EMA from zero keeps (1 − β) = 0.1 of them; both rescaled to norm 0.4 → (0.4, 0.4)
    assert torch.allclose(comb.shared_grad, torch.tensor([0.4, 0.4]), atol=1e-5)
    assert torch.allclose(comb.head_weights, torch.tensor([1.0, 0.5]), atol=1e-6)  # heads: ∇ log L_t


def test_every_name_builds_and_combines_three_tasks():
    jac = torch.randn(3, 5, generator=torch.Generator().manual_seed(0))
    for name in NAMES:
        w = build_weighting(name, 3)
        comb = w(torch.tensor([1.0, 2.0, 3.0]), jac if w.needs_jacobian else None)
        assert comb.loss_weights.shape == (3,), name
        assert comb.shared_grad is None or comb.shared_grad.shape == (5,), name


def test_errors_name_the_valid_options_and_shapes():
    with pytest.raises(ValueError, match="choose from"):
        build_weighting("nope", 2)
    with pytest.raises(ValueError, match="has no option rescal; its task.weighting_kwargs are c, rescale"):
        build_weighting("cagrad", 2, rescal=1)
    for name, kwargs, match in (("cagrad", {"rescale": 3}, "rescale 3"), ("imtl", {"variant": "x"}, "variant 'x'"),
                                ("famo", {"after": "later"}, "after='later'"),
                                ("alignedmtl", {"scale_mode": "max"}, "scale_mode 'max'")):
        with pytest.raises(ValueError, match=match):
            build_weighting(name, 2, **kwargs)
    with pytest.raises(ValueError, match="expects 2 task losses"):
        build_weighting("ew", 2)(torch.ones(3))
    with pytest.raises(ValueError, match="needs the"):
        build_weighting("pcgrad", 2)(torch.ones(2), None)


def test_single_task_weighting_is_one_hot_and_checks_its_index():
    comb = build_weighting("single", 3, task=1)(torch.tensor([1.0, 2.0, 3.0]))
    assert comb.loss_weights.tolist() == [0.0, 1.0, 0.0] and comb.shared_grad is None
    with pytest.raises(ValueError, match="outside 0..2"):
        build_weighting("single", 3, task=3)


class _TwoHeadModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.shared, self.heads = torch.nn.Linear(2, 2), torch.nn.ModuleList([torch.nn.Linear(2, 1) for _ in "ab"])

    def shared_parameters(self):
        return list(self.shared.parameters())

    def task_specific_parameters(self):
        return list(self.heads.parameters())


def test_mtl_task_single_task_replaces_the_weighting_by_name():
    from experiments.apt.benchmarks import RegressionBenchmark
    from reprolab.mtl.task import MTLTask

    task = MTLTask(_TwoHeadModel(), optimizer=None, benchmark=RegressionBenchmark(["a", "b"]), weighting="pcgrad",
                   single_task="b")
    assert type(task.weighting).__name__ == "SingleTask" and task.weighting.task == 1
    with pytest.raises(ValueError, match="choose from a, b"):
        MTLTask(_TwoHeadModel(), optimizer=None, benchmark=RegressionBenchmark(["a", "b"]), single_task="c")


def test_single_task_validation_loss_is_that_task_loss_only(monkeypatch):
    from experiments.apt.benchmarks import RegressionBenchmark
    from reprolab.mtl.task import MTLTask

    class Fixed(_TwoHeadModel):
        def forward(self, x):
            return [torch.zeros(len(x)), torch.zeros(len(x))]

    x, y = torch.zeros(4, 2), torch.tensor([[1.0, 3.0]] * 4)  # MSE of a zero prediction: 1 (a), 9 (b)
    for single, expected in ((None, 10.0), ("a", 1.0), ("b", 9.0)):
        task = MTLTask(Fixed(), optimizer=None, benchmark=RegressionBenchmark(["a", "b"]), single_task=single)
        logged: dict[str, float] = {}
        monkeypatch.setattr(task, "log", lambda name, value, logged=logged, **kw: logged.__setitem__(name, float(value)))
        task._eval_step((x, y), "val")
        assert logged["val/loss"] == pytest.approx(expected), single


@pytest.mark.parametrize("name, kwargs", [("dwa", {}), ("famo", {"after": "next_batch"}), ("uw", {}), ("gradnorm", {}),
                                          ("dbmtl", {}), ("imtl", {"variant": "hybrid"})])
def test_stateful_weighting_resumes_from_its_state_dict_exactly(name, kwargs):
    import io

    gen = torch.Generator().manual_seed(0)
    steps = [(torch.rand(2, generator=gen) + 0.5, torch.randn(2, 6, generator=gen)) for _ in range(8)]
    first = build_weighting(name, 2, **kwargs)

    def step(w, losses, jac, i):
        out = w(losses, jac if w.needs_jacobian else None)
        if i % 2 == 1:
            w.epoch_end()  # DWA: an "epoch" of two steps
        return out.loss_weights

    for i, (losses, jac) in enumerate(steps[:5]):
        step(first, losses, jac, i)
    buffer = io.BytesIO()
    torch.save(first.state_dict(), buffer)  # what a Lightning checkpoint holds for the task's weighting
    buffer.seek(0)
    resumed = build_weighting(name, 2, **kwargs)
    resumed.load_state_dict(torch.load(buffer, weights_only=True))
    for i, (losses, jac) in enumerate(steps[5:], start=5):
        assert torch.equal(step(first, losses, jac, i), step(resumed, losses, jac, i)), (name, i)


def test_checkpoint_without_weighting_state_still_loads():
    from experiments.apt.benchmarks import RegressionBenchmark
    from reprolab.mtl.task import MTLTask

    def make():
        return MTLTask(_TwoHeadModel(), optimizer=None, benchmark=RegressionBenchmark(["a", "b"]), weighting="dwa")

    old = {"state_dict": {k: v for k, v in make().state_dict().items() if not k.endswith("_extra_state")}}
    task = make()
    with pytest.raises(RuntimeError, match="_extra_state"):
        task.load_state_dict(old["state_dict"])
    task.on_load_checkpoint(old)
    task.load_state_dict(old["state_dict"])
    assert task.weighting.history == [] and task.weighting.count == 0


@pytest.mark.parametrize("weighting", ["ew", "dbmtl", "gradnorm"])
def test_representation_jacobian_rejects_methods_with_state_across_batches_or_loss_scales(weighting):
    from experiments.apt.benchmarks import RegressionBenchmark
    from reprolab.mtl.task import MTLTask

    with pytest.raises(ValueError, match="is not one"):
        MTLTask(_TwoHeadModel(), optimizer=None, benchmark=RegressionBenchmark(["a", "b"]), weighting=weighting,
                jacobian_wrt="representation")
    for accepted in ("mgda", "graddrop"):  # MGDA-UB; GradDrop as its paper applies it
        MTLTask(_TwoHeadModel(), optimizer=None, benchmark=RegressionBenchmark(["a", "b"]), weighting=accepted,
                jacobian_wrt="representation")
