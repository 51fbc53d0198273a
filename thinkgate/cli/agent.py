"""``thinkgate agent``: a question, a model and MCP servers; the loop's turns printed as they
come (reasoning shortened, calls, results) and the final answer, or with ``--json`` the
transcript as OpenAI messages."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from typing import Any, TextIO

from . import checks
from .checks import UserError

REASONING_SHOWN = 80  # characters of a turn's reasoning printed


def cmd_agent(args: argparse.Namespace) -> int:
    checks.drafting_engine(args)
    if args.engine == "openai" and not args.base_url:
        raise UserError("--engine openai needs --base-url (e.g. http://127.0.0.1:8000/v1)")
    checks.installed("mcp", "thinkgate agent", "agent")
    if args.engine == "vllm":
        checks.installed("vllm", "--engine vllm", "vllm")
    from ..agent import Agent, AgentError, ToolSchemaError

    fmt = checks.known_format(args.format)
    tool_choice = checks.tool_choice(args.tool_choice)
    if args.json not in (None, "-"):
        checks.output_file(args.json)
    template = None
    if args.chat_template:
        checks.input_file(args.chat_template, "chat template")
        with open(args.chat_template, encoding="utf-8") as f:
            template = f.read()
    servers = _servers(args)
    # the tokenizer (a second) before the servers and the model: a format it cannot write is
    # found before either
    tokenizer = None if args.engine == "openai" else _tokenizer(args, checks.model_source(args.model), fmt, template)
    # With --json the transcript is stdout's; the turns go to stderr.
    out = sys.stderr if args.json == "-" else sys.stdout
    thinking = {"on": True, "off": False, "default": None}[args.thinking]

    running: list[Any] = []  # the agent, for its transcript if the run is interrupted

    async def run() -> Any:
        # The servers are reached and their tools checked before the model loads: a bad server
        # or schema costs seconds, not a model load.
        async with Agent(_Pending(fmt), servers, unsupported=args.unsupported, strict=args.strict, call_timeout=args.call_timeout) as agent:
            running.append(agent)
            if not args.quiet:
                names = ", ".join(f"{name} ({route.label})" for name, route in agent.toolset.routes.items())
                print(f"tools: {names}", file=out)
            _check_tool_choice(agent.toolset, fmt, tool_choice, args)
            agent.engine = await asyncio.to_thread(_engine, args, fmt, template, tokenizer)
            return await agent.run(
                args.question,
                system=args.system,
                max_steps=args.max_steps,
                tool_choice=tool_choice,
                thinking=thinking,
                thinking_budget=args.thinking_budget,
                max_tokens=args.max_tokens,
                temperature=args.temperature,
                seed=args.seed,
                on_step=None if args.quiet else lambda step: print_step(step, out),
            )

    try:
        result = asyncio.run(run())
    except ToolSchemaError as e:
        raise UserError(checks.spelled(str(e))) from None
    except AgentError as e:
        print(f"thinkgate agent: error: {checks.spelled(str(e))}", file=sys.stderr)
        _keep(args, e.transcript)
        return 1
    except KeyboardInterrupt:
        print("thinkgate agent: interrupted", file=sys.stderr)
        _keep(args, running[0].transcript if running else [])
        from ..agent.loop import turn_running

        if turn_running():
            # The turn's thread is inside the model: the interpreter ending under it aborts in
            # native code (torch's threads), so the process ends here, its output flushed.
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(130)
        return 130
    if args.json is not None:
        _write_json(args.json, result.messages)
    if not args.quiet or args.json is None:
        if result.stop_reason == "answer":
            print(f"answer: {result.answer or ''}", file=out)
        else:
            print(f"no answer: {_why(result.stop_reason, args.max_steps)}", file=out)
    return 0


class _Pending:
    """The engine's place while the servers are checked: only its format is known yet."""

    def __init__(self, format: Any) -> None:
        self.format = format


