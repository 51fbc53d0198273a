"""thinkgate against SGLang's real classes: the custom logit processor round-tripped through
to_str()/from_str() and driven the way SGLang's sampler drives it (rows selected per processor,
custom_params with "__req__"), and the function-call detectors through FunctionCallParser."""

import json
import weakref
from array import array

import jsonschema
import pytest
import torch
from sglang.srt.entrypoints.openai.protocol import Function, Tool
from sglang.srt.function_call.function_call_parser import FunctionCallParser
from sglang.srt.sampling.custom_logit_processor import CustomLogitProcessor

from schemas import GET_WEATHER, SET_ALARM
from thinkgate.demo import build_tiny_model, demo_tokenizer
from thinkgate.formats import JsonCalls, LiteralArguments, PythonArguments, get_format, names
from thinkgate.integrations.sglang import ThinkgateLogitProcessor, custom_params, register
from thinkgate.formats.tokens import default_stop_ids

# the ends of a generation with the demo model's tokenizer (the EOS its saved tokenizer names)
ENDS = sorted(set(default_stop_ids(demo_tokenizer())))

TOOLS = [GET_WEATHER, SET_ALARM]
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}


class FakeReq:
    """What SGLang's Req offers a processor: rid, origin_input_ids, output_ids, finished()."""

    def __init__(self, rid, prompt):
        self.rid = rid
        self.origin_input_ids = array("q", prompt)
        self.output_ids = array("q")
        self.finished_reason = None

    def finished(self):
        return self.finished_reason is not None


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return str(build_tiny_model(tmp_path_factory.mktemp("sg") / "tiny"))


def _sglang_step(processor_str, logits, params):
    """sampler.apply_custom_logit_processor: select this processor's rows, call, copy back."""
    rows = [i for i, p in enumerate(params) if p is not None and "thinkgate" in p]
    proc = CustomLogitProcessor.from_str(processor_str)
    idx = torch.tensor(rows)
    selected = logits.index_select(0, idx)
    result = proc(selected, [params[i] for i in rows])
    logits.index_copy_(0, idx, result.to(logits.dtype))


