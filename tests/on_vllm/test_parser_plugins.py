"""vLLM's tool and reasoning parser plugins for every registered format, driven the way vLLM's
OpenAI server drives them (no engine needed): the reasoning parser splits the output, the tool
parser reads the answer, whole and streamed."""

import json
from types import SimpleNamespace

import pytest
from vllm.reasoning.abs_reasoning_parsers import ReasoningParserManager
from vllm.tool_parsers.abstract_tool_parser import ToolParserManager

import thinkgate.integrations.vllm_parsers  # noqa: F401  (registers the plugins)
from thinkgate.formats import LiteralArguments, get_format, names

ARGS = [json.dumps({"city": "Paris", "days": 2}), json.dumps({"time": "07:30", "label": "a } ``` b"})]
# The request's tools: their schemas type the values (untyped, a parameter's value is its text)
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}}},
    {"type": "function", "function": {"name": "set_alarm", "parameters": {"type": "object", "properties": {"time": {"type": "string"}, "label": {"type": "string"}}}}},
]


@pytest.mark.parametrize("name", [n for n in names() if get_format(n).reasoning.present])
def test_plugins_split_reasoning_and_read_calls_whole_and_streamed(tokenizer_for, name):
    fmt = get_format(name)
    tokenizer = tokenizer_for(name)
    reasoning_parser = ReasoningParserManager.get_reasoning_parser("thinkgate_" + name)(tokenizer)
    tool_parser = ToolParserManager.get_tool_parser("thinkgate_" + name)(tokenizer)
    # (a format that thinks only when asked, Poolside's, is asked as its template's switch says)
    asked = {fmt.reasoning.toggle: True} if fmt.reasoning.default_thinking is False and fmt.reasoning.toggle else {}
    req = SimpleNamespace(tools=TOOLS, tool_choice="auto", chat_template_kwargs=asked)
    opened = "" if fmt.reasoning.default_thinking is True else fmt.reasoning.open
    text = opened + "Plan the calls." + fmt.reasoning.close + "Sure. " + fmt.tools.section_text([("get_weather", ARGS[0]), ("set_alarm", ARGS[1])])

    reasoning, content = reasoning_parser.extract_reasoning(text, req)
    assert reasoning == "Plan the calls."
    info = tool_parser.extract_tool_calls(content, req)
    assert info.tools_called and info.content == "Sure. "  # as written
    returned = _as_returned(fmt, ARGS)
    assert [(c.function.name, c.function.arguments) for c in info.tool_calls] == [("get_weather", returned[0]), ("set_alarm", returned[1])]

    # streamed token by token, as the server does: reasoning first, then the answer to the tool parser
    ids = tokenizer.encode(text, add_special_tokens=False)
    streamed_reasoning, answer, names_seen, args = [], [], {}, {}
    # (vLLM builds a streaming request's reasoning parser with the request's chat-template keywords)
    stream_reasoning = ReasoningParserManager.get_reasoning_parser("thinkgate_" + name)(tokenizer, chat_template_kwargs=asked)
    stream_tools = ToolParserManager.get_tool_parser("thinkgate_" + name)(tokenizer)
    previous = ""
    for k in range(len(ids)):
        current = tokenizer.decode(ids[: k + 1], skip_special_tokens=False)
        delta = current[len(previous) :]
        previous = current
        msg = stream_reasoning.extract_reasoning_streaming("", current, delta, ids[:k], ids[: k + 1], ids[k : k + 1])
        if msg is None:
            continue
        if msg.reasoning:
            streamed_reasoning.append(msg.reasoning)
        if msg.content:
            out = stream_tools.extract_tool_calls_streaming("", "", msg.content, [], [], [], req)
            if out is None:
                continue
            answer.append(out.content or "")
            for c in out.tool_calls or []:
                if c.function and c.function.name:
                    names_seen[c.index] = c.function.name
                args[c.index] = args.get(c.index, "") + ((c.function.arguments or "") if c.function else "")
    assert "".join(streamed_reasoning) == "Plan the calls."
    assert "".join(answer) == "Sure. "
    assert [names_seen[i] for i in sorted(names_seen)] == ["get_weather", "set_alarm"]
    assert [args[i] for i in sorted(args)] == returned


def _as_returned(fmt, written):
    """The arguments as the parser returns them: as written, but for a literal (Gemma 4), which
    comes back as JSON with its keys in the literal's order."""
    literal = fmt.tools.arguments
    if not isinstance(literal, LiteralArguments):
        return list(written)
    return [json.dumps({k: v[k] for k in literal.order(v)}, ensure_ascii=False) for v in map(json.loads, written)]


