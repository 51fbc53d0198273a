"""Infer a model's chat format from its chat template, by rendering the template and reading the output.

``detect(tokenizer_or_template)`` renders the template (with Hugging Face's own Jinja setup, so it
behaves as ``apply_chat_template`` does) on probe conversations and compares the renders:

* **tool calls**: an assistant turn with one call, then with two, with distinctive names and
  arguments, in three tiers. (1) Exact: a candidate fits when its exact call text
  (``ToolCallFormat.call_text``, with the arguments spelled as the template spelled them, a call
  id where the format writes one) appears for every call, in order, joined by its separator,
  after its section marker; junk before the section (``None`` for empty content) and a section
  end left out after a single call are tolerated: real templates do both. (2) Where no candidate
  is exact, the layout and not the bytes: each candidate's own parser reads the rendered
  assistant turn, and of those that read the probe calls the one whose call text is closest to
  the render wins (indented calls, ``"arguments"`` before ``"name"``, tags without newlines).
  (3) Where no parser reads them, a registered layout with the template's own tags where the
  layout has tag markers: the derived format must read the calls with its own parser.
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
inferred reasoning (and the template's thinking toggle); likewise for a layout with new markers.
Formats that share a tool layout (R1 and V3-0324) are told apart by reasoning.
"""

from __future__ import annotations

import dataclasses
import difflib
import itertools
import json
import os
import re
from typing import Any, Callable, Iterable, Optional, Union

from .formats.base import CALL_ID, ChatFormat, ReasoningFormat, Text, ToolCallFormat
from .formats.registry import get_format, registered

__all__ = ["detect"]

