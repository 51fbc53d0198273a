"""Routed grammars (agent-size tool sets, see thinkgate.constraint.runtime.routed): a router compiled
per tool set and one grammar per tool, compiled when a call names it. The threshold is lowered
(``route_from=1``) so that a 60-tool set is routed and quick to compile here.

Every sample is a real random walk (a uniformly random token among those the row allows) with
the real DeepSeek tokenizer, parsed, and every call validated against its tool's schema."""

from __future__ import annotations

import copy
import json

import jsonschema
import numpy as np
import pytest
import xgrammar as xgr

from schemas import REALISTIC
from thinkgate import parse
from thinkgate.constraint import ReasonerGrammar, compile_tool_grammar, grammar_cache
from thinkgate.constraint.schemas.examples import example_value
from thinkgate.constraint.grammar.structural_tag import build_spec
from thinkgate.constraint.runtime.vocabulary import vocabulary_for
from thinkgate.formats import get_format


def _generated(i: int) -> dict:
    """Tool ``i`` of the set: the realistic schemas renamed, and generated ones of every
    shape a walk meets (enums, bounded numbers and strings, nested arrays of objects)."""
    kind = i % 6
    if kind < 4:
        tool = copy.deepcopy(REALISTIC[kind])
        tool["function"]["name"] = f"{tool['function']['name']}_{i}"
        return tool
    props = {
        "mode": {"enum": [f"m{i}", "fast", "slow"]},
        "count": {"type": "integer", "minimum": 0, "maximum": 9 + i},
        "label": {"type": "string", "maxLength": 6},
        "on": {"type": "boolean"},
    }
    if kind == 5:
        props["items"] = {
            "type": "array",
            "maxItems": 2,
            "items": {"type": "object", "properties": {"k": {"type": "string", "maxLength": 4}, "v": {"type": "number"}}, "required": ["k"], "additionalProperties": False},
        }
    required = sorted(props)[: 1 + i % 3]
    return {"type": "function", "function": {"name": f"op{i}_{'x' * (i % 3)}", "parameters": {"type": "object", "properties": props, "required": required, "additionalProperties": False}}}


TOOLS = [_generated(i) for i in range(60)]
SCHEMAS = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}
VALIDATORS = {n: jsonschema.Draft202012Validator(s, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER) for n, s in SCHEMAS.items()}
NAMED = "op5_xx"
CHOICES = {"auto": "auto", "required": "required", "named": {"type": "function", "function": {"name": NAMED}}, "none": "none"}
STEPS = 500


def _allowed(g: ReasonerGrammar, bitmask, vocab_size: int) -> np.ndarray:
    if g.needs_bitmask and g.fill_bitmask(bitmask, 0):
        return np.flatnonzero(np.unpackbits(bitmask[0].numpy().view(np.uint8), bitorder="little")[:vocab_size])
    return np.arange(vocab_size)


def _walk(tokenizer, grammar, rng, thinking=False, close_after=40):
    """One output: a uniformly random allowed token per step; under "auto" the tool section is
    opened at the third step, under "none" the output ends after a few; past ``close_after``
    steps a closing token (quote, bracket, marker, end) is taken wherever one is allowed, so
    that free strings end (still only tokens the row allows)."""
    vocab = vocabulary_for(tokenizer)
    bitmask = xgr.allocate_token_bitmask(1, vocab.size)
    closers = np.array(sorted({*vocab.control_ids, *grammar.stop_ids, *(i for i, b in enumerate(vocab.token_bytes) if b and not b.strip(b'"}]'))}))
    # the tool markup opened at the third step (bare JSON calls: by a "{" first)
    t = grammar.format.tools
    trigger, at = (vocab.token_id(t.trigger), 3) if t.trigger else (tokenizer.encode("{", add_special_tokens=False)[0], 0)
    g = ReasonerGrammar(grammar, thinking=thinking, thinking_budget=2 if thinking else None)
    ids = []
    for step in range(STEPS):
        allowed = _allowed(g, bitmask, vocab.size)
        tid = int(rng.choice(allowed))
        if grammar.choice == "auto" and step == at and trigger in allowed:
            tid = trigger
        late = np.intersect1d(allowed, closers) if step >= (12 if grammar.choice == "none" else close_after) else ()
        if len(late):
            tid = int(rng.choice(late))
        assert g.accept_token(tid), g.error
        ids.append(tid)
        if g.is_terminated():
            break
    assert g.is_terminated(), "the walk did not end"
    return ids


