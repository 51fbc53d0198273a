"""The reader of a call's arguments, chosen by the format's arguments style.

Every reader offers the same interface to the call tracker (``feed``, ``done``, ``failed``,
``in_string``, ``end``, ``arguments_text``, ``error``, ``KIND``, ``unfinished``,
``ended_in_value``): a JSON object
(:class:`~thinkgate.parsing.json_scanner.JsonScanner`), parameters written as text and typed by
the tool's schema (:class:`~thinkgate.parsing.xml_arguments.XmlArgumentsScanner`), an object literal converted
to JSON as it is read (:class:`~thinkgate.parsing.literal_arguments.LiteralArgumentsScanner`,
which also takes the delta's token credits), Python keyword arguments likewise
(:class:`~thinkgate.parsing.python_arguments.PythonArgumentsScanner`), or a call
object holding the name beside the arguments
(:class:`~thinkgate.parsing.json_wrapper.JsonWrapperScanner`, which also offers the ``name``
once it has read it).
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Mapping
from typing import Any

from ..formats import ToolCallFormat
from ..formats.base import loads_json
from .json_scanner import JsonScanner
from .json_wrapper import JsonWrapperScanner
from .literal_arguments import LiteralArgumentsScanner
from .python_arguments import PythonArgumentsScanner
from .xml_arguments import XmlArgumentsScanner


def arguments_reader(tools: ToolCallFormat, parameters: Any = None, checked: bool = True) -> Any:
    """What reads a call's arguments once its header has named the tool (``parameters``: that
    tool's schema, which types parameters written as text; ``checked``: whether the call is held
    to it, so that a key it does not take is no parameter of it)."""
    xml = tools.xml
    if xml is not None:
        return XmlArgumentsScanner(xml, parameters, footer="".join(tools.footer.split()), free_keys=not checked)
    if tools.literal is not None:
        return LiteralArgumentsScanner(tools.literal)
    if tools.python is not None:
        return PythonArgumentsScanner(tools.python)
    return JsonScanner()


def call_object_reader(tools: ToolCallFormat, read_also: tuple[str, ...] = ()) -> JsonWrapperScanner:
    """What reads a call object: its name and its arguments together."""
    return JsonWrapperScanner(tools.name_key, tools.arguments_key, tools.id_key, (*tools.arguments_read_also, *read_also), tools.name_as_key)


log = logging.getLogger("thinkgate.parsing")


class ArgumentsSchemas:
    """Each tool's parameters schema as a validator (JSON Schema 2020-12, formats checked), built
    on first use: a call whose arguments break its tool's schema is no valid call, whether a
    grammar wrote it or not."""

    def __init__(self, parameters: Mapping[str, Any]) -> None:
        self._parameters = parameters
        self._validators: dict[str, Any] = {}

    def error(self, name: str, arguments: str) -> str | None:
        """Why ``arguments`` (a JSON object's text) do not satisfy tool ``name``'s schema, or None."""
        validator = self._validator(name)
        if validator is None:
            return None
        try:
            value = loads_json(arguments)
        except ValueError as e:  # the reader read it as JSON: this would be the reader's fault
            return f"arguments are not valid JSON: {e}"
        try:
            problem = next(iter(sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))), None)
        except (TypeError, OverflowError):  # a number past a double's range against a float's multipleOf
            return None  # (what the grammar held: the constraint enforces no multipleOf)
        if problem is None:
            return None
        where = "".join(f"[{p!r}]" for p in problem.absolute_path) or "the arguments"
        return f"arguments do not match the schema of {name!r}: {problem.message} (at {where})"

    def _validator(self, name: str) -> Any:
        if name not in self._validators:
            schema = self._parameters.get(name)
            if schema is None:
                schema = {"type": "object"}
            try:
                key = json.dumps(schema, sort_keys=True)
            except (TypeError, ValueError):  # (not JSON: checked for this parser alone)
                validator, problem = _checked_validator.__wrapped__(schema)
            else:
                validator, problem = _checked_validator(key)
            if problem is not None:
                log.warning("the parameters schema of tool %r is not a valid JSON Schema (%s): its calls are not checked", name, problem)
            self._validators[name] = validator
        return self._validators[name]


@functools.lru_cache(maxsize=512)
def _checked_validator(schema: Any) -> tuple[Any, str | None]:
    """A schema's validator and, where the schema is no valid JSON Schema, why (then no
    validator). Checking a schema costs more than reading a long output's calls (11 ms for four
    tools of 19 properties): a server's parsers, one a request, share the check (``schema`` is
    its JSON text, keys sorted)."""
    import jsonschema  # only a parser given tools pays for it

    if isinstance(schema, str):
        schema = json.loads(schema)
    cls = jsonschema.Draft202012Validator
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as e:
        return None, e.message
    return cls(schema, format_checker=cls.FORMAT_CHECKER), None
