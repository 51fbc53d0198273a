"""The vocabulary a format is described in: reasoning markers and tool-call layouts as values.

A format is data. The constraint builder and the streaming parser are both derived from these
values, so a marker string is written once (in a module such as ``deepseek.py``) and nowhere else.
"""

from __future__ import annotations

import decimal
import json
import re
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NamedTuple, Optional, Union

class Text(str):
    """A marker the model writes as ordinary text (MiniMax-M2's ``<minimax:tool_call>``).

    A marker given as a plain string is a *token*: the tokenizer has it as one special token,
    the parser counts it only when that token was generated, and the grammar writes it by id, so
    the model cannot spell it with ordinary tokens. A ``Text`` marker is matched as text by the
    parser, the grammar and the guard alike, whatever tokens spell it, and needs nothing of the
    tokenizer. Reasoning markers may be text too (both of them: the grammar then holds the
    reasoning, its close written as text); end-of-sequence markers are always tokens.

    The grammar writes a text marker exactly; the parser reads it tolerantly, as models write
    it (see :func:`spellings`): the whitespace at its edges is the markup's padding (any, none
    included, is read there), a whitespace run inside it may be any whitespace or none, and
    so may the text beside each of ``joints`` (the special tokens a marker is written with:
    Kimi-K3's ``<|open|> tools <|sep|>``). ``read_also`` holds other spellings real models
    write for it (DeepSeek-V4-Flash's ``<｜DSML｜toolcalls>``), read the same way; no grammar
    writes them.
    """

    read_also: tuple[str, ...]
    joints: tuple[str, ...]

    def __new__(cls, value: str, read_also: tuple[str, ...] = (), joints: tuple[str, ...] = ()) -> "Text":
        self = super().__new__(cls, value)
        self.read_also = tuple(read_also)
        self.joints = tuple(joints)
        return self

    def __getnewargs__(self) -> tuple:  # copies and pickles keep what the marker reads
        return (str(self), self.read_also, self.joints)

    def __repr__(self) -> str:
        return f"Text({str.__repr__(self)})"


# The most whitespace read inside a text marker, where its spelling has a word boundary: a
# marker held back at a delta's end is never longer than its spelling and this per boundary.
MARKER_SPACE = 8


class Spelling(NamedTuple):
    """One way the parser reads a marker: its words, and the whitespace its text ends with
    (the template's padding: read with the marker where it is there, not needed)."""

    words: tuple[str, ...]
    padding: str = ""


def spellings(marker: str) -> tuple[Spelling, ...]:
    """How the parser reads ``marker``: each spelling (the marker's own, then ``read_also``) as
    its words, between which any whitespace up to :data:`MARKER_SPACE` (none included) may
    stand; whitespace before a spelling is left to whatever reads before the marker, and the
    padding after it is read with it where it stands. A token marker has one spelling of one
    word: itself."""
    if not is_text(marker):
        return (Spelling((marker,)),)
    out = []
    for spelling in (marker, *marker.read_also):
        words = [piece for w in spelling.split() for piece in _joined(w, marker.joints)] or [spelling]  # a marker of whitespace alone is itself
        core = spelling.rstrip()
        out.append(Spelling(tuple(words), spelling[len(core):] if core else ""))
    return tuple(dict.fromkeys(out))


def _joined(word: str, joints: tuple[str, ...]) -> list[str]:
    """``word`` cut beside each of ``joints`` in it (``word`` whole where none is)."""
    words = [word] if word else []
    for joint in joints:
        words = [piece for w in words for piece in _split_at(w, joint)]
    return words


def _split_at(word: str, joint: str) -> list[str]:
    """``word`` cut on each side of every ``joint`` in it."""
    parts = word.split(joint)
    out: list[str] = []
    for i, part in enumerate(parts):
        if i:
            out.append(joint)
        if part:
            out.append(part)
    return out


def is_text(marker: str) -> bool:
    """Whether ``marker`` is matched as text (a :class:`Text`) rather than as a token."""
    return isinstance(marker, Text)


Thinking = Union[bool, Literal["auto"]]
"""How an output starts: ``True`` inside reasoning, ``False`` in the answer, ``"auto"`` in the
answer unless the model opens the reasoning marker itself."""

NAME = "{name}"
SEP = "{sep}"
INDEX = "{index}"  # the call's number, digits the model writes (Kimi-K2: ``functions.NAME:0``)
# An id the model may write after ``id_marker`` (Mistral: ``NAME[CALL_ID]a1b2c3d4e[ARGS]``); the
# parser reads it as the call's id, and a grammar never has the model write one.
CALL_ID = "{call_id}"
# The JSON type of a parameter's value, written in its tag (Kimi-K3: ``type="number"``).
TYPE = "{type}"
# The names a parameter's type is written with, by the JSON type of its value.
TYPE_NAMES = ("string", "number", "integer", "boolean", "null", "object", "array")


@dataclass(frozen=True)
class ReasoningFormat:
    """The markers around a model's thinking, and how its chat template starts an output.

    ``default_thinking`` is the stage an output starts in when the prompt does not tell
    (see :func:`thinkgate.parsing.thinking_from_prompt`). ``toggle`` is the chat-template
    keyword that switches thinking on and off (the template then opens or closes the reasoning in
    the prompt); empty when the template has none. In a format of channel messages (harmony)
    ``open`` is the analysis channel's header, several tokens, and ``close`` ends every message,
    not only reasoning.
    """

    open: str
    close: str
    default_thinking: Thinking = "auto"
    toggle: str = ""
    # Markers a template may write after the open marker at the end of a prompt (Seed-OSS's
    # ``<seed:cot_budget_reflect>`` under a zero thinking budget): the output still starts inside
    # reasoning.
    prompt_after_open: tuple[str, ...] = ()
    # Text the model writes right after ``open``, naming its channel (Gemma 4's ``thought\n``):
    # framing, not reasoning; dropped where the reasoning starts with it.
    label: str = ""
    # Whether the model opens its reasoning again after answer text (Gemma 4 writes a thought
    # channel between pieces of its answer): the open marker there starts reasoning, not text.
    reopens: bool = False

    @property
    def present(self) -> bool:
        """Whether the model thinks at all (Llama 3.x has no reasoning markers: both empty)."""
        return bool(self.open and self.close)


NO_REASONING = ReasoningFormat(open="", close="", default_thinking=False)
"""A model that does not think: every output starts in the answer."""


