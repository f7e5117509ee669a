"""Paper scale: the FLUX.1-Kontext / SigLIP preset asks for a GPU and W&B, and its classes (diffusers'
FluxTransformer2DModel with IP-Adapter processors, transformers' SiglipVisionModel) train two steps on
generated data with tiny random configs; only the adapter and the editor's IP projections train."""

import pytest
import torch

from reprolab.cli.train import run
from reprolab.config.compose import compose
from reprolab.data.fake import fake_config

pytest.importorskip("diffusers", reason="diffusers is in the delta_adapter extra")
pytest.importorskip("transformers", reason="transformers is in the delta_adapter extra")

TINY = ["task.encoder.pretrained=null", "task.editor.pretrained=null", "model.encoder_width=32", "model.width=32",
        "model.heads=2", "model.depth=1", "model.num_tokens=4", "data.image_size=16", "task.sample_steps=2",
        "task.ssim_kernel=7"]


def test_the_paper_preset_asks_for_a_gpu_wandb_and_the_hub_models():
    cfg = compose(["experiment=delta_adapter/flux_kontext_cifar10"])
    assert cfg.device.accelerator == "gpu" and "wandb" in cfg.logger
    assert cfg.task.editor.pretrained == "black-forest-labs/FLUX.1-Kontext-dev"
    assert cfg.task.encoder.pretrained == "google/siglip-so400m-patch14-384"
    assert cfg.data.source._target_.endswith("CIFAR10DataModule") and cfg.data.n_train_images == 50000


def test_the_paper_classes_train_two_steps_on_fake_data(tmp_path):
    cfg = compose(["experiment=delta_adapter/flux_kontext_cifar10", "device=cpu", "logger=none", "print_config=false",
                   "trainer.max_steps=2", "+trainer.limit_test_batches=1", "data.batch_size=2", "data.eval_batch_size=2",
                   "data.n_test=2", "data.n_train_images=8", "data.num_workers=0", "scheduler.warmup_steps=1", *TINY],
                  output_dir=tmp_path)
    metrics = run(fake_config(cfg))   # what +data/fake=on does on the command line
    assert torch.isfinite(torch.tensor(metrics["test/unseen/psnr"]))


def test_only_the_adapter_and_the_ip_projections_train():
    from experiments.delta_adapter.flux_editor import FluxKontextEditor

    editor = FluxKontextEditor(token_dim=8, num_tokens=2, pretrained=None)
    trainable = {id(p) for p in editor.parameters() if p.requires_grad}   # the IP processors sit inside the transformer too
    assert trainable and trainable == {id(p) for p in editor.injection.parameters()}
    x, ctx = torch.randn(1, 3, 8, 8), torch.randn(1, 3, 8, 8)
    t = torch.full((1,), 0.5)
    with torch.no_grad():
        plain, steered = editor(x, t, ctx), editor(x, t, ctx, torch.randn(1, 2, 8))
    assert plain.shape == (1, 3, 8, 8) and torch.allclose(plain, steered, atol=1e-5)   # zero-initialised values
