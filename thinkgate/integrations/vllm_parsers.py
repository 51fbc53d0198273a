"""vLLM tool and reasoning parser plugins backed by thinkgate's parser.

Load with ``--tool-parser-plugin thinkgate.integrations.vllm_parsers`` (and the same for
``--reasoning-parser-plugin``; vLLM imports a module name as well as a file) and choose ``--tool-call-parser thinkgate_<format>`` / ``--reasoning-parser thinkgate_<format>``
(``<format>`` any registered format: ``thinkgate formats`` lists them). The tool parser also
makes the server enforce the request's tool_choice — ``required``, a named tool, ``auto`` and
``none`` — with thinkgate's grammar and thinking left free: its ``adjust_request`` hands the
request's tools and tool_choice to :class:`~thinkgate.integrations.vllm.ThinkgateLogitsProcessor`
through ``vllm_xargs`` (and turns vLLM's own JSON-schema forcing for required/named off). A
request's ``response_format`` (``json_schema`` or ``json_object``) goes the same way, with or
without tools: thinkgate holds the answer after thinking to it, and vLLM's own structured output
for it is turned off. Requests of vLLM's Responses API (``/v1/responses``: flat function tools, a
flat named tool_choice, ``text.format``) are read as vLLM shows the model their tools
(namespaces flattened, custom tools as functions of one string, built-in tools left out) and
held the same way; Anthropic's ``/v1/messages`` reaches the parsers as a chat completion.

Where that processor does not run (vLLM's V1 runner with speculative decoding leaves it out;
``THINKGATE_VLLM_PATH=structured_outputs``), ``adjust_request`` instead gives vLLM's own
structured outputs thinkgate's structural tag for the request, thinking included (see
:mod:`~thinkgate.integrations.vllm_paths`). The server's log names the path once, and each
request's at debug level.
"""

from __future__ import annotations

import json
import logging
import threading
from types import SimpleNamespace
from collections.abc import Iterable, Sequence
from typing import Any, Optional

from vllm.entrypoints.generate.base.protocol import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCallInformation,
    FunctionCall,
    ToolCall,
)
from vllm.reasoning.abs_reasoning_parsers import ReasoningParser, ReasoningParserManager
from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager

from ..formats import ChatFormat, get_format
from ..formats import names as format_names
from ..parsing import (
    ContentDelta,
    ReasoningDelta,
    Stage,
    StreamParser,
    ToolCallEnd,
    parse,
    single_token_id,
    thinking_from_prompt,
)
from ..formats.tokens import AnalysisIds, TextReasoningIds
from ..formats.strict import check_strict
from ..requests import OPTION_KEY, RequestOptions, calls_may_come, check_budget, check_stop, default_strict, default_unsupported, request_options
from ..requests import check_options as check_request
from .common import ENGINE_INVALID_CALLS, chat_response_format, chat_tool_choice, format_class, plain_tools, relaxed_tools
from .vllm import check_options
from . import vllm_paths

log = logging.getLogger("thinkgate.vllm")

PREFIX = "thinkgate_"
# A request's reasoning budget, as a flat vllm_xargs value: {"vllm_xargs": {"thinkgate_thinking_budget": 64}}
BUDGET_KEY = "thinkgate_thinking_budget"
# A request's policy for schema keywords thinkgate cannot enforce: "error" (the server default,
# or THINKGATE_UNSUPPORTED) or "relax" (dropped with a warning)
UNSUPPORTED_KEY = "thinkgate_unsupported"
# A request's strict level: 0 (parse only, under auto), 1 (markup and tool names), 2 (full
# schemas; the server default, or THINKGATE_STRICT)
STRICT_KEY = "thinkgate_strict"


def _requested_thinking(request: Any, fmt: ChatFormat) -> Any:
    """Whether the request turned thinking on or off (None: not said): the format's own keyword
    first; clients of other templates send either name."""
    kwargs = getattr(request, "chat_template_kwargs", None) or {}
    for key in dict.fromkeys(k for k in (fmt.reasoning.toggle, "thinking", "enable_thinking") if k):
        if key in kwargs:
            return bool(kwargs[key])
    return None


