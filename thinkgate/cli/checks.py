"""What the command line checks before it does any work, each mistake one clear line.

A user's mistake (a missing file, JSON of the wrong shape, an unknown format, a model directory
that is not there) is a :class:`UserError`: ``thinkgate`` prints its message, no traceback, and
exits with status 2."""

from __future__ import annotations

import json
import logging
import os
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional


class UserError(Exception):
    """A mistake in how thinkgate was called, said in one line that names what to fix."""


class Said(logging.Handler):
    """thinkgate's logged warnings (a schema keyword dropped under --unsupported relax), said the
    command line's way: ``thinkgate COMMAND: warning: …``, each once, the advice in its spelling,
    no traceback. :meth:`capture` takes them instead, for a caller that names their request."""

    def __init__(self, command: str, write: Callable[[str], None]) -> None:
        super().__init__(logging.WARNING)
        self.command, self.write = command, write
        self.said: set[str] = set()
        self._captured: Optional[list[str]] = None

    def emit(self, record: logging.LogRecord) -> None:
        message = spelled(record.getMessage()).removeprefix("thinkgate: ")
        if self._captured is not None:
            self._captured.append(message)
        else:
            self.say(record.levelname.lower(), message)

    def say(self, level: str, message: str, about: str = "") -> None:
        """``message`` (after ``about``: the request it concerns), unless it was said already."""
        if message not in self.said:
            self.said.add(message)
            self.write(f"thinkgate {self.command}: {level}: {about}{message}")

    @contextmanager
    def capture(self) -> Iterator[list[str]]:
        captured = self._captured = []
        try:
            yield captured
        finally:
            self._captured = None


@contextmanager
def said_warnings(command: str, write: Callable[[str], None] = lambda s: print(s, file=sys.stderr)) -> Iterator[Said]:
    """A :class:`Said` on thinkgate's logger while a command runs (Python's last-resort handler,
    which prints a bare message, then stays quiet)."""
    logger = logging.getLogger("thinkgate")
    handler = Said(command, write)
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def json_kind(value: Any) -> str:
    return {list: "array", dict: "object", str: "string", bool: "boolean", int: "number", float: "number"}.get(type(value), "null")


def input_file(path: str, what: str) -> str:
    if not os.path.exists(path):
        raise UserError(f"{what} {path} does not exist")
    if os.path.isdir(path):
        raise UserError(f"{what} {path} is a directory, not a file")
    return path


def read_json(path: str, what: str, expect: type) -> Any:
    """A JSON file that must hold a value of type ``expect`` (``list`` or ``dict``)."""
    input_file(path, what)
    with open(path, encoding="utf-8") as f:
        try:
            value = json.load(f)
        except ValueError as e:
            raise UserError(f"{what} {path} is not JSON: {e}") from None
    if not isinstance(value, expect):
        raise UserError(f"{what} {path} holds a JSON {json_kind(value)}; it must hold a JSON {json_kind(expect())}")
    return value


def output_file(path: str) -> None:
    """That ``path`` can be written, checked without creating it (a run that fails before its
    first result leaves no empty file behind)."""
    if os.path.isdir(path):
        raise UserError(f"output {path} is a directory; name a file")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UserError(f"output directory {folder} does not exist")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise UserError(f"output {path} cannot be written (permission denied)")


def spelled(message: str) -> str:
    """A library message's advice as the command line takes it: ``--unsupported relax``, not
    the Python keyword."""
    return message.replace("unsupported='relax'", "--unsupported relax")