@dataclass(frozen=True)
class HeaderPiece:
    """One piece of a call header: a literal text, a marker, the tool name, the call's index
    (digits), or optional whitespace.

    ``kind`` is ``"text"``, ``"marker"``, ``"name"``, ``"index"``, ``"id"`` (optional: a marker,
    then the call's id) or ``"space"``; ``text`` holds the literal or marker (empty for the
    others).
    """

    kind: Literal["text", "marker", "name", "index", "id", "space"]
    text: str = ""


@dataclass(frozen=True)
class MarkedCalls:
    """Layout: calls delimited by markers. An optional section around them; each call its begin
    marker, a header naming the tool, the arguments, a footer and its end marker (DeepSeek,
    Kimi-K2, Mistral v11+, Qwen3, Qwen3-Coder, GLM, MiniMax-M2)."""

    name: ClassVar[str] = "marked_calls"
    # Models of the family sometimes leave out the call's begin marker (Qwen3-Coder writes
    # ``<function=NAME>…</function>`` with no ``<tool_call>``): the header's opening text then
    # announces the call, when it names one of the request's tools. The grammar always writes
    # the marker.
    headless: bool = False
    # ... or leave it out right where their reasoning closed (Gemma 4 writes ``call:NAME{…}``
    # just after ``<channel|>``): the header's opening text there, and only there, announces a
    # call (anywhere else it is prose); where the request gave no tools, whatever it names.
    headless_after_reasoning: bool = False
    # The header's text before the tool name is a namespace models sometimes leave out
    # (Kimi-K2 writes ``get_weather:0`` for ``functions.get_weather:0``).
    optional_name_prefix: bool = False

    def holds_calls(self, tools: ToolCallFormat, text: str) -> bool:
        return any(m and m in text for m in (tools.section_begin, tools.call_begin))


@dataclass(frozen=True)
class JsonCalls:
    """Layout: calls as JSON call objects with no markers of their own, joined by the
    separator: the whole answer (``array`` empty: Llama 3.x, where an answer that starts with a
    call object is calls) or one JSON array (``array=("[", "]")``), after the section marker
    (Mistral before tokenizer v11) or, with no section marker, as the whole answer (xLAM: an
    answer that starts with ``[`` and a call object is calls). ``optional_begin`` is a marker the
    model may write before its calls (Llama's ``<|python_tag|>``), read where it is, never
    required, never generated."""

    name: ClassVar[str] = "json_calls"
    array: tuple[str, str] = ("", "")
    optional_begin: str = ""

    def holds_calls(self, tools: ToolCallFormat, text: str) -> bool:
        if any(self.array) and tools.section_begin:
            return tools.section_begin in text
        if any(self.array):  # no marker: an answer that starts with the array and a call object
            head = text.lstrip()
            return head.startswith(self.array[0].strip()) and head[len(self.array[0].strip()) :].lstrip().startswith("{")
        # no marker: an answer that starts with a call object
        head = text.lstrip()
        return head.startswith("{") or bool(self.optional_begin) and head.startswith(self.optional_begin)

    def __post_init__(self) -> None:
        if any(self.array) and not all(self.array):
            raise ValueError(f"a JSON array of calls needs the text that opens and closes it (array=), got {self.array!r}")


@dataclass(frozen=True)
class ChannelMessages:
    """Layout: output as a stream of messages, each on a named channel (gpt-oss harmony).

    A message is ``start + role + HEADER + message + BODY`` ended by ``end`` (the turn goes on),
    the format's end of sequence (the answer is complete) or the tool layout's ``call_end``.
    The header holds ``channel`` followed by the channel's name, optionally a recipient
    (``to=functions.NAME``, before or after the channel) and a content type (``constrain``
    then ``json``, or a bare ``json``). The output starts after the prompt's ``start + role``,
    so its first message has neither. Example::

        <|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Hi.<|return|>
    """

    start: str
    role: str
    channel: str
    message: str
    end: str
    constrain: str
    reasoning_channel: str
    answer_channel: str
    tool_channel: str
    recipient: str  # the word that names a recipient: ``to=``
    function_prefix: str  # a recipient that is a function: ``functions.``
    content_type: str  # what a call's arguments are: ``json``

    name: ClassVar[str] = "channel_messages"

    @property
    def markers(self) -> tuple[str, ...]:
        return (self.start, self.channel, self.message, self.end, self.constrain)

    def holds_calls(self, tools: ToolCallFormat, text: str) -> bool:
        return self.recipient + self.function_prefix in text

    def header(self, channel: str) -> str:
        """The header of a message on ``channel`` without a recipient, up to its body."""
        return self.channel + channel + self.message


@dataclass(frozen=True)
class PythonicCalls:
    """Layout: calls written as Python calls, ``NAME(KEY=VALUE, …)`` (the
    :class:`PythonArguments` style), joined by the separator: in one Python list
    (``array=("[", "]")``: Llama 4, LFM2) or not (OLMo 3 writes one a line), the whole answer
    (no section marker: an answer that starts with ``[NAME(`` is calls; Llama 4) or between
    the section's markers (LFM2's ``<|tool_call_start|>…<|tool_call_end|>``). ``optional_begin``
    and ``optional_end`` are markers the model may write around its calls (Llama 4's
    ``<|python_start|>…<|python_end|>``): read where they are, never required, never
    generated; the begin marker announces calls after answer text too."""

    name: ClassVar[str] = "pythonic_calls"
    array: tuple[str, str] = ("[", "]")
    optional_begin: str = ""
    optional_end: str = ""

    def holds_calls(self, tools: ToolCallFormat, text: str) -> bool:
        if tools.section_begin:
            return tools.section_begin in text
        if self.optional_begin and self.optional_begin in text:
            return True
        # the parser reads '[NAME(' as calls at the answer's start and after its text alike
        return re.search(re.escape(self.array[0]) + r"\s*" + PYTHON_NAME + r"\s*\(", text) is not None

    def __post_init__(self) -> None:
        if any(self.array) and not all(self.array):
            raise ValueError(f"a list of calls needs the text that opens and closes it (array=), got {self.array!r}")


# A call's name as the pythonic layout reads it: an identifier, dotted names included (BFCL's
# ``math.factorial``), and the dashes tool names have (no Python, but what a model writes).
PYTHON_NAME = r"[A-Za-z_][A-Za-z0-9_.\-]*"


