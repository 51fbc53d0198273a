"""Request and response shapes shared by the integrations and the command line (OpenAI chat)."""

from __future__ import annotations

import time
import uuid
from typing import Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

from .parsing import Message


class ChatRequest(BaseModel):
    """One chat request in OpenAI shape, with thinkgate's options.

    ``thinking``: True/False asks the chat template to open or close reasoning; unset leaves the
    format's default. ``thinking_budget``: at most that many reasoning tokens (then ``</think>`` is
    forced). ``max_tokens`` bounds the whole output."""

    model_config = ConfigDict(extra="forbid")

    id: Optional[str] = None
    messages: list[dict[str, Any]] = Field(min_length=1)
    tools: Optional[list[dict[str, Any]]] = None
    tool_choice: Union[Literal["none", "auto", "required"], dict[str, Any], None] = None
    parallel_tool_calls: bool = True
    thinking: Optional[bool] = None
    thinking_budget: Optional[int] = Field(default=None, ge=0)
    max_tokens: int = Field(default=512, ge=1)
    temperature: float = Field(default=1.0, ge=0)
    top_p: float = Field(default=1.0, gt=0, le=1)
    top_k: Optional[int] = Field(default=None, ge=1)
    seed: Optional[int] = None
    model: Optional[str] = None

    @field_validator("messages")
    @classmethod
    def _roles(cls, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for i, m in enumerate(messages):
            role = m.get("role")
            if role not in ("system", "developer", "user", "assistant", "tool"):
                raise ValueError(f"messages[{i}] has an unknown role {role!r}")
        return messages

    @property
    def effective_tool_choice(self) -> Any:
        if self.tool_choice is not None:
            return self.tool_choice
        return "auto" if self.tools else "none"


def chat_completion(
    message: Message,
    *,
    model: str,
    prompt_tokens: int,
    completion_tokens: int,
    request_id: Optional[str] = None,
    reasoning_field: str = "reasoning_content",
) -> dict[str, Any]:
    """An OpenAI ``chat.completion`` object for one parsed output."""
    return {
        "id": request_id or f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [message.to_openai_choice(0, reasoning_field=reasoning_field)],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }
