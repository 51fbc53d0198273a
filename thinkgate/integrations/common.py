"""What every engine's glue does alike: tools as plain dicts, and one class per format."""

from __future__ import annotations

from typing import Any, Optional

from ..formats import ChatFormat

# An engine's response has no field for a call that could not be read: its text goes back to
# the content, so nothing the model wrote is lost.
ENGINE_INVALID_CALLS = "content"


def plain_tools(tools: Any) -> Optional[list]:
    """An engine's tools (pydantic models or dicts) as OpenAI-shape dicts; None for none."""
    if not tools:
        return None
    return [t.model_dump(exclude_none=True) if hasattr(t, "model_dump") else dict(t) for t in tools]


def format_class(base: type, fmt: ChatFormat, kind: str, namespace: dict) -> type:
    """``base`` bound to ``fmt`` (``Thinkgate<Format><kind>``), added to ``namespace`` (a module's
    globals) so that it can be found by its qualified name, as engines load plugins."""
    cls = type(f"Thinkgate{fmt.name.title().replace('_', '')}{kind}", (base,), {"format": fmt})
    cls.__module__ = namespace["__name__"]
    namespace[cls.__name__] = cls
    return cls
