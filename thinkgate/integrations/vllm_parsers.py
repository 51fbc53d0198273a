"""vLLM tool and reasoning parser plugins backed by thinkgate's parser.

Load with ``--tool-parser-plugin thinkgate.integrations.vllm_parsers`` (and the same for
``--reasoning-parser-plugin``; vLLM imports a module name as well as a file) and choose ``--tool-call-parser thinkgate_<format>`` / ``--reasoning-parser thinkgate_<format>``
(``<format>`` any registered format: ``thinkgate formats`` lists them). The tool parser also
makes the server enforce the request's tool_choice — ``required``, a named tool, ``auto`` and
``none`` — with thinkgate's grammar and thinking left free: its ``adjust_request`` hands the
request's tools and tool_choice to :class:`~thinkgate.integrations.vllm.ThinkgateLogitsProcessor`
through ``vllm_xargs`` (and turns vLLM's own JSON-schema forcing for required/named off).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
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
    StreamParser,
    ToolCallArgumentsDelta,
    ToolCallStart,
    parse,
    thinking_from_prompt,
)
from ..parsing.thinking import AnalysisIds
from .vllm import OPTION_KEY, RequestOptions

PREFIX = "thinkgate_"
# A request's reasoning budget, as a flat vllm_xargs value: {"vllm_xargs": {"thinkgate_thinking_budget": 64}}
BUDGET_KEY = "thinkgate_thinking_budget"


def _requested_thinking(request: Any, fmt: ChatFormat) -> Any:
    kwargs = getattr(request, "chat_template_kwargs", None) or {}
    # The format's own keyword first; clients of other templates send either name.
    for key in dict.fromkeys(k for k in (fmt.reasoning.toggle, "thinking", "enable_thinking") if k):
        if key in kwargs:
            return bool(kwargs[key])
    return None


def _tools(request: Any) -> Optional[list]:
    tools = getattr(request, "tools", None)
    if not tools:
        return None
    return [t.model_dump(exclude_none=True) if hasattr(t, "model_dump") else dict(t) for t in tools]


def _tool_choice(request: Any) -> Any:
    choice = getattr(request, "tool_choice", None)
    if hasattr(choice, "model_dump"):
        return choice.model_dump(exclude_none=True)
    return choice


class ThinkgateReasoningParser(ReasoningParser):
    """Splits reasoning from the answer (the answer goes verbatim to the tool parser)."""

    format: ChatFormat

    def __init__(self, tokenizer: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(tokenizer, *args, **kwargs)
        self._open = tokenizer.convert_tokens_to_ids(self.format.reasoning.open)
        self._close = tokenizer.convert_tokens_to_ids(self.format.reasoning.close)
        # harmony: <|end|> ends every message; reasoning is the analysis channel's
        self._analysis = AnalysisIds(self.format, tokenizer) if self.format.tools.messages is not None else None
        self._thinking: Any = None
        self._stream: Optional[StreamParser] = None

    @property
    def reasoning_start_str(self) -> str:
        return self.format.reasoning.open

    @property
    def reasoning_end_str(self) -> str:
        return self.format.reasoning.close

    def adjust_initial_state_from_prompt(self, prompt_token_ids: Sequence[int]) -> None:
        self._thinking = thinking_from_prompt(prompt_token_ids, self.model_tokenizer, self.format)

    def is_reasoning_end(self, input_ids: Sequence[int]) -> bool:
        # The last marker decides: a conversation's history holds earlier </think>s, and a
        # generation prompt that ends in <think> reopens reasoning.
        if self._analysis is not None:
            return self._analysis.ended(input_ids)
        for t in reversed(input_ids):
            if t == self._close:
                return True
            if t == self._open:
                return False
        return False

    def extract_content_ids(self, input_ids: list[int]) -> list[int]:
        if self._analysis is not None:
            return input_ids[self._analysis.content_from(input_ids) :]
        if self._close not in input_ids:
            return []
        return input_ids[input_ids.index(self._close) + 1 :]

    def count_reasoning_tokens(self, token_ids: Sequence[int]) -> int:
        ids = list(token_ids)
        if self._analysis is not None:
            return self._analysis.content_from(ids) or (0 if self._analysis.ended(ids) else len(ids))
        return ids.index(self._close) if self._close in ids else len(ids)

    def extract_reasoning(self, model_output: str, request: Any) -> tuple[Optional[str], Optional[str]]:
        thinking = self._thinking if self._thinking is not None else _requested_thinking(request, self.format)
        m = parse(model_output, self.format, thinking=thinking, reasoning_only=True)
        return m.reasoning_content, m.content

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
            self._stream = StreamParser(self.format, thinking=self._thinking, reasoning_only=True, tokenizer=self.model_tokenizer)
        reasoning, content = [], []
        for ev in self._stream.feed_events(delta_text, list(delta_token_ids)):
            if isinstance(ev, ReasoningDelta):
                reasoning.append(ev.text)
            elif isinstance(ev, ContentDelta):
                content.append(ev.text)
        if not reasoning and not content:
            return None
        return DeltaMessage(reasoning="".join(reasoning) or None, content="".join(content) or None)


class ThinkgateToolParser(ToolParser):
    """Reads one format's tool calls from the answer with thinkgate's streaming parser."""

    format: ChatFormat
    # Required and named tool_choice go through extract_tool_calls like "auto": the calls are in
    # the model's own format, enforced by thinkgate's grammar, not vLLM's JSON one.
    supports_required_and_named = False

    def __init__(self, tokenizer: Any, tools: Any = None) -> None:
        super().__init__(tokenizer, tools)
        self._stream: Optional[StreamParser] = None

    def adjust_request(self, request: Any) -> Any:
        request = super().adjust_request(request)
        if hasattr(request, "skip_special_tokens"):
            request.skip_special_tokens = False  # the markers are special tokens
        tools = _tools(request)
        choice = _tool_choice(request)
        if choice is None:
            choice = "auto" if tools else "none"
        opts = RequestOptions(
            format=self.format.name,
            tools=tools,
            tool_choice=choice,
            parallel_tool_calls=getattr(request, "parallel_tool_calls", None) is not False,
            thinking=None,  # read from the prompt ids by the logits processor
        )
        xargs = dict(getattr(request, "vllm_xargs", None) or {})
        budget = xargs.pop(BUDGET_KEY, None)
        if budget is not None:
            opts = dataclasses.replace(opts, thinking_budget=int(budget))
        xargs.setdefault(OPTION_KEY, opts.to_json())
        request.vllm_xargs = xargs
        return request

    def _parser(self, request: Any) -> StreamParser:
        return StreamParser(self.format, thinking=False, tools=_tools(request))

    def extract_tool_calls(self, model_output: str, request: Any) -> ExtractedToolCallInformation:
        m = parse(model_output, self.format, thinking=False, tools=_tools(request))
        calls = [ToolCall(id=c.id, type="function", function=FunctionCall(name=c.name, arguments=c.arguments)) for c in m.tool_calls]
        return ExtractedToolCallInformation(tools_called=bool(calls), tool_calls=calls, content=m.content)

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
        if self._stream is None:
            self._stream = self._parser(request)
        return self._delta(self._stream.feed_events(delta_text))

    def _delta(self, events: list) -> Optional[DeltaMessage]:
        content: list[str] = []
        calls: list[DeltaToolCall] = []
        for ev in events:
            if isinstance(ev, ContentDelta):
                content.append(ev.text)
            elif isinstance(ev, ToolCallStart):
                calls.append(DeltaToolCall(index=ev.index, id=ev.id, type="function", function=DeltaFunctionCall(name=ev.name, arguments="")))
                self.current_tool_id = ev.index
                self.prev_tool_call_arr.append({"name": ev.name, "arguments": ""})
                self.streamed_args_for_tool.append("")
            elif isinstance(ev, ToolCallArgumentsDelta):
                if calls and calls[-1].index == ev.index and calls[-1].function is not None:
                    calls[-1].function.arguments = (calls[-1].function.arguments or "") + ev.text
                else:
                    calls.append(DeltaToolCall(index=ev.index, function=DeltaFunctionCall(arguments=ev.text)))
                self.prev_tool_call_arr[ev.index]["arguments"] += ev.text
                self.streamed_args_for_tool[ev.index] += ev.text
        if not content and not calls:
            return None
        return DeltaMessage(content="".join(content) or None, tool_calls=calls)


def _register() -> None:
    for name in format_names():
        fmt = get_format(name)
        tool_cls = type(f"Thinkgate{fmt.name.title().replace('_', '')}ToolParser", (ThinkgateToolParser,), {"format": fmt})
        reasoning_cls = type(f"Thinkgate{fmt.name.title().replace('_', '')}ReasoningParser", (ThinkgateReasoningParser,), {"format": fmt})
        globals()[tool_cls.__name__] = tool_cls
        globals()[reasoning_cls.__name__] = reasoning_cls
        ToolParserManager.register_module(PREFIX + fmt.name, module=tool_cls)
        if fmt.reasoning.present:  # a model that does not think (Llama 3.x) has no reasoning parser
            ReasoningParserManager.register_module(PREFIX + fmt.name, module=reasoning_cls)


_register()

__all__ = ["PREFIX", "ThinkgateReasoningParser", "ThinkgateToolParser"]