def _thinking_for_output(requested: Any, fmt: ChatFormat, model_output: str) -> Any:
    """Where a whole output starts, when the prompt is not at hand (vLLM gives the non-streamed
    reasoning parser none): as requested, unless thinking was turned off and the output closes
    its reasoning all the same. Then the template ignored the keyword (``enable_thinking:
    false`` sent to R1's, which always opens ``<think>``), and the output is read as the format's
    default reads it, as the streamed response, which reads the prompt, reads it too."""
    r = fmt.reasoning
    if requested is False and fmt.tools.messages is None and r.close and str(r.close) in model_output:
        return r.default_thinking
    return requested


def _is_responses(request: Any) -> bool:
    """Whether ``request`` came through vLLM's Responses API (flat tools, ``text.format``)."""
    from vllm.entrypoints.openai.responses.protocol import ResponsesRequest

    return isinstance(request, ResponsesRequest)


def _tools(request: Any) -> Optional[list]:
    tools = getattr(request, "tools", None)
    if tools and _is_responses(request):
        from vllm.tool_parsers.utils import get_function_tools

        # the functions the model is shown (vLLM's one source for its template and grammars):
        # namespaces flattened, a custom tool a function of one string, built-in tools left out
        tools = get_function_tools(tools)
    return plain_tools(tools)


# The per-request options a client may send as flat vllm_xargs, by their xargs key.
XARGS = {BUDGET_KEY: "thinking_budget", UNSUPPORTED_KEY: "unsupported", STRICT_KEY: "strict"}


def _thinkgate_xargs(xargs: dict) -> dict:
    """Take thinkgate's per-request options out of ``xargs``, checked by name. The options the
    tool parser itself writes (``thinkgate``) may not come from the client: the request's own
    tools and tool_choice decide them."""
    if OPTION_KEY in xargs:
        raise ValueError(
            f"vllm_xargs.{OPTION_KEY} is written by thinkgate's tool parser from the request's tools and "
            f"tool_choice; send those as usual (and {', '.join(sorted(XARGS))} for thinkgate's own options)"
        )
    unknown = sorted(k for k in xargs if k.startswith(PREFIX) and k not in XARGS)
    if unknown:
        raise ValueError(f"unknown thinkgate option(s) in vllm_xargs: {', '.join(unknown)}; known: {', '.join(sorted(XARGS))}")
    out = {}
    if BUDGET_KEY in xargs:
        out["thinking_budget"] = check_budget(xargs.pop(BUDGET_KEY), BUDGET_KEY)
    if UNSUPPORTED_KEY in xargs:
        value = xargs.pop(UNSUPPORTED_KEY)
        if value not in ("error", "relax"):
            raise ValueError(f"{UNSUPPORTED_KEY} must be 'error' or 'relax', not {value!r}")
        out["unsupported"] = value
    if STRICT_KEY in xargs:
        out["strict"] = check_strict(xargs.pop(STRICT_KEY), STRICT_KEY)
    return out


def _response_format(request: Any) -> Optional[dict]:
    """The request's ``response_format`` where it holds the answer to JSON (thinkgate's to
    enforce); ``text`` and vLLM's own structural tags are left to vLLM."""
    if _is_responses(request):
        rf = getattr(getattr(request, "text", None), "format", None)
    else:
        rf = getattr(request, "response_format", None)
    if hasattr(rf, "model_dump"):
        rf = rf.model_dump(by_alias=True, exclude_none=True)  # json_schema's "schema" is an alias
    rf = chat_response_format(rf)
    if isinstance(rf, dict) and rf.get("type") in ("json_schema", "json_object"):
        return rf
    return None