def _calls(tokenizer, fmt, ids, thinking=False):
    body = ids[:-1]
    text = tokenizer.decode(body, skip_special_tokens=False, clean_up_tokenization_spaces=False)
    m = parse(text, format=fmt, thinking=thinking, token_ids=body, tokenizer=tokenizer, tools=TOOLS, on_invalid_call="content")
    assert not m.invalid_tool_calls, [c.error for c in m.invalid_tool_calls]
    for call in m.tool_calls:
        errors = [e.message for e in VALIDATORS[call.name].iter_errors(json.loads(call.arguments))]
        assert not errors, (call.name, call.arguments, errors)
    return m.tool_calls


# Every served layout: headers before JSON (DeepSeek, Kimi-K2), call objects after a begin
# marker (Qwen3, EXAONE 4), bare and array JSON calls (Llama 3, Mistral's array, Nemotron v2),
# parameters (Qwen3-Coder, GLM-4.5). The default run samples one format of each layout new to
# routing under the choices most used; the rest is slow.
_FAST = {("qwen3", "auto"), ("qwen3", "required"), ("llama3_json", "auto"), ("qwen3_coder", "required")}
_NEW = ("qwen3", "exaone4", "llama3_json", "mistral_json", "nemotron_v2", "qwen3_coder", "glm45")
SAMPLED = [(f, c) for f in ("deepseek_v3_1", "deepseek_r1", "kimi_k2") for c in CHOICES] + [
    pytest.param(f, c, marks=() if (f, c) in _FAST else pytest.mark.slow) for f in _NEW for c in CHOICES
]


@pytest.mark.parametrize("fmt, choice", SAMPLED)
def test_routed_samples_are_valid_calls(tokenizer_for, fmt, choice):
    tok = tokenizer_for(fmt)
    grammar = compile_tool_grammar(tok, fmt, TOOLS, CHOICES[choice], route_from=1)
    assert (grammar.calls is not None) == (choice != "none")
    rng = np.random.default_rng(sum(map(ord, fmt + choice)))
    names = []
    for k in range(4):
        thinking = k % 2 == 1 and choice in ("required", "auto") and grammar.format.reasoning.present
        calls = _calls(tok, fmt, _walk(tok, grammar, rng, thinking=thinking), thinking=thinking)
        names += [c.name for c in calls]
        if choice in ("required", "named"):
            assert calls
        if choice == "named":
            assert {c.name for c in calls} == {NAMED}
        if choice == "none":
            assert not calls
    if choice == "auto":
        assert names  # the section was opened and the calls walked


def _row(g, bitmask):
    g.fill_bitmask(bitmask, 0)
    return bitmask[0].clone()


@pytest.mark.parametrize(
    "fmt",
    ["deepseek_v3_1", "deepseek_r1", "kimi_k2", "qwen3", "llama3_json", "glm45"]
    + [pytest.param(f, marks=pytest.mark.slow) for f in ("granite4", "mistral_json", "nemotron_v2", "qwen3_coder", "qwen3_5", "seed_oss")],
)
def test_router_and_full_grammar_allow_the_same_tokens(tokenizer_for, fmt):
    """Along example calls of every tool (one alone, and two in one section) and along random
    walks, the routed grammar's row (router, then the tool's) equals the full grammar's, token
    for token; so it does again after a rollback to a random point of the output."""
    tok = tokenizer_for(fmt)
    # (parameters compile slowly: fewer tools, among them the one whose header GLM-4.5's
    # tokens write past, judged by its own grammar)
    tools = TOOLS[:6] if get_format(fmt).tools.xml is None else TOOLS[:3]
    routed = compile_tool_grammar(tok, fmt, tools, "required", route_from=1)
    full = compile_tool_grammar(tok, fmt, tools, "required", route_from=None)
    assert routed.calls is not None and full.calls is None
    t = routed.format.tools
    examples = [(s["function"]["name"], json.dumps(example_value(s["function"]["parameters"]), ensure_ascii=False)) for s in tools]
    outputs = [tok.encode(t.section_text(calls), add_special_tokens=False) for calls in ([e] for e in examples)]
    outputs += [tok.encode(t.section_text(examples[k : k + 2]), add_special_tokens=False) for k in range(0, len(examples) - 1, 2)]
    rng = np.random.default_rng(7)
    outputs += [_walk(tok, routed, rng)[:-1] for _ in range(2)]
    vocab = vocabulary_for(tok)
    bitmask = xgr.allocate_token_bitmask(1, vocab.size)
    walked = by_tool = 0

    def along(a, b, ids):
        nonlocal by_tool
        for n, i in enumerate(ids):
            assert bool((_row(a, bitmask) == _row(b, bitmask)).all()), tok.decode(ids[: n + 1])
            by_tool += a._matcher._tool is not None  # the row was the tool's grammar's
            taken = a.accept_token(i)
            assert taken == b.accept_token(i), (a.error, b.error)
            if not taken:  # an example's properties in an order the grammars do not write
                return n
        return len(ids)

    for ids in outputs:
        a, b = ReasonerGrammar(routed, thinking=False), ReasonerGrammar(full, thinking=False)
        n = along(a, b, ids)
        walked += n == len(ids)
        if n == len(ids) and n > 2:
            back = int(rng.integers(1, n))
            a.rollback(back)
            b.rollback(back)
            along(a, b, ids[n - back :])
    assert walked >= len(outputs) // 2
    assert by_tool > len(outputs) * 5