def test_a_format_that_does_not_think_has_a_tool_parser_and_no_reasoning_parser(llama_tokenizer):
    # Llama 3.x: the answer is the calls ({"name", "parameters"} objects joined by "; ") or text.
    tool_parser = ToolParserManager.get_tool_parser("thinkgate_llama3_json")(llama_tokenizer)
    with pytest.raises(KeyError):
        ReasoningParserManager.get_reasoning_parser("thinkgate_llama3_json")
    req = SimpleNamespace(tools=None, tool_choice="auto", chat_template_kwargs={})
    text = get_format("llama3_json").tools.section_text([("get_weather", ARGS[0]), ("set_alarm", ARGS[1])])
    info = tool_parser.extract_tool_calls(text, req)
    assert info.tools_called and info.content is None
    assert [(c.function.name, c.function.arguments) for c in info.tool_calls] == [("get_weather", ARGS[0]), ("set_alarm", ARGS[1])]
    info = tool_parser.extract_tool_calls('Use {"name": "x"} as the body.', req)
    assert not info.tools_called and info.content == 'Use {"name": "x"} as the body.'


def test_mistral_json_array_through_the_tool_parser_with_mistral_shaped_ids(mistral_tokenizer):
    # Mistral 7B v0.3 / Nemo: [TOOL_CALLS] then one JSON array; their templates take back only
    # nine-character ids, so the ids the parser gives are of that shape.
    tool_parser = ToolParserManager.get_tool_parser("thinkgate_mistral_json")(mistral_tokenizer)
    req = SimpleNamespace(tools=None, tool_choice="auto", chat_template_kwargs={})
    text = "Sure. " + get_format("mistral_json").tools.section_text([("get_weather", ARGS[0]), ("set_alarm", ARGS[1])])
    info = tool_parser.extract_tool_calls(text, req)
    assert info.tools_called and info.content == "Sure. "
    assert [(c.function.name, c.function.arguments) for c in info.tool_calls] == [("get_weather", ARGS[0]), ("set_alarm", ARGS[1])]
    assert all(len(c.id) == 9 and c.id.isalnum() for c in info.tool_calls)


def _chat_request(**kw):
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    return ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "x"}], **kw)


WEATHER = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string", "maxLength": 200}}, "required": ["city"]}}}]


def test_adjust_request_leaves_a_request_without_tools_exactly_as_it_came(tokenizer):
    parser = ToolParserManager.get_tool_parser("thinkgate_deepseek_r1")(tokenizer)
    for req in (_chat_request(), _chat_request(tool_choice="none"), _chat_request(vllm_xargs={"other": 1})):
        before = req.model_dump()
        assert parser.adjust_request(req).model_dump() == before


def test_adjust_request_opts_a_tool_request_in_with_its_options_checked_by_name(tokenizer, monkeypatch):
    from thinkgate.requests import request_options

    parser = ToolParserManager.get_tool_parser("thinkgate_deepseek_r1")(tokenizer)
    req = parser.adjust_request(_chat_request(tools=WEATHER, tool_choice="required", vllm_xargs={"thinkgate_thinking_budget": "16", "other": 1}))
    opts = request_options(req.vllm_xargs)
    assert (opts.tool_choice, opts.thinking_budget, opts.unsupported) == ("required", 16, "error")
    assert req.vllm_xargs["other"] == 1 and "thinkgate_thinking_budget" not in req.vllm_xargs
    assert req.skip_special_tokens is False
    monkeypatch.setenv("THINKGATE_UNSUPPORTED", "relax")  # the server's default
    relaxed = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer", "multipleOf": 2}}}}}]
    assert request_options(parser.adjust_request(_chat_request(tools=relaxed)).vllm_xargs).unsupported == "relax"
    monkeypatch.setenv("THINKGATE_UNSUPPORTED", "error")
    with pytest.raises(ValueError, match="keyword 'multipleOf'") as e:
        parser.adjust_request(_chat_request(tools=relaxed))
    # the advice names the server's spelling (issue 34, point 10)
    assert str(e.value).endswith('remove it, or pass vllm_xargs {"thinkgate_unsupported": "relax"} to drop it')
    assert request_options(parser.adjust_request(_chat_request(tools=relaxed, vllm_xargs={"thinkgate_unsupported": "relax"})).vllm_xargs).unsupported == "relax"
    # under "none" no schema is compiled
    parser.adjust_request(_chat_request(tools=relaxed, tool_choice="none"))
    for xargs, message in (
        ({"thinkgate_thinking_budget": 1.5}, "thinkgate_thinking_budget must be a non-negative integer, not 1.5"),
        ({"thinkgate_thinking_budget": "abc"}, "not 'abc'"),
        ({"thinkgate_thinking_budget": [1, 2]}, "not [1, 2]"),
        ({"thinkgate_budget": 3}, "unknown thinkgate option(s) in vllm_xargs: thinkgate_budget"),
        ({"thinkgate": "{}"}, "vllm_xargs.thinkgate is written by thinkgate's tool parser"),
    ):
        with pytest.raises(ValueError) as e:
            parser.adjust_request(_chat_request(tools=WEATHER, vllm_xargs=xargs))
        assert message in str(e.value)
    bad = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer", "minimum": 5, "maximum": 3}}, "required": ["a"]}}}]
    with pytest.raises(ValueError, match=r"no integer lies between 'minimum' 5 and 'maximum' 3 at #/properties/a"):
        parser.adjust_request(_chat_request(tools=bad, tool_choice="auto"))



