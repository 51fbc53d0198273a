"""OpenAI's Batch API file format, as ``thinkgate generate`` reads and writes it.

An input line is a Batch line (``{"custom_id", "method": "POST", "url": "/v1/chat/completions",
"body": {...}}``) or a bare chat request body. Every non-blank line gets one output line, in
order, so that output line N answers input line N: a Batch response
(``{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error"}``) or, for a
line that failed, ``response: null`` and ``error: {"code", "message"}`` with a message that names
the line and the field.
"""

from __future__ import annotations

import json
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Optional

from pydantic import ValidationError

from .requests import ChatRequest

CHAT_URL = "/v1/chat/completions"
_BATCH_KEYS = ("custom_id", "method", "url", "body")


@dataclass
class Line:
    """One non-blank input line: its request, or why it has none."""

    number: int
    custom_id: str
    request: Optional[ChatRequest] = None
    error: Optional[dict] = None  # {"code", "message"}

    def fail(self, code: str, message: str) -> None:
        self.request = None
        self.error = {"code": code, "message": f"line {self.number}: {message}"}


def read_lines(lines) -> list[Line]:
    """Every non-blank line of a JSONL input, parsed and checked as a chat request."""
    out: list[Line] = []
    seen: dict[str, int] = {}
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        line = _read_line(number, text)
        # OpenAI refuses a batch whose custom_ids repeat: the answers could not be told apart
        if line.custom_id in seen and line.error is None:
            line.fail("duplicate_custom_id", f"custom_id {line.custom_id!r} was used on line {seen[line.custom_id]} already")
        seen.setdefault(line.custom_id, number)
        out.append(line)
    return out


def _read_line(number: int, text: str) -> Line:
    line = Line(number, f"line-{number}")
    try:
        data = json.loads(text)
    except ValueError as e:
        line.fail("invalid_json", f"not JSON ({e})")
        return line
    if not isinstance(data, dict):
        line.fail("invalid_request", f"a request is a JSON object, not a JSON {_json_kind(data)}")
        return line
    prefix = ""
    if any(k in data for k in _BATCH_KEYS):  # a bare body never has these: its extra=forbid refuses them
        problem = _batch_problem(data)
        if isinstance(data.get("custom_id"), str):
            line.custom_id = data["custom_id"]
        if problem:
            line.fail("invalid_request", problem)
            return line
        data, prefix = data["body"], "body."
    elif isinstance(data.get("id"), str):
        line.custom_id = data["id"]
    try:
        line.request = ChatRequest(**data)
    except ValidationError as e:
        # a union (tool_choice) fails once per member: say it once
        problems = dict.fromkeys(_describe(err, prefix) for err in e.errors())
        line.fail("invalid_request", "; ".join(problems))
    return line


def _batch_problem(data: dict) -> Optional[str]:
    unknown = sorted(set(data) - set(_BATCH_KEYS))
    if unknown:
        return f"unknown field(s) {', '.join(repr(k) for k in unknown)} in a Batch line (it has {', '.join(_BATCH_KEYS)})"
    missing = [k for k in _BATCH_KEYS if k not in data]
    if missing:
        return f"a Batch line needs {', '.join(repr(k) for k in missing)}"
    if not isinstance(data["custom_id"], str):
        return f"custom_id must be a string, not {_json_kind(data['custom_id'])}"
    if data["method"] != "POST":
        return f"method {data['method']!r}: only 'POST' is supported"
    if data["url"] not in (CHAT_URL, "/chat/completions"):
        return f"url {data['url']!r}: only {CHAT_URL!r} is supported"
    if not isinstance(data["body"], dict):
        return f"body must be a JSON object (a chat request), not a JSON {_json_kind(data['body'])}"
    return None


