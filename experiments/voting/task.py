"""Learning a voting rule: imitate a classic rule's winner lottery, optionally plus axiom losses.

Loss (DeepVoting §3, §5): `rule_weight` × cross-entropy to the uniform lottery over the target rule's tied
winners + Σ_a λ_a L_a (axiom losses, `axiom_weights`; relational pairs drawn from the training batch itself).
Test metrics, all on the same generated test profiles: `acc` (argmax among the target's winners = agreement
with the rule), `viol/<axiom>` (the network's violation rates), `viol/pair` (a profile violates the pair when
either axiom fails), each classic rule's `classic/<rule>/agree` and `classic/<rule>/viol_pair` on the same
profiles and perturbations, and `dominance_margin` = min over classic rules R of
max(acc − agree_R, viol_pair_R − viol_pair): positive iff no classic rule is at least as good on both.
"""

from __future__ import annotations

import warnings
from collections import defaultdict

import torch
import torch.nn.functional as F

from experiments.voting import axioms
from experiments.voting.model import parameter_count
from experiments.voting.rules import RULES, winner_lottery
from reprolab.cli.errors import ConfigError
from reprolab.run.finished_model import load_initial_weights
from reprolab.tasks.base import Task

CHECKS = ("condorcet", "condorcet_loser", "pareto", "participation", "monotonicity", "anonymity", "neutrality")


class VotingTask(Task):
    def __init__(self, model, optimizer, scheduler=None, axiom_weights: dict | None = None,
                 checks: tuple[str, ...] = CHECKS, pair: tuple[str, ...] = ("condorcet", "participation"),
                 classic_rules: tuple[str, ...] = tuple(RULES), abstainers: int = 8, train_abstainers: int = 2,
                 init_from: str | None = None, rule_weight: float = 1.0):
        super().__init__(model, optimizer, scheduler)
        self.rule_weight = float(rule_weight)
        self.axiom_weights = {k: float(v) for k, v in (axiom_weights or {}).items() if v}
        for name in self.axiom_weights:
            if name not in axioms.LOSSES:
                raise ConfigError(f"task.axiom_weights.{name}: no such axiom loss; choose from {', '.join(axioms.LOSSES)}")
        for name in (*checks, *pair):
            if name not in CHECKS:
                raise ConfigError(f"task.checks/pair: unknown axiom {name!r}; choose from {', '.join(CHECKS)}")
        unknown = set(classic_rules) - set(RULES)
        if unknown:
            raise ConfigError(f"task.classic_rules: unknown {sorted(unknown)}; choose from {', '.join(RULES)}")
        self.checks, self.pair, self.classic_rules = tuple(checks), tuple(pair), tuple(classic_rules)
        self.abstainers, self.train_abstainers = abstainers, train_abstainers
        if init_from:
            load_initial_weights(self.model, init_from, to_make_it="run the imitation stage first (see experiments/voting/README.md)")
        self.sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0])

    # rules as lotteries -------------------------------------------------------------------------------
    def soft_rule(self, ballots):
        return torch.softmax(self.model(ballots), dim=-1)

    def hard_rule(self, ballots):
        logits = self.model(ballots)
        return F.one_hot(logits.argmax(-1), logits.shape[-1]).float()

    # training -------------------------------------------------------------------------------------------
    def _fit_step(self, batch, stage: str):
        ballots, winners = batch
        logits = self.model(ballots)
        rule_loss = -(winner_lottery(winners) * torch.log_softmax(logits, -1)).sum(-1).mean()
        loss = self.rule_weight * rule_loss
        on_step = stage == "train"
        if self.axiom_weights:   # also on validation, so a fine-tuning run can monitor its whole objective
            self.log(f"{stage}/loss_rule", rule_loss, on_step=on_step, on_epoch=True)
            p = torch.softmax(logits, -1)
            voters = torch.rand(ballots.shape[:2], device=ballots.device).argsort(-1)[:, : self.train_abstainers]
            for name, weight in self.axiom_weights.items():
                term = axioms.LOSSES[name](ballots, p, voters=voters, rule=self.soft_rule)
                self.log(f"{stage}/loss_{name}", term, on_step=on_step, on_epoch=True)
                loss = loss + weight * term
        acc = winners.gather(-1, logits.argmax(-1, keepdim=True)).float().mean()
        self.log(f"{stage}/loss", loss, on_step=on_step, on_epoch=True, prog_bar=True)
        self.log(f"{stage}/acc", acc, on_step=False, on_epoch=True, prog_bar=True, batch_size=len(ballots))
        return loss

    def training_step(self, batch, batch_idx):
        return self._fit_step(batch, "train")

    def validation_step(self, batch, batch_idx):
        self._fit_step(batch, "val")

    # testing --------------------------------------------------------------------------------------------
    def perturbations(self, ballots, batch_idx):
        """The same abstainers, lifted ballots and permutations for every rule judged on this batch."""
        gen = torch.Generator().manual_seed(10_000 + batch_idx)
        batch, n, m = ballots.shape
        return {
            "participation": torch.rand(batch, n, generator=gen).argsort(-1)[:, : min(self.abstainers, n)],
            "monotonicity": torch.randint(n, (batch,), generator=gen),
            "anonymity": torch.rand(batch, n, generator=gen).argsort(-1),
            "neutrality": torch.rand(batch, m, generator=gen).argsort(-1),
        }

    def violations(self, ballots, p, rule, names, pert) -> dict[str, torch.Tensor]:
        out = {}
        for name in names:
            if name in ("condorcet", "condorcet_loser", "pareto"):
                out[name] = getattr(axioms, f"{name}_violation")(ballots, p)
            elif name == "participation" and ballots.shape[1] < 2:
                continue
            else:
                try:
                    out[name] = getattr(axioms, f"{name}_violation")(ballots, pert[name], p, rule)
                except ConfigError as err:   # e.g. a raw-ballot MLP cannot read a profile with n-1 voters
                    warnings.warn(f"{name} not checked: {err}", stacklevel=1)
        if all(a in out for a in self.pair):
            out["pair"] = torch.stack([out[a] for a in self.pair]).amax(0)
        return out

    def _add(self, key: str, values: torch.Tensor) -> None:
        self.sums[key][0] += float(values.sum())
        self.sums[key][1] += values.numel()

    def on_test_epoch_start(self):
        self.sums.clear()

    def test_step(self, batch, batch_idx):
        ballots, winners = batch
        pert = self.perturbations(ballots, batch_idx)
        p = self.hard_rule(ballots)
        self._add("acc", (p * winners).sum(-1))
        for name, v in self.violations(ballots, p, self.hard_rule, (*self.checks, *self.pair), pert).items():
            self._add(f"viol/{name}", v)
        for rule_name in self.classic_rules:
            lottery = lambda b, r=RULES[rule_name]: winner_lottery(r(b))
            q = lottery(ballots)
            self._add(f"classic/{rule_name}/agree", (q * winners).sum(-1))
            v = self.violations(ballots, q, lottery, self.pair, pert)
            if "pair" in v:
                self._add(f"classic/{rule_name}/viol_pair", v["pair"])

    def on_test_epoch_end(self):
        means = {k: s / max(c, 1) for k, (s, c) in self.sums.items()}
        if "viol/pair" in means and self.classic_rules:
            means["dominance_margin"] = min(
                max(means["acc"] - means[f"classic/{r}/agree"], means[f"classic/{r}/viol_pair"] - means["viol/pair"])
                for r in self.classic_rules if f"classic/{r}/viol_pair" in means
            )
        means["params"] = parameter_count(self.model)
        for key, value in means.items():
            self.log(f"test/{key}", float(value))
