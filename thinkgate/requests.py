"""Request and response shapes shared by the integrations and the command line (OpenAI chat),
and the thinkgate options a request carries to an engine, checked the same way in every engine."""

from __future__ import annotations

import functools
import json
import os
import time
import uuid
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, Strict, StrictBool, StrictInt, field_validator, model_validator

from .formats import get_format
from .formats.strict import DEFAULT_STRICT, check_strict
from .formats.tokens import single_token_id
from .parsing import Message

OPTION_KEY = "thinkgate"
_OPTION_FIELDS = ("format", "tools", "tool_choice", "parallel_tool_calls", "thinking", "thinking_budget", "max_whitespace", "unsupported", "response_format", "strict")
# The server-wide default of ``unsupported`` (a request's own option wins): "error" refuses a
# schema keyword thinkgate cannot enforce, "relax" drops it with a warning.
UNSUPPORTED_ENV = "THINKGATE_UNSUPPORTED"
# The server-wide default strict level (a request's own option wins; see thinkgate.formats.strict).
STRICT_ENV = "THINKGATE_STRICT"


def default_unsupported() -> str:
    value = os.environ.get(UNSUPPORTED_ENV, "error")
    if value not in ("error", "relax"):
        raise ValueError(f"the environment variable {UNSUPPORTED_ENV} must be 'error' or 'relax', not {value!r}")
    return value


def default_strict() -> int:
    value = os.environ.get(STRICT_ENV)
    return DEFAULT_STRICT if value is None else check_strict(value, f"the environment variable {STRICT_ENV}")


@dataclass(frozen=True)
class RequestOptions:
    """A request's thinkgate options, as every engine's glue reads them (see :func:`request_options`)."""

    format: str
    tools: Optional[list] = None
    tool_choice: Any = "auto"
    parallel_tool_calls: bool = True
    thinking: Any = None
    thinking_budget: Optional[int] = None
    max_whitespace: Optional[int] = 8
    unsupported: str = "error"
    response_format: Optional[dict] = None  # OpenAI's: the answer after thinking held to JSON
    strict: int = DEFAULT_STRICT  # 0 parse only (under "auto"), 1 markup and names, 2 full schemas

    def to_json(self) -> str:
        return json.dumps({k: getattr(self, k) for k in _OPTION_FIELDS}, ensure_ascii=False)