def print_step(step: Any, out: TextIO) -> None:
    message = step.message
    print(f"[turn {step.index}] finish_reason={step.finish_reason}", file=out)
    reasoning = message.get("reasoning_content")
    if reasoning:
        shown = reasoning if len(reasoning) <= REASONING_SHOWN else reasoning[:REASONING_SHOWN] + "…"
        print(f"  reasoning ({len(reasoning)} chars): {shown!r}", file=out)
    if message.get("content") and message.get("tool_calls"):
        print(f"  content: {message['content']!r}", file=out)
    for call in step.calls:
        target = call.server if call.tool == call.name else f"{call.server}: {call.tool}"
        print(f"  call {call.name}({_compact(call.arguments)})  [{target}, id {call.id}]", file=out)
        if call.content is not None:
            print(f"    -> {'error: ' if call.is_error else ''}{call.content}", file=out)
        else:
            print("    -> (no result: the server stopped answering)", file=out)
    for bad in message.get("invalid_tool_calls") or ():
        print(f"  unreadable call: {bad.get('error')}", file=out)


def _compact(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), ensure_ascii=False)
    except ValueError:
        return arguments


def _why(reason: str, max_steps: int) -> str:
    return {
        "max_steps": f"the step limit ({max_steps} turns) was reached",
        "length": "a turn was cut off by --max-tokens",
        "invalid_call": "the last turn's calls could not be read",
    }.get(reason, reason)


def _keep(args: argparse.Namespace, transcript: list[dict]) -> None:
    """A run that ended early: the transcript so far, where --json asks for it."""
    if args.json is not None and transcript:
        _write_json(args.json, transcript)
        print(f"the transcript so far ({len(transcript)} messages) is in {'stdout' if args.json == '-' else args.json}", file=sys.stderr)


def _write_json(path: str, messages: list[dict]) -> None:
    text = json.dumps(messages, ensure_ascii=False, indent=2)
    if path == "-":
        print(text)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text + "\n")


def _servers(args: argparse.Namespace) -> list:
    """The servers --mcp names (with --env, --header) and those of --mcp-config's file."""
    from ..agent import server_spec, servers_from_config

    env = _pairs(args.env, "=", "--env", "KEY=VALUE")
    headers = _pairs(args.header, ":", "--header", "NAME: VALUE")
    servers = []
    for text in args.mcp or ():
        if not text.strip():
            raise UserError("--mcp is empty: give a command line or an http(s):// URL")
        try:
            servers.append(server_spec(text, env=env, headers=headers))
        except ValueError as e:  # (a command line shlex cannot split)
            raise UserError(f"--mcp {text!r}: {e}") from None
    for path in args.mcp_config or ():
        try:
            servers.extend(servers_from_config(checks.input_file(path, "MCP config")))
        except ValueError as e:
            raise UserError(str(e)) from None
    if not servers:
        raise UserError("no MCP server: give --mcp SERVER or --mcp-config FILE" + (" (its servers are all disabled)" if args.mcp_config else ""))
    return servers


def _pairs(items: Any, sep: str, flag: str, shape: str) -> dict[str, str]:
    out = {}
    for item in items or ():
        key, found, value = item.partition(sep)
        if not found or not key.strip():
            raise UserError(f"{flag} {item!r} is not {shape}")
        out[key.strip()] = value.strip() if sep == ":" else value
    return out


def _tokenizer(args: argparse.Namespace, model_path: str, fmt: Any, template: Any) -> Any:
    """The model's tokenizer, checked against the format and for a chat template."""
    return checks.model_tokenizer(args.model, model_path, fmt, template)


def _check_tool_choice(toolset: Any, fmt: Any, tool_choice: Any, args: argparse.Namespace) -> None:
    """--tool-choice against the tools the servers listed (a function none of them offers), before the model loads."""
    from ..requests import RequestOptions, check_options

    try:
        check_options(RequestOptions(format=fmt.name, tools=toolset.tools, tool_choice=tool_choice, unsupported=args.unsupported, strict=args.strict))
    except ValueError as e:
        raise UserError(f"--tool-choice: {checks.spelled(str(e))}") from None


def _engine(args: argparse.Namespace, fmt: Any, template: Any, tokenizer: Any) -> Any:
    from ..agent import OpenAIEngine, TransformersEngine, VllmEngine

    if args.engine == "openai":
        return OpenAIEngine(args.base_url, args.model, fmt, api_key=args.api_key)
    model_path = checks.model_source(args.model)
    if args.engine == "vllm":
        try:
            import vllm  # noqa: F401  (the module below imports it only when called)

            from ..integrations.vllm_offline import make_llm
        except ImportError as e:  # installed, but broken
            raise UserError(f"--engine vllm: vLLM could not be imported ({e})") from None
        return VllmEngine(make_llm(model_path, max_model_len=args.max_model_len), fmt, template)
    from ..demo import load_model

    try:
        model = load_model(model_path)
    except (OSError, ValueError) as e:
        raise UserError(f"could not load the model {args.model}: {e}") from None
    return TransformersEngine(model, tokenizer, fmt, template, drafting=checks.drafting(args, tokenizer))