@pytest.mark.parametrize("fmt", ["deepseek_r1", "deepseek_v3_1"])
def test_processor_gives_valid_calls_across_steps(model_dir, fmt):
    from transformers import AutoTokenizer

    from thinkgate.formats.templates import apply_chat_template

    tok = AutoTokenizer.from_pretrained(model_dir)
    s = ThinkgateLogitProcessor.to_str()
    prompt = apply_chat_template(tok, [{"role": "user", "content": "weather?"}], fmt, TOOLS, thinking=True)
    opts = custom_params(fmt, model_dir, TOOLS, "required", parallel_tool_calls=False, thinking_budget=6)
    reqs = [FakeReq(f"{fmt}-{i}", prompt) for i in range(3)]
    plain = FakeReq(f"{fmt}-plain", prompt)
    gen = torch.Generator().manual_seed(0)
    eos = 1
    for _ in range(400):
        live = [r for r in reqs if not r.finished()]
        if not live:
            break
        batch = live + [plain]
        params = [dict(opts, __req__=weakref.proxy(r)) for r in live] + [None]
        logits = torch.randn(len(batch), 129280, generator=gen)
        before_plain = logits[-1].clone()
        _sglang_step(s, logits, params)
        assert torch.equal(logits[-1], before_plain)  # a row that did not opt in is untouched
        picked = logits.argmax(-1).tolist()
        for r, t in zip(live, picked):
            r.output_ids.append(t)
            if t == eos:
                r.finished_reason = "stop"
    from thinkgate import parse

    for r in reqs:
        assert r.finished()
        body = list(r.output_ids[:-1])
        m = parse(tok.decode(body, skip_special_tokens=False), fmt, thinking=True, tools=TOOLS)
        assert len(m.tool_calls) == 1 and not m.invalid_tool_calls
        c = m.tool_calls[0]
        jsonschema.validate(json.loads(c.arguments), SCHEMAS[c.name], format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
    # a final call for finished requests drops their state
    _sglang_step(s, torch.zeros(1, 129280), [dict(opts, __req__=weakref.proxy(reqs[0]))])


def test_bad_options_are_refused_by_name(model_dir):
    with pytest.raises(ValueError, match="needs at least one tool"):
        custom_params("deepseek_r1", model_dir, [], "required")


@pytest.mark.parametrize("fmt", [get_format(n) for n in names()], ids=lambda f: f.name)
def test_detectors_parse_through_function_call_parser(fmt):
    register()
    name = "thinkgate_" + fmt.name
    assert name in FunctionCallParser.ToolCallParserEnum
    tools = [Tool(type="function", function=Function(name=t["function"]["name"], parameters=t["function"]["parameters"])) for t in TOOLS]
    # JSON arguments come back as written; parameters (tagged_xml) and Python arguments as thinkgate writes their JSON
    ascii_escapes = fmt.tools.xml is None and not isinstance(fmt.tools.arguments, PythonArguments)
    args = [json.dumps({"city": "Paris", "days": 2}), json.dumps({"time": "07:30", "label": "a<｜}```"}, ensure_ascii=ascii_escapes)]
    literal = fmt.tools.arguments
    if isinstance(literal, LiteralArguments):  # Gemma 4: the literal comes back as JSON, keys in its order
        args = [json.dumps({k: v[k] for k in literal.order(v)}, ensure_ascii=False) for v in map(json.loads, args)]
    # Llama 3.x (bare_json): an answer is calls or text, so no text comes before the calls
    said = "" if fmt.tools.bare or isinstance(fmt.tools.layout, JsonCalls) and not fmt.tools.trigger else "Sure. "  # the space before the markup is the model's: kept
    text = said + fmt.tools.section_text([("get_weather", args[0]), ("set_alarm", args[1])])
    parser = FunctionCallParser(tools, name)
    assert parser.has_tool_call(text) and not parser.has_tool_call("Sure, no tools needed.")
    normal, calls = parser.parse_non_stream(text)
    assert normal == said
    assert [(c.name, c.parameters, c.tool_index) for c in calls] == [("get_weather", args[0], 0), ("set_alarm", args[1], 1)]
    # streamed in 5-character pieces: the same calls, arguments joined exactly
    parser = FunctionCallParser(tools, name)
    streamed_text, names, joined = [], {}, {}
    for i in range(0, len(text), 5):
        normal, calls = parser.parse_stream_chunk(text[i : i + 5])
        streamed_text.append(normal)
        for c in calls:
            if c.name:
                names[c.tool_index] = c.name
            joined[c.tool_index] = joined.get(c.tool_index, "") + (c.parameters or "")
    assert "".join(streamed_text) == said
    assert [names[i] for i in sorted(names)] == ["get_weather", "set_alarm"]
    assert [joined[i] for i in sorted(joined)] == args
    # The structure SGLang is told: one call as the whole markup, split around its arguments
    info = parser.detector.structure_info()("get_weather")
    render = getattr(fmt.tools.arguments, "render", None)  # parameters or a literal: as the model writes them
    body = render(args[0]) if render is not None else args[0]
    assert info.begin + body + info.end == fmt.tools.section_text([("get_weather", args[0])])
    assert info.begin.startswith(info.trigger) and info.trigger
    if fmt.tools.bare:
        assert info.begin == '{"name": "get_weather", "parameters": ' and info.trigger == '{"name": "'
    elif fmt.name == "qwen3":  # the call object's opening is the tool's, before its arguments
        assert (info.begin, info.end) == ('<tool_call>\n{"name": "get_weather", "arguments": ', "}\n</tool_call>")


def test_a_request_whose_grammar_fails_in_the_server_ends_alone(model_dir, monkeypatch):
    """A grammar that fails inside the server (custom_params checked it on the client, but say
    the server's xgrammar differs) ends its own row with end-of-sequence; the row beside it is
    constrained as usual, and nothing raises into SGLang's sampler."""
    import thinkgate.integrations.sglang as plugin

    good = custom_params("deepseek_v3_1", model_dir, TOOLS, "required")
    broken = json.loads(custom_params("deepseek_v3_1", model_dir, TOOLS, "required")["thinkgate"])
    broken["tools"] = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "integer", "minimum": 5, "maximum": 3}}, "required": ["a"]}}}]
    bad = {"thinkgate": json.dumps(broken)}
    reqs = [FakeReq("fails", [0, 5]), FakeReq("works", [0, 5]), FakeReq("no-req", [0, 5])]
    params = [dict(bad, __req__=weakref.proxy(reqs[0])), dict(good, __req__=weakref.proxy(reqs[1])), dict(good)]
    logits = torch.zeros(3, 129280)
    before = logits[2].clone()
    _sglang_step(ThinkgateLogitProcessor.to_str(), logits, params)
    assert torch.isfinite(logits[0]).nonzero().flatten().tolist() == ENDS  # only the ends
    assert 1 < int(torch.isfinite(logits[1]).sum()) < 129280
    assert torch.equal(logits[2], before)  # without SGLang's request it cannot be followed: untouched

    def explode(*a, **k):
        raise RuntimeError("a fault")

    monkeypatch.setattr(plugin, "parse", explode)
    result = FunctionCallParser(tools=[Tool(type="function", function=Function(name="get_weather", parameters=SCHEMAS["get_weather"]))], tool_call_parser="thinkgate_deepseek_v3_1").parse_non_stream("text")
    assert result == ("text", [])