def _describe(err: dict, prefix: str) -> str:
    """One pydantic error as a user reads it: the field by its name in the request."""
    field = prefix + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err["loc"]).lstrip(".")
    msg = err["msg"].removeprefix("Value error, ")
    if err["loc"][:1] == ("tool_choice",):
        choice = json.dumps(err.get("input"), ensure_ascii=False)
        return f'{prefix}tool_choice must be "none", "auto", "required" or {{"type": "function", "function": {{"name": ...}}}}, not {choice}'
    if err["type"] == "extra_forbidden":
        return f"unknown field {field!r} (thinkgate generate does not support it)"
    if err["type"] == "missing":
        return f"{field} is required"
    if err["type"] in _TYPES:  # (also what a lax reading would have converted: "10", true)
        return f"{field} must be {_TYPES[err['type']]}, not the {_json_kind(err.get('input'))} {json.dumps(err.get('input'), ensure_ascii=False)}"
    if not err["loc"]:  # a check across fields names them itself
        return msg
    if msg.startswith(tuple(str(err["loc"][0]) + c for c in "[. ")):  # the message names the field itself (messages[1].content, response_format.type)
        return prefix + msg
    return f"{field}: {msg}"


# pydantic's type errors, as the JSON type a field takes
_TYPES = {"int_type": "an integer", "float_type": "a number", "bool_type": "true or false", "string_type": "a string"}


def _json_kind(value: Any) -> str:
    return {list: "array", str: "string", bool: "boolean", int: "number", float: "number", type(None): "null"}.get(type(value), "object")


def batch_output(line: Line, completion: Optional[dict] = None) -> dict:
    """The Batch API's output line for one input line."""
    if line.error is not None:
        response = None
    else:
        response = {"status_code": 200, "request_id": f"req_{uuid.uuid4().hex}", "body": completion}
    return {"id": f"batch_req_{uuid.uuid4().hex}", "custom_id": line.custom_id, "response": response, "error": line.error}


def chat_output(line: Line, completion: Optional[dict] = None) -> dict:
    """The bare ``chat.completion`` for one input line, or OpenAI's error body where it failed."""
    return {"error": line.error} if line.error is not None else completion  # type: ignore[return-value]


@dataclass
class Held:
    """What an earlier run's output holds (``--resume``): its whole lines (``size`` bytes; a last
    line a crash cut off is not one of them) and the input lines they answer, by number."""

    path: str
    size: int = 0
    numbers: set[int] = field(default_factory=set)


def held_lines(path: str, lines: list[Line], output_format: str) -> Held:
    """The input lines an output at ``path`` answers. Batch lines are matched by ``custom_id``
    (as the Batch API matches them; a repeated id answers as many lines as it is written);
    bare completions carry no ``custom_id``, so they answer the first lines, in order (the order
    ``generate`` writes them in). A ``ValueError`` where the output cannot be this input's."""
    with open(path, "rb") as f:
        data = f.read()
    held = Held(path)
    answers = []
    for k, text in enumerate(data.splitlines(keepends=True), start=1):
        try:
            answer = json.loads(text) if text.endswith(b"\n") else None
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            if held.size + len(text) < len(data):  # not the last line: not a crash's cut
                raise ValueError(f"{path} line {k} is not a JSON object: it is not thinkgate generate's output")
            break  # the last line, cut off as it was written: its request is generated again
        held.size += len(text)
        answers.append(answer)
    if output_format == "chat":
        if len(answers) > len(lines):
            raise ValueError(f"{path} holds {len(answers)} answers, and the input {len(lines)} requests: it is another input's output")
        held.numbers = {line.number for line in lines[: len(answers)]}
        return held
    ids = Counter()
    for k, answer in enumerate(answers, start=1):
        if not isinstance(answer.get("custom_id"), str):
            raise ValueError(f"{path} line {k} has no custom_id: it is not a Batch API output (--output-format chat reads bare completions)")
        ids[answer["custom_id"]] += 1
    for line in lines:
        if ids[line.custom_id] > 0:
            ids[line.custom_id] -= 1
            held.numbers.add(line.number)
    foreign = [custom_id for custom_id, n in ids.items() if n > 0]
    if foreign:
        raise ValueError(f"{path} answers custom_id {foreign[0]!r}, which the input does not hold: it is another input's output")
    return held
