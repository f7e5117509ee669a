"""The engine writes the combined gradient into .grad; the Jacobian paths agree; Δm / rank / Δp by hand."""

import pytest
import torch

from reprolab.mtl.architectures import MLPHardSharing
from reprolab.mtl.engine import MTLBackward, task_losses
from reprolab.mtl.jacobian import conflict_strength, task_jacobian
from reprolab.mtl.metrics import delta_m, delta_p, mean_rank
from reprolab.mtl.weightings import build_weighting


def model_and_losses(seed=0):
    torch.manual_seed(seed)
    model = MLPHardSharing(4, [8, 8], [1, 1])
    x, y = torch.randn(16, 4), torch.randn(16, 2)
    outs = model(x)
    losses = task_losses([((o.squeeze(-1) - y[:, t]) ** 2).mean() for t, o in enumerate(outs)])
    return model, losses


def test_loop_and_batched_jacobians_match_per_task_autograd():
    model, losses = model_and_losses()
    shared, heads = model.shared_parameters(), model.task_specific_parameters()
    jac, head_jac = task_jacobian(losses, shared, heads, method="loop")
    jac_b, head_b = task_jacobian(losses, shared, heads, method="batched")
    assert torch.allclose(jac, jac_b, atol=1e-6) and torch.allclose(head_jac, head_b, atol=1e-6)
    g0 = torch.cat([g.reshape(-1) for g in torch.autograd.grad(losses[0], shared, retain_graph=True)])
    assert torch.allclose(jac[0], g0)
    assert jac.shape == (2, sum(p.numel() for p in shared))


def test_ew_through_the_jacobian_equals_plain_backward_of_the_sum():
    model, losses = model_and_losses()
    losses.sum().backward(retain_graph=True)
    ref = [p.grad.clone() for p in model.parameters()]
    model.zero_grad(set_to_none=True)
    engine = MTLBackward(build_weighting("ew", 2), model.shared_parameters(), model.task_specific_parameters(),
                         always_jacobian=True)
    stats = engine(losses)
    for p, r in zip(model.parameters(), ref, strict=True):
        assert torch.allclose(p.grad, r, atol=1e-6)
    assert 0.0 <= stats["conflict"] <= 1.0