def test_strict_levels_in_custom_params_and_the_detectors(model_dir, monkeypatch):
    """custom_params(strict=0) under auto leaves the row's answer logits as they came; a bad
    level is refused by name; the detectors read calls at the server's level (THINKGATE_STRICT)
    and at each tool's own function.strict."""
    from transformers import AutoTokenizer

    from thinkgate.formats.templates import apply_chat_template

    with pytest.raises(ValueError, match=r"strict must be 0 \(parse only\), 1 \(markup and tool names\) or 2 \(full schemas\), not 'yes'"):
        custom_params("deepseek_r1", model_dir, TOOLS, "auto", strict="yes")
    tok = AutoTokenizer.from_pretrained(model_dir)
    prompt = apply_chat_template(tok, [{"role": "user", "content": "weather?"}], "deepseek_v3_1", TOOLS, thinking=False)
    s = ThinkgateLogitProcessor.to_str()
    for strict, untouched in ((0, True), (2, False)):
        req = FakeReq(f"strict-{strict}", prompt)
        logits = torch.randn(1, 129280, generator=torch.Generator().manual_seed(strict))
        before = logits.clone()
        _sglang_step(s, logits, [dict(custom_params("deepseek_v3_1", model_dir, TOOLS, "auto", strict=strict), __req__=weakref.proxy(req))])
        assert torch.equal(logits, before) is untouched
    register()
    off = get_format("deepseek_r1").tools.section_text([("get_weather", '{"town": "Oslo"}')])

    def calls(strict_tool=None):
        fns = [Function(name=t["function"]["name"], parameters=t["function"]["parameters"], strict=strict_tool) for t in TOOLS]
        return FunctionCallParser([Tool(type="function", function=f) for f in fns], "thinkgate_deepseek_r1").parse_non_stream(off)[1]

    monkeypatch.delenv("THINKGATE_STRICT", raising=False)
    assert calls() == [] and len(calls(False)) == 1
    monkeypatch.setenv("THINKGATE_STRICT", "1")
    assert [c.parameters for c in calls()] == ['{"town": "Oslo"}'] and calls(True) == []


@pytest.mark.parametrize("name", ["deepseek_r1", "kimi_k2", "qwen3"])
def test_reasoning_parser_ends_the_reasoning_at_a_call_written_while_thinking(name):
    """Issue 17, point 1, in SGLang: ``--reasoning-parser thinkgate_<format>`` splits reasoning
    from the answer with thinkgate's parser; with a tool parser active, the tool markup written
    while thinking ends the reasoning and goes on to the tool parser, whole as streamed; without
    one it is reasoning."""
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    register()
    fmt = get_format(name)
    opened = "" if fmt.reasoning.default_thinking is True else fmt.reasoning.open
    call = fmt.tools.section_text([("get_weather", '{"city": "Paris", "days": 2}')])
    text = opened + "Plan: call it." + call
    for stream_reasoning in (True, False):
        whole = ReasoningParser("thinkgate_" + name, stream_reasoning=stream_reasoning, tool_call_parser_active=True).parse_non_stream(text)
        assert whole == ("Plan: call it.", call)
        parser = ReasoningParser("thinkgate_" + name, stream_reasoning=stream_reasoning, tool_call_parser_active=True)
        pieces = [parser.parse_stream_chunk(text[i : i + 3]) for i in range(0, len(text), 3)] + [parser.parse_stream_end()]
        assert ("".join(r or "" for r, _ in pieces), "".join(n or "" for _, n in pieces)) == whole
        normal, calls = FunctionCallParser([Tool(type="function", function=Function(name="get_weather", parameters=GET_WEATHER["function"]["parameters"]))], "thinkgate_" + name).parse_non_stream(whole[1])
        assert normal == "" and [(c.name, c.parameters) for c in calls] == [("get_weather", '{"city": "Paris", "days": 2}')]
    # no tool parser: the marker is reasoning text; an output that closes its reasoning answers after it
    assert ReasoningParser("thinkgate_" + name).parse_non_stream(text) == ("Plan: call it." + call, "")
    assert ReasoningParser("thinkgate_" + name).parse_non_stream(opened + "Plan." + fmt.reasoning.close + "Hi.") == ("Plan.", "Hi.")
