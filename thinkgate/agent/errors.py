"""What an agent loop raises: each error says what failed, in one line, and carries the
transcript as it stood (OpenAI messages), so that no turn the model paid for is lost."""

from __future__ import annotations

from typing import Optional


class AgentError(Exception):
    """The loop stopped before an answer. ``transcript``: the messages so far."""

    def __init__(self, message: str, transcript: Optional[list[dict]] = None) -> None:
        super().__init__(message)
        self.transcript: list[dict] = list(transcript or [])


class ServerError(AgentError):
    """An MCP server could not be reached, or stopped answering (its process died, its
    connection closed). ``server``: its label."""

    def __init__(self, message: str, server: str, transcript: Optional[list[dict]] = None) -> None:
        super().__init__(message, transcript)
        self.server = server


class ToolSchemaError(AgentError, ValueError):
    """A tool's input schema holds what thinkgate's grammar cannot enforce (refused before the
    first turn; ``unsupported="relax"`` drops such keywords instead)."""
