"""DegBins network: equal parameter counts, the bins arithmetic, shapes and errors."""

import pytest
import torch

from experiments.degbins.heads import BinsHead, bin_centers, entropy
from experiments.degbins.model import DegBinsNet, count_parameters, stage_loss

TINY = dict(channels=8, dilations=(1, 2), num_bins=8)


@pytest.mark.parametrize("size", [dict(channels=8, num_bins=8), dict(channels=48, num_bins=32), dict(channels=16, num_bins=16, unshuffle=4)])
def test_bins_and_regression_heads_have_exactly_equal_parameter_counts(size):
    counts = {
        (head, stages): count_parameters(DegBinsNet(head=head, stages=stages, **size))
        for head in ("bins", "regression")
        for stages in (1, 2, 3)
    }
    assert len(set(counts.values())) == 1, counts


def test_bin_centres_tile_the_range_and_the_expectation_is_a_convex_combination():
    widths = torch.tensor([0.1, 0.2, 0.3, 0.4]).view(1, 4, 1, 1)
    centers = bin_centers(widths, torch.full((1, 1, 1, 1), -1.0), torch.full((1, 1, 1, 1), 2.0))
    # edges -1, -0.8, -0.4, 0.2, 1.0 -> centres halfway
    assert centers.flatten().tolist() == pytest.approx([-0.9, -0.6, -0.1, 0.6])
    uniform = torch.full((1, 4, 1, 1), 0.25)
    assert float(entropy(uniform)) == pytest.approx(torch.log(torch.tensor(4.0)).item())


def test_zero_initialised_heads_start_at_the_bicubic_prediction_and_stages_narrow_the_range():
    torch.manual_seed(0)
    rgb, lr = torch.rand(2, 3, 32, 32), torch.rand(2, 1, 8, 8)
    for head in ("bins", "regression"):
        out = DegBinsNet(head=head, stages=3, **TINY)(rgb, lr)
        assert len(out["depth"]) == 3
        for d in out["depth"]:
            assert d.shape == (2, 1, 32, 32)
            assert torch.allclose(d, out["up"], atol=1e-6)
    out = DegBinsNet(head="bins", stages=3, **TINY)(rgb, lr)
    halves = [r.max().item() for r in out["ranges"]]
    assert halves[0] == pytest.approx(0.1) and halves[1] <= halves[0] and halves[2] <= halves[1]
    assert out["entropy"].shape == (2, 1, 32, 32)


def test_iebins_range_scale_halves_the_std_and_narrows_the_range_where_gamma_3_does_not():
    """At the zero start (uniform p over N = 4 equal bins on [−0.1, 0.1]) the centres are ±0.025, ±0.075, so
    std_p = √((0.075² + 0.025²)/2) = 0.0559017 and the next half-range is 0.5 · std = 0.0279508 with IEBins' γ = 0.5
    (the default); γ = 3 gives 0.168, clamped to the previous 0.1: the range never narrows."""
    code = torch.zeros(1, 4, 1, 1)
    std = ((0.075**2 + 0.025**2) / 2) ** 0.5
    assert BinsHead(channels=4, num_bins=4, stages=3).range_scale == 0.5
    halves = [float(s) for s in BinsHead(channels=4, num_bins=4, stages=3, residual_range=0.1)(code)["ranges"]]
    assert halves == pytest.approx([0.1, 0.5 * std, 0.5 * std * (0.5 * std / 0.1)], rel=1e-5)
    old = BinsHead(channels=4, num_bins=4, stages=3, residual_range=0.1, range_scale=3.0)(code)["ranges"]
    assert [float(s) for s in old] == pytest.approx([0.1, 0.1, 0.1])


@pytest.mark.parametrize("head", ["bins", "regression"])
def test_a_few_steps_reduce_the_loss_on_a_fixed_batch(head):
    torch.manual_seed(0)
    model = DegBinsNet(head=head, stages=2, **TINY)
    rgb = torch.nn.functional.avg_pool2d(torch.rand(4, 3, 32, 32), 5, 1, 2)
    lr = torch.rand(4, 1, 8, 8)
    # the residual is a smooth linear function of one guide channel: learnable from the RGB branch
    gt = torch.nn.functional.interpolate(lr, size=(32, 32), mode="bicubic") + 2.0 * (rgb[:, :1] - 0.5)
    opt = torch.optim.Adam(model.parameters(), 1e-2)
    losses = []
    for _ in range(30):
        loss = stage_loss(model(rgb, lr)["depth"], gt, kind="mse")
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.7 * losses[0]