def check_budget(value: Any, name: str = "thinking_budget") -> Optional[int]:
    """A thinking budget as a request gives it: a non-negative integer (or its digits), or None."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer, not {value!r}")
    return value


def request_options(extra_args: Optional[dict]) -> Optional[RequestOptions]:
    """The thinkgate options of a request (``None`` if it did not opt in). Errors name the option."""
    if not extra_args or OPTION_KEY not in extra_args:
        return None
    raw = extra_args[OPTION_KEY]
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError as e:
            raise ValueError(f"extra_args['{OPTION_KEY}'] is not valid JSON: {e}") from None
    if not isinstance(raw, dict):
        raise ValueError(f"extra_args['{OPTION_KEY}'] must be an object (or its JSON text), not {type(raw).__name__}")
    unknown = sorted(set(raw) - set(_OPTION_FIELDS))
    if unknown:
        raise ValueError(f"unknown thinkgate option(s) {', '.join(unknown)}; known: {', '.join(_OPTION_FIELDS)}")
    if "format" not in raw:
        raise ValueError("thinkgate options need a 'format' (e.g. 'deepseek_r1', 'deepseek_v3_1')")
    if not isinstance(raw["format"], str):
        raise ValueError(f"thinkgate option 'format' must be a format name, not {raw['format']!r}")
    get_format(raw["format"])
    if raw.get("tools") is not None and not isinstance(raw["tools"], list):
        raise ValueError(f"thinkgate option 'tools' must be a list of tools, not {type(raw['tools']).__name__}")
    if not isinstance(raw.get("parallel_tool_calls", True), bool):
        raise ValueError(f"thinkgate option 'parallel_tool_calls' must be true or false, not {raw['parallel_tool_calls']!r}")
    if raw.get("thinking") not in (None, True, False, "auto"):
        raise ValueError(f"thinking must be true, false or 'auto', not {raw['thinking']!r}")
    check_budget(raw.get("thinking_budget"))
    ws = raw.get("max_whitespace", 8)
    if ws is not None and (isinstance(ws, bool) or not isinstance(ws, int) or ws < 0):
        raise ValueError(f"thinkgate option 'max_whitespace' must be a non-negative integer or null, not {ws!r}")
    if raw.get("unsupported", "error") not in ("error", "relax"):
        raise ValueError(f"thinkgate option 'unsupported' must be 'error' or 'relax', not {raw['unsupported']!r}")
    from .constraint.grammar.json_answer import answer_schema

    answer_schema(raw.get("response_format"))  # its shape; the schema itself at check_options
    if "strict" in raw:
        raw = {**raw, "strict": check_strict(raw["strict"], "thinkgate option 'strict'")}
    return RequestOptions(**raw)


@functools.lru_cache(maxsize=1024)
def _checked(options_json: str) -> None:
    from .constraint.grammar.compile_budget import check_spec
    from .constraint.grammar.compiled import check_tag
    from .constraint.grammar.structural_tag import build_spec

    opts = RequestOptions(**json.loads(options_json))
    spec = build_spec(opts.format, opts.tools, opts.tool_choice, opts.parallel_tool_calls, unsupported=opts.unsupported, max_whitespace=opts.max_whitespace, response_format=opts.response_format, strict=opts.strict)
    check_tag(spec)
    check_spec(spec)  # (no tokenizer here: the estimate for a 128k vocabulary)


def check_options(opts: RequestOptions, tokenizer: Any = None) -> None:
    """Everything about a request that can be known before generation, so that a bad request
    fails at admission with a ``ValueError`` naming its problem: tools, schemas, tool_choice,
    response_format and xgrammar's grammar for them (without a tokenizer, cached by the options); with the
    tokenizer, that it has the format's markers."""
    _checked(opts.to_json())
    if tokenizer is not None:
        from .constraint.grammar.compiled import check_markers

        check_markers(get_format(opts.format), lambda m: single_token_id(tokenizer, m))



def calls_may_come(tools: Any, tool_choice: Any) -> bool:
    """Whether an output under these may call tools (the choice resolved as the grammar resolves
    it: ``allowed_tools`` naming none is ``none``). Where it may, the tool markup's token written
    while thinking is read as the calls' start, as the grammar reads it; else as reasoning."""
    from .constraint.grammar.structural_tag import resolve_tool_choice, tool_declarations

    return resolve_tool_choice(tool_choice, tool_declarations(tools))[0] != "none"


def answer_reading(format: Any, tools: Any, tool_choice: Any, response_format: Any) -> dict[str, Any]:
    """The parser's options for an output generated under these. A JSON answer is content; in a
    format that reads an answer starting with ``{`` as calls (Llama 3.x's bare JSON calls) it is
    read verbatim (``reasoning_only``) where no call can come: tool_choice ``none`` or no tools
    (``auto`` with a JSON answer is refused there, and ``required`` leaves no answer)."""
    from .constraint.grammar.json_answer import answer_schema
    from .constraint.grammar.structural_tag import resolve_tool_choice, tool_declarations

    fmt = get_format(format)
    if answer_schema(response_format) is None or not fmt.tools.holds_calls("{"):
        return {}
    choice, _ = resolve_tool_choice(tool_choice, tool_declarations(tools))
    return {"reasoning_only": True} if choice == "none" else {}


