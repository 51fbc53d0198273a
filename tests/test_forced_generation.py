"""Forced drafts through transformers' assisted decoding (issue 37, point 2): the tokens the grammar
decides are drafted and verified by one forward pass. Greedy output is plain greedy output, token
for token, for a format of each layout with its test tokenizer, thinking on and off, every
tool_choice (required, auto, none, named), alone and beside prompt lookup or an assistant model;
it takes fewer forward passes than tokens; sampled output holds to the grammar; generate_chat
drafts and counts the predictions, and not with forced_drafts=False."""

from __future__ import annotations

import json

import jsonschema
import pytest
import torch
from test_assisted import LAYOUTS, MAX_NEW, SCHEMAS, TOOLS, _said, tiny_model
from test_assisted import generate as assisted_generate
from thinkgate.formats import get_format
from thinkgate.integrations.forced_drafting import forced_decoding
from thinkgate.integrations.transformers import RowSpec, generate_chat
from thinkgate.requests import ChatRequest

CHOICES = ["required", "auto", "none", {"type": "function", "function": {"name": "wake_at"}}]


def generate(model, tok, fmt, prompt, choice="required", thinking=False, forced=False, **options):
    """``(output ids, message, processor, forward passes)``."""
    row = RowSpec(fmt, TOOLS, choice, False, thinking=thinking if fmt.reasoning.present else False, thinking_budget=12 if thinking else None, max_new_tokens=MAX_NEW)
    passes = [0]
    hook = model.register_forward_hook(lambda *_: passes.__setitem__(0, passes[0] + 1))
    try:
        ids, message, proc = assisted_generate(model, tok, fmt, prompt, row, forced_decoding if forced else None, **options)
    finally:
        hook.remove()
    return ids, message, proc, passes[0]


# transformers' assisted decoding carries forced drafts beside prompt lookup or an assistant, or
# for a model whose cache thinkgate's own loop does not hold (tests/test_forced_batches.py runs
# every format through that loop): one format of each layout and arguments style here (LAYOUTS).


@pytest.mark.parametrize("name", LAYOUTS)
def test_greedy_output_with_forced_drafts_is_plain_greedy_output(name, tokenizer_for):
    fmt = get_format(name)
    tok = tokenizer_for(name)
    prompt = tok.encode("Wake me at seven on Monday, and set the mode to eco.", add_special_tokens=False)
    model = tiny_model(tok, 0)
    for choice in CHOICES:
        for thinking in (False, True) if fmt.reasoning.present else (False,):
            plain, message, _, plain_passes = generate(model, tok, fmt, prompt, choice, thinking)
            ids, drafted, proc, passes = generate(model, tok, fmt, prompt, choice, thinking, forced=True)
            where = f"{name} {choice} thinking={thinking}"
            assert ids == plain, f"{where}: left plain greedy's output at token {next(k for k, (a, b) in enumerate(zip(ids + [None], plain)) if a != b)}"
            assert _said(drafted) == _said(message), where
            assert passes <= plain_passes, where
            if message.tool_calls:  # a call: its markers and keys were drafted and taken
                assert proc.accepted_prediction_tokens > 0 and passes < plain_passes, where
            for call in message.tool_calls:
                jsonschema.validate(json.loads(call.arguments), SCHEMAS[call.name])


@pytest.mark.parametrize("name", ["deepseek_v3_1", "qwen3_coder", "gpt_oss"])
def test_sampled_output_with_forced_drafts_holds_to_the_grammar(name, tokenizer_for):
    fmt = get_format(name)
    tok = tokenizer_for(name)
    prompt = tok.encode("Wake me at seven, and set the mode.", add_special_tokens=False)
    model = tiny_model(tok, 0)
    accepted = 0
    for seed in range(3):
        torch.manual_seed(seed)
        ids, message, proc, _ = generate(model, tok, fmt, prompt, "required", forced=True, temperature=1.5, do_sample=True)
        assert not message.error and message.finish_reason in ("tool_calls", "length"), message.error
        accepted += proc.accepted_prediction_tokens
        for call in message.tool_calls:
            jsonschema.validate(json.loads(call.arguments), SCHEMAS[call.name])
    assert accepted > 0


def test_generate_chat_drafts_one_request_and_counts_its_predictions(tokenizer):
    model = tiny_model(tokenizer, 0)
    request = ChatRequest(messages=[{"role": "user", "content": "Wake me at seven."}], tools=TOOLS, tool_choice="required", max_tokens=64, temperature=0)
    [on] = generate_chat(model, tokenizer, [request], format="deepseek_v3_1")
    [off] = generate_chat(model, tokenizer, [request], format="deepseek_v3_1", forced_drafts=False)
    details = on["usage"]["completion_tokens_details"]
    assert details["accepted_prediction_tokens"] > 0 and "accepted_prediction_tokens" not in off["usage"]["completion_tokens_details"]
    strip = lambda c: [(t["function"]["name"], t["function"]["arguments"]) for t in c["choices"][0]["message"].get("tool_calls") or []]  # noqa: E731
    assert strip(on) == strip(off) and on["usage"]["completion_tokens"] == off["usage"]["completion_tokens"]


