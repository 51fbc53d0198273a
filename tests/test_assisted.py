"""Assisted generation in transformers (speculative decoding: drafts verified several at a time)
under the grammar. Greedy assisted output is plain greedy output, token for token, for a format
of each layout with its test tokenizer: the processor follows the tokens each call shows it,
rolling back the drafts a round rejects (issue 33). Drafts come from prompt lookup (n-grams of
the sequence so far) and from an assistant model of other random weights, whose drafts are
mostly rejected, at random places: inside thinking, across ``</think>``, inside a call."""

from __future__ import annotations

import json

import jsonschema
import numpy as np
import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM, LogitsProcessorList, StoppingCriteriaList

from thinkgate.formats import get_format
from thinkgate.integrations.transformers import RowSpec, ToolCallLogitsProcessor

# Values a random model finishes soon (enums, integers, a boolean, a time), and no string length:
# a parameter format's bounded string costs xgrammar tens of ms a step, and 22 formats run here.
SET_MODE = {"type": "function", "function": {"name": "set_mode", "parameters": {"type": "object", "properties": {
    "mode": {"enum": ["eco", "normal", "boost"]}, "level": {"type": "integer", "minimum": 0, "maximum": 9}, "repeat": {"type": "boolean"}},
    "required": ["mode", "level"], "additionalProperties": False}}}
WAKE = {"type": "function", "function": {"name": "wake_at", "parameters": {"type": "object", "properties": {
    "time": {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$"}, "days": {"type": "array", "items": {"enum": ["mon", "tue", "wed"]}, "maxItems": 3}},
    "required": ["time"], "additionalProperties": False}}}
TOOLS = [SET_MODE, WAKE]
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}
MAX_NEW = 96
_MODELS: dict[int, LlamaForCausalLM] = {}


def tiny_model(tokenizer, seed: int) -> LlamaForCausalLM:
    """A one-layer random Llama over the tokenizer's vocabulary (kept per tokenizer and seed)."""
    key = (id(tokenizer), seed)
    if key not in _MODELS:
        torch.manual_seed(seed)
        config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=64, intermediate_size=128, num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1, head_dim=32)
        _MODELS[key] = LlamaForCausalLM(config).eval()
    return _MODELS[key]


def generate(model, tok, fmt, prompt, row=None, loop=None, **options):
    """``(output ids, message, processor)`` of one greedy row (``row``: required, thinking where
    the format thinks); ``loop(processor, tok)``: a decoding loop for ``custom_generate``."""
    if row is None:
        thinks = fmt.reasoning.present
        row = RowSpec(fmt, TOOLS, "required", False, thinking=thinks, thinking_budget=12 if thinks else None, max_new_tokens=MAX_NEW)
    proc = ToolCallLogitsProcessor(tok, [row], [len(prompt)], vocab_size=model.config.vocab_size)
    if loop is not None:
        options["custom_generate"] = loop(proc, tok)
    eos = tok.convert_tokens_to_ids(fmt.eos)
    with torch.no_grad():
        out = model.generate(
            torch.tensor([prompt]),
            attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
            logits_processor=LogitsProcessorList([proc]),
            stopping_criteria=StoppingCriteriaList([proc.draft_counter()]),
            max_new_tokens=MAX_NEW,
            eos_token_id=eos,
            pad_token_id=eos,
            **{"do_sample": False, **options},
        )
    [(message, n)] = proc.results(out)
    return out[0, len(prompt) :].tolist(), message, proc


def _said(message):
    """What a message says, but its calls' random ids."""
    return message.reasoning_content, message.content, [(c.name, c.arguments) for c in message.tool_calls], message.finish_reason, message.error


# One format of each layout and arguments style: the processor's following of draft rounds is
# held for every format by tests/test_draft_rounds.py, and thinkgate's own loop (the default path
# for a request alone) by tests/test_forced_batches.py.
LAYOUTS = ["deepseek_r1", "deepseek_v3_1", "qwen3_coder", "gemma4", "gpt_oss", "llama3_json", "minimax_m2", "lfm2"]


@pytest.mark.parametrize("name", LAYOUTS)
def test_greedy_assisted_output_is_plain_greedy_output(name, tokenizer_for):
    fmt = get_format(name)
    tok = tokenizer_for(name)
    prompt = tok.encode("Book a flight from ZRH to OSL for two, and tell me the weather.", add_special_tokens=False)
    model = tiny_model(tok, 0)
    plain, message, _ = generate(model, tok, fmt, prompt)
    for drafting in ({"prompt_lookup_num_tokens": 3}, {"assistant_model": tiny_model(tok, 1)}):
        ids, assisted, proc = generate(model, tok, fmt, prompt, **drafting)
        assert ids == plain, f"{name} {list(drafting)[0]}: the output left plain greedy's at token {next(k for k, (a, b) in enumerate(zip(ids + [None], plain)) if a != b)}"
        assert _said(assisted) == _said(message)
        if "assistant_model" in drafting:  # other weights: most drafts are rejected, somewhere
            assert proc.rejected_prediction_tokens > 0
    assert message.finish_reason in ("tool_calls", "length") and not message.error
    for call in message.tool_calls:
        jsonschema.validate(json.loads(call.arguments), SCHEMAS[call.name])


