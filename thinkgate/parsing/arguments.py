"""The reader of a call's arguments, chosen by the format's arguments style.

Every reader offers the same interface to the call tracker (``feed``, ``done``, ``failed``,
``in_string``, ``end``, ``arguments_text``, ``error``, ``KIND``): a JSON object
(:class:`~thinkgate.parsing.json_scanner.JsonScanner`), parameters written as text and typed by
the tool's schema (:class:`~thinkgate.parsing.xml_arguments.XmlArgumentsScanner`), or a call
object holding the name beside the arguments
(:class:`~thinkgate.parsing.json_wrapper.JsonWrapperScanner`, which also offers the ``name``
once it has read it).
"""

from __future__ import annotations

from typing import Any

from ..formats import ToolCallFormat
from .json_scanner import JsonScanner
from .json_wrapper import JsonWrapperScanner
from .xml_arguments import XmlArgumentsScanner


def arguments_reader(tools: ToolCallFormat, parameters: Any = None) -> Any:
    """What reads a call's arguments once its header has named the tool (``parameters``: that
    tool's schema, which types parameters written as text)."""
    xml = tools.xml
    if xml is not None:
        return XmlArgumentsScanner(xml, parameters)
    return JsonScanner()


def call_object_reader(tools: ToolCallFormat) -> JsonWrapperScanner:
    """What reads a call object: its name and its arguments together."""
    return JsonWrapperScanner(tools.name_key, tools.arguments_key)