LAYOUTS: tuple[type, ...] = (MarkedCalls, JsonCalls, ChannelMessages, PythonicCalls)
"""Every layout; each has one parser module (``thinkgate/parsing/NAME.py``) and one grammar
module (``thinkgate/constraint/NAME.py``), ``NAME`` its ``name``."""

Layout = Union[MarkedCalls, JsonCalls, ChannelMessages, PythonicCalls]


@dataclass(frozen=True)
class JsonArguments:
    """Arguments style: the arguments are one JSON object after the call's header."""


@dataclass(frozen=True)
class CallObject:
    """Arguments style: each call is one JSON object that names the tool and holds the
    arguments (``{"name": NAME, "arguments": {…}}``; Qwen3, Llama 3.x, Mistral's array).
    ``id_key`` is the key under which a chat template writes the call's id back into the
    object, after the arguments (Mistral's array): the id the model writes there becomes the
    call's, so a call streams once its object has closed."""

    name_key: str = "name"
    arguments_key: str = "arguments"
    id_key: str = ""
    # Other keys models write the arguments under, which the parser reads as ``arguments_key``
    # (the grammar writes only ``arguments_key``).
    read_also: tuple[str, ...] = ()
    # The tool's name is the object's one key and the arguments its value (Apertus:
    # ``{"get_weather": {"city": "Paris"}}``); ``name_key`` and ``arguments_key`` are unused.
    name_as_key: bool = False
    # A key the chat template writes first, its value the call's number as a string (Cohere's
    # ``{"tool_call_id": "0", "tool_name": …}``): the grammar writes it (digits), the parser
    # reads it as the object's framing (a count across the conversation, no id of the call).
    index_key: str = ""

    def __post_init__(self) -> None:
        if self.name_as_key and (self.id_key or self.index_key):
            raise ValueError("a call object whose one key is the tool's name holds no id or index key")


@dataclass(frozen=True)
class XmlArguments:
    """Arguments style: XML-like parameters, one per key, rather than a JSON object.

    One parameter is written ``key_open + KEY + key_close + between + value_open + padding +
    VALUE + padding + value_close + after``: a string value as its bare text, any other value as
    JSON. Qwen3-Coder::

        <parameter=city>
        Paris
        </parameter>

    GLM-4.5::

        <arg_key>city</arg_key>
        <arg_value>Paris</arg_value>

    Where the template names each value's type in its tag, ``key_close`` holds the ``{type}``
    placeholder and ``type_words`` says which word stands for which JSON type (the type's name
    where it has none). A value tagged a string is its text verbatim, any other JSON. Kimi-K3
    names the type, DeepSeek V3.2's DSML only whether the value is a string::

        <|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>
        <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>

    ``style`` names xgrammar's JSON-schema style that enforces the same text; where the format's
    tags are another spelling of the style's (MiniCPM 5's ``<param name="K">`` for MiniMax-M2's
    ``<parameter name="K">``), the grammar writes the format's. A value is its text verbatim but
    for ``padding`` once on each side (the template's framing); the grammar lets no other
    whitespace stand around a value, so what the parser reads is what the grammar held to the
    schema. ``after`` is what the template writes after each parameter.
    """

    style: str
    key_open: str
    key_close: str
    value_close: str
    value_open: str = ""
    between: str = ""
    padding: str = ""
    # What the chat template writes after each parameter (GLM-4.7, Kimi-K3: nothing); readers
    # and the grammar take any short whitespace there.
    after: str = "\n"
    # Typed tags (``{type}`` in ``key_close``): the word written for each JSON type, as
    # ``(type, word)`` pairs, where it is not the type's name (DSML: ``true`` for a string,
    # ``false`` for any other).
    type_words: tuple[tuple[str, str], ...] = ()
    # The text around a value that a template wraps some values in, read as markup where the
    # value is written whole inside it (MiniCPM 5's ``<![CDATA[``…``]]>`` around a string that
    # holds ``<``, ``&`` or a newline); the grammar writes values bare.
    cdata: tuple[str, str] = ("", "")
    # What a parameter's name may be (the parser reads no other; a schema with another
    # property name is refused for these formats), and how long.
    name_pattern: str = r"[^\s<>\"'/=]+"
    name_length: int = 256

    def readable_name(self, name: str) -> bool:
        return len(name) <= self.name_length and re.fullmatch(self.name_pattern, name) is not None

    @property
    def free_name_pattern(self) -> str:
        """The names a grammar gives keys the schema does not declare (``additionalProperties``):
        identifiers, as xgrammar's XML styles write them, no longer than a readable name."""
        return f"^[A-Za-z_][A-Za-z0-9_]{{0,{self.name_length - 1}}}$"

    def __post_init__(self) -> None:
        if any(self.cdata) and not all(self.cdata):
            raise ValueError(f"a value's wrapper (cdata=) is the text that opens it and the text that closes it, not {self.cdata!r}")
        if self.key_close.count(TYPE) > 1 or self.key_close.endswith(TYPE):
            raise ValueError(f"key_close holds the {TYPE} placeholder at most once, with text after it: {self.key_close!r}")

    @property
    def typed(self) -> bool:
        """Whether a parameter's tag names its value's JSON type (the ``{type}`` placeholder)."""
        return TYPE in self.key_close

    @property
    def untyped_close(self) -> Optional[str]:
        """A typed tag as models sometimes write it, without the attribute that names the type
        (DSML's ``<｜DSML｜parameter name="K">``): ``key_close`` with that attribute taken out.
        Parsers read such a value as the schema says (JSON where it is JSON and no schema says
        otherwise, as vLLM does); no grammar writes it. None: no such attribute."""
        if not self.typed:
            return None
        bare = re.sub(r'\s+[\w-]+="' + re.escape(TYPE) + '"', "", self.key_close)
        return bare if bare != self.key_close else None

    @property
    def key_end(self) -> str:
        """The text that ends a parameter's name (before its type, where the tag names one)."""
        return self.key_close.partition(TYPE)[0]

    @property
    def type_end(self) -> str:
        """The text after a parameter's type name (empty where the tag names no type)."""
        return self.key_close.partition(TYPE)[2]

    @property
    def value_openings(self) -> tuple[str, ...]:
        """The texts that may stand right before a value (and its padding): its opening tag, or
        the key's close (a typed tag's: the text after its type, or the whole close with a
        type's word, as a grammar may write either)."""
        if self.value_open:
            return (self.value_open,)
        return (self.type_end, *self.tag_closes) if self.typed else (self.key_close,)

    @property
    def markers(self) -> tuple[str, ...]:
        return tuple(m for m in (self.key_open, self.key_end, self.type_end, self.value_open, self.value_close) if m)

    def word(self, kind: str) -> str:
        """The word a typed tag writes for JSON type ``kind``."""
        return dict(self.type_words).get(kind, kind)

    def types_of(self, word: str) -> tuple[str, ...]:
        """The JSON types a typed tag's ``word`` stands for (empty: no type's word)."""
        return tuple(t for t in TYPE_NAMES if self.word(t) == word)

    @property
    def tag_closes(self) -> tuple[str, ...]:
        """Every text a key's tag may close with (``key_close`` with each type's word)."""
        if not self.typed:
            return (self.key_close,)
        return tuple(dict.fromkeys(self.key_close.replace(TYPE, self.word(t)) for t in TYPE_NAMES))

    def key_tag(self, key: str, value: Any) -> str:
        """A parameter's tag up to its value, for ``value`` (whose JSON type it may name)."""
        return self.key_open + key + self.key_close.replace(TYPE, self.word(json_type(value)))

    def parameter(self, key: str, value: Any) -> str:
        """One parameter as the model's chat template writes it."""
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        return self.key_tag(key, value) + self.between + self.value_open + self.padding + text + self.padding + self.value_close + self.after

    def render(self, arguments: str) -> str:
        """JSON ``arguments`` (an object) as parameters."""
        values = json.loads(arguments)
        if not isinstance(values, dict):
            raise ValueError(f"arguments must be a JSON object to be written as parameters, not {arguments!r}")
        return "".join(self.parameter(k, v) for k, v in values.items())