def test_tool_grammars_are_shared_across_tool_sets(tokenizer):
    """Two tool sets that share a tool compile its call grammar once; a rollback across the
    call's start drops the tool's matcher, and the call is taken again the same way."""
    fmt = "deepseek_v3_1"
    shared = TOOLS[25]
    first = compile_tool_grammar(tokenizer, fmt, TOOLS[:30], "required", route_from=1)
    second = compile_tool_grammar(tokenizer, fmt, TOOLS[20:50], "required", route_from=1)
    assert first is not second
    calls = grammar_cache(tokenizer).calls
    name = shared["function"]["name"]
    ids = tokenizer.encode(first.format.tools.section_text([(name, json.dumps(example_value(shared["function"]["parameters"])))]), add_special_tokens=False)
    before = (calls.hits, calls.misses)
    for grammar in (first, second):
        g = ReasonerGrammar(grammar, thinking=False)
        assert g.accept_tokens(ids), g.error
        g.rollback(len(ids) - 2)  # back before the tool's name
        assert g._matcher._tool is None
        assert g.accept_tokens(ids[2:] + [grammar.stop_ids[0]]), g.error
        assert g.is_terminated()
    hits, misses = calls.hits - before[0], calls.misses - before[1]
    assert misses <= 1 and hits >= 3  # compiled at most once (an earlier test may have), then found


@pytest.mark.parametrize("fmt", ["deepseek_v3_1", "qwen3"])
def test_a_tool_compiles_ahead_once_its_name_is_unique(tokenizer_for, fmt):
    """While a call writes its tool's name, the tool's grammar starts compiling in the
    background as soon as what is written names one tool only: before the name (or header) is
    complete, so the step that needs it waits less."""
    tok = tokenizer_for(fmt)
    tools = copy.deepcopy(TOOLS[:6])
    for tool in tools:  # names no other test compiled
        tool["function"]["name"] = "ahead_" + fmt + "_" + tool["function"]["name"]
    grammar = compile_tool_grammar(tok, fmt, tools, "required", route_from=1)
    target = 3
    name = tools[target]["function"]["name"]
    arguments = json.dumps(example_value(tools[target]["function"]["parameters"]))
    ids = tok.encode(grammar.format.tools.section_text([(name, arguments)]), add_special_tokens=False)
    entries = grammar.calls.cache.futures.entries
    key = grammar.calls._key(target)
    g = ReasonerGrammar(grammar, thinking=False)
    compiling = named = None
    for step, i in enumerate(ids):
        assert g.accept_token(i), g.error
        g.fill_bitmask(xgr.allocate_token_bitmask(1, vocabulary_for(tok).size), 0)
        if compiling is None and key in entries:
            compiling = step
        if named is None and g._matcher._tool is not None:
            named = step
    assert compiling is not None and named is not None and compiling < named, (compiling, named)
    assert [k for k in entries if "ahead_" + fmt in k] == [key]  # no other tool of the set compiled


def test_a_tool_queued_for_the_background_is_compiled_by_the_call_that_needs_it(tokenizer):
    """A call does not wait behind other tools' background compiles: the tool it needs, still
    queued, is compiled where it is needed (and the queued task then finds it done)."""
    import threading

    from thinkgate.constraint.runtime.routed import _background

    grammar = compile_tool_grammar(tokenizer, "deepseek_v3_1", TOOLS[:40], "required", route_from=1)
    calls = grammar.calls
    release = threading.Event()
    busy = _background().submit(release.wait, 60)  # the one background thread, held
    try:
        calls.cache.prefetch(calls._key(39))
        compiled = threading.Event()
        threading.Thread(target=lambda: calls.compiled(39) and compiled.set(), daemon=True).start()
        assert compiled.wait(20)  # while the background thread is still held
        assert not busy.done()
    finally:
        release.set()
    busy.result()


@pytest.mark.parametrize("fmt", ["qwen3", "qwen3_coder"])
def test_a_tool_held_only_to_an_object_is_held_to_one(tokenizer_for, fmt):
    """A tool whose function.strict is false is held to a JSON object (level 1) among tools
    held to their schemas: in a call object the router's "any object" is its own; parameters
    get its own grammar too (the router's arguments are any text), so its rows are the full
    grammar's and its arguments stay an object the parser reads."""
    tok = tokenizer_for(fmt)
    tools = copy.deepcopy(TOOLS[:3])
    tools[1]["function"]["strict"] = False
    routed = compile_tool_grammar(tok, fmt, tools, "required", route_from=1)
    full = compile_tool_grammar(tok, fmt, tools, "required", route_from=None)
    name = tools[1]["function"]["name"]
    ids = tok.encode(routed.format.tools.section_text([(name, json.dumps({"anything": [1, "two"]}))]), add_special_tokens=False)
    vocab = vocabulary_for(tok)
    bitmask = xgr.allocate_token_bitmask(1, vocab.size)
    a, b = ReasonerGrammar(routed, thinking=False), ReasonerGrammar(full, thinking=False)
    for n, i in enumerate(ids + [routed.stop_ids[0]]):
        assert bool((_row(a, bitmask) == _row(b, bitmask)).all()), tok.decode(ids[: n + 1])
        assert a.accept_token(i) and b.accept_token(i), (a.error, b.error)
    assert a.is_terminated()
    assert (routed.calls.tags[1] is None) == (fmt == "qwen3")


def test_a_token_the_tool_refuses_ends_the_request(tokenizer):
    """The router alone would take any object; the tool's grammar refuses arguments off its
    schema, and so does the request."""
    grammar = compile_tool_grammar(tokenizer, "deepseek_v3_1", TOOLS, "required", route_from=1)
    text = grammar.format.tools.section_text([("get_weather_0", '{"city": "Paris", "days": 99}')])
    ids = tokenizer.encode(text, add_special_tokens=False)
    g = ReasonerGrammar(grammar, thinking=False)
    assert not g.accept_tokens(ids)
    assert "not allowed by the tool grammar" in g.error


def test_a_token_that_could_close_a_name_and_open_its_arguments_keeps_the_full_grammar(qwen_tokenizer, monkeypatch):
    """Where a token could close a call object's name and reach into its arguments, the router
    alone would judge it (the tool is not known before it): such a vocabulary is not routed."""
    from thinkgate.constraint.grammar.compiled import GrammarCache

    vocab = vocabulary_for(qwen_tokenizer)
    tools = TOOLS[:4]
    assert GrammarCache(vocab).get("qwen3", tools, "required", route_from=1).calls is not None
    crossing = list(vocab.token_bytes)
    crossing[vocab.tokenizer.encode("xyz", add_special_tokens=False)[0]] = b'", "arguments": {"'
    monkeypatch.setattr(vocab, "token_bytes", crossing)
    assert GrammarCache(vocab).get("qwen3", tools, "required", route_from=1).calls is None


def test_the_shared_token_masks_are_what_they_say(tokenizer):
    """The masks routed matchers share, counted over the whole vocabulary at once, against
    their definitions token by token: tokens that could close a call object ``d`` deep (after
    a quote, from inside a string), and tokens holding a header's last byte before their own."""
    from thinkgate.constraint.runtime.routed import CallGrammars
    from thinkgate.constraint.runtime.vocabulary import pack

    vocab = vocabulary_for(tokenizer)
    tb, words = vocab.token_bytes, (vocab.size + 31) // 32
    masks = CallGrammars(vocab.compiler)

    def closers(b: bytes, in_string: bool) -> int:
        if in_string:
            b = b[b.index(b'"') + 1 :] if b'"' in b else b""
        return b.count(b"}") + b.count(b"]")

    for depth in (1, 2, 3):
        for in_string in (False, True):
            expected = pack([i for i, b in enumerate(tb) if closers(b, in_string) >= depth], words * 32)
            assert (masks.closing(tb, words, depth, in_string) == expected).all(), (depth, in_string)
    expected = pack([i for i, b in enumerate(tb) if b"\n" in b[:-1]], words * 32)
    assert (masks.crossing(tb, words, b"\n") == expected).all()


def test_below_the_threshold_nothing_changes(tokenizer):
    grammar = compile_tool_grammar(tokenizer, "deepseek_v3_1", TOOLS[:10], "auto")
    assert grammar.calls is None


@pytest.mark.parametrize("fmt, routed", [("deepseek_v3_1", True), ("kimi_k2", True), ("qwen3", True), ("granite4", True), ("llama3_json", True), ("mistral_json", True), ("qwen3_coder", True), ("glm45", True), ("glm47", False), ("minimax_m2", False), ("gpt_oss", False)])
def test_which_formats_are_routed(fmt, routed):
    """Calls that name their tool in a header before JSON arguments are routed; call objects,
    parameters and bare JSON calls keep the full grammar (markers given ids, as a tokenizer
    with them as single tokens would)."""
    f = get_format(fmt)
    ids = {m: 200000 + k for k, m in enumerate(f.token_markers)}
    spec = build_spec(f, TOOLS[:6], "auto", marker_ids=ids, control_ids=sorted(ids.values()), ask_xgrammar=False, route_from=1)
    assert (spec.calls is not None) == routed