def installed(module: str, what: str, extra: str) -> None:
    """That ``module`` can be imported, found before any work (importing it may take seconds);
    the hint is what works from a checkout: thinkgate is not on a package index."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise UserError(f"{what} needs {module}, which is not installed: pip install -e \".[{extra}]\" in thinkgate's checkout (or pip install {module})")


def not_the_input(output: str, source: str) -> None:
    """An output that would overwrite the requests it answers is refused."""
    if source == "-" or not os.path.exists(output):
        same = source != "-" and os.path.realpath(output) == os.path.realpath(source)
    else:
        same = os.path.samefile(output, source)
    if same:
        raise UserError(f"--output {output} is the input file: the answers would overwrite the requests; name another file")


def known_format(name: str) -> Any:
    from ..formats import get_format, names

    try:
        return get_format(name)
    except (KeyError, ValueError):
        raise UserError(f"unknown format {name!r}; known: {', '.join(names())} (thinkgate formats lists them)") from None


def tool_choice(text: str) -> Any:
    """``--tool-choice``: none, auto, required, or a JSON object naming a function."""
    if text in ("none", "auto", "required"):
        return text
    shape = '{"type": "function", "function": {"name": "NAME"}}'
    try:
        value = json.loads(text)
    except ValueError:
        raise UserError(f"--tool-choice {text!r} is not none, auto, required or a JSON object like {shape}") from None
    name = value.get("function", {}).get("name") if isinstance(value, dict) and isinstance(value.get("function"), dict) else None
    if not isinstance(name, str) or value.get("type") != "function":
        raise UserError(f"--tool-choice {text} must have the shape {shape}")
    return value


def tools(path: str) -> list:
    """An OpenAI tools file: a JSON array of {"type": "function", "function": {"name", ...}}."""
    value = read_json(path, "tools file", list)
    for i, tool in enumerate(value):
        fn = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise UserError(f'tools file {path}: item {i} is not an OpenAI tool ({{"type": "function", "function": {{"name": ..., "parameters": {{...}}}}}})')
    return value


def _looks_like_path(name: str) -> bool:
    # Hub ids are "name" or "owner/name"; anything else is meant as a place on disk
    return name.startswith(("/", ".", "~")) or name.endswith("/") or "\\" in name or name.count("/") > 1


def model_source(name: str, flag: str = "--model") -> str:
    """``--model``: a local model directory (checked here, so that a typo is not sent to the
    Hub to be retried), or a Hugging Face Hub id."""
    path = os.path.expanduser(name)
    if os.path.isdir(path):
        if not os.path.exists(os.path.join(path, "config.json")):
            raise UserError(f"model directory {name} holds no config.json: it is not a Hugging Face model directory")
        return path
    if os.path.exists(path):
        raise UserError(f"{flag} {name} is a file; it takes a model directory or a Hugging Face Hub id")
    if _looks_like_path(name):
        raise UserError(f"model directory {name} does not exist")
    return name


def model_chat_template(path: str) -> Optional[str]:
    """The chat template a local model directory carries (read without loading anything), or
    None; "" when it cannot be known before loading (a Hub id)."""
    if not os.path.isdir(path):
        return ""
    jinja = os.path.join(path, "chat_template.jinja")
    if os.path.exists(jinja):
        with open(jinja, encoding="utf-8") as f:
            return f.read()
    config = os.path.join(path, "tokenizer_config.json")
    if os.path.exists(config):
        with open(config, encoding="utf-8") as f:
            try:
                data = json.load(f)
            except ValueError:
                return None
        template = data.get("chat_template") if isinstance(data, dict) else None
        if template:
            return template if isinstance(template, str) else json.dumps(template)
    return None


def missing_template(fmt: Any, model: str) -> str:
    return (
        f"format {fmt.name} has no default chat template and {model} carries none: "
        f"pass --chat-template FILE (a Jinja chat template for the model, such as its tokenizer_config.json's chat_template)"
    )


def format_against_template(fmt: Any, template: Optional[str]) -> Optional[str]:
    """What to warn of when the chat template the prompts are written with reads as another
    format than ``--format`` (the calls would be constrained in one markup and prompted in
    another); None when they agree or the template says nothing thinkgate recognises. A warning,
    not an error: a template may be recognised wrongly."""
    if not template:
        return None
    from ..detection import detect

    try:
        found = detect(template)
    except ValueError:  # a template detect cannot recognise: nothing to compare
        return None
    if found.name == fmt.name or found.tools == fmt.tools:
        return None
    return f"--format {fmt.name}, but the chat template reads as {found.name}'s (thinkgate detect): check --format"


@contextmanager
def quiet_transformers() -> Iterator[None]:
    """For --quiet, while a command runs: transformers logs and draws its own bars ("Loading
    weights"), and the Hub its download bars, unless told otherwise."""
    from huggingface_hub.utils import are_progress_bars_disabled, disable_progress_bars, enable_progress_bars
    from transformers.utils import logging

    verbosity, bars, hub_bars = logging.get_verbosity(), logging.is_progress_bar_enabled(), not are_progress_bars_disabled()
    logging.set_verbosity_error()
    logging.disable_progress_bar()
    disable_progress_bars()
    try:
        yield
    finally:
        logging.set_verbosity(verbosity)
        if bars:
            logging.enable_progress_bar()
        if hub_bars:
            enable_progress_bars()


def tokenizer_fits(fmt: Any, tokenizer: Any, what: str) -> Any:
    """``tokenizer``, checked to hold the format's markers as tokens (``--format qwen3`` on a
    DeepSeek model), before the model's weights load."""
    from ..constraint.grammar.compiled import check_markers
    from ..formats.tokens import single_token_id

    try:
        check_markers(fmt, lambda marker: single_token_id(tokenizer, marker))
    except ValueError as e:
        raise UserError(f"--format {fmt.name} does not fit {what}: {e} (thinkgate detect reads a model's format from its chat template)") from None
    return tokenizer


def add_drafting_arguments(parser: Any) -> None:
    """Assisted generation (transformers' speculative decoding), for the commands that generate."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--assistant-model", metavar="DIR", help="a draft model sharing the model's tokenizer (--engine transformers): drafts verified several at a time, the same output as without")
    group.add_argument("--prompt-lookup", type=int, metavar="N", help="draft N tokens from n-grams of the text so far (--engine transformers): the same output as without")
    parser.add_argument(
        "--drafts", choices=("on", "off"), default="on",
        help="draft the tokens the grammar decides and verify them in one forward pass (--engine transformers; in batches, "
        "and first beside --prompt-lookup or --assistant-model): the same output in fewer passes (default: on)",
    )


def drafting(args: Any, tokenizer: Any) -> dict:
    """``generate_chat``'s drafting options from ``--assistant-model`` / ``--prompt-lookup`` /
    ``--drafts``, checked (the assistant loaded, its tokenizer the model's)."""
    forced = {"forced_drafts": getattr(args, "drafts", "on") == "on"}
    if args.prompt_lookup is not None:
        return {"prompt_lookup": args.prompt_lookup, **forced}
    if args.assistant_model is None:
        return forced
    from ..demo import load

    try:
        model, assistant_tokenizer = load(model_source(args.assistant_model, "--assistant-model"))
    except (OSError, ValueError) as e:
        raise UserError(f"could not load the assistant model {args.assistant_model}: {e}") from None
    if assistant_tokenizer.get_vocab() != tokenizer.get_vocab():
        raise UserError(
            f"the assistant model {args.assistant_model} has another tokenizer than the model: drafts in another "
            "vocabulary (universal assisted decoding) are not supported; use a draft model of the same tokenizer, or --prompt-lookup"
        )
    return {"assistant_model": model, **forced}


def drafting_engine(args: Any) -> None:
    """Before the model loads: the drafting options are sound, and transformers' own (another
    engine drafts as its server is set up)."""
    flag = "--assistant-model" if getattr(args, "assistant_model", None) is not None else "--prompt-lookup" if getattr(args, "prompt_lookup", None) is not None else None
    if flag and args.engine != "transformers":
        raise UserError(f"{flag} is for --engine transformers; with --engine {args.engine} speculative decoding is the engine's setting (vLLM: --speculative-config on its server)")
    if getattr(args, "prompt_lookup", None) is not None and args.prompt_lookup < 1:
        raise UserError(f"--prompt-lookup {args.prompt_lookup}: draft at least 1 token")
    if getattr(args, "assistant_model", None) is not None:
        model_source(args.assistant_model, "--assistant-model")


def model_tokenizer(model: str, model_path: str, fmt: Any, template: Any) -> Any:
    """The tokenizer of ``model`` (at ``model_path``), loaded before the model and checked: it
    loads, it has a chat template where neither ``template`` nor the format gives one, and it
    writes the format's markers."""
    from ..demo import load_tokenizer

    try:
        tokenizer = load_tokenizer(model_path)
    except (OSError, ValueError) as e:
        raise UserError(f"could not load the tokenizer of {model}: {e}") from None
    if template is None and fmt.chat is None and not getattr(tokenizer, "chat_template", None):
        raise UserError(missing_template(fmt, model))
    return tokenizer_fits(fmt, tokenizer, f"{model}'s tokenizer")