@dataclass(frozen=True)
class LiteralArguments:
    """Arguments style: one object literal in a syntax of the model's own, not JSON (Gemma 4)::

        {city:<|"|>Paris<|"|>,days:3,tags:[<|"|>a<|"|>],when:{hour:7}}

    Keys are bare (``key_pattern``), a string stands between two ``quote`` markers (a special
    token: the text between them is the string, verbatim, with no escapes), numbers, ``true``,
    ``false`` and ``null`` are written as in JSON, objects and arrays with JSON's brackets and
    ``colon``/``comma``. The parser converts the literal into JSON text as it reads it (the one
    arguments style whose arguments are re-serialised: ``{"city": "Paris", "days": 3}``); the
    grammar writes it from the tool's schema with no whitespace.
    """

    quote: str
    colon: str = ":"
    comma: str = ","
    object: tuple[str, str] = ("{", "}")
    array: tuple[str, str] = ("[", "]")
    # What null may also be written as (Python's ``None``, as a chat template renders it).
    null_also: tuple[str, ...] = ()
    # What a bare key may be (the parser reads no other; a schema with another property name
    # is refused for the format), and how long.
    key_pattern: str = r"[A-Za-z_][A-Za-z0-9_.$-]*"
    key_length: int = 256
    # The grammar writes the keys in the order the chat template does: sorted, case aside
    # (Jinja's ``dictsort``); else in the schema's order. (The parser reads any order.)
    sort_keys: bool = False

    def readable_key(self, key: str) -> bool:
        return len(key) <= self.key_length and re.fullmatch(self.key_pattern, key) is not None

    @property
    def free_key_pattern(self) -> str:
        """The keys a grammar writes where the schema declares none (identifiers)."""
        return f"[A-Za-z_][A-Za-z0-9_]{{0,{self.key_length - 1}}}"

    @property
    def markers(self) -> tuple[str, ...]:
        return (self.quote,)

    def order(self, keys: Any) -> list[str]:
        """Keys in the order the model writes them (``sort_keys``: sorted as Jinja's
        ``dictsort`` sorts them, case aside)."""
        return sorted(keys, key=lambda k: (k.lower(), k)) if self.sort_keys else list(keys)

    def value(self, value: Any) -> str:
        """A JSON value as the literal the model writes (keys in :meth:`order`)."""
        if isinstance(value, str):
            return self.quote + value + self.quote
        if isinstance(value, dict):
            inner = self.comma.join(self._key(k) + self.colon + self.value(value[k]) for k in self.order(value))
            return self.object[0] + inner + self.object[1]
        if isinstance(value, list):
            return self.array[0] + self.comma.join(self.value(v) for v in value) + self.array[1]
        return json.dumps(value)

    def _key(self, key: str) -> str:
        if not self.readable_key(key):
            raise ValueError(f"{key!r} cannot be written as a bare key (a key matches {self.key_pattern})")
        return key

    def render(self, arguments: str) -> str:
        """JSON ``arguments`` (an object) as the literal."""
        values = json.loads(arguments)
        if not isinstance(values, dict):
            raise ValueError(f"arguments must be a JSON object to be written as a literal, not {arguments!r}")
        return self.value(values)


