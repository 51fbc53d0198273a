"""The loop: generate a turn under thinkgate's grammar with the servers' tools, run each call
on its server with ``call_tool`` (a turn's calls concurrently), hand the results back as ``tool``
messages, and go on until the model answers without a call or the step limit is reached.

The transcript is OpenAI messages: the assistant turns as thinkgate parsed them (with
``reasoning_content``, and each call's id as the parser gave it: the format's own where the
model writes one, so that the chat template writes it back as it was) and one ``tool`` message
per call, answering its ``tool_call_id``. A tool's failure (``isError``, or an error the server
answers the request with) is a tool result, and the loop goes on; a server that stops
answering ends the loop with :class:`~thinkgate.agent.errors.ServerError`, the transcript kept.
"""

from __future__ import annotations

import asyncio
import builtins
import json
import threading
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence, TextIO

from ..requests import ChatRequest
from .engines import Engine
from .errors import AgentError, ServerError
from .servers import ServerSpec, clean_label, server_spec
from .tools import Toolset, build_toolset, check_toolset, list_all_tools, result_text


@dataclass
class CallRecord:
    """One call of a turn: what the model asked, which server ran it, and what came back."""

    id: str
    name: str  # as offered to the model
    server: str
    tool: str  # the server's own name
    arguments: str  # the JSON text as the model wrote it
    content: Optional[str] = None
    is_error: bool = False


@dataclass
class Step:
    """One turn: the assistant message (OpenAI shape), its calls, and why generation ended."""

    index: int
    message: dict
    finish_reason: Optional[str]
    calls: list[CallRecord] = field(default_factory=list)


@dataclass
class AgentResult:
    """``messages``: the whole transcript (the given messages first). ``stop_reason``:
    ``"answer"`` (a turn without a call), ``"max_steps"``, ``"length"`` (a turn cut off by
    ``max_tokens`` before any call) or ``"invalid_call"`` (a turn whose only calls could not be
    read: possible only where the grammar did not hold them, as under ``unsupported="relax"``)."""

    messages: list[dict]
    steps: list[Step]
    stop_reason: str

    @property
    def answer(self) -> Optional[str]:
        last = self.steps[-1].message if self.steps else None
        return last.get("content") if last is not None and not last.get("tool_calls") else None