@pytest.mark.parametrize("name", ["deepseek_r1", "qwen3", "gpt_oss"])
def test_sampled_assisted_output_holds_to_the_grammar(name, tokenizer_for):
    """Sampling verifies drafts by speculative sampling (an assistant's) or by drawing from the
    masked logits (prompt lookup's): either way every token is one the grammar allowed."""
    fmt = get_format(name)
    tok = tokenizer_for(name)
    prompt = tok.encode("Wake me at seven, and what is the weather in Oslo?", add_special_tokens=False)
    model = tiny_model(tok, 0)
    verified = 0
    for seed, drafting in enumerate(({"prompt_lookup_num_tokens": 4}, {"assistant_model": tiny_model(tok, 1)}, {"assistant_model": model})):
        torch.manual_seed(seed)
        ids, message, proc = generate(model, tok, fmt, prompt, do_sample=True, temperature=1.5, **drafting)
        assert not message.error, message.error
        verified += proc.accepted_prediction_tokens + proc.rejected_prediction_tokens
        for call in message.tool_calls:
            jsonschema.validate(json.loads(call.arguments), SCHEMAS[call.name])
    assert verified > 0


def test_an_assistant_of_another_tokenizer_is_refused_by_name(tokenizer, qwen_tokenizer):
    """Universal assisted decoding shows the processor the assistant's ids, of another
    vocabulary: refused by name, up front in generate_chat and in the processor itself."""
    from thinkgate.integrations.transformers import generate_chat
    from thinkgate.requests import ChatRequest

    fmt = get_format("deepseek_r1")
    model, assistant = tiny_model(tokenizer, 0), tiny_model(qwen_tokenizer, 0)
    request = ChatRequest(messages=[{"role": "user", "content": "hi"}], tools=TOOLS, tool_choice="required", max_tokens=8, temperature=0)
    with pytest.raises(ValueError, match="universal assisted decoding"):
        generate_chat(model, tokenizer, [request], assistant_model=assistant, assistant_tokenizer=qwen_tokenizer, chat_template="{{ 'x' }}")
    with pytest.raises(ValueError, match="not both"):
        generate_chat(model, tokenizer, [request], assistant_model=model, prompt_lookup=3)
    prompt = tokenizer.encode("hi there", add_special_tokens=False)
    with pytest.raises(ValueError, match="universal assisted decoding"):
        generate(model, tokenizer, fmt, prompt, assistant_model=assistant, tokenizer=tokenizer, assistant_tokenizer=qwen_tokenizer)


# (tool_choice, thinking, budget, max_new_tokens, stop) of a row: a token limit, stop strings
PROCESSOR_ROWS = [
    ("required", True, 5, 30, None),
    ("auto", False, None, None, ["\\n\\n", "}"]),
    ("none", True, 3, 12, ["e"]),
]


@pytest.mark.parametrize("spec", PROCESSOR_ROWS, ids=["limit", "stops", "none"])
@pytest.mark.parametrize("seed", [0, 1])
def test_the_processor_follows_random_draft_rounds(tokenizer, spec, seed):
    """The processor called as a verifier calls it (prefixes of committed + drafted tokens,
    rounds that go back) masks every position of the walk as the processor called once a token
    does, drafts of the end, of a stop string and past the token limit included; its results
    are the same message."""
    from helpers import RandomLogits

    choice, thinking, budget, limit, stop = spec
    fmt = get_format("deepseek_r1")
    row = RowSpec(fmt, TOOLS, choice, True, thinking=thinking, thinking_budget=budget, max_new_tokens=limit, stop=stop)
    prompt = tokenizer.encode("Set an alarm, please.", add_special_tokens=False)
    eos = tokenizer.convert_tokens_to_ids(fmt.eos)
    logits = RandomLogits(seed)
    plain = ToolCallLogitsProcessor(tokenizer, [row], [len(prompt)])
    vocab = plain.vocab_size
    ids, masks = list(prompt), []
    for _ in range(limit or 40):
        scores = plain(torch.tensor([ids]), logits(1, vocab))
        masks.append(np.packbits(torch.isfinite(scores[0]).numpy()))
        ids.append(int(scores[0].argmax()))
        if ids[-1] == eos:
            break
    walk = ids[len(prompt) :]
    [(expected, n_expected)] = plain.results(torch.tensor([ids]))

    rng = np.random.default_rng(seed)
    drafted = ToolCallLogitsProcessor(tokenizer, [row], [len(prompt)])
    at = 0
    while at < len(walk):
        k = int(rng.integers(1, 5))
        m = int(rng.integers(0, min(k, len(walk) - at - 1) + 1))
        drafts = walk[at : at + m] + [int(rng.choice([eos, walk[at + m] + 1, int(rng.integers(vocab))])) for _ in range(k - m)]
        for j in range(k + 1):
            scores = drafted(torch.tensor([prompt + walk[:at] + drafts[:j]]), torch.zeros(1, vocab))
            if j <= m:
                assert np.array_equal(np.packbits(torch.isfinite(scores[0]).numpy()), masks[at + j]), f"mask at {at + j}"
        at += m + 1  # the accepted drafts and the model's own token
    [(message, n)] = drafted.results(torch.tensor([ids]))
    assert (_said(message), n) == (_said(expected), n_expected)