def _reading(request: Any, fmt: ChatFormat) -> dict:
    """How the tool parser reads the request's calls: at the level its grammar had, against the
    schemas the grammar held them to (the options adjust_request wrote), so that the parser holds
    no call to more than the grammar did."""
    xargs = getattr(request, "vllm_xargs", None)
    try:
        opts = request_options(xargs)
    except ValueError:
        opts = None
    if opts is not None:
        strict, unsupported, tools, choice, exported = opts.strict, opts.unsupported, opts.tools, opts.tool_choice, False
    elif xargs and STRICT_KEY in xargs:  # the structured-output path's, left for the parser
        try:
            strict = check_strict(xargs[STRICT_KEY], STRICT_KEY)
        except ValueError:
            return {"strict": default_strict()}
        unsupported, tools, choice, exported = xargs.get(UNSUPPORTED_KEY), _tools(request), _tool_choice(request), True
    else:
        return {"strict": default_strict()}
    if unsupported != "relax" or not tools:
        return {"strict": strict}
    try:
        held = relaxed_tools(fmt.name, tools, "auto" if choice is None else choice, strict, exported)
    except ValueError:  # (adjust_request refused such a request: it never ran)
        return {"strict": strict}
    return {"strict": strict, "enforced_schemas": held.schemas}


def server_spelling(message: str) -> str:
    """thinkgate's advice as a server client gives it: the vllm_xargs key, not Python's keyword."""
    return message.replace("unsupported='relax'", f'vllm_xargs {{"{UNSUPPORTED_KEY}": "relax"}}')


# OpenAI's bounds on a metadata value (the Responses API echoes a request's metadata back)
_METADATA_KEYS, _METADATA_VALUE = 16, 512
RELAXED_METADATA = "thinkgate_relaxed"


def _say_relaxed(request: Any, opts: RequestOptions, exported: bool) -> None:
    """Under unsupported="relax", say per request what its tools are not held to: in the server's
    log, and in the Responses API's metadata (which its response carries back). A chat
    completion has no field for it."""
    if opts.unsupported != "relax" or not opts.tools:
        return
    dropped = relaxed_tools(opts.format, opts.tools, opts.tool_choice, opts.strict, exported).dropped
    if not dropped:
        return
    said = server_spelling("; ".join(dropped))
    vllm_paths.log.warning("thinkgate: request %s: its calls are held to their schemas without what cannot be enforced there: %s", getattr(request, "request_id", "?"), said)
    metadata = getattr(request, "metadata", None) or {}
    if _is_responses(request) and len(metadata) < _METADATA_KEYS:
        request.metadata = {**metadata, RELAXED_METADATA: said[:_METADATA_VALUE]}


def _tool_choice(request: Any) -> Any:
    choice = getattr(request, "tool_choice", None)
    if hasattr(choice, "model_dump"):
        choice = choice.model_dump(exclude_none=True)
    return chat_tool_choice(choice) if _is_responses(request) else choice


def _calls_allowed(request: Any) -> bool:
    """Whether the request may call tools: then the tool markup's token written while thinking
    ends the reasoning, as thinkgate's grammar reads it; else it is reasoning text."""
    return calls_may_come(_tools(request), _tool_choice(request))


# What the reasoning parser saw of the request being adjusted: (id(request), ModelConfig, the
# effective chat-template keywords, server defaults included).
_ADJUSTING = threading.local()


def _adjusting(request: Any) -> tuple[Any, Optional[dict]]:
    seen = getattr(_ADJUSTING, "seen", None)
    if seen is not None and seen[0] == id(request):
        return seen[1], seen[2]
    return None, getattr(request, "chat_template_kwargs", None)


