"""The actor/learner task: the learner's own log-probs feed the gate, staleness in learner steps, reversal."""

import lightning as L
import pytest
import torch
import torch.nn.functional as F

import experiments.delightful.task as task_module
from experiments.delightful.data import DigitsBanditDataModule
from experiments.delightful.model import ReversalTransformer
from experiments.delightful.reversal import ReversalTask, answer_logits
from experiments.delightful.task import DigitsBanditTask
from reprolab.cli.errors import ConfigError
from reprolab.models.mlp import MLP


def adam(params):
    return torch.optim.Adam(params, lr=1e-2)


def bandit_task(**kw) -> DigitsBanditTask:
    torch.manual_seed(0)
    return DigitsBanditTask(MLP(64, hidden=16, depth=1), adam, **kw)


def test_surprisal_and_gate_use_the_learner_not_the_actor(monkeypatch):
    task = bandit_task(loss="dg", staleness=5)
    actor = MLP(64, hidden=16, depth=1)  # different weights: the stale actor
    task.ring.push(0, actor)  # the task's own push at step 0 is then a no-op: the actor acts with these
    seen, original = {}, task_module.policy_gradient_objective

    def spy(loss, logp, logp_behaviour, advantage, *args):
        seen.update(logp=logp, logp_behaviour=logp_behaviour)
        return original(loss, logp, logp_behaviour, advantage, *args)

    monkeypatch.setattr(task_module, "policy_gradient_objective", spy)
    images, labels = torch.rand(32, 64), torch.randint(0, 10, (32,))
    loss = task.training_step((images, labels), 0)
    learner = F.log_softmax(task.model(images), -1)
    stale = F.log_softmax(actor(images), -1)
    taken = seen["logp"].detach()
    # the logp the objective saw is the learner's log-prob of some action, with gradient; the behaviour one is the actor's
    assert seen["logp"].requires_grad
    idx = (learner - taken[:, None]).abs().argmin(1)
    assert torch.allclose(learner.gather(1, idx[:, None]).squeeze(1), taken, atol=1e-6)
    assert torch.allclose(stale.gather(1, idx[:, None]).squeeze(1), seen["logp_behaviour"], atol=1e-6)
    assert not torch.allclose(taken, seen["logp_behaviour"])
    (grad,) = torch.autograd.grad(loss, task.model.net[1].weight)
    assert grad.abs().sum() > 0


def test_bad_config_values_are_one_clear_line():
    with pytest.raises(ConfigError, match="task.loss='vtrace'"):
        bandit_task(loss="vtrace")
    with pytest.raises(ConfigError, match="task.baseline"):
        bandit_task(baseline="critic")
    with pytest.raises(ConfigError, match="bug_rate"):
        bandit_task(bug_rate=1.5)


class RecordingBandit(DigitsBanditTask):
    def on_train_start(self):
        self.records, self.params_at_step = [], {}

    def training_step(self, batch, batch_idx):
        self.params_at_step.setdefault(self.global_step, self.model.net[1].weight.detach().clone())
        loss = super().training_step(batch, batch_idx)
        version, params = self.ring.actor_snapshot()
        self.records.append((self.global_step, version, params["net.1.weight"]))
        return loss


def test_staleness_is_counted_in_learner_steps_through_the_trainer():
    torch.manual_seed(0)
    task = RecordingBandit(MLP(64, hidden=16, depth=1), adam, loss="reinforce", staleness=3)
    data = DigitsBanditDataModule(batch_size=16, num_batches=20)
    trainer = L.Trainer(max_steps=8, accumulate_grad_batches=2, logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False, limit_val_batches=0)
    trainer.fit(task, datamodule=data)
    steps = [s for s, _, _ in task.records]
    assert steps == [s for s in range(8) for _ in range(2)]  # two batches per learner step
    for step, version, actor_weight in task.records:
        assert version == max(0, step - 3)
        assert torch.equal(actor_weight, task.params_at_step[version])
    assert not torch.equal(task.params_at_step[0], task.params_at_step[7])


def reversal_task(**kw) -> ReversalTask:
    torch.manual_seed(0)
    return ReversalTask(ReversalTransformer(max_length=5, d_model=16, n_head=2, n_layer=1), adam, **kw)


def test_reversal_teacher_forcing_matches_autoregressive_decoding():
    task = reversal_task()
    prompts = torch.randint(0, 2, (8, 5))
    greedy = task.greedy_answers(prompts)
    assert torch.equal(answer_logits(task.model, prompts, greedy).argmax(-1), greedy)


def test_reversal_behaviour_equals_learner_without_frictions():
    task = reversal_task()
    task.ring.push(0, task.model)
    prompts = torch.randint(0, 2, (8, 4))
    answers, logp_behaviour = task.act(prompts, task.ring.actor_snapshot()[1])
    assert answers.shape == prompts.shape
    assert torch.allclose(task.learner_log_probs(prompts, answers), logp_behaviour, atol=1e-5)


def test_rare_discovery_injects_the_correct_reverse():
    task = reversal_task(discovery_rate=1.0)
    task.ring.push(0, task.model)
    prompts = torch.randint(0, 2, (8, 4))
    answers, _ = task.act(prompts, task.ring.actor_snapshot()[1])
    assert torch.equal(task.true_reward(prompts, answers), torch.ones(8))


def test_reversal_reward_only_for_a_fully_correct_sequence():
    task = reversal_task()
    prompts = torch.tensor([[0, 1, 1], [0, 1, 1]])
    answers = torch.tensor([[1, 1, 0], [1, 0, 0]])
    assert task.true_reward(prompts, answers).tolist() == [1.0, 0.0]


def test_longest_solved():
    task = reversal_task(solved_error_pct=1.0)
    task.eval_errors = {1: 0.0, 2: 0.5, 3: 5.0, 4: 0.0}
    assert task.longest_solved() == 2
    task.eval_errors = {2: 3.0, 3: 0.0}
    assert task.longest_solved() == 1



def test_checkpoint_keeps_the_actor_snapshots():
    task = bandit_task(staleness=2)
    for step in range(4):
        with torch.no_grad():
            task.model.net[1].weight.fill_(float(step))
        task.ring.push(step, task.model)
    checkpoint = {}
    task.on_save_checkpoint(checkpoint)
    resumed = bandit_task(staleness=2)
    resumed.on_load_checkpoint(checkpoint)
    version, params = resumed.ring.actor_snapshot()
    assert version == 1 and params["net.1.weight"].unique().item() == 1.0
