"""Claim check on the forgery zoo: binary detection saturates, attribution / open-set / retrieval do not.

Plain PyTorch loops (one thread; the same DeepfakeDataModule, DeepfakeNet and protocol functions the
Lightning presets use, without the trainer's per-step overhead). Per seed and backbone (the small CNN and
the FFT-spectrum classifier) it trains
  * a binary detector on reals + the 26 seen algorithms, scored on seen and on unseen algorithms;
  * an ArcFace attributor on the 26 seen algorithms, scored by closed-set attribution, open-set attribution
    (10 unseen algorithms) and retrieval with K registered samples per algorithm (K = 1, 2, 5, 10, 20;
    the 5 distractor algorithms are never registered).
Writes ``results/claim.json`` and ``figures/retrieval_vs_k.png``; prints the tables of RESULTS.md.

    python -m experiments.deepfakegenome.claim --seeds 0 1 2
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from experiments.deepfakegenome.data import DeepfakeDataModule
from experiments.deepfakegenome.models import DeepfakeNet, SmallCNN, SpectrumBackbone
from experiments.deepfakegenome.protocols import binary_detection, detection_by_family
from experiments.deepfakegenome.task import score_attribution

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SHARED_PHOTOS = Path(os.environ.get("REPROLAB_SHARED_DATA", REPO.parent / "shared" / "data")) / "cifar10-jpeg-subset"
UNSEEN = ["fsw06", "fsw07", "fre05", "fre06", "fed05", "fed06", "efs05", "efs06", "t2i05", "t2i06"]
DISTRACTORS = ["fsw07", "fre06", "fed06", "efs06", "t2i06"]
KS = (1, 2, 5, 10, 20)
SATURATED, NOT_SATURATED = 0.98, 0.95  # declared before any run: "saturates" = mean >= 0.98; "does not" = < 0.95


def datamodules(data_dir: Path, photos: Path | None, seed: int) -> tuple[DeepfakeDataModule, DeepfakeDataModule]:
    common = dict(data_dir=str(data_dir), layout="zoo", root="forgery_zoo_claim", unseen=UNSEEN, distractors=DISTRACTORS,
                  num_seen_algorithms=26, in_memory=True, batch_size=64, seed=seed,
                  zoo={"photos_dir": str(photos) if photos else None, "num_algorithms": 36, "seed": 0,
                       "per_algorithm": {"train": 64, "val": 16, "test": 40}})
    binary, attribution = DeepfakeDataModule(train_reals=True, **common), DeepfakeDataModule(train_reals=False,
                                                                                              **common)
    binary.setup()
    attribution.setup()
    return binary, attribution


def make_model(backbone: str, num_classes: int, head: str) -> DeepfakeNet:
    net = SmallCNN(width=32) if backbone == "cnn" else SpectrumBackbone("fft", image_size=32, pool=16, hidden=256)
    return DeepfakeNet(net, num_classes, embed_dim=128, head=head)


def train(model: DeepfakeNet, loader, target_key: str, epochs: int, lr: float) -> None:
    """AdamW + cosine decay over all steps, cross-entropy on ``target_key`` (ArcFace margin if the head has it)."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, epochs * len(loader))
    model.train()
    for _ in range(epochs):
        for batch in loader:
            target = batch[target_key]
            loss = F.cross_entropy(model(batch["image"], target), target)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            schedule.step()


@torch.no_grad()
def gather(model: DeepfakeNet, loader) -> dict[str, torch.Tensor]:
    model.eval()
    parts = []
    for batch in loader:
        feats = model.features(batch["image"])
        parts.append({"logits": model.logits(feats), "embeddings": F.normalize(feats, dim=1),
                      "algorithm": batch["algorithm"], "label": batch["label"]})
    return {k: torch.cat([p[k] for p in parts]) for k in parts[0]}


