"""An LM asked a question in text (reprolab.lm.prompting): chat prompt, truncation, one completion, mode kept."""

from __future__ import annotations

import torch

from reprolab.lm.prompting import LazyModel, chat_text, generate_text
from reprolab.lm.tokenizer import ByteTokenizer


class Echo(torch.nn.Module):
    """Completes any context with `answer` then EOS, remembering the contexts it was given."""

    def __init__(self, answer: str):
        super().__init__()
        self.answer, self.contexts = answer, []

    def generate_completions(self, contexts, max_new_tokens, temperature, eos_id, pad_id):
        self.contexts.append((contexts[0], self.training, temperature))
        return [ByteTokenizer().encode(self.answer)[:max_new_tokens] + [eos_id]]


def test_generate_text_truncates_the_prompt_from_the_left_and_keeps_the_models_mode():
    tok, model = ByteTokenizer(), Echo("yes, done")
    assert generate_text(model, tok, "abcdef", max_new_tokens=3) == "yes"
    assert model.contexts[-1] == ([tok.bos_id, *b"abcdef"], False, 0.0) and model.training
    assert generate_text(model, tok, "abcdef", 20, temperature=0.7, max_prompt_tokens=2) == "yes, done"
    assert model.contexts[-1] == (list(b"ef"), False, 0.7)


def test_chat_text_uses_the_tokenizers_template_when_it_has_one():
    assert chat_text(ByteTokenizer(), "Is it ok?") == "Is it ok?\nAnswer:"

    class Template:
        chat_template = "{{ messages }}"

        def apply_chat_template(self, messages, tokenize, add_generation_prompt, enable_thinking):
            return f"<user>{messages[0]['content']}</user><assistant thinking={enable_thinking}>"

    class WithTemplate(ByteTokenizer):
        tokenizer = Template()

    assert chat_text(WithTemplate(), "Is it ok?") == "<user>Is it ok?</user><assistant thinking=False>"


def test_lazy_model_is_built_once_frozen_in_eval_mode():
    built = []
    lazy = LazyModel(lambda: built.append(1) or torch.nn.Linear(2, 2))
    assert not built
    model = lazy.get()
    assert lazy.get() is model and built == [1] and not model.training
    assert not any(p.requires_grad for p in model.parameters())
