"""The public parser: :class:`StreamParser` for deltas and :func:`parse` for a whole output."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Optional

from ..formats import ChatFormat, Thinking, get_format
from .events import Event
from . import channel_messages, json_calls, marked_calls, pythonic_calls
from .message import Message, MessageBuilder
from .openai import render_deltas
from .calls import CallTracker, default_call_id
from .driver import Driver
from .markers import marker_pieces
from .stages import Reading
from ..formats.strict import DEFAULT_STRICT, check_strict, function_strict, tool_level
from ..formats.tokens import marker_token_ids

# One parser module per layout, named as the layout is (see thinkgate.formats.LAYOUTS).
_PARSERS = {m.__name__.rsplit(".", 1)[1]: m for m in (marked_calls, json_calls, channel_messages, pythonic_calls)}


def tool_parameters(tools: Optional[Iterable[Any]]) -> dict[str, Any]:
    """The parameters schema of each OpenAI-shape tool, by name."""
    out = {}
    for tool in tools or ():
        fn = tool.get("function") if isinstance(tool, Mapping) else None
        if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
            out[fn["name"]] = fn.get("parameters")
    return out


def schema_checked(tools: Optional[Iterable[Any]], strict: int = DEFAULT_STRICT) -> frozenset[str]:
    """The tools whose calls are held to their schema: those at strict level 2 (the request's
    ``strict``, or the tool's own ``function.strict``; see :mod:`thinkgate.formats.strict`).
    A tool below it is held, as its grammar holds it, to a JSON object only."""
    strict = check_strict(strict)
    out = set()
    for i, tool in enumerate(tools or ()):
        fn = tool.get("function") if isinstance(tool, Mapping) else None
        if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
            if tool_level(function_strict(fn, f"tools[{i}] ({fn['name']!r})"), strict) == 2:
                out.add(fn["name"])
    return frozenset(out)


def tool_names(tools: Optional[Iterable[Any]]) -> Optional[frozenset[str]]:
    """Names of OpenAI-shape tools (``{"type": "function", "function": {"name": ...}}``)."""
    if tools is None:
        return None
    names = set()
    for i, tool in enumerate(tools):
        fn = tool.get("function") if isinstance(tool, Mapping) else None
        name = fn.get("name") if isinstance(fn, Mapping) else None
        if not isinstance(name, str) or not name:
            raise ValueError(f"tools[{i}] is not an OpenAI function tool with a name: {tool!r}")
        names.add(name)
    return frozenset(names)


class StreamParser:
    """Reads one model output, delta by delta, into reasoning, answer text and tool calls.

    ``feed(delta_text, token_ids=None)`` returns OpenAI ``chat.completion.chunk`` deltas
    (``{"reasoning_content": ...}``, ``{"content": ...}``, ``{"tool_calls": [...]}``);
    ``finish(finish_reason=None)`` returns the last ones, after which ``finish_reason`` and
    ``message`` hold the result. ``feed_events``/``finish_events`` give the typed events instead.

    Options:

    * ``thinking``: ``True`` (the output starts inside reasoning), ``False``, or ``"auto"`` (the
      model may open ``<think>`` itself); ``None`` takes the format's default. See
      :func:`thinking_from_prompt` to read it from the prompt's token ids.
    * ``tools``: the request's tools; a call to a tool not among them is invalid, and so is a
      call whose arguments break its tool's parameters schema (JSON Schema 2020-12, formats
      checked), whoever wrote it: thinkgate's grammar or not. ``validate_arguments=False``
      leaves the arguments unchecked.
    * ``strict``: the request's strict level, as its grammar had it (0, 1, 2; see
      :mod:`thinkgate.formats.strict`): a tool below level 2 (by the request's level or its own
      ``function.strict: false``) is not held to its schema, only to a JSON object; parameters
      written as text are still typed by it.
    * ``enforced_schemas``: tool name → the schema its grammar held its calls to, where that is
      not the tool's own (keywords dropped under ``unsupported="relax"``: see
      :func:`thinkgate.integrations.common.relaxed_tools`); a call is checked against that, so
      that a call the grammar allowed is never refused.
    * ``tokenizer``: needed to feed ``token_ids`` (a tokenizer, or a mapping marker → id). With
      ids, a marker counts only when its special token was generated.
    * ``on_invalid_call``: where a call that cannot be read goes (its text lands in one place):
      ``"report"`` (default: ``invalid_tool_calls``, raw text and error), ``"content"`` (its raw
      text becomes answer text; for engines whose responses have no place for invalid calls),
      ``"drop"`` (logged and dropped), or ``"error"`` (strict: reported, and the stream ends
      with ``finish_reason="error"`` and ``error`` naming the problem).
    * ``recover_calls_in_reasoning``: the format's tool-markup token (its ``reasoning_trigger``)
      written while thinking ends the reasoning and opens the calls, as the grammar reads it
      (default); ``False`` leaves it reasoning text. A format whose ``calls_in_reasoning`` is
      off, or whose trigger is text, never reads calls inside its reasoning.
    * ``calls_after_content``: if ``False``, tool markup after answer text is answer text.
    * ``reasoning_only``: only split reasoning from the answer; the answer, tool markup and all,
      comes out verbatim as content (for engines whose tool parser reads the answer separately).
    * ``reasoning_field``: ``"reasoning_content"``, ``"reasoning"`` or ``"both"`` in the deltas.
    * ``call_id``: makes a call's id from its index (default ``call_`` + 24 random hex digits,
      or for a format with an ``id_length`` that many random letters and digits: Mistral's 9);
      a format whose calls carry their own id (Kimi-K2's ``functions.NAME:0``) keeps that one
      unless it repeats an earlier id of the message.
    """

    def __init__(
        self,
        format: str | ChatFormat = "deepseek_r1",
        thinking: Optional[Thinking] = None,
        tools: Optional[Iterable[Any]] = None,
        *,
        tokenizer: Any = None,
        on_invalid_call: str = "report",
        recover_calls_in_reasoning: bool = True,
        calls_after_content: bool = True,
        reasoning_only: bool = False,
        reasoning_field: str = "reasoning_content",
        call_id: Callable[[int], str] = default_call_id,
        validate_arguments: bool = True,
        strict: int = DEFAULT_STRICT,
        enforced_schemas: Optional[Mapping[str, Any]] = None,
    ) -> None:
        self.format = get_format(format)
        if thinking is None:
            thinking = self.format.reasoning.default_thinking
        id_to_marker: Optional[Mapping[int, str]] = None
        if tokenizer is not None:
            id_to_marker = {i: m for m, i in marker_token_ids(self.format, tokenizer).items()}
        self._id_to_marker = id_to_marker
        # (a tokenizer, not a mapping: cuts a delta whose text spells a marker beside its token)
        decode = getattr(tokenizer, "decode", None)
        self._decode = None if decode is None else lambda ids: decode(ids, skip_special_tokens=False, clean_up_tokenization_spaces=False)
        layout_cls = _PARSERS[self.format.tools.layout.name].layout_class(self.format)
        # The machine: a driver running the layout's stages, a call tracker reading the calls.
        self._machine = Driver(self.format, id_to_marker, verbatim=reasoning_only)
        calls = CallTracker(
            self._machine,
            self.format,
            tool_names(tools),
            on_invalid_call=on_invalid_call,
            call_id=call_id,
            # Parameters written as text are typed by the tools' schemas (a string is bare text),
            # and every call's arguments are checked against its tool's.
            tool_parameters=tool_parameters(tools),
            validate_arguments=validate_arguments,
            checked=schema_checked(tools, strict),
            enforced_schemas=enforced_schemas,
        )
        reading = Reading(self.format.start_thinking(thinking), recover_calls_in_reasoning, calls_after_content)
        layout_cls(self._machine, calls, self.format, reading)
        render_deltas([], reasoning_field)  # reject a bad field name now, not mid-stream
        self.reasoning_field = reasoning_field
        self._builder = MessageBuilder()
        self.finish_reason: Optional[str] = None

    def feed_events(self, delta_text: str, token_ids: Optional[list[int]] = None) -> list[Event]:
        pieces = None
        if token_ids and self._decode is not None and self._id_to_marker:
            pieces = marker_pieces(delta_text, list(token_ids), self._id_to_marker, self._decode)
        if pieces is None:
            events = self._machine.feed(delta_text, token_ids)
        else:
            events = [ev for text, ids in pieces for ev in self._machine.feed(text, ids)]
        self._builder.add(events)
        return events

    def finish_events(self, finish_reason: Optional[str] = None) -> list[Event]:
        events = self._machine.finish(finish_reason)
        self._builder.add(events)
        self.finish_reason = self._builder.message.finish_reason
        return events

    def feed(self, delta_text: str, token_ids: Optional[list[int]] = None) -> list[dict]:
        return render_deltas(self.feed_events(delta_text, token_ids), self.reasoning_field)

    def finish(self, finish_reason: Optional[str] = None) -> list[dict]:
        return render_deltas(self.finish_events(finish_reason), self.reasoning_field)

    @property
    def error(self) -> Optional[dict]:
        """In strict mode, what made the stream end with ``finish_reason="error"``."""
        return self._machine.error

    @property
    def stage(self):
        """What the model is writing now (a :class:`~thinkgate.parsing.Stage`)."""
        return self._machine.stage

    @property
    def message(self) -> Message:
        """Everything read so far; complete after :meth:`finish`."""
        return self._builder.build()


def parse(
    text: str,
    format: str | ChatFormat = "deepseek_r1",
    thinking: Optional[Thinking] = None,
    tools: Optional[Iterable[Any]] = None,
    *,
    token_ids: Optional[list[int]] = None,
    finish_reason: Optional[str] = None,
    **options: Any,
) -> Message:
    """Parse a whole output: the streaming machine fed everything at once, then finished, so
    the result equals what streaming gives for any chunking. Options as for
    :class:`StreamParser`."""
    parser = StreamParser(format, thinking, tools, **options)
    parser.feed_events(text, token_ids)
    parser.finish_events(finish_reason)
    return parser.message