def run_seed(seed: int, data_dir: Path, photos: Path | None, epochs: dict,
             backbones=("cnn", "spectrum")) -> dict[str, dict[str, float]]:
    torch.manual_seed(seed)
    binary_dm, attribution_dm = datamodules(data_dir, photos, seed)
    split = attribution_dm.split
    out = {}
    for backbone in backbones:
        torch.manual_seed(seed)
        detector = make_model(backbone, 2, "linear")
        train(detector, binary_dm.train_dataloader(), "fake", epochs[backbone], lr=2e-3)
        outputs = gather(detector, binary_dm.test_dataloader())
        fake_score = outputs["logits"].softmax(1)[:, 1]
        detection = binary_detection(fake_score, outputs["algorithm"], split.seen, split.unseen)
        detection.update({f"family/{k}": v for k, v in
                          detection_by_family(fake_score, outputs["algorithm"], split.families).items()})
        torch.manual_seed(seed)
        attributor = make_model(backbone, len(split.seen), "arcface")
        train(attributor, attribution_dm.train_dataloader(), "label", epochs[backbone], lr=2e-3)
        outputs = gather(attributor, attribution_dm.test_dataloader())
        attribution = score_attribution(outputs, split, registry_k=KS, registry_pool=max(KS), seed=seed)
        out[backbone] = {**{f"binary/{k}": v for k, v in detection.items()}, **attribution}
    return out


def summarise(runs: list[dict]) -> dict[str, dict[str, tuple[float, float]]]:
    summary = {}
    for backbone in runs[0]:
        keys = runs[0][backbone]
        summary[backbone] = {k: (float(np.mean([r[backbone][k] for r in runs])),
                                 float(np.std([r[backbone][k] for r in runs]))) for k in keys}
    return summary


HEADLINE = [("binary detection", "AUC, seen algorithms", "binary/seen/auc"),
            ("binary detection", "AUC, unseen algorithms", "binary/unseen/auc"),
            ("binary detection", "EER, seen algorithms (lower is better)", "binary/seen/eer"),
            ("binary detection", "accuracy, seen algorithms", "binary/seen/acc"),
            ("closed-set attribution", "accuracy (26 seen)", "closed/acc"),
            ("closed-set attribution", "macro-F1", "closed/macro_f1"),
            ("closed-set attribution", "family of the predicted algorithm right", "closed/family_acc"),
            ("open-set attribution", "AUROC known vs unknown", "open/auroc"),
            ("open-set attribution", "OSCR", "open/oscr"),
            ("open-set attribution", "clustering acc (10 unseen)", "open/cluster_acc"),
            ("open-set attribution", "clustering NMI", "open/cluster_nmi"),
            ("open-set attribution", "clustering ARI", "open/cluster_ari"),
            ("retrieval, K=5", "Rank-1 (all registered)", "retrieval_k5/rank1"),
            ("retrieval, K=5", "Rank-1 (unseen, registered only)", "retrieval_k5/unseen_rank1"),
            ("retrieval, K=5", "Rank-5", "retrieval_k5/rank5"),
            ("retrieval, K=5", "mAP", "retrieval_k5/map"),
            ("retrieval, K=5", "TPIR@FPIR=0.1", "retrieval_k5/tpir@fpir0.1"),
            ("retrieval, K=5", "TPIR@FPIR=0.01", "retrieval_k5/tpir@fpir0.01")]


NAMES = {"cnn": "small CNN", "spectrum": "FFT spectrum"}


def table(summary) -> str:
    fmt = lambda m, s: f"{m:.3f} ± {s:.3f}"
    lines = ["| protocol | metric | " + " | ".join(NAMES[b] for b in summary) + " |",
             "|---|---|" + "---|" * len(summary)]
    for protocol, metric, key in HEADLINE:
        lines.append(f"| {protocol} | {metric} | " + " | ".join(fmt(*s[key]) for s in summary.values()) + " |")
    return "\n".join(lines)


def verdict(summary) -> list[str]:
    out = []
    for backbone, s in summary.items():
        auc = s["binary/seen/auc"][0]
        others = {k: s[k][0] for k in ("closed/acc", "open/auroc", "open/oscr", "retrieval_k5/rank1")}
        saturates = auc >= SATURATED
        not_saturated = [k for k, v in others.items() if v < NOT_SATURATED]
        out.append(f"{backbone}: binary AUC (seen) {auc:.3f} -> {'saturates' if saturates else 'does NOT saturate'}"
                   f" (>= {SATURATED}); below {NOT_SATURATED}: {', '.join(not_saturated) or 'none'}; "
                   f"claim {'holds' if saturates and len(not_saturated) == len(others) else 'does NOT fully hold'}")
    return out