@pytest.mark.parametrize("drafting", ["prompt_lookup", "assistant"])
@pytest.mark.parametrize("name", ["deepseek_v3_1", "gpt_oss"])
def test_forced_drafts_beside_prompt_lookup_or_an_assistant_are_plain_greedy_output(name, drafting, tokenizer_for):
    """Both asked for: the grammar's drafts where it decides, the others' elsewhere; greedy output
    stays plain greedy output. Beside prompt lookup, in fewer passes than its drafts alone take;
    beside an assistant (whose drafts thinkgate's processor masks too, so that it proposes what
    the grammar forces already) in no more passes of the model, and fewer of the assistant's."""
    fmt = get_format(name)
    tok = tokenizer_for(name)
    prompt = tok.encode("Wake me at seven on Monday, and set the mode to eco. Wake me at seven.", add_special_tokens=False)
    model = tiny_model(tok, 0)
    options = {"prompt_lookup_num_tokens": 4} if drafting == "prompt_lookup" else {"assistant_model": tiny_model(tok, 1)}
    for thinking in (False, True) if fmt.reasoning.present else (False,):
        plain, message, _, _ = generate(model, tok, fmt, prompt, "required", thinking)
        assistant = options.get("assistant_model")
        loop = (lambda proc, t: forced_decoding(proc, t, assistant_model=assistant)) if assistant is not None else forced_decoding
        row = RowSpec(fmt, TOOLS, "required", False, thinking=thinking if fmt.reasoning.present else False, thinking_budget=12 if thinking else None, max_new_tokens=MAX_NEW)
        passes = [0, 0]
        hooks = [m.register_forward_hook(lambda *_, k=k: passes.__setitem__(k, passes[k] + 1)) for k, m in enumerate([model, assistant]) if m is not None]
        try:
            alone, _, _, alone_passes = generate(model, tok, fmt, prompt, "required", thinking, **options)
            alone_assistant = passes[1]
            passes[:] = [0, 0]
            both, drafted, proc = assisted_generate(model, tok, fmt, prompt, row, loop, **({"prompt_lookup_num_tokens": 4} if assistant is None else {}))
        finally:
            for hook in hooks:
                hook.remove()
        where = f"{name} {drafting} thinking={thinking}"
        assert both == plain == alone, where
        assert _said(drafted) == _said(message), where
        assert proc.accepted_prediction_tokens > 0, where
        if assistant is None:
            assert passes[0] < alone_passes, (where, passes[0], alone_passes)
        else:
            assert passes[0] <= alone_passes and passes[1] < alone_assistant, (where, passes, alone_passes, alone_assistant)


def test_generate_chat_drafts_beside_prompt_lookup(tokenizer):
    model = tiny_model(tokenizer, 0)
    request = ChatRequest(messages=[{"role": "user", "content": "Wake me at seven."}], tools=TOOLS, tool_choice="required", max_tokens=64, temperature=0)
    [both] = generate_chat(model, tokenizer, [request], format="deepseek_v3_1", prompt_lookup=3)
    [lookup] = generate_chat(model, tokenizer, [request], format="deepseek_v3_1", prompt_lookup=3, forced_drafts=False)
    [plain] = generate_chat(model, tokenizer, [request], format="deepseek_v3_1", forced_drafts=False)
    strip = lambda c: ([(t["function"]["name"], t["function"]["arguments"]) for t in c["choices"][0]["message"].get("tool_calls") or []], c["usage"]["completion_tokens"])  # noqa: E731
    assert strip(both) == strip(lookup) == strip(plain)
    assert both["usage"]["completion_tokens_details"]["accepted_prediction_tokens"] > lookup["usage"]["completion_tokens_details"]["accepted_prediction_tokens"]


def test_a_transformers_without_callable_decoding_loops_generates_without_forced_drafts(tokenizer, monkeypatch, caplog):
    """transformers before 5 takes no callable custom_generate (its parameter, where it has one,
    is a Hub repository's name): forced drafts are off there, said in the log, and the answer is
    the same."""
    from transformers.generation.utils import GenerationMixin

    from thinkgate.integrations import forced_drafting, transformers as integration

    class Older:
        def generate(self, inputs=None, custom_generate: "str | None" = None, **kwargs):  # noqa: ANN001
            return None

    with caplog.at_level("WARNING", logger="thinkgate.integrations"):
        assert not forced_drafting.runs_decoding_loops(Older)
    assert "forced drafts are off" in caplog.text
    assert forced_drafting.runs_decoding_loops(GenerationMixin)
    model = tiny_model(tokenizer, 0)
    request = ChatRequest(messages=[{"role": "user", "content": "Wake me at seven."}], tools=TOOLS, tool_choice="required", max_tokens=32, temperature=0)
    [on] = generate_chat(model, tokenizer, [request], format="deepseek_v3_1")
    monkeypatch.setattr(integration, "forced_supported", lambda: False)
    [off] = generate_chat(model, tokenizer, [request], format="deepseek_v3_1")
    assert "accepted_prediction_tokens" in on["usage"]["completion_tokens_details"]
    assert "accepted_prediction_tokens" not in off["usage"]["completion_tokens_details"]
    assert on["choices"][0]["message"]["tool_calls"][0]["function"] == off["choices"][0]["message"]["tool_calls"][0]["function"]