@pytest.mark.parametrize("residual_range", [1.0, 0.1])
def test_the_bins_output_gain_is_the_bin_range(residual_range):
    """At uniform bins (the zero start), sum_k |dr/dl_k| = mean_k |c_k| = R/2 over the probability logits and
    (2R/N^2) sum_j |(N+1)/2 - j| = R/2 over the width logits: a coherent Adam step on the logits moves r by
    about R * lr, so R sets the head's step in depth units (README, "Bin range")."""
    head = BinsHead(channels=4, num_bins=16, stages=1, residual_range=residual_range)
    residual = head(torch.zeros(1, 4, 1, 1))["residuals"][0].sum()
    (grad,) = torch.autograd.grad(residual, head.out.bias)
    assert float(grad[16:].abs().sum()) == pytest.approx(residual_range / 2, rel=1e-5)
    assert float(grad[:16].abs().sum()) == pytest.approx(residual_range / 2, rel=1e-5)


def test_errors():
    with pytest.raises(ValueError, match="unknown head"):
        DegBinsNet(head="ordinal")
    model = DegBinsNet(**TINY)
    with pytest.raises(ValueError, match="integer up-scaling"):
        model(torch.rand(1, 3, 30, 32), torch.rand(1, 1, 8, 8))
    with pytest.raises(ValueError, match=r"rgb \(B,3,H,W\)"):
        model(torch.rand(1, 1, 32, 32), torch.rand(1, 1, 8, 8))
    with pytest.raises(ValueError, match="unshuffle"):
        DegBinsNet(unshuffle=4, **TINY)(torch.rand(1, 3, 34, 34), torch.rand(1, 1, 17, 17))
    with pytest.raises(ValueError, match="unknown loss"):
        stage_loss([torch.zeros(1)], torch.zeros(1), kind="huber")


def test_the_width_logits_get_a_gradient_and_the_recorded_widths_are_the_ones_the_residual_uses():
    """Issue 14 §5 check of the 'exactly uniform' widths: at the zero start the width logits' gradient on r is the
    hand value 2R/N² · ((N+1)/2 − j) for bin j (N = 4, R = 0.1: 0.0125 × (1.5, 0.5, −0.5, −1.5): widening an
    early bin shifts every later centre up), nothing is detached, and r is recomputed exactly from
    the returned widths, probabilities and range (the logged statistics read what the model uses)."""
    torch.manual_seed(0)
    head = BinsHead(channels=4, num_bins=4, stages=1, residual_range=0.1)
    residual = head(torch.zeros(1, 4, 1, 1))["residuals"][0].sum()
    (grad,) = torch.autograd.grad(residual, head.out.bias)
    assert grad[:4].tolist() == pytest.approx([0.01875, 0.00625, -0.00625, -0.01875], abs=1e-7)
    torch.nn.init.normal_(head.out.weight, std=0.3)
    out = head(torch.randn(2, 4, 3, 3))
    start = -out["ranges"][-1]  # one stage: r_0 = 0, bins tile [-s, s]
    edges = start + out["widths"].cumsum(1)
    centres = edges - out["widths"] / 2
    assert torch.allclose((out["probs"] * centres).sum(1, keepdim=True), out["residuals"][-1], atol=1e-7)
    assert not torch.allclose(out["widths"], out["widths"].mean(1, keepdim=True))


def test_the_expected_bin_width_is_exactly_span_over_n_when_either_factor_is_uniform():
    """Σ_k p_k w_k = span/N if p is uniform (whatever the widths) or the widths are (whatever p): so it reads
    2R/N (3.1875 on the 0–255 scale for R = 0.1, N = 16) at the zero start and moves only at second order."""
    from experiments.degbins.heads import expected_bin_width

    widths = torch.tensor([0.1, 0.2, 0.3, 0.4]).view(1, 4, 1, 1)
    uniform = torch.full((1, 4, 1, 1), 0.25)
    probs = torch.tensor([0.7, 0.1, 0.1, 0.1]).view(1, 4, 1, 1)
    assert float(expected_bin_width(uniform, widths)) == pytest.approx(0.25)
    assert float(expected_bin_width(probs, uniform)) == pytest.approx(0.25)
    assert float(expected_bin_width(probs, widths)) == pytest.approx(0.07 + 0.02 + 0.03 + 0.04)
    assert 255 * 2 * 0.1 / 16 == pytest.approx(3.1875)