def figure(summary, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 3.8))
    for backbone, style in (("cnn", "-"), ("spectrum", "--")):
        if backbone not in summary:
            continue
        for subset, colour in (("seen_", "tab:blue"), ("unseen_", "tab:orange")):
            mean = np.array([summary[backbone][f"retrieval_k{k}/{subset}rank1"][0] for k in KS])
            std = np.array([summary[backbone][f"retrieval_k{k}/{subset}rank1"][1] for k in KS])
            label = f"{NAMES[backbone]}, {subset[:-1]} algorithms"
            ax.errorbar(KS, mean, yerr=std, fmt=style + "o", color=colour, capsize=3, label=label,
                        alpha=1.0 if backbone == "cnn" else 0.6)
    registered = len(UNSEEN) - len(DISTRACTORS) + 26
    ax.axhline(1 / registered, color="grey", linestyle=":", label=f"chance (1/{registered})")
    ax.set_xscale("log")
    ax.set_xticks(KS, [str(k) for k in KS])
    ax.set_xlabel("registered samples per algorithm (K)")
    ax.set_ylabel("retrieval Rank-1")
    ax.set_ylim(0, 1)
    ax.set_title("Forgery zoo (synthetic), 31 registered + 5 distractor algorithms", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=130)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--data-dir", type=Path, default=REPO / "data", help="the zoo is cached in <data-dir>/forgery_zoo_claim")
    parser.add_argument("--photos", type=Path, default=SHARED_PHOTOS if SHARED_PHOTOS.is_dir() else None,
                        help="real photos (default: the shared CIFAR-10 JPEG subset; absent: scikit-learn's samples)")
    parser.add_argument("--cnn-epochs", type=int, default=8)
    parser.add_argument("--spectrum-epochs", type=int, default=15)
    parser.add_argument("--backbones", nargs="+", default=["cnn", "spectrum"], choices=["cnn", "spectrum"])
    parser.add_argument("--name", default="claim", help="results/<name>.json, figures/retrieval_vs_k_<name>.png")
    parser.add_argument("--out", type=Path, default=HERE)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    start = time.time()
    runs = []
    for seed in args.seeds:
        runs.append(run_seed(seed, args.data_dir, args.photos, {"cnn": args.cnn_epochs, "spectrum": args.spectrum_epochs},
                             args.backbones))
        print(f"seed {seed} done at {time.time() - start:.0f}s", flush=True)
    summary = summarise(runs)
    (args.out / "results").mkdir(parents=True, exist_ok=True)
    settings = {"seeds": args.seeds, "cnn_epochs": args.cnn_epochs, "spectrum_epochs": args.spectrum_epochs}
    (args.out / "results" / f"{args.name}.json").write_text(json.dumps({**settings, "runs": runs,
                                                                        "summary": summary}, indent=1))
    figure(summary, args.out / "figures" / ("retrieval_vs_k.png" if args.name == "claim"
                                            else f"retrieval_vs_k_{args.name}.png"))
    print(table(summary))
    print("\nretrieval Rank-1 vs K (seen / unseen):")
    for k in KS:
        s = summary[args.backbones[0]]
        print(f"  K={k:2d}: {s[f'retrieval_k{k}/seen_rank1'][0]:.3f} / {s[f'retrieval_k{k}/unseen_rank1'][0]:.3f}")
    print("\nbinary detection AUC by family (seen + unseen algorithms):")
    for key in sorted(k for k in summary[args.backbones[0]] if k.startswith("binary/family/")):
        print(f"  {key.split('/')[2]:22s} " + "  ".join(f"{b}: {s[key][0]:.3f} ± {s[key][1]:.3f}"
                                                     for b, s in summary.items()))
    print("\n" + "\n".join(verdict(summary)))
    print(f"total {time.time() - start:.0f}s on {torch.get_num_threads()} thread(s)")
    return summary


if __name__ == "__main__":
    main()
