"""The streaming state machine for the ``tagged_xml`` layout (Qwen3-Coder, GLM): the tagged
machine, whose arguments are parameters (see :mod:`.xml_arguments`) typed by the tools' schemas."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from ..formats import ChatFormat, Thinking
from .tagged_json import TaggedJsonMachine
from .xml_arguments import XmlArgumentsScanner


class TaggedXmlMachine(TaggedJsonMachine):
    def __init__(self, fmt: ChatFormat, thinking: Thinking, *args, tool_parameters: Optional[Mapping[str, Any]] = None, **kwargs) -> None:
        if fmt.tools.xml is None:
            raise ValueError(f"format {fmt.name!r} has the tagged_xml layout but does not say how parameters are written (ToolCallFormat.xml)")
        super().__init__(fmt, thinking, *args, **kwargs)
        self._parameters = dict(tool_parameters or {})

    def _arguments_scanner(self, name: str) -> XmlArgumentsScanner:
        return XmlArgumentsScanner(self.fmt.tools.xml, self._parameters.get(name))