def test_no_zero_gradient_fixed_point_at_the_zero_start_even_with_noisy_lr_maps():
    """Issue-14 follow-up (why the noisy runs 'never left' the zero start): only the output layer O starts at zero, so
    the first backward reaches O's weights and the bias/prior logits (the prior's gradient equals O's bias gradient up to summation order:
    both add to the same logits) but not the backbone or U; after one AdamW step every parameter has a gradient,
    noisy LR maps (σ = 0.02, values outside [0, 1]) included, and all of them are finite."""
    torch.manual_seed(0)
    net = DegBinsNet(head="bins", stages=3, **TINY)
    rgb, gt = torch.rand(2, 3, 32, 32), torch.rand(2, 1, 32, 32)
    lr = torch.nn.functional.interpolate(gt, size=(8, 8), mode="bicubic", align_corners=False)
    lr = lr + 0.02 * torch.randn_like(lr)
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=0.0)

    def grads():
        opt.zero_grad()
        stage_loss(net(rgb, lr)["depth"], gt, kind="mse").backward()
        return {n: p.grad for n, p in net.named_parameters()}

    first = grads()
    assert all(g is not None and torch.isfinite(g).all() for g in first.values())
    assert first["head.out.weight"].abs().max() > 0 and first["head.prior"].abs().max() > 0
    assert torch.allclose(first["head.prior"], first["head.out.bias"], rtol=1e-5, atol=1e-9)
    assert all(first[n].abs().max() == 0 for n in first if n.startswith(("backbone.", "head.update.")))
    opt.step()
    second = grads()
    assert [n for n, g in second.items() if g.abs().max() == 0] == []


def _position_inputs(head: BinsHead, code: torch.Tensor) -> tuple[dict, list[torch.Tensor]]:
    """The head's output and the position input U received at each stage."""
    seen, step = [], head.step
    head.step = lambda hidden, z, position: (seen.append(position), step(hidden, z, position))[1]
    return head(code), seen


def _randomised_head(**kwargs) -> tuple[BinsHead, torch.Tensor]:
    torch.manual_seed(0)
    head = BinsHead(channels=4, num_bins=4, stages=3, residual_range=0.1, **kwargs)
    with torch.no_grad():
        for p in head.parameters():
            p.normal_(0, 0.5)
    return head, torch.randn(1, 4, 2, 3)


def test_position_input_default_is_r_over_s_as_before_and_r_over_R_stays_bounded():
    head, code = _randomised_head()
    assert head.position_input == "r_over_s"
    out, seen = _position_inputs(head, code)
    # default: exactly r_{t-1} / s_{t-1}, the input every run before the option had
    assert torch.equal(seen[0], torch.zeros_like(seen[0]))
    for t in (1, 2):
        assert torch.equal(seen[t], out["residuals"][t - 1] / out["ranges"][t])
    # this head's range narrows to the floor s_min = 1e-3 at stage 3, where r/s reaches ~100 (r/R ~1 below)
    assert float(out["ranges"][2].min()) == pytest.approx(1e-3) and float(seen[2].abs().max()) > 50

    bounded, code = _randomised_head(position_input="r_over_R")
    out_R, seen_R = _position_inputs(bounded, code)
    assert torch.equal(seen_R[0], torch.zeros_like(seen_R[0]))
    for t in (1, 2):
        assert torch.equal(seen_R[t], out_R["residuals"][t - 1] / 0.1)
    # |r_1| <= R and |r_2| <= R + s_1 <= (1 + gamma) R
    assert float(seen_R[1].abs().max()) <= 1 and float(seen_R[2].abs().max()) <= 1.5
    assert torch.equal(out_R["residuals"][0], out["residuals"][0])  # stage 1 sees r_0 = 0 either way
    assert not torch.equal(out_R["residuals"][2], out["residuals"][2])


def test_position_input_reaches_the_head_from_the_config_and_rejects_unknown_values():
    assert DegBinsNet(position_input="r_over_R", **TINY).head.position_input == "r_over_R"
    with pytest.raises(ValueError, match="unknown position_input 'r_over_std'; choose one of r_over_s, r_over_R"):
        BinsHead(channels=4, position_input="r_over_std")


def test_the_degradation_estimate_reads_pooled_z_before_film_so_it_never_sees_the_code_it_estimates():
    torch.manual_seed(0)
    net = DegBinsNet(channels=8, degradation_condition="film", estimate_degradation=True).eval()
    with torch.no_grad():  # off the zero start (bicubic output, identity FiLM), so the output depends on the code
        for p in net.parameters():
            p.add_(0.3 * torch.randn_like(p))
    rgb, lr = torch.rand(2, 3, 32, 32), torch.rand(2, 1, 8, 8)
    mild, harsh = torch.tensor([[4.0, 0.0], [4.0, 0.0]]), torch.tensor([[16.0, 0.05], [16.0, 0.05]])
    with torch.no_grad():
        a, b = net(rgb, lr, mild), net(rgb, lr, harsh)
    torch.testing.assert_close(a["degradation_estimate"], b["degradation_estimate"])
    assert not torch.allclose(a["depth"][-1], b["depth"][-1])
    torch.testing.assert_close(a["degradation_code"], torch.tensor([[0.5, 0.0], [0.5, 0.0]]))
    torch.testing.assert_close(b["degradation_code"], torch.tensor([[1.0, 1.0], [1.0, 1.0]]))
    assert a["degradation_estimate"].shape == (2, 2)