@dataclass(frozen=True)
class PythonArguments:
    """Arguments style: keyword arguments in parentheses, each value a Python literal::

        (city="Paris", days=3, tags=["a", "b"], exact=True, when=None, at={"lat": 1.5})

    The parser reads it as Python writes it, tolerantly: strings in either quote with Python's
    escapes, ``True``/``False``/``None`` or JSON's ``true``/``false``/``null``, lists and
    tuples, dicts with string keys, a trailing comma, any whitespace between; and converts it
    into JSON text as it reads (the arguments are re-serialised, as :class:`LiteralArguments`'
    are: ``{"city": "Paris", "days": 3}``). The grammar writes it as the family's chat template
    does: a top-level string between ``quote`` (``escaped``: with Python's escapes; else its text
    as is, holding neither the quote nor a backslash), booleans and null as ``literals``, a list
    as Python's ``repr`` writes it (``lists="python"``) or as JSON (``"json"``: the template's
    ``tojson``), a dict likewise (``dicts``). Keys are Python identifiers, in the schema's order.
    """

    quote: str = '"'
    escaped: bool = True
    literals: tuple[str, str, str] = ("True", "False", "None")
    lists: Literal["python", "json"] = "python"
    dicts: Literal["python", "json"] = "python"
    key_pattern: ClassVar[str] = r"[A-Za-z_][A-Za-z0-9_]*"
    key_length: ClassVar[int] = 256

    def readable_key(self, key: str) -> bool:
        return len(key) <= self.key_length and re.fullmatch(self.key_pattern, key) is not None

    def value(self, value: Any, top: bool = True) -> str:
        """A JSON value as the model writes it (``top``: an argument itself, not inside a list
        or dict)."""
        if isinstance(value, str):
            if top and not self.escaped:
                return self.quote + value + self.quote
            return python_string(value, self.quote)
        if isinstance(value, bool) or value is None:
            true, false, null = self.literals if top else ("True", "False", "None")
            return true if value is True else false if value is False else null
        if isinstance(value, list):
            if self.lists == "json" and top:
                return json.dumps(value, ensure_ascii=False)
            return "[" + ", ".join(self.value(v, top=False) for v in value) + "]"
        if isinstance(value, dict):
            if self.dicts == "json" and top:
                return json.dumps(value, ensure_ascii=False)
            return "{" + ", ".join(python_string(k, self.quote) + ": " + self.value(v, top=False) for k, v in value.items()) + "}"
        return json.dumps(value)

    def render(self, arguments: str) -> str:
        """JSON ``arguments`` (an object) as the keyword arguments, parentheses included."""
        values = json.loads(arguments)
        if not isinstance(values, dict):
            raise ValueError(f"arguments must be a JSON object to be written as keyword arguments, not {arguments!r}")
        bad = [k for k in values if not self.readable_key(k)]
        if bad:
            raise ValueError(f"{bad[0]!r} cannot be a keyword argument's name (a name matches {self.key_pattern})")
        return "(" + ", ".join(f"{k}={self.value(v)}" for k, v in values.items()) + ")"


def python_string(text: str, quote: str = '"') -> str:
    """``text`` as a Python string literal between ``quote``, escaped as JSON escapes it (each
    escape meaning in Python what it means in JSON), the other quote left bare."""
    body = json.dumps(text, ensure_ascii=False)[1:-1]
    if quote == "'":
        body = body.replace('\\"', '"').replace("'", "\\'")
    return quote + body + quote


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is no JSON value")


def _finite(text: str) -> float | decimal.Decimal:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        # JSON's grammar has no bound on a number, and the constraint's none either (a weak model
        # writes 2001E998929297553): a number past a double's range is read exactly, as a
        # Decimal (a number to jsonschema), not as infinity; one whose exponent is past even a
        # Decimal's (10**18) by the largest Decimal of its sign, which every bound compares the same.
        try:
            return decimal.Decimal(text)
        except decimal.InvalidOperation:
            return decimal.Decimal(("-" if value < 0 else "") + "9e999999999999999999")
    return value


def loads_json(text: str, strict: bool = True) -> Any:
    """``json.loads`` held to JSON itself: Python's reader also takes ``NaN`` and ``Infinity``,
    which are no JSON; they are a ``ValueError`` here, as any other text that is no JSON. A
    number past a double's range is JSON (a client's reader may round it): it is read exactly,
    as a ``decimal.Decimal``, where Python's would read infinity."""
    return json.loads(text, strict=strict, parse_constant=_no_constant, parse_float=_finite)


def json_type(value: Any) -> str:
    """The JSON type of ``value`` as a chat template names it (an integer is a number)."""
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if value is None:
        return "null"
    return "array" if isinstance(value, list) else "object"


# Keywords that constrain nothing: an object schema of these and its type is a bare object.
ANNOTATIONS = frozenset(("type", "title", "description", "$schema", "$id", "$comment", "default", "examples"))


def admits_free_keys(schema: Any) -> bool:
    """Whether arguments written as parameters may hold keys ``schema`` does not declare, as the
    grammar writes them: xgrammar reads an absent ``additionalProperties`` as false, except in
    an object schema that says nothing but its type (any object); no schema, any key."""
    if not isinstance(schema, dict):
        return True
    bare = not set(schema) - ANNOTATIONS
    return schema.get("additionalProperties", bare) is not False


Arguments = Union[JsonArguments, CallObject, XmlArguments, LiteralArguments, PythonArguments]