# Probe values no template or tool schema writes on its own, so finding them locates the calls.
DERIVED = ":detected"  # a derived format's name is its layout's format's, then this

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

    ``tokenizer_or_template`` is a Jinja template source, an object with ``chat_template`` (a
    source, or a dict of named sources: ``"tool_use"`` is preferred, then ``"default"``, then the
    first), or a path (``os.PathLike``) to a template file, a ``chat_template.json`` or
    ``tokenizer_config.json``, or a model directory holding one (see :func:`read_chat_template`).
    ``formats`` are the candidates (names or formats); by default every registered format.

    Returns the registered format that fits, or a derived ``"<name>:detected"`` format: one whose
    tool layout is registered but whose reasoning (markers, forced-open start, toggle) is the
    template's, or, where no registered layout fits, one whose layout is registered but whose
    tool markers are the template's (text markers, unless the tokenizer given has each as one
    token). Raises ``ValueError`` naming what could not be inferred: no template, a template that
    does not compile, one that renders no tool calls, or calls in no layout among the candidates.
    """
    source, specials, tokenizer = _template_of(tokenizer_or_template)
    # (a format derived by an earlier detect and registered, NAME:detected, is no candidate: the
    # answer must not depend on what this process detected before)
    candidates = [f for f in registered() if not f.name.endswith(DERIVED)] if formats is None else [get_format(f) for f in formats]
    if not candidates:
        raise ValueError("no candidate formats to detect among")
    render = _renderer(source, specials)
    matched = _match_tools(render, candidates, tokenizer)
    # The whole prompt, not only what add_generation_prompt adds: the model continues from its end,
    # and V3-0324 writes <｜Assistant｜> in the user turn (the generation prompt adds nothing there).
    prompts = {t: render(_user_turn(), add_generation_prompt=True, **kw) for t, kw in _TOGGLES.items()}
    found_open, found_close = _markers(render, prompts, source)
    return _choose(matched, found_open, found_close, prompts[None], _toggle(render, prompts))


# --- the template and how to render it ---------------------------------------------------------

# Where a model directory keeps its chat template, in the order read.
_TEMPLATE_FILES = ("chat_template.jinja", "chat_template.json", "tokenizer_config.json")


def read_chat_template(path: Union[str, "os.PathLike[str]"]) -> Union[str, dict[str, str]]:
    """The chat template stored at ``path``: a Jinja file, a JSON file (``chat_template.json``
    or ``tokenizer_config.json``) whose ``"chat_template"`` is a source or a list of
    ``{"name", "template"}`` (returned as a dict of named sources), or a model directory holding
    one of those (``chat_template.jinja``, then ``chat_template.json``, then
    ``tokenizer_config.json``). A ``ValueError`` names the file that is missing or holds none."""
    path = os.fspath(path)
    if os.path.isdir(path):
        for name in _TEMPLATE_FILES:
            if os.path.isfile(os.path.join(path, name)):
                return read_chat_template(os.path.join(path, name))
        raise ValueError(f"{path} holds no chat template (none of {', '.join(_TEMPLATE_FILES)})")
    if not os.path.isfile(path):
        raise ValueError(f"chat template file {path} does not exist")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if not path.endswith(".json"):
        if not text.strip():
            raise ValueError(f"chat template file {path} is empty")
        return text
    try:
        config = json.loads(text)
    except ValueError as e:
        raise ValueError(f"{path} is not JSON: {e}") from None
    template = config.get("chat_template") if isinstance(config, dict) else None
    if isinstance(template, list):  # named templates, as tokenizer_config.json stores them
        template = {t["name"]: t["template"] for t in template if isinstance(t, dict) and isinstance(t.get("name"), str) and isinstance(t.get("template"), str)}
    if not template or not isinstance(template, (str, dict)):
        raise ValueError(f"{path} has no chat_template (a string, or a list of {{name, template}})")
    return template


def _template_of(obj: Any) -> tuple[str, dict[str, str], Any]:
    """The template source, the special tokens it is rendered with, and the tokenizer (or None)."""
    if isinstance(obj, os.PathLike):
        obj = read_chat_template(obj)
    if isinstance(obj, dict):  # named templates read from a file
        obj = _Named(obj)
    if isinstance(obj, str):
        return obj, {"bos_token": "", "eos_token": ""}, None
    if not hasattr(obj, "chat_template"):
        raise TypeError(f"detect() takes a chat template source, a path or a tokenizer, not {type(obj).__name__}")
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
    tokenizer = obj if callable(getattr(obj, "encode", None)) else None
    return template, {k: v if isinstance(v, str) else "" for k, v in specials.items()}, tokenizer


@dataclasses.dataclass
class _Named:
    chat_template: dict[str, str]


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

    lenient: list[Any] = []

    def render(messages: list[dict], add_generation_prompt: bool = False, tools: Optional[list] = None, **kw: Any) -> Optional[str]:
        try:
            if render_jinja_template is not None:
                out, _ = render_jinja_template(
                    conversations=[messages], tools=tools, chat_template=source, add_generation_prompt=add_generation_prompt, **specials, **kw
                )
                return out[0]
            return compiled.render(messages=messages, tools=tools, add_generation_prompt=add_generation_prompt, **specials, **kw)
        except Exception:
            pass
        # Templates written for other Jinja engines (llama.cpp's minja) append to lists and
        # serialise map()'s generators, which Hugging Face's immutable sandbox refuses: what
        # they write is still the model's format.
        try:
            if not lenient:
                lenient.append(_fallback_compile(source, immutable=False))
            return lenient[0].render(messages=messages, tools=tools, add_generation_prompt=add_generation_prompt, **specials, **kw)
        except Exception:
            return None

    return render


def _fallback_compile(source: str, immutable: bool = True) -> Any:
    """Hugging Face's Jinja setup written out; ``immutable=False``: lists may change and
    ``tojson`` reads iterators, as llama.cpp's engine allows."""
    import datetime

    import jinja2
    import jinja2.ext
    from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedEnvironment

    def raise_exception(message: str) -> None:
        raise jinja2.exceptions.TemplateError(message)

    def plain(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: plain(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)) or (not immutable and hasattr(x, "__next__")):
            return [plain(v) for v in x]
        return x

    env = (ImmutableSandboxedEnvironment if immutable else SandboxedEnvironment)(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = lambda x, indent=None, separators=None, sort_keys=False, ensure_ascii=False: json.dumps(
        plain(x), ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
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


def _call_texts(tools: ToolCallFormat, n: int, args: tuple[str, ...], call_ids: list[str]) -> list[str]:
    """The exact text of the ``n`` probe calls, their arguments spelled ``args``; a call id
    given is written where the format writes one: in its call object (Mistral's array) or after
    its id marker in the header (Mistral Small 3.2's ``NAME[CALL_ID]id[ARGS]``)."""
    out = []
    for i, ((name, _), a) in enumerate(zip(_CALLS[:n], args)):
        t = tools
        if call_ids[i] and CALL_ID in tools.header:
            t = dataclasses.replace(tools, header=tools.header.replace(CALL_ID, tools.id_marker + call_ids[i]))
        out.append(t.call_text(name, a, i, call_ids[i] if tools.id_key else ""))
    return out


def _section_length(tools: ToolCallFormat, text: str, n: int) -> Optional[int]:
    """The length of ``tools``' section of the ``n`` probe calls in ``text``, or None if absent."""
    # Parameters (XmlArguments) are written one way; JSON is found as the template spelled it.
    spell = (lambda a: [json.dumps(a)]) if tools.xml is not None else (lambda a: _spellings(text, a))
    # Calls may hold the call's id, as templates write it back (Mistral's).
    ids = [_probe_ids(n, tools.call_id), [""] * n] if tools.id_key or tools.id_marker else [[""] * n]
    for args, call_ids in itertools.product(itertools.product(*(spell(a) for _, a in _CALLS[:n])), ids):
        calls = _call_texts(tools, n, args, call_ids)
        # (an array may follow its marker after a space: Mistral 7B v0.3's template writes one)
        for body in {tools.section_begin + space + tools.array[0] + tools.separator.join(calls) for space in ("", " " if tools.array[0] else "")}:
            at = text.find(body)
            # A section end left out after a single call is tolerated; after several it must be there.
            if at >= 0 and (n == 1 or text.startswith(tools.array[1] + tools.section_end, at + len(body))):
                if not tools.trigger and _wrapped(text, at, at + len(body) + len(tools.array[1])):
                    continue  # another format's tags around calls that have no marker (xLAM's array in <TOOLCALL>…</TOOLCALL>)
                return len(body)
    return None


def _wrapped(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` stands right inside a tag and its closing twin."""
    m = re.search(r"(<[^<>\s/]{1,64}>|\[[^\[\]\s/]{1,64}\])\s*$", text[:start])
    return m is not None and text[end:].lstrip().startswith(_twin(m.group(1)))


def _read_probes(fmt: ChatFormat, text: str, n: int, some: bool = False) -> int:
    """How many probe calls ``fmt``'s own parser reads, with their arguments, in ``text``: ``n``
    or 0 (``some``: the first ``k`` of the ``n``, ``k`` at least 1)."""
    from .parsing import parse

    try:
        message = parse(text, format=fmt, thinking="auto", on_invalid_call="report")
        calls = [(c.name, json.loads(c.arguments)) for c in message.tool_calls]
    except Exception:  # a render this format's parser cannot read at all: no evidence for it
        return 0
    # the closing twin of the format's opening tag left in the text (</function_call> after
    # calls that have no end marker): the template closes what the format does not
    opening = [str(m).strip() for m in (fmt.tools.section_begin, fmt.tools.call_begin) if m]
    if any(_TAG.fullmatch(m) and not m.startswith(("</", "[/")) and _twin(m) in (message.content or "") for m in opening):
        return 0
    # a value nothing types comes back as its text where the format writes parameters as text
    calls = [(name, _as_text(args)) for name, args in calls]
    probes = [(name, _as_text(args)) for name, args in _CALLS[:n]]
    return len(calls) if calls and (calls == probes[: len(calls)] if some else calls == probes) else 0


def _as_text(args: Any) -> Any:
    """Arguments with each top-level value as its text (a string as it is, any other its JSON)."""
    if not isinstance(args, dict):
        return args
    return {k: v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for k, v in args.items()}


def _messages_length(fmt: ChatFormat, text: str, n: int) -> Optional[int]:
    """For a format of channel messages: the length of the probe calls the format's parser reads
    in ``text`` (the first ``k`` of the ``n`` probes, ``k`` at least 1: gpt-oss's template writes
    one call per turn), or None."""
    k = _read_probes(fmt, text, n, some=True)
    return sum(len(fmt.tools.call_text(name, json.dumps(args))) for name, args in _CALLS[:k]) or None


def _turn(text: str, before: Optional[str]) -> str:
    """``text`` from where it leaves ``before`` (the conversation rendered without its assistant
    turn): the assistant turn and what follows it, never the tool definitions or instructions
    (which write example calls) of the system prompt."""
    return text[len(os.path.commonprefix([text, before])) :] if before else text


def _read_score(fmt: ChatFormat, turn: str, n: int) -> Optional[float]:
    """How closely ``turn`` writes ``fmt``'s calls, when ``fmt``'s parser reads the ``n`` probe
    calls in it (else None): the similarity of the format's exact call text and the render from
    the format's first marker on (the characters found in order in both, against the length of
    both). Whitespace and key order aside, a format whose own spelling is closer scores higher (GLM-4.5's ``NAME\\n<arg_key>`` against GLM-4.7's
    ``NAME<arg_key>``)."""
    tools = fmt.tools
    starts = [0]
    if tools.bare:  # calls with no marker are read only where the answer starts with one
        first = turn.find(_CALLS[0][0])
        starts += [m.start() for m in re.finditer(r"\{", turn[: max(first, 0)])]
    for start in starts:
        if _read_probes(fmt, turn[start:], n):
            break
    else:
        return None
    expected = tools.section_around(tools.separator.join(_call_texts(tools, n, tuple(json.dumps(a) for _, a in _CALLS[:n]), [""] * n)))
    at = turn.find(tools.trigger, start) if tools.trigger else -1
    segment = turn[at if at >= 0 else start :][: 2 * len(expected) + 16]
    blocks = [b for b in difflib.SequenceMatcher(None, expected, segment, autojunk=False).get_matching_blocks() if b.size]
    if not blocks:
        return None
    # matched characters against both texts: the format's, and the render's up to the last match
    return 2 * sum(b.size for b in blocks) / (len(expected) + blocks[-1].b + blocks[-1].size)


def _match_tools(render: Renderer, candidates: list[ChatFormat], tokenizer: Any = None) -> list[ChatFormat]:
    """The candidates whose tool layout the template writes.

    First by exact call text (the most specific, longest match, wins); where none is written
    exactly, by each candidate's own parser (whitespace and key order as the template has
    them; the closest spelling wins); where no parser reads them, a registered layout with the
    template's own markers (:func:`_derive`)."""
    before = render(_user_turn(), tools=_TOOLS)
    renders: dict[str, dict[int, list[str]]] = {}
    for call_id in {c.tools.call_id for c in candidates}:  # Kimi-K2 writes call ids into the header
        renders[call_id] = {}
        for n in (1, 2):
            texts = (render(conv, tools=_TOOLS) for conv in _tool_conversations(n, call_id))
            # (a template that writes only a turn's first call, GigaChat 3's, is judged by one,
            # as one that refuses several is)
            renders[call_id][n] = [t for t in texts if t is not None and (n == 1 or _CALLS[1][0] in _turn(t, before))]

    def best(score: Callable[[ChatFormat, str, int], Optional[float]]) -> list[ChatFormat]:
        scores: list[Optional[float]] = []
        for c in candidates:
            # One call and two calls must each be found in some variant (R1 writes calls only
            # when the content is None). A template that refuses several calls in a turn
            # (Llama 3.1's raises) is judged by one.
            by_n = {n: texts for n, texts in renders[c.tools.call_id].items() if texts or n == 1}
            found = [[x for x in (score(c, t, n) for t in texts) if x] for n, texts in by_n.items()]
            scores.append(sum(max(f) for f in found) if all(found) else None)
        if all(s is None for s in scores):
            return []
        top = max(s for s in scores if s is not None)
        return [c for c, s in zip(candidates, scores) if s is not None and abs(s - top) < 1e-9]

    def exact(c: ChatFormat, text: str, n: int) -> Optional[float]:
        return _messages_length(c, text, n) if c.tools.messages is not None else _section_length(c.tools, text, n)

    def read(c: ChatFormat, text: str, n: int) -> Optional[float]:
        return None if c.tools.messages is not None else _read_score(c, _turn(text, before), n)

    found = best(exact) or best(read)
    if found:
        return found
    derived = _derive(renders, before, candidates, tokenizer)
    if derived:
        return derived
    raise ValueError(_no_layout(renders, candidates))


# --- a registered layout with the template's own markers -----------------------------------------

_SENTINEL = re.compile("\x00([0-9]+)\x00")


def _derive(renders: dict[str, dict[int, list[str]]], before: Optional[str], candidates: list[ChatFormat], tokenizer: Any) -> list[ChatFormat]:
    """Formats whose layout is a candidate's but whose tool markers are the template's.

    Each of a candidate's tool markers that is a tag (``<tool_call>``, ``[TOOL_CALLS]``,
    ``<｜tool▁sep｜>``) becomes a slot; the candidate's call text for the probe calls, with its
    slots, whitespace made optional and the arguments as the template spelled them, is looked
    for in the render of the assistant turn; a slot's tag is what stands there (the same tag
    wherever the slot recurs). Other markup (an XML arguments style's tags, which xgrammar's
    style spells, and literal header text) must be the candidate's own. The format so derived
    must read the probe calls with its own parser. Its markers are text (:class:`Text`), or
    tokens where ``tokenizer`` has each as one token; its end of sequence is the tag that ends
    the turn after the calls, where the tokenizer (if any) has it as one token, else the
    tokenizer's own."""
    out: list[ChatFormat] = []
    seen: list[ToolCallFormat] = []
    for c in candidates:
        tools = c.tools
        if tools.messages is not None or tools.bare or tools in seen:
            continue
        seen.append(tools)
        slots = [m for m in dict.fromkeys((*tools.section, *tools.call, tools.sep)) if m and _TAG.fullmatch(m.strip())]
        if not slots:
            continue
        derived = None
        for n in (2, 1):
            for text in renders[tools.call_id].get(n, []):
                derived = _derive_from(c, slots, _turn(text, before), n, tokenizer)
                if derived is not None:
                    break
            if derived is not None:
                break
        if derived is not None:
            out.append(derived)
    return out


def _derive_from(c: ChatFormat, slots: list[str], turn: str, n: int, tokenizer: Any) -> Optional[ChatFormat]:
    """``c`` with the tags ``turn`` writes in its ``slots`` (its tag markers) around the ``n``
    probe calls, if the format so made reads them; else None."""
    tools = c.tools

    def slotted(m: str) -> str:
        if m not in slots:
            return m
        tag = m.strip()
        return type(m)(m.replace(tag, f"\x00{slots.index(m)}\x00"))

    sentinel_tools = _with_markers(tools, slotted)
    spell = (lambda a: [json.dumps(a)]) if tools.xml is not None else (lambda a: _spellings(turn, a) or [json.dumps(a)])
    for args in itertools.product(*(spell(a) for _, a in _CALLS[:n])):
        calls = _call_texts(sentinel_tools, n, args, [""] * n)
        pattern = _slot_pattern(sentinel_tools.section_around(sentinel_tools.separator.join(calls)))
        for match in pattern.finditer(turn):
            found = {int(k[1:]): v for k, v in match.groupdict().items()}
            if len(found) < len(slots) or all(found[i] == m.strip() for i, m in enumerate(slots)):
                continue  # a slot not written, or the candidate's own markers (read, not derived)
            new = {m: m.replace(m.strip(), found[i]) for i, m in enumerate(slots)}
            kept = [m for m in tools.markers if m not in new]
            # (a layout read with framing around the answer, GigaChat's, keeps its markers text)
            as_tokens = tokenizer is not None and not c.framing and all(_single_token(tokenizer, x) for x in [*new.values(), *kept])
            kind: Callable[[str], str] = str if as_tokens else Text
            try:
                derived_tools = _with_markers(tools, lambda m, new=new, kind=kind: kind(new.get(m, m)))
            except ValueError:
                continue
            after = turn[match.end() :]
            # A begin tag the candidate closes with nothing, closed by its twin in the template
            # (Nemotron Nano v2's <TOOLCALL>[…]</TOOLCALL> in Mistral's array layout).
            for pair in ("section", "call"):
                begin, end = getattr(derived_tools, pair)
                twin = _twin(begin.strip()) if begin and not end and _TAG.fullmatch(begin.strip()) else ""
                if twin and after.lstrip().startswith(twin) and (pair == "section" or not derived_tools.section_begin):
                    derived_tools = dataclasses.replace(derived_tools, **{pair: (begin, kind(twin))})
                    after = after.lstrip()[len(twin) :]
            eos = _turn_end(after, tokenizer, c)
            fmt = dataclasses.replace(
                c,
                name=f"{c.name}{DERIVED}",
                tools=derived_tools,
                eos=eos,
                stops=tuple(s for s in c.stops if s in turn and (tokenizer is None or _single_token(tokenizer, s))),
                aliases=(),
                chat=None,
                description=f"{c.name}'s tool layout with the markers of a chat template ({', '.join(new.values())})",
            )
            if _read_probes(fmt, turn, n):
                return fmt
    return None


def _with_markers(tools: ToolCallFormat, swap: Callable[[str], str]) -> ToolCallFormat:
    """``tools`` with each of its own markers passed through ``swap`` (empty ones stay empty)."""

    def s(m: str) -> str:
        return swap(m) if m else m

    return dataclasses.replace(tools, section=(s(tools.section[0]), s(tools.section[1])), call=(s(tools.call[0]), s(tools.call[1])), sep=s(tools.sep), id_marker=s(tools.id_marker))


def _slot_pattern(expected: str) -> re.Pattern:
    """A pattern for ``expected`` with its slots (``\\x00K\\x00``) as tags and whitespace
    optional wherever it stands, and around every slot."""
    out, named = [], set()
    for i, part in enumerate(_SENTINEL.split(expected)):
        if i % 2:  # a slot's number
            out.append(r"\s*" + (f"(?P=s{part})" if part in named else f"(?P<s{part}>{_TAG.pattern})") + r"\s*")
            named.add(part)
        else:
            out += (r"\s*" if run.isspace() else re.escape(run) for run in re.split(r"(\s+)", part) if run)
    return re.compile("".join(out))


def _single_token(tokenizer: Any, text: str) -> bool:
    from .formats.tokens import single_token_id

    try:
        return single_token_id(tokenizer, text) is not None
    except Exception:
        return False


def _turn_end(after: str, tokenizer: Any, c: ChatFormat) -> str:
    """The end-of-sequence marker of a derived format: the tag that follows its calls in the
    turn, else ``c``'s own, else the tokenizer's, the first of them that the tokenizer (where
    one is given) has as one token."""
    m = re.match(r"\s*(" + _TAG.pattern + ")", after)
    tag = m.group(1) if m else ""
    if tokenizer is None:
        return tag or c.eos
    own = getattr(tokenizer, "eos_token", None)
    options = [x for x in (tag, c.eos, own if isinstance(own, str) else "") if x]
    return next((x for x in options if _single_token(tokenizer, x)), options[0])


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
        # (a text marker's padding, Apriel's "Here are my reasoning steps:\n", is whitespace the prompt's end may lose)
        forced = bool(o) and prompt is not None and prompt.rstrip().endswith(o.rstrip())
        # Not forced open: the output starts where the prompt says, else as the format says, but
        # not inside reasoning (a format that assumes it, R1, would read answers as thinking).
        default = True if forced else (r.default_thinking if r.default_thinking is not True else "auto")
        # The template's toggle, else the format's own: a template without one (Qwen2.5's)
        # still fits the format that has one. The reasoning's other fields stay the format's.
        return dataclasses.replace(r, open=o, close=cl, default_thinking=default, toggle=toggle or r.toggle)

    def agreement(c: ChatFormat) -> int:
        r, i = c.reasoning, inferred(c)
        return (r.open == i.open) + (r.close == i.close) + (r.default_thinking == i.default_thinking) + (r.toggle == i.toggle)

    # Formats that share a tool layout and reasoning (Qwen3, Granite 4, EXAONE 4) are told apart
    # by the end-of-turn marker the template writes; max keeps the first of equals: registry order.
    best = max(matched, key=lambda c: (agreement(c), bool(prompt) and c.eos in prompt))
    reasoning = inferred(best)
    # A format without a toggle (R1) is not told apart by one: thinkgate's own templates add it.
    if reasoning == best.reasoning or (not best.reasoning.toggle and dataclasses.replace(reasoning, toggle="") == best.reasoning):
        return best
    name = best.name if best.name.endswith(DERIVED) else f"{best.name}{DERIVED}"
    description = best.description if best.name.endswith(DERIVED) else f"{best.name}'s tool layout"
    return dataclasses.replace(
        best,
        name=name,
        reasoning=reasoning,
        aliases=(),
        description=f"{description}, reasoning as detected from a chat template",
    )