class ThinkgateReasoningParser(ReasoningParser):
    """Splits reasoning from the answer (the answer goes verbatim to the tool parser)."""

    format: ChatFormat

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, *args, **kwargs)
        # what the tool parser, built beside this one with neither, needs to choose the path
        self._template_kwargs = kwargs.get("chat_template_kwargs")
        # vLLM's structured-output manager builds an instance of its own per request, from the
        # request's chat-template keywords and with no ModelConfig (the server's parsers are
        # given one): there a request whose grammar holds its reasoning ends the reasoning at
        # the prompt, so that the grammar applies from the first generated token
        self._grammar_holds = "model_config" not in kwargs and bool((self._template_kwargs or {}).get(vllm_paths.GRAMMAR_HOLDS_REASONING))
        self._open = tokenizer.convert_tokens_to_ids(self.format.reasoning.open)
        self._close = tokenizer.convert_tokens_to_ids(self.format.reasoning.close)
        # The tool markup's opening token ends the reasoning too, where the request may call
        # tools (adjust_request says; a parser never told keeps to thinkgate's default).
        trigger = self.format.reasoning_trigger
        self._trigger = tokenizer.convert_tokens_to_ids(trigger) if trigger else None
        self._calls = True
        # vLLM streams the text behind the ids where a request has stop strings (it holds back a
        # stop string's length): a marker's token then comes deltas before its text. Read by its
        # token, the marker would end the reasoning with a piece of its text in the reasoning
        # and the rest in the content; so once a marker's token comes without its text, the
        # stream reads the markers from the text, as the whole response does. Only where no
        # marker is a special token is its text sure to come (a special token's text is
        # skipped where the request skips special tokens).
        tokens = {single_token_id(tokenizer, m): str(m) for m in (self.format.reasoning.open, self.format.reasoning.close, trigger) if m}
        tokens.pop(None, None)  # (a marker written as text is read from the text already)
        special = set(getattr(tokenizer, "all_special_ids", None) or ())
        self._marker_text = {} if special & set(tokens) else tokens
        self._by_text = False
        # harmony: <|end|> ends every message, reasoning is the analysis channel's; reasoning
        # markers written as text are found in the decoded ids
        self._analysis: Any = None
        if self.format.tools.messages is not None:
            self._analysis = AnalysisIds(self.format, tokenizer)
        elif self.format.text_reasoning:
            self._analysis = TextReasoningIds(self.format, tokenizer)
        self._thinking: Any = None
        # the stage this parser read the output from (None: it read none, as where vLLM found
        # the reasoning closed by the prompt), which says where the output's reasoning starts
        self._stage: Any = None
        self._stream: Optional[StreamParser] = None

    @property
    def reasoning_start_str(self) -> str:
        return self.format.reasoning.open

    @property
    def reasoning_end_str(self) -> str:
        return self.format.reasoning.close

    def adjust_request(self, request: Any) -> Any:
        request = super().adjust_request(request)
        self._calls = _calls_allowed(request)
        # vLLM adjusts the request with this parser, then at once with the tool parser
        _ADJUSTING.seen = (id(request), getattr(self, "_model_config", None), self._template_kwargs)
        return request

    def _ends(self, token_id: int) -> bool:
        return token_id == self._close or (self._calls and token_id == self._trigger)

    def _content_start(self, input_ids: Sequence[int]) -> Optional[int]:
        """Where the answer starts: after ``</think>``, or at the tool markup's token."""
        for k, t in enumerate(input_ids):
            if t == self._close:
                return k + 1
            if self._calls and t == self._trigger:
                return k
        return None

    def adjust_initial_state_from_prompt(self, prompt_token_ids: Sequence[int]) -> None:
        try:
            self._thinking = thinking_from_prompt(prompt_token_ids, self.model_tokenizer, self.format)
        except Exception:  # never the server's 500: the request's own template flag decides
            log.exception("thinkgate: reading the prompt's thinking stage failed")
            self._thinking = None

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        if self._grammar_holds:
            return True
        # The last marker decides: a conversation's history holds earlier </think>s, and a
        # generation prompt that ends in <think> reopens reasoning.
        if self._analysis is not None:
            return self._analysis.ended(input_ids)
        for t in reversed(input_ids):
            if self._ends(t):
                return True
            if t == self._open:
                return False
        return False

    def _lags(self, delta_text: str, delta_ids: list[int]) -> bool:
        """Whether a marker's token came in this delta without its text (see ``__init__``)."""
        return self.format.tools.messages is None and any(self._marker_text[t] not in delta_text for t in delta_ids if t in self._marker_text)

    def _read_past_reasoning(self) -> bool:
        """Whether the stream, reading the markers from the text, has read the reasoning's end."""
        stream = self._stream
        return self._by_text and isinstance(stream, StreamParser) and stream.stage not in (Stage.START, Stage.REASONING)

    def is_reasoning_end_streaming(self, input_ids: Sequence[int], delta_ids: Iterable[int]) -> bool:
        # vLLM moves the stream on to the tool parser once this says so: where the stream reads
        # the markers from the text, once it has read the end there (vLLM's structured-output
        # gate, an instance that streams nothing, goes by the ids)
        if self._by_text and isinstance(self._stream, StreamParser):
            return self._read_past_reasoning()
        return super().is_reasoning_end_streaming(input_ids, delta_ids)

    def extract_content_ids(self, input_ids: list[int]) -> list[int]:
        if self._analysis is not None:
            return input_ids[self._analysis.content_from(input_ids) :]
        start = self._content_start(input_ids)
        return [] if start is None else input_ids[start:]

    def count_reasoning_tokens(self, token_ids: Sequence[int]) -> int:
        """The output's reasoning tokens, counted from where the output started (the prompt's
        stage, as this parser read it): none where it did not think."""
        ids = list(token_ids)
        if self.format.tools.messages is not None:  # channel messages: the analysis channel's
            return self._analysis.content_from(ids) or (0 if self._analysis.ended(ids) else len(ids))
        start = self._reasoning_start(ids)
        if start is None:
            return 0
        ids = ids[start:]
        if self._analysis is not None:  # markers written as text
            return self._analysis.content_from(ids) or (0 if self._analysis.ended(ids) else len(ids))
        for k, t in enumerate(ids):
            if self._ends(t):
                return k
        return len(ids)

    def _reasoning_start(self, ids: list[int]) -> Optional[int]:
        """Where the output's reasoning starts in ``ids``: at once where the output started inside
        it, after the open marker where the model opened it itself, None where it did not think."""
        if self._stage is True:
            return 0
        if self._stage != "auto" or not ids:
            return None
        if self._analysis is None:
            return 1 if ids[0] == self._open else None
        head = self.model_tokenizer.decode(ids[:16], skip_special_tokens=False)
        return 0 if head.lstrip().startswith(str(self.format.reasoning.open)) else None

    def extract_reasoning(self, model_output: str, request: Any) -> tuple[Optional[str], Optional[str]]:
        try:
            thinking = self._thinking
            if thinking is None:
                thinking = _thinking_for_output(_requested_thinking(request, self.format), self.format, model_output)
            self._stage = self.format.reasoning.default_thinking if thinking is None else thinking
            m = parse(model_output, self.format, thinking=thinking, reasoning_only=True, recover_calls_in_reasoning=_calls_allowed(request))
            return m.reasoning_content, m.content
        except Exception:  # never the server's 500: the output comes back as content
            log.exception("thinkgate: reading the reasoning failed; the output is returned as content")
            return None, model_output

    def extract_reasoning_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
    ) -> Optional[DeltaMessage]:
        if self._stream is None:
            thinking = self._thinking
            if thinking is None:  # no prompt seen: as the keywords the parser was built with ask
                thinking = _requested_thinking(SimpleNamespace(chat_template_kwargs=self._template_kwargs), self.format)
            self._stream = StreamParser(self.format, thinking=thinking, reasoning_only=True, tokenizer=self.model_tokenizer, recover_calls_in_reasoning=self._calls)
            self._stage = self.format.reasoning.default_thinking if thinking is None else thinking
        try:
            ids = list(delta_token_ids)
            self._by_text = self._by_text or self._lags(delta_text, ids)
            events = self._stream.feed_events(delta_text, None if self._by_text else ids)
            if self._read_past_reasoning():
                # vLLM hands the rest to the tool parser now: text held back here as a
                # marker's possible start is the answer's
                events += self._stream.finish_events()
        except Exception:  # never the server's 500: the rest of the output streams as content
            log.exception("thinkgate: reading the reasoning failed; the rest is streamed as content")
            self._stream = _Passthrough()
            return DeltaMessage(content=delta_text) if delta_text else None
        reasoning, content = [], []
        for ev in events:
            if isinstance(ev, ReasoningDelta):
                reasoning.append(ev.text)
            elif isinstance(ev, ContentDelta):
                content.append(ev.text)
        if not reasoning and not content:
            return None
        return DeltaMessage(reasoning="".join(reasoning) or None, content="".join(content) or None)


