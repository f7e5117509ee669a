"""The agentic preset: an open vision-language model (through `transformers`) reads a segment's rendered waveform and
calls tools for R peaks, RR intervals and morphology against the segment's median beat, then labels every beat.

Evidence levels (the paper's selective evidence): `minimal` offers only the R-peak and RR tools and no image;
`rich` adds the morphology tools and the rendered waveform. `confidence` asks with minimal evidence first and
re-asks with rich evidence when the answer's confidence (the mean probability of the generated answer tokens) is
below `threshold`. Zero-shot: no training step here (a policy-gradient loop is the shared LM path's job).
The tools read the same evidence blocks the trained arms read (features.py), so every arm sees the same numbers.
"""

from __future__ import annotations

import json
import re

import numpy as np
import torch
from torch import nn

from experiments.deeparrhythmia.data import batch_dict
from experiments.deeparrhythmia.metrics import beat_scores
from experiments.deeparrhythmia.records import class_names
from reprolab.cli.errors import ConfigError
from reprolab.models.hub import from_hub
from reprolab.tasks.base import Task

EVIDENCE = ("minimal", "rich", "confidence")
TOOLS = {
    "r_peaks": "Times (s) of the annotated R peaks of the segment's beats, relative to the first.",
    "rr_intervals": "Per beat: pre-RR, post-RR and local mean RR (s), and pre/local, post/local.",
    "morphology_features": "Per beat: correlation with the segment's median beat and distance from it (relative).",
    "describe_morphology": "A sentence per beat comparing its shape with the segment's median beat.",
}
MINIMAL_TOOLS = ("r_peaks", "rr_intervals")


def tool_schemas(names) -> list[dict]:
    """JSON-schema function descriptions (the `tools=` argument of a chat template)."""
    return [{"type": "function", "function": {"name": n, "description": TOOLS[n],
                                              "parameters": {"type": "object", "properties": {}, "required": []}}}
            for n in names]


def run_tool(name: str, seg: dict[str, np.ndarray]) -> str:
    """The tool's answer for one segment (numpy views of its evidence blocks), as JSON text."""
    rr, scalars = seg["rr"], seg["context_scalars"]
    if name == "r_peaks":
        times = np.concatenate([[0.0], np.cumsum(rr[1:, 0])])
        return json.dumps([round(float(t), 3) for t in times])
    if name == "rr_intervals":
        return json.dumps([dict(zip(("pre", "post", "local", "pre_ratio", "post_ratio"),
                                    (round(float(v), 3) for v in row), strict=True)) for row in rr])
    if name == "morphology_features":
        return json.dumps([{"corr_with_median": round(float(c), 3), "distance": round(float(d), 3)} for c, d in scalars])
    if name == "describe_morphology":
        return json.dumps([f"beat {i + 1}: " + ("like the median beat" if c > 0.9 and d < 0.3 else
                           "clearly different from the median beat (wide or inverted)" if c < 0.6 else
                           "somewhat different from the median beat") for i, (c, d) in enumerate(scalars)])
    raise ConfigError(f"unknown tool {name!r}; tools: {', '.join(TOOLS)}")


def render_waveform(beats: np.ndarray, height: int = 96, width: int = 448) -> np.ndarray:
    """An RGB image (uint8 [H, W, 3]) of the segment's beats side by side, black trace on white: each column
    covers a run of samples, filled from their minimum to their maximum (a rasterised polyline)."""
    trace = np.concatenate(list(beats))
    lo, hi = float(trace.min()), float(trace.max())
    rows = ((hi - trace) / max(hi - lo, 1e-6) * (height - 1)).astype(int)
    image = np.full((height, width, 3), 255, dtype=np.uint8)
    cols = np.linspace(0, len(trace), width + 1).astype(int)
    for x in range(width):
        part = rows[cols[x]:max(cols[x + 1], cols[x] + 1)]
        image[part.min():part.max() + 1, x] = 0
    return image


def parse_labels(text: str, names: tuple[str, ...], length: int) -> list[int] | None:
    """The last JSON list of `length` class names in `text` (case-insensitive), as class indices; None if none."""
    lookup = {n.lower(): i for i, n in enumerate(names)} | ({"n": 0, "normal": 0, "pvc": 1} if "V" in names else {})
    for candidate in reversed(re.findall(r"\[[^\[\]]*\]", text)):
        try:
            items = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(items, list) and len(items) == length and all(str(x).lower() in lookup for x in items):
            return [lookup[str(x).lower()] for x in items]
    return None


def tool_call(text: str) -> str | None:
    """The name of a tool the reply asks for (`{"name": ...}`, Qwen/Hermes `<tool_call>` style), or None."""
    match = re.search(r'"name"\s*:\s*"(\w+)"', text)
    return match.group(1) if match and match.group(1) in TOOLS else None


class VisionLanguagePolicy(nn.Module):
    """A transformers image-text-to-text model and its processor; `respond` returns (text, confidence)."""

    def __init__(self, name_or_path: str, max_new_tokens: int = 96, dtype: str = "bfloat16",
                 local_files_only: bool = True, model=None, processor=None):
        super().__init__()
        if model is None:
            from transformers import AutoModelForImageTextToText, AutoProcessor

            with from_hub(name_or_path, "model.name_or_path",
                          hint="with network, add model.local_files_only=false (the reproduce target does)"):
                processor = AutoProcessor.from_pretrained(name_or_path, local_files_only=local_files_only)
                model = AutoModelForImageTextToText.from_pretrained(name_or_path, dtype=getattr(torch, dtype),
                                                                    local_files_only=local_files_only)
        self.net, self.processor, self.max_new_tokens = model, processor, max_new_tokens

    @torch.no_grad()
    def respond(self, messages: list[dict], tools: list[dict], image: np.ndarray | None) -> tuple[str, float]:
        inputs = self.processor.apply_chat_template(messages, tools=tools or None, add_generation_prompt=True,
                                                    tokenize=True, return_dict=True, return_tensors="pt")
        inputs = {k: v.to(self.net.device) if torch.is_tensor(v) else v for k, v in inputs.items()}
        out = self.net.generate(**inputs, max_new_tokens=self.max_new_tokens, do_sample=False,
                                output_scores=True, return_dict_in_generate=True)
        new = out.sequences[0, inputs["input_ids"].shape[1]:]
        probs = [s[0].float().softmax(-1)[t].item() for s, t in zip(out.scores, new, strict=False)]
        text = self.processor.decode(new, skip_special_tokens=True)
        return text, float(np.mean(probs)) if probs else 0.0


class AgentTask(Task):
    """Zero-shot evaluation of the policy on the test segments (trainer.max_epochs: 0): each segment is asked once
    per evidence level (up to `max_tool_rounds` tool calls), unparseable answers count as the first class."""

    def __init__(self, model, optimizer, scheduler=None, classes: str = "pvc", evidence: str = "confidence",
                 threshold: float = 0.8, max_tool_rounds: int = 4, max_segments: int | None = None,
                 macro_classes: list | None = None):
        super().__init__(model, optimizer, scheduler)
        if evidence not in EVIDENCE:
            raise ConfigError(f"task.evidence must be one of {', '.join(EVIDENCE)}; got {evidence!r}")
        self.names = class_names(classes)
        self.evidence, self.threshold, self.max_tool_rounds = evidence, threshold, max_tool_rounds
        self.max_segments, self.v_class = max_segments, self.names.index("V")
        self.macro_classes = None if not macro_classes else [self.names.index(c) for c in macro_classes]
        self.outputs: list[dict] = []
        self.asked = self.unparsed = 0

    def training_step(self, batch, batch_idx):  # zero-shot: never called with max_epochs 0
        raise ConfigError("the agent preset does not train; keep trainer.max_epochs: 0")

    def ask(self, seg: dict[str, np.ndarray], level: str) -> tuple[list[int], float]:
        length = len(seg["rr"])
        names = MINIMAL_TOOLS if level == "minimal" else tuple(TOOLS)
        image = None if level == "minimal" else render_waveform(seg["beats"])
        content = ([{"type": "image", "image": image}] if image is not None else []) + [{"type": "text", "text": (
            f"This ECG segment has {length} beats" + (" (image: the beats side by side)" if image is not None else "")
            + f". Call tools if useful, then answer with a JSON list of {length} labels from "
            + json.dumps(list(self.names)) + ".")}]
        messages = [{"role": "user", "content": content}]
        text, confidence = "", 0.0
        for _ in range(self.max_tool_rounds + 1):
            text, confidence = self.model.respond(messages, tool_schemas(names), image)
            name = tool_call(text)
            if name is None or name not in names:
                break
            messages += [{"role": "assistant", "content": [{"type": "text", "text": text}]},
                         {"role": "tool", "name": name, "content": [{"type": "text", "text": run_tool(name, seg)}]}]
        self.asked += 1
        labels = parse_labels(text, self.names, length)
        if labels is None:
            self.unparsed += 1
            return [0] * length, 0.0
        return labels, confidence

    def test_step(self, batch, batch_idx):
        batch = batch_dict(batch)
        for s in range(len(batch["labels"])):
            if self.max_segments is not None and len(self.outputs) >= self.max_segments:
                return
            seg = {k: batch[k][s].float().cpu().numpy() for k in ("beats", "rr", "context_scalars")}
            level = "minimal" if self.evidence == "confidence" else self.evidence
            pred, confidence = self.ask(seg, level)
            if self.evidence == "confidence" and confidence < self.threshold:
                pred, _ = self.ask(seg, "rich")
            self.outputs.append({"pred": np.array(pred), **{k: batch[k][s].cpu().numpy()
                                                            for k in ("labels", "group", "atrial")}})

    def on_test_epoch_end(self) -> None:
        cat = lambda k: np.concatenate([o[k].reshape(-1) for o in self.outputs])  # noqa: E731
        scores = beat_scores(cat("pred"), cat("labels"), cat("group"), cat("atrial").astype(bool), self.v_class,
                             self.macro_classes)
        scores["unparsed_fraction"] = self.unparsed / max(self.asked, 1)
        for key, value in scores.items():
            if np.isfinite(value):
                self.log(f"test/{key}", value)
        self.outputs = []
