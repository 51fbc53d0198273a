"""Offline vLLM: OpenAI-shape requests through ``LLM.generate`` with thinkgate's processor.

vLLM's own ``LLM.chat(messages, tools=...)`` renders the tools into the prompt and stops there:
no tool_choice, no parsing. ``generate_chat`` renders each request with the chat template,
constrains it with :class:`~thinkgate.integrations.vllm.ThinkgateLogitsProcessor`, and parses
the output into an OpenAI ``chat.completion``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

from ..formats import ChatFormat, get_format
from ..formats.templates import apply_chat_template
from ..parsing import StreamParser
from ..requests import ChatRequest, answer_reading, calls_may_come, chat_completion
from ..requests import OPTION_KEY, RequestOptions
from .common import enforced_schemas
from .stops import output_text
from .vllm import ThinkgateLogitsProcessor, check_options


def make_llm(model: str, **kwargs: Any) -> Any:
    """An ``LLM`` with thinkgate's logits processor registered (CPU-friendly defaults)."""
    from vllm import LLM

    kwargs.setdefault("logits_processors", [ThinkgateLogitsProcessor])
    return LLM(model=model, **kwargs)


def request_options(request: ChatRequest, format: str | ChatFormat, strict: Optional[int] = None, unsupported: str = "error") -> RequestOptions:
    """The thinkgate options of one request (``strict``: the level of a request that sets none;
    ``unsupported``: refuse, or drop with a warning, a schema keyword thinkgate cannot enforce)."""
    return RequestOptions(
        format=get_format(format).name,
        tools=request.tools,
        tool_choice=request.effective_tool_choice,
        parallel_tool_calls=request.parallel_tool_calls,
        thinking=None,  # read from the prompt, which the template ended by request.thinking
        thinking_budget=request.thinking_budget,
        response_format=request.response_format,
        strict=request.strict_level(strict),
        unsupported=unsupported,
    )


def sampling_params(request: ChatRequest, format: str | ChatFormat, tokenizer: Any = None, strict: Optional[int] = None, unsupported: str = "error") -> Any:
    """vLLM ``SamplingParams`` for one request, with its thinkgate options, checked (and with
    ``tokenizer``, its grammar compiled) before anything is generated."""
    from vllm import SamplingParams

    opts = request_options(request, format, strict, unsupported)
    check_options(opts, tokenizer)
    return SamplingParams(
        max_tokens=request.max_tokens,
        temperature=request.temperature,
        top_p=request.top_p,
        top_k=request.top_k or 0,
        seed=request.seed,
        stop=request.stop,
        skip_special_tokens=False,
        extra_args={OPTION_KEY: opts.to_json()},
    )


def generate_chat(
    llm: Any,
    requests: Sequence[ChatRequest],
    *,
    format: str | ChatFormat = "deepseek_r1",
    chat_template: Optional[str] = None,
    model_name: Optional[str] = None,
    strict: Optional[int] = None,
    unsupported: str = "error",
) -> list[dict]:
    """One OpenAI ``chat.completion`` per request. ``llm`` is an ``LLM`` built with
    :func:`make_llm` (or a model path, for which one is built). ``strict``: the strict level of
    the requests that set none (default 2); ``unsupported="relax"`` drops the schema keywords
    thinkgate cannot enforce (with a warning) instead of refusing them."""
    if isinstance(llm, str):
        llm = make_llm(llm)
    fmt = get_format(format)
    tokenizer = llm.get_tokenizer()
    prompts = [apply_chat_template(tokenizer, r.messages, fmt, r.tools, r.thinking, chat_template) for r in requests]
    params = [sampling_params(r, fmt, tokenizer, strict, unsupported) for r in requests]
    outputs = llm.generate([{"prompt_token_ids": p} for p in prompts], params, use_tqdm=False)
    results = []
    for request, prompt, out in zip(requests, prompts, outputs):
        completion = out.outputs[0]
        ids = list(completion.token_ids)
        stop = tokenizer.convert_tokens_to_ids(fmt.eos)
        body = ids[:-1] if ids and ids[-1] == stop else ids
        calls = calls_may_come(request.tools, request.effective_tool_choice)  # as the grammar reads its thinking
        reading = answer_reading(fmt, request.tools, request.effective_tool_choice, request.response_format)
        level = request.strict_level(strict)
        held = enforced_schemas(fmt.name, request.tools, request.effective_tool_choice, level, unsupported)
        parser = StreamParser(fmt, thinking=_thinking(prompt, tokenizer, fmt), tools=request.tools, tokenizer=tokenizer, recover_calls_in_reasoning=calls, strict=level, enforced_schemas=held, **reading)
        # vLLM ended the output at its stop string and kept the tokens that wrote it: cut the
        # text where the transformers engine cuts it
        kept, text, cut = output_text(tokenizer, body, request.stop)
        parser.feed_events(text, kept)
        error = None if cut else _grammar_error(request_options(request, fmt, strict, unsupported), tokenizer, prompt, ids)
        parser.finish_events("error" if error else "stop" if cut else "length" if completion.finish_reason == "length" else None)
        message = parser.message
        if error:  # the processor ended this request (the batch went on): say why
            message.error = {"type": "constraint_error", "message": error}
        results.append(
            chat_completion(
                message,
                model=request.model or model_name or getattr(llm.llm_engine.model_config, "model", "vllm"),
                prompt_tokens=len(prompt),
                completion_tokens=len(ids),
                request_id=request.id,
                tool_choice=request.effective_tool_choice,
            )
        )
    return results


def _thinking(prompt: list[int], tokenizer: Any, fmt: ChatFormat) -> Any:
    from ..parsing import thinking_from_prompt

    return thinking_from_prompt(prompt, tokenizer, fmt)


def _grammar_error(opts: RequestOptions, tokenizer: Any, prompt: list[int], ids: list[int]) -> Optional[str]:
    """Why the output breaks the request's grammar, if it does. The processor runs in vLLM's
    engine (often another process), so its verdict is read again here: the output's tokens
    replayed through the request's grammar (compiled at admission; accepting costs microseconds
    a token). An output the processor ended for a fault breaks it where it ended."""
    from ..constraint import ReasonerGrammar, compile_tool_grammar

    grammar = compile_tool_grammar(tokenizer, opts.format, opts.tools, opts.tool_choice, opts.parallel_tool_calls, max_whitespace=opts.max_whitespace, unsupported=opts.unsupported, response_format=opts.response_format, strict=opts.strict)
    g = ReasonerGrammar(grammar, prompt_token_ids=prompt, thinking_budget=opts.thinking_budget)
    for t in ids:
        if not g.accept_token(t):
            return g.error
    return None