def add_parser(sub: Any, positive: Any, strict_help: str, unsupported_help: str) -> None:
    agent = sub.add_parser(
        "agent",
        help="answer a question with a model calling tools on MCP servers",
        description="Run an agent loop: the model answers under thinkgate's grammar, its tool calls run on MCP servers, their results go back to it, until it answers without a call or --max-steps turns.",
    )
    agent.add_argument("question", help="the user's message")
    agent.add_argument("--model", required=True, help="a local Hugging Face model directory (thinkgate demo builds one), or the served model's name with --engine openai")
    agent.add_argument("--mcp", action="append", metavar="SERVER", help='an MCP server: a command line run over stdio ("python -m some_server") or a Streamable HTTP URL (http://127.0.0.1:8000/mcp); repeat for several')
    agent.add_argument("--env", action="append", metavar="KEY=VALUE", help="an environment variable for the stdio servers --mcp names; repeat for several. A stdio server sees only these and the MCP SDK's safe variables (HOME, LOGNAME, PATH, SHELL, TERM, USER), nothing else of this environment")
    agent.add_argument("--header", action="append", metavar="'NAME: VALUE'", help="an HTTP header sent to the HTTP servers --mcp names (e.g. 'Authorization: Bearer TOKEN'); repeat for several")
    agent.add_argument("--mcp-config", action="append", metavar="FILE", help='MCP servers from a JSON config as Claude Desktop and Cursor write it: {"mcpServers": {"NAME": {"command": ..., "args": [...], "env": {...}} or {"url": ..., "headers": {...}}}}; the stdio servers get their "env" (and the safe variables), nothing else')
    agent.add_argument("--format", default="deepseek_r1", help="the model's output format (default: deepseek_r1; thinkgate formats lists them)")
    agent.add_argument("--engine", choices=["transformers", "vllm", "openai"], default="transformers", help="what generates: transformers (default), vLLM offline, or an OpenAI-compatible server running thinkgate's plugins (--base-url)")
    agent.add_argument("--base-url", help="the OpenAI-compatible server's URL, e.g. http://127.0.0.1:8000/v1 (--engine openai)")
    agent.add_argument("--api-key", help="the OpenAI-compatible server's key (--engine openai)")
    agent.add_argument("--chat-template", metavar="FILE", help="a Jinja chat template in place of the model's")
    agent.add_argument("--system", help="a system message")
    agent.add_argument("--max-steps", type=positive, default=8, help="at most this many model turns (default: 8)")
    agent.add_argument("--max-tokens", type=positive, default=512, help="tokens per turn (default: 512)")
    agent.add_argument("--tool-choice", default="auto", help='auto (default), required, none, or {"type": "function", "function": {"name": ...}}, for every turn')
    agent.add_argument("--thinking", choices=["on", "off", "default"], default="default", help="ask the chat template to open or close reasoning (default: the format's default)")
    agent.add_argument("--thinking-budget", type=int, default=None, help="at most this many reasoning tokens per turn")
    agent.add_argument("--temperature", type=float, default=1.0, help="sampling temperature (default: 1.0)")
    agent.add_argument("--seed", type=int, default=None, help="the seed of turn 1 (turn k samples with seed + k - 1)")
    agent.add_argument("--unsupported", choices=["error", "relax"], default="error", help=unsupported_help)
    agent.add_argument("--strict", type=int, choices=[0, 1, 2], default=2, help=strict_help)
    agent.add_argument("--call-timeout", type=float, default=None, help="seconds a tool call may take before it is a tool error")
    checks.add_drafting_arguments(agent)
    agent.add_argument("--max-model-len", type=positive, default=4096, help="vLLM's context length (--engine vllm; default: 4096)")
    agent.add_argument("--json", nargs="?", const="-", metavar="FILE", help="write the transcript as OpenAI messages (a JSON array) to FILE, or to stdout without one (the turns then go to stderr)")
    agent.add_argument("--quiet", action="store_true", help="print only the answer (and errors)")
    agent.set_defaults(func=cmd_agent)