class Agent:
    """MCP servers connected, their tools listed and checked, ready to run questions::

        async with Agent(engine, ["python -m calc_server", "http://127.0.0.1:8000/mcp"]) as agent:
            result = await agent.run("What is 17 * 23?")

    ``servers``: URLs, command lines, ``StdioServerParameters`` or in-process server objects
    (see :func:`~thinkgate.agent.servers.server_spec`). ``unsupported``: ``"error"`` refuses a
    tool whose schema holds a keyword thinkgate cannot enforce (:class:`ToolSchemaError`, naming
    the server, the tool and the keyword) before any turn; ``"relax"`` drops such keywords.
    ``call_timeout``: seconds a call may take (then it is a tool error). ``errlog``: where a
    stdio server's stderr goes (default: this process's).
    """

    def __init__(self, engine: Engine, servers: Sequence[Any], *, unsupported: str = "error", strict: int = 2, call_timeout: Optional[float] = None, errlog: Optional[TextIO] = None) -> None:
        if unsupported not in ("error", "relax"):
            raise ValueError(f"unsupported must be 'error' or 'relax', not {unsupported!r}")
        self.engine = engine
        self.specs: list[ServerSpec] = [server_spec(s) for s in servers]
        if not self.specs:
            raise ValueError("an agent needs at least one MCP server")
        self.unsupported = unsupported
        self.strict = strict
        self.call_timeout = call_timeout
        self.errlog = errlog
        self.clients: list[Any] = []
        self.toolset: Optional[Toolset] = None
        # the messages of the run in progress (or the last), as they stand: what a caller
        # interrupted mid-run (Ctrl-C) still has
        self.transcript: list[dict] = []
        self._stack: Optional[AsyncExitStack] = None

    async def __aenter__(self) -> "Agent":
        self._stack = AsyncExitStack()
        try:
            listings = []
            for spec in self.specs:
                client = await self._connect(spec)
                info = getattr(client, "server_info", None)
                if info is not None and getattr(info, "name", None) and not spec.named:
                    spec.label = clean_label(info.name)
                try:
                    tools = await list_all_tools(client)
                except Exception as e:
                    raise ServerError(f"MCP server {spec.label!r} did not list its tools: {_describe(e)}", spec.label) from None
                self.clients.append(client)
                listings.append((spec.label, tools))
            _unique_labels(self.specs, listings)
            self.toolset = build_toolset(listings)
            check_toolset(self.toolset, self.engine.format, self.unsupported, self.strict)
        except BaseException:
            await self._close()
            raise
        return self

    async def _connect(self, spec: ServerSpec) -> Any:
        assert self._stack is not None
        try:
            return await self._stack.enter_async_context(spec.client(errlog=self.errlog))
        except Exception as e:
            raise ServerError(f"MCP server {spec.label!r} could not be reached: {_describe(e)}", spec.label) from None

    async def __aexit__(self, *exc: Any) -> None:
        await self._close(quiet=exc[0] is not None)

    async def _close(self, quiet: bool = True) -> None:
        stack, self._stack = self._stack, None
        if stack is None:
            return
        try:
            await stack.aclose()
        except BaseException:  # a dead server's connection may fail to close: the first error stands
            if not quiet:
                raise

    async def run(
        self,
        prompt: str | list[dict],
        *,
        system: Optional[str] = None,
        max_steps: int = 8,
        tool_choice: Any = "auto",
        parallel_tool_calls: bool = True,
        thinking: Optional[bool] = None,
        thinking_budget: Optional[int] = None,
        max_tokens: int = 512,
        temperature: float = 1.0,
        top_p: float = 1.0,
        seed: Optional[int] = None,
        on_step: Optional[Callable[[Step], None]] = None,
    ) -> AgentResult:
        """Run the loop on ``prompt`` (a question, or OpenAI messages to continue), at most
        ``max_steps`` turns. ``on_step(step)`` is called as each turn's calls have run (or as the
        last turn ends). The sampling options apply to every turn; turn ``k`` samples with
        ``seed + k``, so that a seeded run repeats and its turns differ."""
        if self.toolset is None:
            raise RuntimeError("use the Agent inside 'async with'")
        if max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, not {max_steps}")
        messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else [dict(m) for m in prompt]
        if system is not None:
            messages.insert(0, {"role": "system", "content": system})
        self.transcript = messages
        steps: list[Step] = []
        for k in range(max_steps):
            try:
                request = ChatRequest(
                    messages=messages,
                    tools=self.toolset.tools,
                    tool_choice=tool_choice,
                    parallel_tool_calls=parallel_tool_calls,
                    thinking=thinking,
                    thinking_budget=thinking_budget,
                    max_tokens=max_tokens,
                    temperature=temperature,
                    top_p=top_p,
                    seed=None if seed is None else seed + k,
                    strict=self.strict,
                )
                choice = await _in_thread(self.engine.complete, request, self.unsupported)
            except Exception as e:
                raise AgentError(f"turn {k + 1} could not be generated: {_describe(e)}", messages) from e
            message = _assistant_message(choice["message"])
            messages.append(message)
            step = Step(k + 1, message, choice.get("finish_reason"))
            steps.append(step)
            if not message.get("tool_calls"):
                if on_step is not None:
                    on_step(step)
                if message.get("invalid_tool_calls"):
                    reason = "length" if any(c.get("cut_off") for c in message["invalid_tool_calls"]) else "invalid_call"
                else:
                    reason = "length" if step.finish_reason == "length" else "answer"
                return AgentResult(messages, steps, reason)
            await self._run_calls(step, messages)
            if on_step is not None:
                on_step(step)
        return AgentResult(messages, steps, "max_steps")

    async def _run_calls(self, step: Step, messages: list[dict]) -> None:
        """The turn's calls, concurrently; their tool messages appended in the calls' order. A
        server that stopped answering raises once every call of the turn has ended."""
        assert self.toolset is not None
        routes = self.toolset.routes
        for call in step.message["tool_calls"]:
            fn = call["function"]
            route = routes.get(fn["name"])  # (an endpoint's parser may read a name never offered)
            step.calls.append(CallRecord(call["id"], fn["name"], route.label if route else "", route.tool if route else fn["name"], fn["arguments"]))
        outcomes = await asyncio.gather(*(self._call(record) for record in step.calls), return_exceptions=True)
        dead = None
        for record, outcome in zip(step.calls, outcomes):
            if isinstance(outcome, BaseException):
                if _is_connection_lost(outcome):
                    dead = dead or (record, outcome)
                    continue
                record.content, record.is_error = f"error: {_describe(outcome)}", True
            messages.append({"role": "tool", "tool_call_id": record.id, "content": record.content})
        if dead is not None:
            record, error = dead
            raise ServerError(
                f"MCP server {record.server!r} stopped answering during turn {step.index} (call {record.tool}({json.dumps(json.loads(record.arguments), ensure_ascii=False)})): {_describe(error)}",
                record.server,
                messages,
            )

    async def _call(self, record: CallRecord) -> None:
        assert self.toolset is not None
        route = self.toolset.routes.get(record.name)
        if route is None:
            raise LookupError(f"no tool named {record.name!r} is offered ({', '.join(self.toolset.routes)})")
        arguments = json.loads(record.arguments)
        result = await self.clients[route.server].call_tool(record.tool, arguments, read_timeout_seconds=self.call_timeout)
        record.content, record.is_error = result_text(result), bool(result.is_error)


