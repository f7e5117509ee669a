"""The agent's tools, renderer and answer parsing by hand; a tiny random LLaVA-style VLM built offline answers
through the same `VisionLanguagePolicy.respond` and `AgentTask.ask` the paper preset uses."""

import json

import numpy as np
import pytest

from experiments.deeparrhythmia.agent import (
    AgentTask,
    VisionLanguagePolicy,
    parse_labels,
    render_waveform,
    run_tool,
    tool_call,
    tool_schemas,
)
from reprolab.cli.errors import DatasetNotFoundError

SEG = {"beats": np.sin(np.linspace(0, 20, 30)).reshape(3, 10).astype(np.float32),
       "rr": np.array([[0.8, 0.8, 0.8, 1, 1], [0.8, 0.5, 0.7, 1.1, 0.7], [0.5, 1.1, 0.8, 0.6, 1.4]], np.float32),
       "context_scalars": np.array([[0.99, 0.1], [0.98, 0.2], [0.3, 1.5]], np.float32)}


def test_tools_read_the_segment_evidence():
    assert json.loads(run_tool("r_peaks", SEG)) == [0.0, 0.8, 1.3]
    assert json.loads(run_tool("rr_intervals", SEG))[2]["pre_ratio"] == 0.6
    assert "clearly different" in json.loads(run_tool("describe_morphology", SEG))[2]
    assert [t["function"]["name"] for t in tool_schemas(["r_peaks"])] == ["r_peaks"]
    assert tool_call('<tool_call>{"name": "rr_intervals", "arguments": {}}</tool_call>') == "rr_intervals"
    assert tool_call('{"name": "nope"}') is None


def test_parse_labels_and_render():
    names = ("non-V", "V")
    assert parse_labels('first [1] then ["N", "V", "n"]', names, 3) == [0, 1, 0]
    assert parse_labels('["N", "V"]', names, 3) is None
    image = render_waveform(SEG["beats"], height=20, width=40)
    assert image.shape == (20, 40, 3) and image.dtype == np.uint8 and (image == 0).any() and (image == 255).any()


def tiny_vlm():
    """A random LLaVA (1-layer CLIP tower + 1-layer Llama, width 16) with a word-level tokenizer: no download."""
    transformers = pytest.importorskip("transformers", reason="transformers is not installed")
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers

    words = ["<unk>", "<s>", "</s>", "<image>", "user", "assistant", "tool", ":", "[", "]", '"N"', '"V"']
    vocab = {w: i for i, w in enumerate(words + [f"w{i}" for i in range(40)])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="<unk>", bos_token="<s>",
                                                     eos_token="</s>", pad_token="<unk>")
    tokenizer.add_special_tokens({"additional_special_tokens": ["<image>"]})
    template = ("{% for m in messages %}{{ m['role'] }} :{% for c in m['content'] %}{% if c['type'] == 'image' %}"
                " <image>{% else %} {{ c['text'] }}{% endif %}{% endfor %}\n{% endfor %}"
                "{% if add_generation_prompt %}assistant :{% endif %}")
    processor = transformers.LlavaProcessor(
        image_processor=transformers.CLIPImageProcessor(size={"shortest_edge": 16}, crop_size={"height": 16, "width": 16}),
        tokenizer=tokenizer, patch_size=8, chat_template=template, vision_feature_select_strategy="default",
        num_additional_image_tokens=1)
    config = transformers.LlavaConfig(
        vision_config=transformers.CLIPVisionConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                                    num_attention_heads=2, image_size=16, patch_size=8),
        text_config=transformers.LlamaConfig(vocab_size=len(vocab), hidden_size=16, intermediate_size=32,
                                             num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=2),
        image_token_index=vocab["<image>"], vision_feature_select_strategy="default")
    torch.manual_seed(0)
    model = transformers.LlavaForConditionalGeneration(config).eval()
    return VisionLanguagePolicy("tiny-random", max_new_tokens=4, model=model, processor=processor)


def test_tiny_random_vlm_answers_through_the_agent():
    policy = tiny_vlm()
    text, confidence = policy.respond([{"role": "user", "content": [{"type": "text", "text": "w1"}]}], [], None)
    assert isinstance(text, str) and 0.0 <= confidence <= 1.0
    task = AgentTask(policy, optimizer=None, classes="pvc", evidence="rich", max_tool_rounds=1)
    labels, confidence = task.ask(SEG, "rich")                  # image + every tool offered
    assert len(labels) == 3 and task.asked == 1
    labels, _ = task.ask(SEG, "minimal")
    assert len(labels) == 3 and task.unparsed <= task.asked == 2  # a random model's answer falls back, counted


def test_an_uncached_model_is_one_line_naming_the_switch():
    pytest.importorskip("transformers")
    with pytest.raises(DatasetNotFoundError) as err:
        VisionLanguagePolicy("reprolab-test/not-a-cached-model")
    message = str(err.value)
    assert "\n" not in message and "model.local_files_only=false" in message
    assert "model.name_or_path to a local folder" in message and "hf download" not in message