@dataclass(frozen=True)
class ToolCallFormat:
    """Tool calls: a layout (how calls stand in the output) with an arguments style (how one
    call's arguments are written), and the markers and templates both are written with.

    Layouts: :class:`MarkedCalls`, :class:`JsonCalls`, :class:`ChannelMessages`. Arguments:
    :class:`JsonArguments`, :class:`CallObject`, :class:`XmlArguments`, :class:`LiteralArguments`.

    The call text is ``call_begin + header.format(sep=sep, name=NAME) + ARGS + footer + call_end``
    and calls in a section are joined by ``separator``. Example (DeepSeek V3.1)::

        layout=MarkedCalls(),
        section=("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"),
        call=("<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>"),
        sep="<｜tool▁sep｜>", header="{name}{sep}", footer="", separator=""

    accepts ``<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{"a": 1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>``.
    """

    layout: Layout
    arguments: Arguments = JsonArguments()
    section: tuple[str, str] = ("", "")
    call: tuple[str, str] = ("", "")
    sep: str = ""
    header: str = ""
    footer: str = ""
    separator: str = ""
    # The call's id as the model's chat template writes it back into the conversation (a
    # template over {name} and {index}); empty: ids are thinkgate's own ``call_…``.
    call_id: str = ""
    # The marker before an optional call id written in the header (see CALL_ID).
    id_marker: str = ""
    # Ids thinkgate makes for this format's calls are this many random letters and digits (0:
    # ``call_`` and 24 hex digits); Mistral's templates refuse an id of any other shape.
    id_length: int = 0
    # The number of a message's first call, where its header numbers calls ({index}) and its
    # id is not that header (Kimi-K3 counts from 1; Kimi-K2's ids count across the conversation).
    first_index: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.layout, LAYOUTS):
            raise ValueError(f"layout must be one of {', '.join(c.__name__ for c in LAYOUTS)}, not {self.layout!r}")
        if isinstance(self.layout, JsonCalls) and not isinstance(self.arguments, CallObject):
            raise ValueError("calls as JSON objects (JsonCalls) write their arguments inside a call object: arguments=CallObject(...)")
        if isinstance(self.layout, ChannelMessages) and not isinstance(self.arguments, JsonArguments):
            raise ValueError("channel messages write a call's arguments as a JSON object: arguments=JsonArguments()")
        if isinstance(self.layout, PythonicCalls) != isinstance(self.arguments, PythonArguments):
            raise ValueError("Python calls (PythonicCalls) and keyword arguments (PythonArguments) go together")
        if self.id_length < 0:
            raise ValueError(f"id_length must be 0 (thinkgate's own ids) or a positive length, not {self.id_length}")
        kinds = {is_text(m) for m in self.markers}
        if len(kinds) > 1:
            raise ValueError(f"the tool markers are all tokens or all text (Text), not some of each: {self.markers!r}")

    # What the layout and the arguments style hold, read where the call's text is written.

    @property
    def messages(self) -> Optional[ChannelMessages]:
        return self.layout if isinstance(self.layout, ChannelMessages) else None

    @property
    def xml(self) -> Optional[XmlArguments]:
        return self.arguments if isinstance(self.arguments, XmlArguments) else None

    @property
    def literal(self) -> Optional[LiteralArguments]:
        return self.arguments if isinstance(self.arguments, LiteralArguments) else None

    @property
    def python(self) -> Optional[PythonArguments]:
        return self.arguments if isinstance(self.arguments, PythonArguments) else None

    @property
    def array(self) -> tuple[str, str]:
        return self.layout.array if isinstance(self.layout, (JsonCalls, PythonicCalls)) else ("", "")

    @property
    def bare(self) -> bool:
        """Calls as JSON objects with no marker at all: an answer that starts with a call object
        is calls."""
        return isinstance(self.layout, JsonCalls) and not any(self.layout.array)

    @property
    def optional_begin(self) -> str:
        return self.layout.optional_begin if isinstance(self.layout, (JsonCalls, PythonicCalls)) else ""

    @property
    def optional_end(self) -> str:
        return self.layout.optional_end if isinstance(self.layout, PythonicCalls) else ""

    @property
    def name_key(self) -> str:
        return self.arguments.name_key if isinstance(self.arguments, CallObject) else "name"

    @property
    def arguments_key(self) -> str:
        return self.arguments.arguments_key if isinstance(self.arguments, CallObject) else "arguments"

    @property
    def arguments_read_also(self) -> tuple[str, ...]:
        return self.arguments.read_also if isinstance(self.arguments, CallObject) else ()

    @property
    def id_key(self) -> str:
        return self.arguments.id_key if isinstance(self.arguments, CallObject) else ""

    @property
    def name_as_key(self) -> bool:
        return isinstance(self.arguments, CallObject) and self.arguments.name_as_key

    @property
    def index_key(self) -> str:
        return self.arguments.index_key if isinstance(self.arguments, CallObject) else ""

    @property
    def call_object_layout(self) -> bool:
        """Whether a call is one JSON object holding both the name and the arguments."""
        return isinstance(self.arguments, CallObject)

    @property
    def section_begin(self) -> str:
        return self.section[0]

    @property
    def section_end(self) -> str:
        return self.section[1]

    @property
    def call_begin(self) -> str:
        return self.call[0]

    @property
    def call_end(self) -> str:
        return self.call[1]

    @property
    def markers(self) -> tuple[str, ...]:
        """Every marker of the tool markup, in a fixed order (a layout without section markers
        or a separator token has none of those)."""
        own = (self.section_begin, self.section_end, self.call_begin, self.call_end, self.sep, self.id_marker, self.optional_begin, self.optional_end)
        more = self.messages.markers if self.messages is not None else ()
        if self.literal is not None:  # the string delimiter: a token of its own
            more = (*more, *self.literal.markers)
        return tuple(dict.fromkeys(m for m in (*own, *more) if m))

    @property
    def headless_begin(self) -> str:
        """The header's opening text, which announces a call written without its begin marker
        (``MarkedCalls(headless=True)``); empty where the layout reads no such call."""
        if not (isinstance(self.layout, MarkedCalls) and self.layout.headless):
            return ""
        return self._header_opening()

    @property
    def headless_after_reasoning(self) -> str:
        """The header's opening text, which announces a call written without its begin marker
        right where the reasoning closed (``MarkedCalls(headless_after_reasoning=True)``)."""
        if not (isinstance(self.layout, MarkedCalls) and self.layout.headless_after_reasoning):
            return ""
        return self._header_opening()

    def _header_opening(self) -> str:
        first = next((p for p in self.header_pieces() if p.kind != "space"), None)
        return Text(first.text) if first is not None and first.kind == "text" else ""

    @property
    def trigger(self) -> str:
        """The marker that opens the tool markup: the section's, or the first call's where calls
        have no section around them (Qwen3, Mistral)."""
        return self.section_begin or self.call_begin

    @property
    def markup_end(self) -> str:
        """The marker that closes the tool markup (empty where a call ends with its JSON)."""
        return self.section_end or self.call_end

    def header_text(self, name: str, index: Optional[int] = None) -> str:
        """The exact header the model writes for tool ``name`` as call ``index`` (by default the
        first: ``first_index``)."""
        values = {"sep": self.sep, "name": name, "index": str(self.first_index if index is None else index), "id": ""}
        return "".join(values.get(kind, text) for kind, text in template_parts(self.header))

    def header_pattern(self, name: str) -> str:
        """A regular expression for the headers of tool ``name`` (any call index)."""
        values = {"sep": re.escape(self.sep), "name": re.escape(name), "index": "[0-9]+", "id": ""}
        return "".join(values.get(kind, re.escape(text)) for kind, text in template_parts(self.header))

    def call_object(self, name: str, arguments: str, call_id: str = "", index: Optional[int] = None) -> str:
        """Call-object layouts: the object that names the tool and holds its arguments (and,
        given one where the format has an ``id_key``, the call's id, as templates write it back;
        where it has an ``index_key``, the call's number ``index``, by default the first)."""
        if self.name_as_key:
            return "{" + json.dumps(name) + ": " + arguments + "}"
        own = ", " + json.dumps(self.id_key) + ": " + json.dumps(call_id) if call_id and self.id_key else ""
        lead = json.dumps(self.index_key) + ": " + json.dumps(str(self.first_index if index is None else index)) + ", " if self.index_key else ""
        return "{" + lead + json.dumps(self.name_key) + ": " + json.dumps(name) + ", " + json.dumps(self.arguments_key) + ": " + arguments + own + "}"

    def call_text(self, name: str, arguments: str, index: Optional[int] = None, call_id: str = "") -> str:
        """The exact text of one call, markers included (call ``index``, by default the first)."""
        if self.xml is not None:
            arguments = self.xml.render(arguments)
        elif self.literal is not None:
            arguments = self.literal.render(arguments)
        elif self.python is not None:
            arguments = self.python.render(arguments)
        return self._call_around(name, arguments, index, call_id)

    def _call_around(self, name: str, arguments: str, index: Optional[int] = None, call_id: str = "") -> str:
        if self.call_object_layout:
            body = self.call_object(name, arguments, call_id, index)
        else:
            body = arguments
        header = self.header_text(name if not self.call_object_layout else "", index)
        return self.call_begin + header + body + self.footer + self.call_end

    def call_frame(self, name: str) -> tuple[str, str, str]:
        """One call to ``name`` as the whole tool markup: ``(begin, end, trigger)``, the text
        before its arguments (a call object's arguments value), the text after them, and the
        text that announces it (the opening marker; for calls with none, the call object's
        opening up to the name, or a Python list's bracket)."""
        begin, _, end = self.section_around(self._call_around(name, "\0")).partition("\0")
        if isinstance(self.layout, PythonicCalls) or any(self.array):
            trigger = self.trigger or self.array[0]
        elif self.name_as_key or self.index_key:
            trigger = self.trigger or '{"'
        else:
            trigger = self.trigger or "{" + json.dumps(self.name_key) + ': "'
        return begin, end, trigger

    def holds_calls(self, text: str) -> bool:
        """Whether an answer's ``text`` holds tool markup (where the layout says calls start)."""
        return self.layout.holds_calls(self, text)

    def section_text(self, calls: list[tuple[str, str]]) -> str:
        """The exact text of a tool section holding ``calls`` (``(name, arguments)`` pairs),
        numbered from ``first_index``."""
        return self.section_around(self.separator.join(self.call_text(n, a, i) for i, (n, a) in enumerate(calls, self.first_index)))

    def section_around(self, calls: str) -> str:
        """The section markers (and a JSON array's brackets) around the text of its calls."""
        return self.section_begin + self.array[0] + calls + self.array[1] + self.section_end

    def header_pieces(self) -> tuple[HeaderPiece, ...]:
        """The header as pieces for a tolerant reader: every whitespace run becomes optional
        whitespace, so ``NAME\\n```json\\n`` also reads ``NAME ```json``, and whitespace may
        stand before the separator marker and beside the joints of the call's begin marker
        (Kimi-K3's ``index="1" <|sep|>``: see :class:`Text`).
        """
        return self._pieces(self.header)

    def footer_pieces(self) -> tuple[HeaderPiece, ...]:
        return self._pieces(self.footer)

    def _pieces(self, template: str) -> tuple[HeaderPiece, ...]:
        out: list[HeaderPiece] = []
        for kind, text in template_parts(template):
            if kind == "sep":
                if not out or out[-1].kind in ("text", "name", "index"):
                    # models write a space before a marker now and then (Kimi-K2:
                    # ``functions.get_weather:0 <|tool_call_argument_begin|>``), and a
                    # detokenizer puts one between two special tokens (InternLM's
                    # ``<|action_start|> <|plugin|>``)
                    out.append(HeaderPiece("space"))
                out.append(HeaderPiece("text" if is_text(self.sep) else "marker", self.sep))
            elif kind == "id":
                out.append(HeaderPiece("id", self.id_marker))
            elif kind != "text":
                out.append(HeaderPiece(kind))
            else:
                joints = self.call_begin.joints if is_text(self.call_begin) else ()
                for run in re.split(r"(\s+)", text):
                    if run.isspace():
                        out.append(HeaderPiece("space"))
                        continue
                    for k, word in enumerate(_joined(run, joints)):
                        if k and out[-1].kind != "space":
                            out.append(HeaderPiece("space"))
                        out.append(HeaderPiece("text", word))
        return tuple(out)