async def run_agent(engine: Engine, servers: Sequence[Any], prompt: str | list[dict], *, unsupported: str = "error", strict: int = 2, call_timeout: Optional[float] = None, errlog: Optional[TextIO] = None, **options: Any) -> AgentResult:
    """Connect to ``servers``, run the loop on ``prompt`` (see :meth:`Agent.run` for
    ``options``), and disconnect."""
    async with Agent(engine, servers, unsupported=unsupported, strict=strict, call_timeout=call_timeout, errlog=errlog) as agent:
        return await agent.run(prompt, **options)


async def _in_thread(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a daemon thread. A turn is minutes of generation on a real model: when the
    loop is cancelled (Ctrl-C) the process may end at once, where ``asyncio.to_thread``'s pool
    would hold it until the turn ends."""
    loop = asyncio.get_running_loop()
    future = loop.create_future()

    def settle(result: Any, error: Optional[BaseException]) -> None:
        if not future.done():
            future.set_exception(error) if error is not None else future.set_result(result)

    def work() -> None:
        try:
            result, error = fn(*args), None
        except BaseException as e:
            result, error = None, e
        try:
            loop.call_soon_threadsafe(settle, result, error)
        except RuntimeError:  # the loop is gone (the run was cancelled): nobody waits for it
            pass

    threading.Thread(target=work, name=_TURN_THREAD, daemon=True).start()
    return await future


_TURN_THREAD = "thinkgate-turn"


def turn_running() -> bool:
    """Whether a turn is still being generated in its thread (a cancelled run's)."""
    return any(t.name == _TURN_THREAD and t.is_alive() for t in threading.enumerate())


def _assistant_message(message: dict) -> dict:
    """The assistant turn as the transcript keeps it (and the template renders it next turn)."""
    out: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    for key in ("reasoning_content", "tool_calls", "invalid_tool_calls"):
        if message.get(key):
            out[key] = message[key]
    return out


def _unique_labels(specs: list[ServerSpec], listings: list[tuple[str, list]]) -> None:
    """Two servers of one name (two copies of a server) get numbered labels."""
    seen: dict[str, int] = {}
    for i, spec in enumerate(specs):
        n = seen[spec.label] = seen.get(spec.label, 0) + 1
        if n > 1:
            spec.label = f"{spec.label}{n}"
            listings[i] = (spec.label, listings[i][1])


_GROUPS = getattr(builtins, "BaseExceptionGroup", ())  # (Python 3.11; anyio's backport below it)


def _is_connection_lost(error: BaseException) -> bool:
    import anyio
    from mcp.shared.exceptions import MCPError
    from mcp.types import CONNECTION_CLOSED

    if isinstance(error, _GROUPS):
        return any(_is_connection_lost(e) for e in error.exceptions)
    if isinstance(error, MCPError):
        return error.code == CONNECTION_CLOSED
    return isinstance(error, (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, ConnectionError)) or type(error).__module__.startswith("httpx")


def _describe(error: BaseException) -> str:
    if isinstance(error, _GROUPS) and error.exceptions:
        return _describe(error.exceptions[0])
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