class ThinkgateToolParser(ToolParser):
    """Reads one format's tool calls from the answer with thinkgate's streaming parser.

    Streamed and whole, a response says the same thing: a call is streamed once it stands
    (complete, and valid for what its grammar held it to), whole, in one delta; a call cut off
    (a parse-only request at max_tokens, a stop string, an aborted engine) or invalid is its
    text in the content, as the whole response has it. vLLM cannot take back a delta, and a call
    begun in the stream would have made finish_reason 'tool_calls' for a call the whole
    response does not return."""

    format: ChatFormat
    # Required and named tool_choice go through extract_tool_calls like "auto": the calls are in
    # the model's own format, enforced by thinkgate's grammar, not vLLM's JSON one.
    supports_required_and_named = False
    # vLLM tells a parser that streams as its engine-based ones do where the output ends
    # (finish_streaming, as its K2 Horizon parser): a call open there was cut off, and text held
    # back as a marker's possible start is text. (Only where no reasoning parser is set does
    # vLLM then also feed the parser deltas alone and read tool_choice "none" through it.)
    engine_based_streaming = True

    def __init__(self, tokenizer: Any, tools: Any = None) -> None:
        super().__init__(tokenizer, tools)
        self._stream: Optional[StreamParser] = None

    def adjust_request(self, request: Any) -> Any:
        """Opt a request with tools or a JSON ``response_format`` in: its tools, tool_choice,
        response_format and options go to the logits processor through ``vllm_xargs``, and its
        grammar is compiled now, so that a bad schema or option is a 400 naming it. Where the
        processor does not run, vLLM's own structured outputs get thinkgate's structural tag
        instead (:meth:`_structured_outputs`). A request with neither is left exactly as it came
        (vLLM calls this for every chat request when a reasoning parser is set). A refusal's
        advice names the server's spelling of an option (the vllm_xargs key)."""
        try:
            return self._adjust(request)
        except ValueError as e:
            raise ValueError(server_spelling(str(e))) from None

    def _adjust(self, request: Any) -> Any:
        request = super().adjust_request(request)
        tools = _tools(request)
        answer = _response_format(request)
        xargs = dict(getattr(request, "vllm_xargs", None) or {})
        options = _thinkgate_xargs(xargs)  # checked even without tools: a typo is an error
        if not tools and answer is None:
            return request
        if hasattr(request, "skip_special_tokens"):
            request.skip_special_tokens = False  # the markers are special tokens
        choice = _tool_choice(request)
        if choice is None:
            choice = "auto"
        if tools:
            check_stop(getattr(request, "stop", None), choice, getattr(request, "stop_token_ids", None))
        opts = RequestOptions(
            format=self.format.name,
            tools=tools,
            tool_choice=choice,
            parallel_tool_calls=getattr(request, "parallel_tool_calls", None) is not False,
            thinking=None,  # read from the prompt ids by the logits processor
            thinking_budget=options.get("thinking_budget"),
            unsupported=options.get("unsupported") or default_unsupported(),
            response_format=answer,
            strict=options["strict"] if "strict" in options else default_strict(),
        )
        model_config, template_kwargs = _adjusting(request)
        path = vllm_paths.request_path(model_config)
        if path is not None and path.name == vllm_paths.STRUCTURED_OUTPUTS:
            return self._structured_outputs(request, opts, path, xargs, template_kwargs)
        check_options(opts, self.model_tokenizer)
        _say_relaxed(request, opts, exported=False)
        xargs[OPTION_KEY] = opts.to_json()
        request.vllm_xargs = xargs
        if answer is not None:
            # thinkgate's processor holds the answer; vLLM's own grammar for it would apply
            # from the end of reasoning as vLLM's reasoning parser sees it, on top of ours
            _drop_response_format(request)
        vllm_paths.log.debug("thinkgate: request (tool_choice %s) takes the processor path", _choice_name(opts.tool_choice))
        return request

    def _structured_outputs(self, request: Any, opts: RequestOptions, path: vllm_paths.Path, xargs: dict, template_kwargs: Optional[dict]) -> Any:
        """The request held by vLLM's own structured outputs with thinkgate's structural tag,
        from its first generated token: no thinkgate options for the processor (none runs, or
        it would hold the request twice); a thinking budget becomes vLLM's; what the tag cannot
        hold is refused by name."""
        from vllm.sampling_params import StructuredOutputsParams

        from ..constraint.grammar.structural_tag import build_structural_tag

        for refusal in (path.refusal, vllm_paths.request_can_hold(request)):
            if refusal:
                raise ValueError(f"on this server thinkgate holds requests through vLLM's structured outputs ({path.reason}): {refusal}")
        check_request(opts, self.model_tokenizer)  # the same refusals by name as the processor's path
        tag = build_structural_tag(
            self.format,
            opts.tools,
            opts.tool_choice,
            opts.parallel_tool_calls,
            tokenizer=self.model_tokenizer,
            max_whitespace=opts.max_whitespace,
            unsupported=opts.unsupported,
            response_format=opts.response_format,
            strict=opts.strict,
        )
        stage = vllm_paths.prompt_stage(self.model_tokenizer, self.format, getattr(request, "chat_template", None), template_kwargs)
        tag = vllm_paths.structured_outputs_tag(tag, self.format, stage, self.model_tokenizer)
        if opts.thinking_budget is not None:
            if _is_responses(request):
                raise ValueError(
                    f"{BUDGET_KEY} on vLLM's structured-output path is vLLM's thinking_token_budget, which vLLM's "
                    "Responses API does not take; send the request as a chat completion"
                )
            own = getattr(request, "thinking_token_budget", None)
            if own is not None and own != opts.thinking_budget:
                raise ValueError(f"{BUDGET_KEY} ({opts.thinking_budget}) and thinking_token_budget ({own}) disagree; give one of them")
            if not path.thinking_budget:
                raise ValueError(
                    f"{BUDGET_KEY} on vLLM's structured-output path is vLLM's thinking_token_budget, which needs "
                    "--reasoning-parser (vLLM's reasoning config) on this server"
                )
            request.thinking_token_budget = opts.thinking_budget
        request.structured_outputs = StructuredOutputsParams(structural_tag=json.dumps(tag, ensure_ascii=False))
        # the tag holds the thinking: vLLM starts it at the first generated token
        vllm_paths.hold_from_first_token(request)
        _drop_response_format(request)
        _say_relaxed(request, opts, exported=True)
        # for the parser, which holds no call to more than the tag did
        xargs[STRICT_KEY] = opts.strict
        xargs[UNSUPPORTED_KEY] = opts.unsupported
        request.vllm_xargs = xargs
        vllm_paths.log.debug(
            "thinkgate: request (tool_choice %s, thinking stage %s) takes the structured_outputs path: %s",
            _choice_name(opts.tool_choice),
            stage,
            path.reason,
        )
        return request

    def _options(self, request: Any) -> dict:
        # under tool_choice "none" the answer is text as written, tool markup and all
        reading = {"reasoning_only": True} if _tool_choice(request) == "none" else _reading(request, self.format)
        return dict(thinking=False, tools=_tools(request), on_invalid_call=ENGINE_INVALID_CALLS, **reading)

    def _parser(self, request: Any) -> StreamParser:
        return StreamParser(self.format, **self._options(request))

    def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
        try:
            m = parse(model_output, self.format, **self._options(request))
        except Exception:  # never the server's 500: the output comes back as content
            log.exception("thinkgate: reading the tool calls failed; the output is returned as content")
            return ExtractedToolCallInformation(tools_called=False, tool_calls=[], content=model_output)
        calls = [ToolCall(id=c.id, type="function", function=FunctionCall(name=c.name, arguments=c.arguments)) for c in m.tool_calls]
        # Where no call stands vLLM returns the raw answer, unless the parser says it read calls:
        # it does where it took markup out of the text (a call cut off or invalid, the framing
        # around it), so that the response's content is the one the stream sent.
        read = bool(calls) or (m.content or "") != model_output
        return ExtractedToolCallInformation(tools_called=read, tool_calls=calls, content=m.content)

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request: Any,
    ) -> Optional[DeltaMessage]:
        try:
            if self._stream is None:
                self._stream = self._parser(request)
            events = self._stream.feed_events(delta_text)
        except Exception:  # never the server's 500: the rest of the output streams as content
            log.exception("thinkgate: reading the tool calls failed; the rest is streamed as content")
            self._stream = _Passthrough()
            return DeltaMessage(content=delta_text) if delta_text else None
        return self._delta(events)

    def finish_streaming(self) -> Optional[DeltaMessage]:
        """The output is over: what the parser still held (a call cut off, text that could have
        begun a marker) comes out as the whole response has it."""
        if self._stream is None:
            return None
        try:
            events = self._stream.finish_events()
        except Exception:  # never the server's 500: what was held is lost, the rest was sent
            log.exception("thinkgate: finishing the tool calls failed")
            return None
        return self._delta(events)

    def _delta(self, events: list) -> Optional[DeltaMessage]:
        content: list[str] = []
        calls: list[DeltaToolCall] = []
        for ev in events:
            if isinstance(ev, ContentDelta):
                content.append(ev.text)
            elif isinstance(ev, ToolCallEnd):  # the call stands: it streams whole, numbered as returned
                index = len(self.prev_tool_call_arr)
                calls.append(DeltaToolCall(index=index, id=ev.id, type="function", function=DeltaFunctionCall(name=ev.name, arguments=ev.arguments)))
                self.current_tool_id = index
                self.prev_tool_call_arr.append({"name": ev.name, "arguments": ev.arguments})
                self.streamed_args_for_tool.append(ev.arguments)
        if not content and not calls:
            return None
        return DeltaMessage(content="".join(content) or None, tool_calls=calls)


def _drop_response_format(request: Any) -> None:
    """Turn vLLM's own grammar for the answer off (thinkgate's holds it)."""
    if _is_responses(request):
        if request.text is not None:
            request.text = request.text.model_copy(update={"format": None})
    else:
        request.response_format = None


def _choice_name(choice: Any) -> str:
    if isinstance(choice, dict):
        name = (choice.get("function") or {}).get("name")
        return f"function {name}" if name else str(choice.get("type"))
    return str(choice)


class _Passthrough:
    """What a stream whose parser failed becomes: every later delta is content."""

    def feed_events(self, delta_text: str, token_ids: Any = None) -> list:
        return [ContentDelta(delta_text)] if delta_text else []

    def finish_events(self) -> list:
        return []


def _register() -> None:
    for name in format_names():
        fmt = get_format(name)
        tool_cls = format_class(ThinkgateToolParser, fmt, "ToolParser", globals())
        reasoning_cls = format_class(ThinkgateReasoningParser, fmt, "ReasoningParser", globals())
        ToolParserManager.register_module(PREFIX + fmt.name, module=tool_cls)
        if fmt.reasoning.present:  # a model that does not think (Llama 3.x) has no reasoning parser
            ReasoningParserManager.register_module(PREFIX + fmt.name, module=reasoning_cls)


_register()

__all__ = ["PREFIX", "ThinkgateReasoningParser", "ThinkgateToolParser"]