_PLACEHOLDERS = {SEP: "sep", NAME: "name", INDEX: "index", CALL_ID: "id"}
_PLACEHOLDER = re.compile("(" + "|".join(re.escape(p) for p in _PLACEHOLDERS) + ")")

TemplatePart = tuple[Literal["text", "sep", "name", "index", "id"], str]


def template_parts(template: str) -> list[TemplatePart]:
    """A header or footer template as its literal text and placeholders, in order: the one
    reading of the template that the header's text, its pattern, the parser's pieces and the
    grammar's elements are all derived from. ``("text", literal)`` or ``(kind, placeholder)``."""
    return [(_PLACEHOLDERS.get(part, "text"), part) for part in _PLACEHOLDER.split(template) if part]


@dataclass(frozen=True)
class ChatMarkers:
    """The markers of a conversation around the output: start of text, role prefixes, and the
    wrapping of tool results. Used to write a default chat template (see ``templates.py``)."""

    bos: str
    user: str
    assistant: str
    tool_outputs: tuple[str, str]  # around all the results of one turn
    tool_output: tuple[str, str]  # around each result
    tool_output_separator: str = ""
    # What the generation prompt ends with when thinking is on; R1 adds a newline after <think>.
    think_prompt_suffix: str = ""


@dataclass(frozen=True)
class ChatFormat:
    """Everything thinkgate knows of one model family's output: reasoning and tool calls.

    ``name`` is the registry key; ``aliases`` are the names serving engines use for it.
    """

    name: str
    reasoning: ReasoningFormat
    tools: ToolCallFormat
    eos: str
    aliases: tuple[str, ...] = ()
    description: str = ""
    chat: Optional[ChatMarkers] = None
    # Markers besides ``eos`` that end the generation (harmony: ``<|call|>``).
    stops: tuple[str, ...] = ()
    # Whether the tool markup's opening *token* written while thinking ends the reasoning there:
    # the parser reads the calls and the grammar constrains them as any others (Kimi-K2-Thinking
    # leaves ``</think>`` out before its tool section; Qwen3.5 and GLM-5 open ``<tool_call>``
    # inside it). Its text spelled in ordinary tokens stays reasoning, and so does a trigger that
    # is text (:class:`Text`), which prose could write. False: the marker is reasoning text too.
    calls_in_reasoning: bool = True
    # Whether the tool markup's opening *text* (a :class:`Text` trigger) written while thinking
    # opens calls too, for the parser (DeepSeek V3.2 and V4 call tools while thinking; vLLM and
    # llama.cpp read their DSML block there; PLaMo 3's reasoning markers are text too): the
    # reasoning ends at it, and goes on after the calls until its close. Quoted (right after a
    # backtick, or inside a code fence) it is reasoning text, as prose about the markup writes
    # it. The grammar leaves thinking free (or holds it as text up to its close, where the
    # reasoning markers are text): such calls are read, not constrained.
    text_calls_in_reasoning: bool = False
    # The markers around the answer's text (Kimi-K3's response channel): the open one written
    # right after the reasoning's close (a prompt that does not think ends in it), the close one
    # after the text, before any tool markup. Both framing: the parser drops them.
    answer: tuple[str, str] = ("", "")
    # What the model writes after its answer and calls, before the end of sequence (Kimi-K3's
    # ``<|close|>message<|sep|>``): framing, dropped.
    turn_end: str = ""
    # Special tokens of the model's tokenizer that its text markers are written with (Kimi-K3's
    # ``<|open|>``, ``<|sep|>``, ``<|close|>``): the grammar matches them as their text, as it
    # matches the markers, so the model writes a marker with them.
    text_tokens: tuple[str, ...] = ()
    # The markers around an answer that is text, written instead of the tool markup (Cohere's
    # ``<|START_RESPONSE|>…<|END_RESPONSE|>``; a turn that calls tools writes none): framing,
    # which the parser drops and the grammar writes around a text answer (with calls in one
    # JSON array after a marker: the layout whose grammar writes them so far).
    response: tuple[str, str] = ("", "")

    def __post_init__(self) -> None:
        if any(self.answer) and not all(self.answer):
            raise ValueError(f"format {self.name!r}: the answer's markers are an open and a close one, not {self.answer!r}")
        if any(self.response):
            t = self.tools
            if not all(self.response) or is_text(self.response[0]) != is_text(self.response[1]):
                raise ValueError(f"format {self.name!r}: the markers around a text answer are an open and a close one of one kind, not {self.response!r}")
            if any(self.answer) or not (isinstance(t.layout, JsonCalls) and any(t.array) and t.trigger):
                raise ValueError(f"format {self.name!r}: markers around a text answer (response) are written with calls in one JSON array after a marker")
        framing = [m for m in (*self.answer, self.turn_end) if m and not is_text(m)]
        if framing:
            raise ValueError(f"format {self.name!r}: the answer's framing markers are text (Text), not tokens: {framing!r}")
        if (any(self.answer) or self.turn_end) and not (isinstance(self.tools.layout, MarkedCalls) and is_text(self.tools.trigger)):
            raise ValueError(f"format {self.name!r}: markers around the answer are read with marked calls (MarkedCalls) whose markers are text only")
        texts = [m for m in (self.eos, *self.stops) if is_text(m)]
        if texts:
            raise ValueError(f"format {self.name!r}: end-of-sequence markers are tokens, not text ({', '.join(map(repr, texts))})")
        r = self.reasoning
        if r.present and is_text(r.open) != is_text(r.close):
            raise ValueError(f"format {self.name!r}: the reasoning markers are both tokens or both text (Text), not one of each: {r.open!r}, {r.close!r}")
        if self.text_reasoning and self.tools.messages is not None:
            raise ValueError(f"format {self.name!r}: channel messages open reasoning with their header's tokens, not with text")

    @property
    def reasoning_trigger(self) -> str:
        """The tool-markup token that, written while thinking, ends the reasoning and opens the
        calls (see ``calls_in_reasoning``); empty where there is none: the option is off, the
        format does not think, its calls are channel messages, its trigger is text, or its
        reasoning markers are (the grammar then holds the reasoning, text up to its close)."""
        t = self.tools.trigger
        if not (self.calls_in_reasoning and self.reasoning.present and t and not is_text(t)):
            return ""
        if self.tools.messages is not None or self.text_reasoning:
            return ""
        return t

    @property
    def reasoning_exits(self) -> tuple[str, ...]:
        """The tool markers that, read while thinking, end the reasoning and open calls: the
        ``reasoning_trigger``, or a text trigger where ``text_calls_in_reasoning`` says so."""
        if self.reasoning_trigger:
            return (self.reasoning_trigger,)
        t = self.tools.trigger
        if self.text_calls_in_reasoning and self.reasoning.present and t and is_text(t):
            return (t,)
        return ()

    @property
    def text_reasoning(self) -> bool:
        """Whether the reasoning markers are text (:class:`Text`), matched as text everywhere."""
        return self.reasoning.present and is_text(self.reasoning.close)

    @property
    def markers(self) -> tuple[str, ...]:
        """Every marker of the output: reasoning, tool markup, end of sequence."""
        return tuple(dict.fromkeys(m for m in (self.reasoning.open, self.reasoning.close, *self.answer, *self.response, *self.tools.markers, self.turn_end, self.eos, *self.stops) if m))

    @property
    def framing(self) -> tuple[str, ...]:
        """The answer's framing markers (see ``answer``, ``response`` and ``turn_end``), dropped
        where read."""
        return tuple(m for m in (*self.answer, *self.response, self.turn_end) if m)

    @property
    def token_markers(self) -> tuple[str, ...]:
        """The markers the tokenizer has as single tokens (matched by id)."""
        return tuple(m for m in self.markers if not is_text(m))

    @property
    def text_markers(self) -> tuple[str, ...]:
        """The markers matched as text (see :class:`Text`)."""
        return tuple(m for m in self.markers if is_text(m))

    def start_thinking(self, thinking: object) -> Thinking:
        """The stage an output of this format starts in, as a request asks (``True``, ``False``
        or ``"auto"``); a format that does not think starts in the answer. A ``ValueError``
        names a value that is none of these, or ``True`` for a format that cannot think."""
        if thinking not in (True, False, "auto"):
            raise ValueError(f"thinking must be True, False or 'auto', not {thinking!r}")
        if self.reasoning.present:
            return thinking  # type: ignore[return-value]
        if thinking is True:
            raise ValueError(f"format {self.name!r} does not think (it has no reasoning markers): thinking cannot be True")
        return False  # "auto": there is no marker the model could open reasoning with

    @property
    def conversation_markers(self) -> tuple[str, ...]:
        """The markers of the conversation around the output (roles, tool results)."""
        c = self.chat
        if c is None:
            return ()
        return (c.bos, c.user, c.assistant, *c.tool_outputs, *c.tool_output)