def test_our_aggregators_equal_torchjds_where_they_share_a_convention():
    # torchjd's PCGrad skips the task's own gradient (include_self=False); its IMTL-G is the same pseudo-inverse form;
    # its MGDA reaches the min-norm point once its Frank-Wolfe tolerance is tight enough on an easy problem
    from torchjd.aggregation import IMTLG, MGDA, PCGrad

    jac = torch.randn(3, 7, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    for name, kwargs, agg in (("imtl", {}, IMTLG()), ("pcgrad", {"include_self": False}, PCGrad()),
                              ("mgda", {}, MGDA(epsilon=1e-12, max_iters=100000))):
        torch.manual_seed(0)  # PCGrad's random task order
        ours = build_weighting(name, 3, **kwargs)(torch.ones(3), jac, gram=jac @ jac.T).shared_grad
        torch.manual_seed(0)
        assert torch.allclose(ours, agg(jac), rtol=1e-4, atol=1e-7), name


def test_pcgrad_step_writes_the_projected_gradient_and_heads_on_their_own_loss():
    model, losses = model_and_losses()
    shared, heads = model.shared_parameters(), model.task_specific_parameters()
    jac, head_jac = task_jacobian(losses, shared, heads)
    torch.manual_seed(0)
    expected = build_weighting("pcgrad", 2)(losses.detach(), jac)
    torch.manual_seed(0)
    MTLBackward(build_weighting("pcgrad", 2), shared, heads)(losses)
    got = torch.cat([p.grad.reshape(-1) for p in shared])
    assert torch.allclose(got, expected.shared_grad, atol=1e-6)
    got_heads = torch.cat([p.grad.reshape(-1) for p in heads])
    assert torch.allclose(got_heads, head_jac.sum(0), atol=1e-6)  # each head: ∇ of its own loss, weight 1


def test_weighted_heads_multiply_each_head_by_its_task_weight():
    model, losses = model_and_losses()
    shared, heads = model.shared_parameters(), model.task_specific_parameters()
    _, head_jac = task_jacobian(losses, shared, heads)
    stats = MTLBackward(build_weighting("mgda", 2), shared, heads, heads="weighted")(losses)
    got_heads = torch.cat([p.grad.reshape(-1) for p in heads])
    assert torch.allclose(got_heads, stats["weights"] @ head_jac, atol=1e-6)
    with pytest.raises(ValueError, match="heads must be 'own'"):
        MTLBackward(build_weighting("mgda", 2), shared, heads, heads="scaled")


def _grads(model, loss, params):
    return [g.clone() for g in torch.autograd.grad(loss, params, retain_graph=True)]


def test_upper_bound_mode_takes_weights_from_the_representation_jacobian():
    # MGDA-UB: weights from ∂L/∂z; the encoder gets ∇_θ Σ_t w_t L_t, each head ∇ of its own loss
    model, losses = model_and_losses()
    rep = model.representation
    jac, _ = task_jacobian(losses, [rep])
    weights = build_weighting("mgda", 2)(losses.detach(), jac).loss_weights
    shared, heads = model.shared_parameters(), model.task_specific_parameters()
    ref = _grads(model, (weights * losses).sum(), shared) + _grads(model, losses.sum(), heads)
    stats = MTLBackward(build_weighting("mgda", 2), shared, heads, representation=lambda: model.representation)(losses)
    assert torch.allclose(stats["weights"], weights)
    for p, r in zip(shared + heads, ref, strict=True):
        assert torch.allclose(p.grad, r, atol=1e-6)


def test_graddrop_on_the_representation_uses_sign_corrected_batch_sums():
    # Chen et al. 2020: P from Σ_b sign(z_b) ∇_{z_b} L_t, one mask per activation, the masked per-sample gradients
    # back-propagated into the encoder
    model, losses = model_and_losses(seed=3)
    rep = model.representation
    per_sample = torch.stack(_grads(model, losses[0], [rep]) + _grads(model, losses[1], [rep]))  # (T, B, D)
    summed = (per_sample * rep.detach().sign()).sum(1)
    purity = 0.5 * (1 + summed.sum(0) / (summed.abs().sum(0) + 1e-7))
    torch.manual_seed(5)
    draw = torch.rand(purity.shape)
    keep = ((purity > draw) & (summed > 0)) | ((purity < draw) & (summed < 0))
    rep_grad = (keep[:, None, :] * per_sample).sum(0)
    shared, heads = model.shared_parameters(), model.task_specific_parameters()
    ref = [g.clone() for g in torch.autograd.grad(rep, shared, grad_outputs=rep_grad, retain_graph=True)]
    ref += _grads(model, losses.sum(), heads)
    torch.manual_seed(5)
    MTLBackward(build_weighting("graddrop", 2), shared, heads, representation=lambda: model.representation)(losses)
    for p, r in zip(shared + heads, ref, strict=True):
        assert torch.allclose(p.grad, r, atol=1e-6)


def test_loss_based_step_with_head_weights_of_its_own():
    from reprolab.mtl.weightings import Combination, Weighting

    class Scaled(Weighting):  # loss weights (2, 3) on the trunk, head weights (5, 7)
        def forward(self, losses, jac=None, gram=None):
            return Combination(loss_weights=torch.tensor([2.0, 3.0]), head_weights=torch.tensor([5.0, 7.0]))

    model, losses = model_and_losses()
    shared, heads = model.shared_parameters(), model.task_specific_parameters()
    ref = _grads(model, 2 * losses[0] + 3 * losses[1], shared) + _grads(model, 5 * losses[0] + 7 * losses[1], heads)
    MTLBackward(Scaled(2), shared, heads)(losses)
    for p, r in zip(shared + heads, ref, strict=True):
        assert torch.allclose(p.grad, r, atol=1e-6)


def test_wrong_number_of_losses_is_a_clear_error():
    model, losses = model_and_losses()
    engine = MTLBackward(build_weighting("ew", 3), model.shared_parameters())
    with pytest.raises(ValueError, match="expected 3 task losses"):
        engine(losses)


def test_conflict_strength_is_minus_the_worst_cosine():
    def strength(jac):
        return conflict_strength(jac @ jac.T)

    assert strength(torch.tensor([[1.0, 0.0], [-1.0, 0.0]])) == pytest.approx(1.0)
    assert strength(torch.tensor([[1.0, 0.0], [0.0, 1.0]])) == pytest.approx(0.0)
    assert strength(torch.tensor([[1.0, 0.0], [-1.0, 1.0]])) == pytest.approx(2**-0.5, rel=1e-5)


HIGHER = {"acc": True, "err": False}


def test_delta_m_by_hand():
    # acc 80 vs 100 (higher better): −(80−100)/100 = +0.2; err 0.5 vs 1 (lower better): (0.5−1)/1 = −0.5
    assert delta_m({"acc": 80, "err": 0.5}, {"acc": 100, "err": 1.0}, HIGHER) == pytest.approx(-15.0)
    assert delta_m({"acc": 100, "err": 1.0}, {"acc": 100, "err": 1.0}, HIGHER) == 0.0


def test_delta_p_averages_per_task_first_and_has_the_opposite_sign():
    base = {"acc": 100, "err": 1.0, "err2": 1.0}
    method = {"acc": 80, "err": 0.5, "err2": 1.0}
    higher = {**HIGHER, "err2": False}
    # task A (acc): −0.2; task B (err, err2): (0.5 + 0)/2 = 0.25 → Δp = 100·(−0.2 + 0.25)/2 = 2.5
    assert delta_p(method, base, higher, {"A": ["acc"], "B": ["err", "err2"]}) == pytest.approx(2.5)


def test_mean_rank_with_ties():
    res = {"a": {"acc": 1, "err": 1}, "b": {"acc": 2, "err": 1}, "c": {"acc": 3, "err": 3}}
    # acc ranks: c1 b2 a3; err ranks: a,b tie 1.5, c3
    assert mean_rank(res, HIGHER) == {"a": 2.25, "b": 1.75, "c": 2.0}


def test_delta_m_errors():
    with pytest.raises(KeyError, match="missing"):
        delta_m({"acc": 1}, {"acc": 1}, HIGHER)
    with pytest.raises(ValueError, match="are 0"):
        delta_m({"acc": 1, "err": 1}, {"acc": 1, "err": 0}, HIGHER)