def check_stop(stop: Any, tool_choice: Any, stop_token_ids: Any = None) -> None:
    """Stop strings (and an engine's stop token ids) end the output wherever they appear,
    inside a call too: with a call required ("required" or a named tool) one would cut the call
    the request asks for, and no grammar keeps the output clear of them. Refused by name."""
    if not (tool_choice == "required" or isinstance(tool_choice, dict)):
        return
    kind = "tool_choice 'required'" if tool_choice == "required" else "a named tool in tool_choice"
    if stop:
        raise ValueError(
            f"stop strings ({', '.join(repr(s) for s in ([stop] if isinstance(stop, str) else stop))}) cannot be given with {kind}: "
            "one could cut the call the request requires, wherever it appears in it; leave out 'stop', or use tool_choice 'auto'"
        )
    if stop_token_ids:
        raise ValueError(
            f"stop_token_ids ({', '.join(str(i) for i in stop_token_ids)}) cannot be given with {kind}: "
            "one could cut the call the request requires; leave out 'stop_token_ids', or use tool_choice 'auto'"
        )


class ChatRequest(BaseModel):
    """One chat request in OpenAI shape, with thinkgate's options.

    ``thinking``: True/False asks the chat template to open or close reasoning; unset leaves the
    format's default. ``thinking_budget``: at most that many reasoning tokens (then ``</think>`` is
    forced). ``strict``: the strict level (0 parse only under ``auto``, 1 markup and tool names,
    2 full schemas; unset: the caller's default, 2 unless it says). ``max_tokens`` (or OpenAI's newer name, ``max_completion_tokens``) bounds the whole
    output; ``stop`` ends it at the first of its strings. ``n``, ``stream``, ``metadata`` and
    ``user`` are read as OpenAI clients send them: one choice, no streaming, the rest ignored.
    ``response_format`` (``json_schema``, ``json_object`` or ``text``) holds the answer after
    thinking to JSON.
    Message content may be OpenAI's list of text parts (joined); other parts are refused."""

    model_config = ConfigDict(extra="forbid")

    # Numbers and booleans are taken as JSON types only, as OpenAI takes them: "10" or true for
    # max_tokens is refused by name, not read as 10 or 1 (pydantic's lax mode would).
    id: Optional[str] = None
    messages: list[dict[str, Any]] = Field(min_length=1)
    tools: Optional[list[dict[str, Any]]] = None
    tool_choice: Union[Literal["none", "auto", "required"], dict[str, Any], None] = None
    parallel_tool_calls: StrictBool = True
    response_format: Optional[dict[str, Any]] = None
    thinking: Optional[StrictBool] = None
    thinking_budget: Optional[StrictInt] = Field(default=None, ge=0)
    strict: Optional[int] = None
    max_tokens: StrictInt = Field(default=512, ge=1)
    max_completion_tokens: Optional[StrictInt] = Field(default=None, ge=1)
    stop: Optional[list[str]] = None
    n: StrictInt = Field(default=1, ge=1)
    stream: StrictBool = False
    temperature: Annotated[float, Strict()] = Field(default=1.0, ge=0)
    top_p: Annotated[float, Strict()] = Field(default=1.0, gt=0, le=1)
    top_k: Optional[StrictInt] = Field(default=None, ge=1)
    seed: Optional[StrictInt] = None
    model: Optional[str] = None
    metadata: Optional[dict[str, Any]] = None
    user: Optional[str] = None

    @field_validator("messages")
    @classmethod
    def _messages(cls, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [_message(i, m) for i, m in enumerate(messages)]

    @field_validator("strict", mode="before")
    @classmethod
    def _strict(cls, value: Any) -> Any:
        return None if value is None else check_strict(value)

    @field_validator("stop", mode="before")
    @classmethod
    def _stop(cls, value: Any) -> Any:
        # OpenAI takes one string or a list of them; an empty string would end every output at once
        stops = [value] if isinstance(value, str) else value
        if isinstance(stops, list) and any(s == "" for s in stops):
            raise ValueError("a stop string cannot be empty")
        return stops or None

    @field_validator("response_format")
    @classmethod
    def _response_format(cls, value: Optional[dict[str, Any]]) -> Optional[dict[str, Any]]:
        from .constraint.grammar.json_answer import answer_schema

        answer_schema(value)  # the shape; the schema is checked with the tools' (check_options)
        return value

    @field_validator("n")
    @classmethod
    def _one_choice(cls, n: int) -> int:
        if n != 1:
            raise ValueError(f"thinkgate generates one choice per request, not {n}; send the request {n} times (with different seeds)")
        return n

    @field_validator("stream")
    @classmethod
    def _no_stream(cls, stream: bool) -> bool:
        if stream:
            raise ValueError("streaming is not supported here (results are whole chat.completion objects): leave stream out or false")
        return stream

    @model_validator(mode="after")
    def _max_tokens(self) -> "ChatRequest":
        given = self.max_completion_tokens
        if given is not None:
            if "max_tokens" in self.model_fields_set and self.max_tokens != given:
                raise ValueError(f"max_tokens ({self.max_tokens}) and max_completion_tokens ({given}) disagree; give one of them")
            self.max_tokens = given
        check_stop(self.stop, self.effective_tool_choice if self.tools else None)
        return self

    def strict_level(self, default: Optional[int] = None) -> int:
        """The request's own ``strict``, else ``default`` (a caller's: the command line's
        ``--strict``), else 2."""
        if self.strict is not None:
            return self.strict
        return DEFAULT_STRICT if default is None else check_strict(default)

    @property
    def effective_tool_choice(self) -> Any:
        if self.tool_choice is not None:
            return self.tool_choice
        return "auto" if self.tools else "none"


_ROLES = ("system", "developer", "user", "assistant", "tool")


def _message(i: int, m: Any) -> dict[str, Any]:
    """One message, checked, with OpenAI's text parts joined into the string templates expect.
    Errors name the field (``messages[1].content``), as a user finds it in the request."""
    if not isinstance(m, dict):
        raise ValueError(f"messages[{i}] must be an object, not {type(m).__name__}")
    role = m.get("role")
    if role not in _ROLES:
        raise ValueError(f"messages[{i}].role: unknown role {role!r} (one of {', '.join(_ROLES)})")
    content = m.get("content")
    if isinstance(content, list):
        texts = []
        for k, part in enumerate(content):
            kind = part.get("type") if isinstance(part, dict) else None
            if kind != "text" or not isinstance(part.get("text"), str):
                what = f"part type {kind!r}" if kind else "a part that is not {\"type\": \"text\", \"text\": ...}"
                raise ValueError(f"messages[{i}].content[{k}]: {what} is not supported (only text parts)")
            texts.append(part["text"])
        # parts are joined by a line break, as vLLM's server joins them for a string template
        m = {**m, "content": "\n".join(texts)}
    elif content is None:
        if role != "assistant" or not m.get("tool_calls"):
            needs = "an assistant message without tool_calls" if role == "assistant" else f"a {role} message"
            raise ValueError(f"messages[{i}].content is missing: {needs} needs content")
    elif not isinstance(content, str):
        raise ValueError(f"messages[{i}].content must be a string or a list of text parts, not {type(content).__name__}")
    return m


def chat_completion(
    message: Message,
    *,
    model: str,
    prompt_tokens: int,
    completion_tokens: int,
    request_id: Optional[str] = None,
    reasoning_field: str = "reasoning_content",
    tool_choice: Any = None,
    completion_tokens_details: Optional[dict[str, int]] = None,
) -> dict[str, Any]:
    """An OpenAI ``chat.completion`` object for one parsed output. Under a ``tool_choice`` that
    names a function, the call's natural end is ``finish_reason`` ``"stop"``, as OpenAI (and
    vLLM's server) report a forced function. ``completion_tokens_details``: OpenAI's breakdown
    of the completion tokens (``accepted_prediction_tokens`` and ``rejected_prediction_tokens``
    where drafts were verified)."""
    choice = message.to_openai_choice(0, reasoning_field=reasoning_field)
    if isinstance(tool_choice, dict) and tool_choice.get("type") == "function" and choice["finish_reason"] == "tool_calls":
        choice["finish_reason"] = "stop"
    usage: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    if completion_tokens_details is not None:
        usage["completion_tokens_details"] = dict(completion_tokens_details)
    return {
        "id": request_id or f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [choice],
        "usage": usage,
    }
