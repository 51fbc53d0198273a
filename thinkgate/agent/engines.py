"""What generates a turn: a transformers model, a vLLM ``LLM``, or an OpenAI-compatible endpoint
serving thinkgate's plugins. Each takes a :class:`~thinkgate.requests.ChatRequest` (the transcript
so far, the offered tools) and returns the turn's ``choices[0]``: the assistant message, its
tool calls parsed by thinkgate, and ``finish_reason``. Generation is blocking; the loop runs it
in a worker thread so the servers' connections stay served meanwhile."""

from __future__ import annotations

import json
from typing import Any, Optional, Protocol

from ..formats import ChatFormat, get_format
from ..requests import ChatRequest


class Engine(Protocol):
    format: ChatFormat

    def complete(self, request: ChatRequest, unsupported: str = "error") -> dict:
        """One turn under thinkgate's grammar: the OpenAI ``choices[0]`` entry."""
        ...


class TransformersEngine:
    """A Hugging Face model and its tokenizer, with :func:`~thinkgate.integrations.transformers.generate_chat`."""

    def __init__(self, model: Any, tokenizer: Any, format: str | ChatFormat = "deepseek_r1", chat_template: Optional[str] = None, drafting: Optional[dict] = None) -> None:
        self.model, self.tokenizer = model, tokenizer
        self.format = get_format(format)
        self.chat_template = chat_template
        # assisted generation: generate_chat's assistant_model / assistant_tokenizer / prompt_lookup
        self.drafting = dict(drafting or {})

    def complete(self, request: ChatRequest, unsupported: str = "error") -> dict:
        from ..integrations.transformers import generate_chat

        [completion] = generate_chat(self.model, self.tokenizer, [request], format=self.format, chat_template=self.chat_template, unsupported=unsupported, **self.drafting)
        return completion["choices"][0]


class VllmEngine:
    """A vLLM ``LLM`` built with thinkgate's processor (:func:`~thinkgate.integrations.vllm_offline.make_llm`)."""

    def __init__(self, llm: Any, format: str | ChatFormat = "deepseek_r1", chat_template: Optional[str] = None) -> None:
        self.llm = llm
        self.format = get_format(format)
        self.chat_template = chat_template

    def complete(self, request: ChatRequest, unsupported: str = "error") -> dict:
        from ..integrations.vllm_offline import generate_chat

        [completion] = generate_chat(self.llm, [request], format=self.format, chat_template=self.chat_template, unsupported=unsupported)
        return completion["choices"][0]


class OpenAIEngine:
    """An OpenAI-compatible chat endpoint that serves thinkgate's plugins (vLLM's server started
    with thinkgate's tool and reasoning parsers, see the README): the grammar runs there, and so
    does the parsing. thinkgate's options travel as vLLM reads them: ``vllm_xargs`` (thinking
    budget, ``unsupported``, strict level) and ``chat_template_kwargs`` (thinking on or off).
    Uses the ``openai`` client where it is installed, else the standard library."""

    def __init__(self, base_url: str, model: str, format: str | ChatFormat = "deepseek_r1", api_key: Optional[str] = None, timeout: float = 600.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.format = get_format(format)
        self.api_key = api_key
        self.timeout = timeout

    def body(self, request: ChatRequest, unsupported: str = "error") -> dict:
        """The request body sent for one turn."""
        body: dict[str, Any] = {
            "model": request.model or self.model,
            "messages": request.messages,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "top_p": request.top_p,
        }
        if request.tools:
            body.update(tools=request.tools, tool_choice=request.effective_tool_choice, parallel_tool_calls=request.parallel_tool_calls)
        for key in ("seed", "top_k", "stop"):
            if getattr(request, key) is not None:
                body[key] = getattr(request, key)
        xargs: dict[str, Any] = {}
        if request.thinking_budget is not None:
            xargs["thinkgate_thinking_budget"] = request.thinking_budget
        if unsupported != "error":
            xargs["thinkgate_unsupported"] = unsupported
        if request.strict is not None:
            xargs["thinkgate_strict"] = request.strict
        if xargs:
            body["vllm_xargs"] = xargs
        if request.thinking is not None:
            toggle = self.format.reasoning.toggle
            body["chat_template_kwargs"] = {toggle: request.thinking} if toggle else {"thinking": request.thinking, "enable_thinking": request.thinking}
        return body

    def complete(self, request: ChatRequest, unsupported: str = "error") -> dict:
        completion = self._post(self.body(request, unsupported))
        choice = dict(completion["choices"][0])
        message = dict(choice["message"])
        # vLLM names the reasoning "reasoning" (newer) or "reasoning_content": one name here
        reasoning = message.pop("reasoning", None)
        if message.get("reasoning_content") is None and reasoning is not None:
            message["reasoning_content"] = reasoning
        choice["message"] = message
        return choice

    def _post(self, body: dict) -> dict:
        try:
            import openai
        except ImportError:
            return self._post_stdlib(body)
        client = openai.OpenAI(base_url=self.base_url, api_key=self.api_key or "EMPTY", timeout=self.timeout)
        known = {k: v for k, v in body.items() if k not in ("vllm_xargs", "chat_template_kwargs")}
        extra = {k: v for k, v in body.items() if k in ("vllm_xargs", "chat_template_kwargs")}
        return client.chat.completions.create(**known, extra_body=extra or None).model_dump(exclude_none=True)

    def _post_stdlib(self, body: dict) -> dict:
        import urllib.error
        import urllib.request

        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(f"{self.base_url}/chat/completions", data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as e:
            detail = e.read().decode("utf-8", "replace")[:2000]
            raise ValueError(f"{self.base_url}/chat/completions answered {e.code}: {detail}") from None
        except urllib.error.URLError as e:
            raise ConnectionError(f"{self.base_url}/chat/completions could not be reached: {e.reason}") from None
