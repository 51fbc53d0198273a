"""Infer a model's chat format from its chat template, by rendering the template and reading the output.

``detect(tokenizer_or_template)`` renders the template (with Hugging Face's own Jinja setup, so it
behaves as ``apply_chat_template`` does) on probe conversations and compares the renders:

* **tool calls**: an assistant turn with one call, then with two, with distinctive names and
  arguments. A candidate format fits when its exact call text (``ToolCallFormat.call_text``, with
  the arguments spelled as the template spelled them) appears for every call, in order, joined by
  its separator, after its section marker. Junk before the section (``None`` for empty content)
  and a section end left out after a single call are tolerated: real templates do both.
* **harmony** (gpt-oss): a candidate whose output is channel messages is not found by its exact
  call text, since gpt-oss's template writes the recipient before the channel
  (``<|start|>assistant to=functions.NAME<|channel|>commentary json<|message|>…``) and only the
  first call of a turn; the renders are read with the format's own parser instead, and it fits
  when the probe calls (the first of two, at least) come out with their arguments.
* **reasoning**: the prompt (``add_generation_prompt=True``) under thinking on, off and unset, and
  an assistant turn whose ``reasoning_content`` is a probe. Markers come from the text around the
  rendered reasoning, else from what the thinking toggle adds to the prompt, else from a tag the
  prompt ends in whose closing twin (``<x>`` / ``</x>``) the template source spells. A prompt that
  ends in the open marker when nothing asks for thinking means the template forces reasoning open
  (``default_thinking=True``). The toggle is the keyword (``thinking`` or ``enable_thinking``)
  that alone changes the prompt as both do.

The result is a registered format when one fits both; when the tool layout is registered but the
reasoning differs, a derived format (``dataclasses.replace``) named ``"<name>:detected"`` with the
inferred reasoning. Formats that share a tool layout (R1 and V3-0324) are told apart by reasoning.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
from typing import Any, Callable, Iterable, Optional, Union

from .formats.base import ChatFormat, ReasoningFormat, ToolCallFormat
from .formats.registry import get_format, registered

__all__ = ["detect"]

# Probe values no template or tool schema writes on its own, so finding them locates the calls.
_CALLS = (("probe_lookup", {"city": "Qzxville"}), ("probe_convert", {"amount": 7, "unit": "kg"}))
_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": "probe tool",
            "parameters": {"type": "object", "properties": {k: {"type": "string"} for k in args}},
        },
    }
    for name, args in _CALLS
]
_REASONING = "REASONING_PROBE_5b1"
_ANSWER = "ANSWER_PROBE_5b1"
# Real templates read the toggle under either name (DeepSeek V3.1: thinking; Qwen3: enable_thinking).
_TOGGLES: dict[Optional[bool], dict[str, bool]] = {
    None: {},
    True: {"thinking": True, "enable_thinking": True},
    False: {"thinking": False, "enable_thinking": False},
}
# A marker as chat templates spell them: <think>, </think>, <｜tool▁sep｜>, <|im_start|>, [THINK].
_TAG = re.compile(r"<[^<>\s]{1,64}>|\[[^\[\]\s]{1,64}\]")

Renderer = Callable[..., Optional[str]]


def detect(
    tokenizer_or_template: Any, *, formats: Optional[Iterable[Union[str, ChatFormat]]] = None
) -> ChatFormat:
    """The chat format a chat template writes.

    ``tokenizer_or_template`` is a Jinja template source, or an object with ``chat_template`` (a
    source, or a dict of named sources: ``"tool_use"`` is preferred, then ``"default"``, then the
    first).
    ``formats`` are the candidates (names or formats); by default every registered format.

    Returns the registered format that fits, or a derived ``"<name>:detected"`` format whose tool
    layout is registered but whose reasoning (markers, forced-open start) is the template's.
    Raises ``ValueError`` naming what could not be inferred: no template, a template that does not
    compile, one that renders no tool calls, or calls in no layout among the candidates.
    """
    source, specials = _template_of(tokenizer_or_template)
    candidates = registered() if formats is None else [get_format(f) for f in formats]
    if not candidates:
        raise ValueError("no candidate formats to detect among")
    render = _renderer(source, specials)
    matched = _match_tools(render, candidates)
    # The whole prompt, not only what add_generation_prompt adds: the model continues from its end,
    # and V3-0324 writes <｜Assistant｜> in the user turn (the generation prompt adds nothing there).
    prompts = {t: render(_user_turn(), add_generation_prompt=True, **kw) for t, kw in _TOGGLES.items()}
    found_open, found_close = _markers(render, prompts, source)
    return _choose(matched, found_open, found_close, prompts[None], _toggle(render, prompts))


# --- the template and how to render it ---------------------------------------------------------


def _template_of(obj: Any) -> tuple[str, dict[str, str]]:
    if isinstance(obj, str):
        return obj, {"bos_token": "", "eos_token": ""}
    if not hasattr(obj, "chat_template"):
        raise TypeError(f"detect() takes a chat template source or a tokenizer, not {type(obj).__name__}")
    template = obj.chat_template
    if isinstance(template, dict):  # named templates: the tool-use one is the one that renders calls
        template = template.get("tool_use") or template.get("default") or next(iter(template.values()), None)
    if not template:
        raise ValueError(
            f"{type(obj).__name__} has no chat template to detect a format from; "
            "set tokenizer.chat_template or pass the template source"
        )
    # Templates write bos_token/eos_token; a tokenizer without them renders them empty.
    specials = {k: getattr(obj, k, None) or "" for k in ("bos_token", "eos_token")}
    return template, {k: v if isinstance(v, str) else "" for k, v in specials.items()}


def _renderer(source: str, specials: dict[str, str]) -> Renderer:
    """A render function with the Jinja environment Hugging Face uses (its filters, globals and
    extensions), so the template behaves exactly as under ``apply_chat_template``. A render the
    template refuses (``raise_exception``, ``str + None``) returns ``None``: it is no evidence."""
    try:
        from transformers.utils.chat_template_utils import _compile_jinja_template as compile_template
    except ImportError:  # a transformers without it: the same setup, written out
        compile_template = _fallback_compile
    try:
        from transformers.utils.chat_template_utils import render_jinja_template
    except ImportError:
        render_jinja_template = None
    try:
        compiled = compile_template(source)
    except Exception as e:
        raise ValueError(f"the chat template does not compile: {e}") from e

    def render(messages: list[dict], add_generation_prompt: bool = False, tools: Optional[list] = None, **kw: Any) -> Optional[str]:
        try:
            if render_jinja_template is not None:
                out, _ = render_jinja_template(
                    conversations=[messages], tools=tools, chat_template=source, add_generation_prompt=add_generation_prompt, **specials, **kw
                )
                return out[0]
            return compiled.render(messages=messages, tools=tools, add_generation_prompt=add_generation_prompt, **specials, **kw)
        except Exception:
            return None

    return render


def _fallback_compile(source: str) -> Any:
    import datetime

    import jinja2
    import jinja2.ext
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    def raise_exception(message: str) -> None:
        raise jinja2.exceptions.TemplateError(message)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = lambda x, indent=None, separators=None, sort_keys=False, ensure_ascii=False: json.dumps(
        x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.datetime.now().strftime(fmt)
    return env.from_string(source)


# --- tool calls ---------------------------------------------------------------------------------


def _user_turn() -> list[dict]:
    return [{"role": "system", "content": "You are a probe."}, {"role": "user", "content": "Question?"}]


def _tool_conversations(n: int, call_id: str) -> Iterable[list[dict]]:
    """Conversations with one assistant turn of ``n`` calls, in the variants templates differ on:
    content None or "" (some drop the calls for one of them, some fail on None), arguments as a
    JSON string (DeepSeek templates concatenate them) or a dict (Qwen2.5 always ``tojson``s them),
    followed by a user turn or not."""
    ids = _probe_ids(n, call_id)
    for content, as_string, then_user in itertools.product((None, ""), (True, False), (True, False)):
        calls = [
            {"id": ids[i], "type": "function", "function": {"name": name, "arguments": json.dumps(args) if as_string else args}}
            for i, (name, args) in enumerate(_CALLS[:n])
        ]
        results = [{"role": "tool", "tool_call_id": ids[i], "name": name, "content": f"result {i}"} for i, (name, _) in enumerate(_CALLS[:n])]
        after = [{"role": "user", "content": "Thanks."}] if then_user else []
        yield [*_user_turn(), {"role": "assistant", "content": content, "tool_calls": calls}, *results, *after]


def _probe_ids(n: int, call_id: str) -> list[str]:
    """The probe calls' ids: the format's own where it has them (Kimi-K2), else nine letters and
    digits, the one shape every template accepts (Mistral's refuse any other)."""
    return [call_id.replace("{name}", name).replace("{index}", str(i)) if call_id else f"probe{i:04d}" for i, (name, _) in enumerate(_CALLS[:n])]


def _spellings(text: str, value: dict) -> list[str]:
    """Every spelling of the JSON object ``value`` in ``text`` (templates differ in spacing)."""
    out: list[str] = []
    decoder = json.JSONDecoder()
    for m in re.finditer(r"\{", text):
        try:
            obj, end = decoder.raw_decode(text, m.start())
        except ValueError:
            continue
        if obj == value and text[m.start() : end] not in out:
            out.append(text[m.start() : end])
    return out


def _section_length(tools: ToolCallFormat, text: str, n: int) -> Optional[int]:
    """The length of ``tools``' section of the ``n`` probe calls in ``text``, or None if absent."""
    # Parameters (XmlArguments) are written one way; JSON is found as the template spelled it.
    spell = (lambda a: [json.dumps(a)]) if tools.xml is not None else (lambda a: _spellings(text, a))
    # Call objects may hold the call's id, as templates write it back (Mistral's).
    ids = [_probe_ids(n, tools.call_id), [""] * n] if tools.id_key else [[""] * n]
    for args, call_ids in itertools.product(itertools.product(*(spell(a) for _, a in _CALLS[:n])), ids):
        calls = [tools.call_text(name, a, i, call_ids[i]) for i, ((name, _), a) in enumerate(zip(_CALLS, args))]
        # (an array may follow its marker after a space: Mistral 7B v0.3's template writes one)
        for body in {tools.section_begin + space + tools.array[0] + tools.separator.join(calls) for space in ("", " " if tools.array[0] else "")}:
            at = text.find(body)
            # A section end left out after a single call is tolerated; after several it must be there.
            if at >= 0 and (n == 1 or text.startswith(tools.array[1] + tools.section_end, at + len(body))):
                return len(body)
    return None


def _messages_length(fmt: ChatFormat, text: str, n: int) -> Optional[int]:
    """For a format of channel messages: the length of the probe calls the format's parser reads
    in ``text`` (the first ``k`` of the ``n`` probes, ``k`` at least 1: gpt-oss's template writes
    one call per turn), or None."""
    from .parsing import parse

    message = parse(text, format=fmt, thinking="auto", on_invalid_call="drop")
    calls = [(c.name, json.loads(c.arguments)) for c in message.tool_calls]
    probes = [(name, args) for name, args in _CALLS[:n]]
    if not calls or calls != probes[: len(calls)]:
        return None
    return sum(len(fmt.tools.call_text(name, json.dumps(args))) for name, args in calls)


def _match_tools(render: Renderer, candidates: list[ChatFormat]) -> list[ChatFormat]:
    """The candidates whose tool layout the template writes; the most specific (longest match) win."""
    renders: dict[str, dict[int, list[str]]] = {}
    for call_id in {c.tools.call_id for c in candidates}:  # Kimi-K2 writes call ids into the header
        renders[call_id] = {}
        for n in (1, 2):
            texts = (render(conv, tools=_TOOLS) for conv in _tool_conversations(n, call_id))
            renders[call_id][n] = [t for t in texts if t is not None]
    scores: list[Optional[int]] = []
    for c in candidates:
        # One call and two calls must each be found in some variant (R1 writes calls only when the
        # content is None); a longer match is a more specific layout.
        length = _messages_length if c.tools.messages is not None else _section_length
        # A template that refuses several calls in a turn (Llama 3.1's raises) is judged by one.
        by_n = {n: texts for n, texts in renders[c.tools.call_id].items() if texts or n == 1}
        found = [[x for x in (length(c if c.tools.messages else c.tools, t, n) for t in texts) if x] for n, texts in by_n.items()]
        scores.append(sum(max(f) for f in found) if all(found) else None)
    if any(s is not None for s in scores):
        top = max(s for s in scores if s is not None)
        return [c for c, s in zip(candidates, scores) if s == top]
    raise ValueError(_no_layout(renders, candidates))


def _no_layout(renders: dict[str, dict[int, list[str]]], candidates: list[ChatFormat]) -> str:
    """Why no candidate's tool layout was found."""
    what = "could not infer the tool-call format: "
    tried = f"formats tried: {', '.join(c.name for c in candidates)}"
    texts = [t for by_n in renders.values() for ts in by_n.values() for t in ts]
    if not texts:
        return what + f"the template fails on every conversation with tool calls ({tried})"
    value = _CALLS[0][1]["city"]  # written only where a call's arguments are
    shown = next((t for t in texts if value in t), None)
    if shown is None:
        return what + f"the template renders no tool calls (an assistant turn's tool_calls never appear in its output; {tried})"
    at = shown.find(value)
    snippet = shown[max(0, at - 100) : at + 100]
    return what + f"the template renders tool calls in a layout no candidate matches ({tried}); a call renders as {snippet!r}"


# --- reasoning ----------------------------------------------------------------------------------


def _pieces(text: str) -> list[str]:
    """``text`` cut into tags and the text between them (so diffs never split a marker)."""
    return [p for p in re.split(f"({_TAG.pattern})", text) if p]


def _tags_only(pieces: list[str]) -> Optional[list[str]]:
    """The tags of ``pieces`` if everything else is whitespace, else None."""
    if any(not _TAG.fullmatch(p) and not p.isspace() for p in pieces):
        return None
    return [p for p in pieces if _TAG.fullmatch(p)]


def _twin(tag: str) -> str:
    """The closing twin of an opening tag: ``<think>`` → ``</think>``, ``[THINK]`` → ``[/THINK]``."""
    return tag[0] + "/" + tag[1:]


def _markers(render: Renderer, prompts: dict[Optional[bool], Optional[str]], source: str) -> tuple[Optional[str], Optional[str]]:
    """The reasoning markers the template writes, each None where no render shows it."""
    # 1. Around rendered reasoning. Many templates drop it from history, so this may find nothing.
    turn = {"role": "assistant", "content": _ANSWER, "reasoning_content": _REASONING, "reasoning": _REASONING}
    history = ""
    for kw in (_TOGGLES[None], _TOGGLES[True]):
        text = render([*_user_turn(), turn], **kw) or ""
        history += text
        i, j = text.find(_REASONING), text.find(_ANSWER)
        if 0 <= i < j:
            before = _pieces(text[:i].rstrip())[-1:]
            between = _tags_only(_pieces(text[i + len(_REASONING) : j]))  # only the close marker
            if before and _TAG.fullmatch(before[0]) and between and len(between) == 1 and between != before:
                return before[0], between[0]
    open_, close = None, None
    # 2. What the thinking toggle changes at the end of the prompt: V3.1 writes <think> or </think>;
    #    Qwen3 writes nothing or an empty <think>\n\n</think>\n\n.
    on, off = prompts[True], prompts[False]
    if on is not None and off is not None and on != off:
        a, b = _pieces(on), _pieces(off)
        k = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        tags_on, tags_off = _tags_only(a[k:]), _tags_only(b[k:])
        if tags_on is not None and tags_off is not None:
            if len(tags_off) == 2 and not tags_on:
                open_, close = tags_off
            else:
                open_ = tags_on[0] if len(tags_on) == 1 else None
                close = tags_off[0] if len(tags_off) == 1 else None
    # 3. A tag the prompt ends in whose closing twin the template spells but never writes after a
    #    turn (R1 drops reasoning from history, ends the prompt in <think>\n and splits answers on
    #    '</think>'; a role tag such as <assistant> is closed after every assistant turn).
    for prompt in (prompts[None], on):
        if open_ is None and prompt:
            last = _pieces(prompt.rstrip())[-1:]
            if last and _TAG.fullmatch(last[0]) and _twin(last[0]) in source and _twin(last[0]) not in history:
                open_ = last[0]
    if open_ is not None and close is None and _twin(open_) in source:
        close = _twin(open_)
    return open_, close


def _toggle(render: Renderer, prompts: dict[Optional[bool], Optional[str]]) -> Optional[str]:
    """The keyword that switches thinking: the one that alone changes the prompt as both do."""
    if prompts[True] is None or prompts[True] == prompts[False]:
        return None
    for key in _TOGGLES[True]:
        if all(render(_user_turn(), add_generation_prompt=True, **{key: on}) == prompts[on] for on in (True, False)):
            return key
    return None


def _choose(matched: list[ChatFormat], open_: Optional[str], close: Optional[str], prompt: Optional[str], toggle: Optional[str]) -> ChatFormat:
    """The first matched format whose reasoning is the template's, else one derived from the best."""

    def inferred(c: ChatFormat) -> ReasoningFormat:
        # A marker no render shows is taken to be the format's own (no evidence against it).
        r = c.reasoning
        o, cl = open_ or r.open, close or r.close
        forced = bool(o) and prompt is not None and prompt.rstrip().endswith(o)
        # Not forced open: the output starts where the prompt says, else as the format says, but
        # not inside reasoning (a format that assumes it, R1, would read answers as thinking).
        default = True if forced else (r.default_thinking if r.default_thinking is not True else "auto")
        # Likewise a toggle: a template without one (Qwen2.5's) still fits the format that has one.
        # A format without one (R1) is not told apart by it: thinkgate's own templates add one.
        return dataclasses.replace(r, open=o, close=cl, default_thinking=default, toggle=(toggle or r.toggle) if r.toggle else "")

    def agreement(c: ChatFormat) -> int:
        r, i = c.reasoning, inferred(c)
        return (r.open == i.open) + (r.close == i.close) + (r.default_thinking == i.default_thinking) + (r.toggle == i.toggle)

    # Formats that share a tool layout and reasoning (Qwen3, Granite 4, EXAONE 4) are told apart
    # by the end-of-turn marker the template writes; max keeps the first of equals: registry order.
    best = max(matched, key=lambda c: (agreement(c), bool(prompt) and c.eos in prompt))
    reasoning = inferred(best)
    if reasoning == best.reasoning:
        return best
    return dataclasses.replace(
        best,
        name=f"{best.name}:detected",
        reasoning=reasoning,
        aliases=(),
        description=f"{best.name}'s tool layout, reasoning as detected from a chat template",
    )