FORECAST = {"type": "object", "properties": {"city": {"type": "string", "maxLength": 12}}, "required": ["city"]}


def test_adjust_request_opts_a_json_response_format_in_and_turns_vllms_own_off(tokenizer):
    from thinkgate.requests import request_options

    parser = ToolParserManager.get_tool_parser("thinkgate_deepseek_r1")(tokenizer)
    rf = {"type": "json_schema", "json_schema": {"name": "forecast", "schema": FORECAST, "strict": True}}
    # no tools: the request opts in all the same
    req = parser.adjust_request(_chat_request(response_format=rf))
    opts = request_options(req.vllm_xargs)
    assert opts.response_format == rf and opts.tools is None
    assert req.response_format is None and req.to_sampling_params(16, {}).structured_outputs is None
    req = parser.adjust_request(_chat_request(tools=WEATHER, response_format={"type": "json_object"}))
    assert request_options(req.vllm_xargs).response_format == {"type": "json_object"} and req.response_format is None
    # text (and vLLM's own structural tags) stay vLLM's: nothing changes
    plain = _chat_request(response_format={"type": "text"})
    before = plain.model_dump()
    assert parser.adjust_request(plain).model_dump() == before
    # a schema thinkgate cannot enforce is a 400 naming the keyword
    bad = {"type": "json_schema", "json_schema": {"name": "f", "schema": {"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 2}}}}}
    with pytest.raises(ValueError, match="response_format 'f': keyword 'multipleOf'"):
        parser.adjust_request(_chat_request(response_format=bad))

def test_validate_params_checks_options_by_name_without_a_tokenizer():
    from vllm import SamplingParams

    from thinkgate.integrations.vllm import ThinkgateLogitsProcessor

    def params(**opts):
        return SamplingParams(extra_args={"thinkgate": json.dumps({"format": "deepseek_r1", **opts})})

    ThinkgateLogitsProcessor.validate_params(params(tools=WEATHER, tool_choice="required"))
    for opts, message in (
        ({"thinking_budget": 1.5}, "thinking_budget must be a non-negative integer"),
        ({"parallel_tool_calls": "yes"}, "'parallel_tool_calls' must be true or false"),
        ({"max_whitespace": -1}, "'max_whitespace' must be a non-negative integer"),
        ({"unsupported": "lax"}, "'unsupported' must be 'error' or 'relax'"),
        ({"tools": {"a": 1}}, "'tools' must be a list"),
        ({"tool_choice": {"type": "function", "function": "f"}}, "tool_choice names the function None"),
        ({"tools": WEATHER, "tool_choice": "sometimes"}, "unknown tool_choice 'sometimes'"),
    ):
        with pytest.raises(ValueError) as e:
            ThinkgateLogitsProcessor.validate_params(params(**opts))
        assert message in str(e.value)


def test_a_parser_fault_returns_the_output_as_content(tokenizer, monkeypatch):
    import thinkgate.integrations.vllm_parsers as plugins

    def explode(*a, **k):
        raise RuntimeError("a fault")

    tool_parser = ToolParserManager.get_tool_parser("thinkgate_deepseek_r1")(tokenizer)
    reasoning_parser = ReasoningParserManager.get_reasoning_parser("thinkgate_deepseek_r1")(tokenizer)
    monkeypatch.setattr(plugins, "parse", explode)
    req = SimpleNamespace(tools=None, tool_choice="auto", chat_template_kwargs={})
    info = tool_parser.extract_tool_calls("text <｜tool▁calls▁begin｜>", req)
    assert not info.tools_called and info.content == "text <｜tool▁calls▁begin｜>"
    assert reasoning_parser.extract_reasoning("all of it", req) == (None, "all of it")
    monkeypatch.setattr(plugins, "StreamParser", explode)
    out = tool_parser.extract_tool_calls_streaming("", "", "one", [], [], [], req)
    assert out.content == "one"
    assert tool_parser.extract_tool_calls_streaming("", "", "two", [], [], [], req).content == "two"


def _through_vllm(name, tokenizer, text, step, kwargs=None, prompt_ids=None, lag=0, reasoning=True):
    """The output through vLLM's own composed parser (what its server holds per request): whole
    with ``parse``, and streamed ``step`` tokens a delta with ``parse_delta``; ``lag``: the text
    streams that many characters behind the ids, as vLLM's detokenizer holds back a request's
    stop string (its length less one) until the output ends."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.parser.parser_manager import ParserManager

    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]
    cls = ParserManager.get_parser("thinkgate_" + name, "thinkgate_" + name if reasoning else None, enable_auto_tools=True)
    req = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "x"}], tools=tools, tool_choice="auto", chat_template_kwargs=kwargs or {})
    if not reasoning:  # (vLLM starts the tool phase once it has read the prompt)
        prompt_ids = prompt_ids or tokenizer.encode("x", add_special_tokens=False)
    reasoning, content, calls = cls(tokenizer, tools).parse(text, req, enable_auto_tools=True)
    whole = (reasoning, content, [(c.name, c.arguments) for c in calls or []])
    p = cls(tokenizer, tools)
    ids = tokenizer.encode(text, add_special_tokens=False)
    r, c, streamed_calls, previous = [], [], {}, ""
    for k in range(0, len(ids), step):
        finished = k + step >= len(ids)
        current = tokenizer.decode(ids[: k + step], skip_special_tokens=False)
        current = current if finished else current[: max(len(current) - lag, 0)]
        delta, previous = current[len(previous) :], current
        d = p.parse_delta(delta, ids[k : k + step], req, prompt_ids, finished=finished)
        if d is None:
            continue
        r.append(d.reasoning or "")
        c.append(d.content or "")
        for tc in d.tool_calls or []:
            slot = streamed_calls.setdefault(tc.index, ["", ""])
            slot[0] += (tc.function.name or "") if tc.function else ""
            slot[1] += (tc.function.arguments or "") if tc.function else ""
    streamed = ("".join(r) or None, "".join(c) or None, [tuple(streamed_calls[i]) for i in sorted(streamed_calls)])
    return whole, streamed


@pytest.mark.parametrize("step", [1, 2, 3])
def test_vllm_streams_what_it_returns(tokenizer, step):
    # Issue 15, point 6: the whole response and the streamed one agree through vLLM's own
    # composed parser, text kept as written, with a call and without.
    fmt = get_format("deepseek_r1")
    call = fmt.tools.section_text([("get_weather", '{"city": "Paris"}')])
    for answer, content, calls in [
        (" The answer is 42.\n", " The answer is 42.\n", []),
        ("\n\nThe answer is 42.\n", "\n\nThe answer is 42.\n", []),
        ("Let me check.\n" + call, "Let me check.\n", [("get_weather", '{"city": "Paris"}')]),
        ("\n\n" + call, None, [("get_weather", '{"city": "Paris"}')]),
    ]:
        whole, streamed = _through_vllm("deepseek_r1", tokenizer, "Plan." + fmt.reasoning.close + answer, step)
        assert whole == streamed == ("Plan.", content, calls), answer


def test_a_thinking_keyword_the_template_ignores_changes_nothing(tokenizer, qwen_tokenizer):
    # Issue 15, point 6: R1's template reads no keyword (it always opens <think>), so
    # enable_thinking: false leaves the reasoning reasoning, whole as streamed (the stream reads
    # the prompt; the whole response sees the output close its reasoning); Qwen3's template reads
    # enable_thinking, and an output that never closes reasoning is then the answer.
    r1 = get_format("deepseek_r1")
    prompt = tokenizer.encode("<｜Assistant｜><think>\n", add_special_tokens=False)
    text = "Plan." + r1.reasoning.close + "Done."
    whole, streamed = _through_vllm("deepseek_r1", tokenizer, text, 2, {"enable_thinking": False}, prompt)
    assert whole == streamed == ("Plan.", "Done.", [])
    qwen = get_format("qwen3")
    reasoning_parser = ReasoningParserManager.get_reasoning_parser("thinkgate_qwen3")(qwen_tokenizer)
    said = qwen.reasoning.open + "Plan." + qwen.reasoning.close + "Done."
    off = SimpleNamespace(tools=None, tool_choice="auto", chat_template_kwargs={"enable_thinking": False})
    ignored = SimpleNamespace(tools=None, tool_choice="auto", chat_template_kwargs={"thinking": False})
    assert reasoning_parser.extract_reasoning("Done.", off) == (None, "Done.")
    assert reasoning_parser.extract_reasoning(said, ignored) == ("Plan.", "Done.")


@pytest.mark.parametrize("step", [1, 3])
@pytest.mark.parametrize("name", ["deepseek_r1", "kimi_k2", "qwen3"])
def test_a_call_written_while_thinking_is_a_call_through_vllm(tokenizer_for, name, step):
    # Issue 17, point 1: the tool markup's token ends the reasoning (Kimi-K2-Thinking leaves out
    # </think> before its tool section), whole as streamed; under tool_choice "none" it is
    # reasoning text, as thinkgate's grammar reads it then.
    tokenizer = tokenizer_for(name)
    fmt = get_format(name)
    call = fmt.tools.section_text([("get_weather", '{"city": "Paris"}')])
    # R1's prompt opens the reasoning; Kimi-K2 and Qwen3 open it themselves
    forced = fmt.reasoning.default_thinking is True
    prompt = tokenizer.encode(fmt.reasoning.open, add_special_tokens=False)
    opened = "" if forced else fmt.reasoning.open
    whole, streamed = _through_vllm(name, tokenizer, opened + "Plan: call it." + call, step, prompt_ids=prompt if forced else None)
    assert whole == streamed == ("Plan: call it.", None, [("get_weather", '{"city": "Paris"}')])
    reasoning_parser = ReasoningParserManager.get_reasoning_parser("thinkgate_" + name)(tokenizer)
    none = SimpleNamespace(tools=[{"type": "function", "function": {"name": "get_weather"}}], tool_choice="none", chat_template_kwargs={})
    reasoning_parser.adjust_request(none)
    assert reasoning_parser.extract_reasoning(opened + "Plan." + call, none) == ("Plan." + call, None)
    ids = tokenizer.encode(opened + "Plan." + call, add_special_tokens=False)
    assert not reasoning_parser.is_reasoning_end(prompt + ids) and reasoning_parser.extract_content_ids(ids) == []


def test_strict_levels_through_vllm_xargs_the_server_default_and_the_tools(tokenizer, monkeypatch):
    """``thinkgate_strict`` in vllm_xargs, else ``THINKGATE_STRICT``, sets the grammar's level,
    and the tool parser reads calls at that level: a call the level-1 grammar let through
    (arguments off the schema) is a call, at level 2 it is not; function.strict rides along."""
    from thinkgate.requests import request_options

    parser = ToolParserManager.get_tool_parser("thinkgate_deepseek_r1")(tokenizer)
    monkeypatch.delenv("THINKGATE_STRICT", raising=False)
    assert request_options(parser.adjust_request(_chat_request(tools=WEATHER)).vllm_xargs).strict == 2
    monkeypatch.setenv("THINKGATE_STRICT", "1")  # the server's default
    loose = parser.adjust_request(_chat_request(tools=WEATHER))
    assert request_options(loose.vllm_xargs).strict == 1
    strict = parser.adjust_request(_chat_request(tools=WEATHER, vllm_xargs={"thinkgate_strict": 2}))
    assert request_options(strict.vllm_xargs).strict == 2 and "thinkgate_strict" not in strict.vllm_xargs
    off = get_format("deepseek_r1").tools.section_text([("get_weather", '{"town": "Oslo"}')])
    assert parser.extract_tool_calls(off, loose).tools_called
    assert not ToolParserManager.get_tool_parser("thinkgate_deepseek_r1")(tokenizer).extract_tool_calls(off, strict).tool_calls
    # a tool's own function.strict comes through vLLM's request model
    own = [{"type": "function", "function": {**WEATHER[0]["function"], "strict": False}}]
    assert ToolParserManager.get_tool_parser("thinkgate_deepseek_r1")(tokenizer).extract_tool_calls(off, parser.adjust_request(_chat_request(tools=own, vllm_xargs={"thinkgate_strict": 2}))).tools_called
    for xargs, message in (({"thinkgate_strict": 3}, "thinkgate_strict must be 0 (parse only), 1 (markup and tool names) or 2 (full schemas), not 3"), ({"thinkgate_strict": "yes"}, "not 'yes'")):
        with pytest.raises(ValueError) as e:
            parser.adjust_request(_chat_request(tools=WEATHER, vllm_xargs=xargs))
        assert message in str(e.value)
    monkeypatch.setenv("THINKGATE_STRICT", "full")
    with pytest.raises(ValueError, match="the environment variable THINKGATE_STRICT must be 0"):
        parser.adjust_request(_chat_request(tools=WEATHER))


def test_the_offline_helper_gives_each_request_its_level():
    from thinkgate.integrations.vllm_offline import request_options, sampling_params
    from thinkgate.requests import ChatRequest
    from thinkgate.requests import request_options as read

    r = ChatRequest(messages=[{"role": "user", "content": "x"}], tools=WEATHER)
    assert [request_options(r, "deepseek_r1", s).strict for s in (None, 0, 1)] == [2, 0, 1]
    assert request_options(r.model_copy(update={"strict": 2}), "deepseek_r1", 0).strict == 2
    assert read(sampling_params(r, "deepseek_r1", strict=1).extra_args).strict == 1


def _responses_request(**kw):
    from vllm.entrypoints.openai.responses.protocol import ResponsesRequest

    return ResponsesRequest(model="m", input="x", **kw)


FLAT_WEATHER = [{"type": "function", **WEATHER[0]["function"], "strict": True}]


def test_a_responses_api_request_is_opted_in_with_its_tools_as_the_model_is_shown_them(tokenizer):
    """Issue 34, point 0: the Responses API's tools are flat (and namespaces, custom tools and
    built-in tools sit beside them); its tool_choice names a function flat; its JSON answer is
    text.format. thinkgate reads them as vLLM shows the model its tools."""
    from thinkgate.requests import request_options

    parser = ToolParserManager.get_tool_parser("thinkgate_deepseek_r1")(tokenizer)
    schema = WEATHER[0]["function"]["parameters"]
    tools = [
        *FLAT_WEATHER,
        {"type": "namespace", "name": "cal", "description": "calendar", "tools": [{"type": "function", "name": "add", "parameters": {"type": "object", "properties": {"day": {"type": "integer"}}}}]},
        {"type": "custom", "name": "patch", "description": "a diff"},
        {"type": "web_search_preview"},
    ]
    rf = {"type": "json_schema", "name": "forecast", "schema": FORECAST}
    req = parser.adjust_request(_responses_request(tools=tools, tool_choice={"type": "function", "name": "cal__add"}, text={"format": rf}))
    opts = request_options(req.vllm_xargs)
    assert [t["function"]["name"] for t in opts.tools] == ["get_weather", "cal__add", "patch"]  # the built-in tool is shown to no one
    assert opts.tools[0] == {"type": "function", "function": {"name": "get_weather", "parameters": schema, "strict": True}}
    assert opts.tool_choice == {"type": "function", "function": {"name": "cal__add"}}
    assert opts.response_format == {"type": "json_schema", "json_schema": {"name": "forecast", "schema": FORECAST}}
    assert req.text.format is None and req.to_sampling_params(16, {}).structured_outputs is None  # vLLM's own grammar off
    assert req.skip_special_tokens is False
    allowed = {"type": "allowed_tools", "mode": "required", "tools": [{"type": "function", "name": "get_weather"}, {"type": "mcp", "server_label": "x"}]}
    req = parser.adjust_request(_responses_request(tools=tools, tool_choice=allowed))
    assert request_options(req.vllm_xargs).tool_choice == {"type": "allowed_tools", "allowed_tools": {"mode": "required", "tools": [{"type": "function", "function": {"name": "get_weather"}}]}}
    assert request_options(parser.adjust_request(_responses_request(tools=tools, tool_choice={"type": "custom", "name": "patch"})).vllm_xargs).tool_choice == {"type": "function", "function": {"name": "patch"}}
    with pytest.raises(ValueError, match="names a built-in tool; thinkgate holds calls of function tools"):
        parser.adjust_request(_responses_request(tools=tools, tool_choice={"type": "web_search_preview"}))
    # a request with only built-in tools is vLLM's, untouched
    only_search = _responses_request(tools=[{"type": "web_search_preview"}])
    before = only_search.model_dump()
    assert parser.adjust_request(only_search).model_dump() == before


def test_a_responses_api_request_is_read_with_its_flat_tools(tokenizer):
    fmt = get_format("deepseek_r1")
    req = _responses_request(tools=FLAT_WEATHER, tool_choice="required")
    good, bad = fmt.tools.section_text([("get_weather", '{"city": "Oslo"}')]), fmt.tools.section_text([("get_weather", '{"town": "Oslo"}')])
    parser = ToolParserManager.get_tool_parser("thinkgate_deepseek_r1")(tokenizer)
    assert [(c.function.name, c.function.arguments) for c in parser.extract_tool_calls(good, req).tool_calls] == [("get_weather", '{"city": "Oslo"}')]
    assert not parser.extract_tool_calls(bad, req).tool_calls  # held to the flat tool's schema


MULTIPLE_OF_7 = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer", "multipleOf": 7}}, "required": ["a"]}}}]


@pytest.mark.parametrize("path", ["processor", "structured_outputs"])
def test_a_relaxed_request_reads_its_calls_against_what_its_grammar_held(tokenizer, monkeypatch, caplog, path):
    """Issue 34, point 5: thinkgate_unsupported=relax drops multipleOf from the grammar; the call
    it then allows (5) is a call, whole and streamed, on both paths; the server's log (and a
    Responses API response's metadata) says what was dropped, with the server's spelling."""
    from thinkgate.integrations import vllm_paths

    # (an engine of another test may live in this process: its path is not this test's)
    chosen = vllm_paths.Path(path, "this test's", None, True)
    monkeypatch.setattr(vllm_paths, "request_path", lambda model_config=None: chosen)
    parser = ToolParserManager.get_tool_parser("thinkgate_deepseek_r1")(tokenizer)
    with caplog.at_level("WARNING", logger="vllm.thinkgate"):
        req = parser.adjust_request(_chat_request(tools=MULTIPLE_OF_7, tool_choice="required", vllm_xargs={"thinkgate_unsupported": "relax"}))
    assert (req.structured_outputs is not None) is (path == "structured_outputs")
    said = [r.getMessage() for r in caplog.records if r.name == "vllm.thinkgate" and "cannot be enforced" in r.getMessage()]
    assert len(said) == 1 and "keyword 'multipleOf' at #/properties/a" in said[0] and '{"thinkgate_unsupported": "relax"}' in said[0]
    text = get_format("deepseek_r1").tools.section_text([("f", '{"a": 5}')])
    info = parser.extract_tool_calls(text, req)
    assert info.tools_called and [c.function.arguments for c in info.tool_calls] == ['{"a": 5}'] and info.content is None
    out = ToolParserManager.get_tool_parser("thinkgate_deepseek_r1")(tokenizer).extract_tool_calls_streaming("", "", text, [], [], [], req)
    assert [c.function.arguments for c in out.tool_calls] == ['{"a": 5}']
    # held to the tool's own schema (a request thinkgate did not adjust), it is no call
    assert not parser.extract_tool_calls(text, _chat_request(tools=MULTIPLE_OF_7, tool_choice="required")).tool_calls
    flat = [{"type": "function", **MULTIPLE_OF_7[0]["function"]}]
    resp = parser.adjust_request(_responses_request(tools=flat, tool_choice="required", metadata={"app": "x"}, vllm_xargs={"thinkgate_unsupported": "relax"}))
    assert resp.metadata["app"] == "x" and "keyword 'multipleOf' at #/properties/a" in resp.metadata["thinkgate_relaxed"]


@pytest.mark.parametrize("name, thinking, prompt_end, output, reasoning", [
    ("deepseek_r1", True, "<think>\n", "Plan it.</think>The answer.", "Plan it."),  # R1's prompt opens the reasoning
    ("deepseek_r1", False, "</think>", "The answer, no thinking at all.", None),  # thinking turned off
    ("deepseek_v3", None, "", "<think>Plan it.</think>The answer.", "Plan it."),  # the model may open it itself
    ("deepseek_v3", None, "", "The answer at once.", None),
])
def test_reasoning_tokens_are_counted_from_where_the_output_started(tokenizer, name, thinking, prompt_end, output, reasoning):
    """Issue 34, point 9: usage's reasoning_tokens through vLLM's composed parser, whole (the
    request's template keyword says where the output starts) and streamed (the prompt says):
    an answer with thinking off has none (was: every token of it)."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
    from vllm.parser.parser_manager import ParserManager

    cls = ParserManager.get_parser("thinkgate_" + name, "thinkgate_" + name, enable_auto_tools=True)
    req = ChatCompletionRequest(model="m", messages=[{"role": "user", "content": "x"}], chat_template_kwargs={} if thinking is None else {"thinking": thinking})
    ids = tokenizer.encode(output, add_special_tokens=False)
    expected = len(tokenizer.encode(reasoning, add_special_tokens=False)) if reasoning else 0
    whole = cls(tokenizer, None)
    assert whole.parse(output, req, enable_auto_tools=True)[0] == reasoning
    assert whole.count_reasoning_tokens(ids) == expected
    streamed = cls(tokenizer, None)
    prompt = tokenizer.encode("<｜User｜>x<｜Assistant｜>" + prompt_end, add_special_tokens=False)
    for k, i in enumerate(ids):
        streamed.parse_delta(tokenizer.decode([i], skip_special_tokens=False), [i], req, prompt, finished=k == len(ids) - 1)
    assert streamed.count_reasoning_tokens(ids) == expected


def _cut(fmt, calls, keep):
    """``fmt``'s tool section for ``calls``, cut ``keep`` characters into the last call's arguments."""
    whole = fmt.tools.section_text(calls)
    return whole[: whole.rindex(calls[-1][1]) + keep]


@pytest.mark.parametrize("step", [1, 2, 5])
@pytest.mark.parametrize("name", ["deepseek_r1", "qwen3"])
def test_a_cut_or_invalid_call_is_content_streamed_as_returned(tokenizer_for, name, step):
    """Issue 34 (the stream and the whole response): through vLLM's composed parser, a call cut
    off by the output's end or invalid is its text in the content, streamed and whole, and a
    call streams only once it stands (numbered as returned: after an invalid one, from 0)."""
    tokenizer = tokenizer_for(name)
    fmt = get_format(name)
    paris, oslo = ("get_weather", '{"city": "Paris"}'), ("get_weather", '{"city": "Oslo"}')
    close = fmt.reasoning.close
    opened = "" if fmt.reasoning.default_thinking is True else fmt.reasoning.open
    cases = {
        "cut": "Let me check. " + _cut(fmt, [paris], 6),
        "stands, then cut": _cut(fmt, [paris, oslo], 9),
        "unknown tool, then one that stands": fmt.tools.section_text([("get_time", "{}"), oslo]),
        "ends as a marker might begin": "Sure " + fmt.tools.section_text([])[:2],
    }
    seen = {}
    for case, answer in cases.items():
        whole, streamed = _through_vllm(name, tokenizer, opened + "Plan." + close + answer, step)
        assert whole == streamed, case
        seen[case] = whole
        # a server without --reasoning-parser: vLLM then feeds the tool parser deltas alone
        assert _through_vllm(name, tokenizer, answer, step, reasoning=False) == ((None, *whole[1:]),) * 2, case
    assert seen["cut"][1].startswith("Let me check. ") and not seen["cut"][2]
    assert seen["stands, then cut"][2] == [paris]
    assert seen["unknown tool, then one that stands"][2] == [oslo] and "get_time" in seen["unknown tool, then one that stands"][1]
    assert seen["ends as a marker might begin"][1] == "Sure " + fmt.tools.section_text([])[:2]



@pytest.mark.parametrize("lag", [3, 7, 30])
@pytest.mark.parametrize("step", [1, 3])
def test_text_streamed_behind_its_ids_splits_as_the_whole_response(tokenizer, lag, step):
    """Issue 34 (stop strings): vLLM streams the text a stop string's length behind the ids; the
    reasoning ends where its close marker's text does (was: a piece of "</think>" in the
    reasoning, the rest in the content), and calls stream as returned."""
    fmt = get_format("deepseek_r1")
    call = fmt.tools.section_text([("get_weather", '{"city": "Paris"}')])
    maybe = "Sure " + fmt.tools.section_text([])[:2]  # ends as a marker might begin
    for answer, content in (("Sure. " + call, "Sure. "), ("The answer is 42.", "The answer is 42."), (maybe, maybe)):
        whole, streamed = _through_vllm("deepseek_r1", tokenizer, "Plan it well." + fmt.reasoning.close + answer, step, lag=lag)
        assert whole == streamed == ("Plan it well.", content, [("get_weather", '{"city": "Paris"}')] if call in answer else []), (answer, lag)
