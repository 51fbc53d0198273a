"""Hypothesis strategies for tool schemas: every keyword thinkgate enforces, rewrites or refuses,
with edge values (empty, huge, unsatisfiable, contradictory, deeply nested, mixed-type enums,
non-ASCII property names), and the random walk that samples arguments under a compiled grammar.

Shared by ``tests/test_schema_fuzz.py`` (compile or refuse by name; walks validate) and the
vLLM soak test (good and bad schemas sent to the real server)."""

from __future__ import annotations

import json

import numpy as np
import xgrammar as xgr
from hypothesis import strategies as st

from thinkgate import parse
from thinkgate.constraint import ReasonerGrammar

# Property names: plain, non-ASCII, with a space, a quote, a slash and a backslash in them.
NAMES = ["a", "b", "city", "n", "ключ", "名前", "emoji_😀", "two words", 'q"uote', "sl/ash", "back\\slash", "x" * 40]
SIZES = [0, 1, 2, 3, 5, 129, 200, 10**4, 10**6]  # lengths and counts: 128 is the longest DeepSeek token
INTEGERS = [-(10**20), -5, -1, 0, 1, 1.5, 1.7, 2, 5, 6, 10**15, 10**20]
NUMBERS = [-1e20, -1e6, -2.5, -1, 0, 0.5, 1, 1.25, 5, 5.5, 6, 1e15, 1e20]
PATTERNS = ["^[a-z]+$", "^[0-9]{2,4}$", "^(ab|cd)*$", r"^1(x[0-9]{1,2})?Z$", "^[A-Z]{3}$", "^.{0,5}$", "abc"]
REFUSED_PATTERNS = [r"^\s+$", r"^(?=a)a$", "^(a$"]
FORMATS = ["date-time", "date", "time", "uuid", "ipv4", "ipv6", "email", "uri"]
ENUM_VALUES = [1, 2.5, "a", "", "ü", None, True, False, {"k": 1}, [1, "x"], "True", "dontcare"]


def _bounds(draw, lo_key: str, hi_key: str, values: list) -> dict:
    out = {}
    for key in (lo_key, hi_key):
        if draw(st.booleans()):
            out[key] = draw(st.sampled_from(values))
    return out


@st.composite
def string_schemas(draw):
    s: dict = {"type": "string"} if draw(st.integers(0, 9)) else {}  # sometimes typeless
    s.update(_bounds(draw, "minLength", "maxLength", SIZES))
    kind = draw(st.integers(0, 9))
    if kind < 2:
        s["pattern"] = draw(st.sampled_from(PATTERNS))
    elif kind == 2:
        s["format"] = draw(st.sampled_from(FORMATS))
    elif kind == 3:
        s["enum"] = draw(st.lists(st.sampled_from(["x", "yy", "zzz", "ü", ""]), min_size=0, max_size=3))
    if not s:
        s = {"type": "string", "maxLength": 8}
    return s


@st.composite
def number_schemas(draw):
    integer = draw(st.booleans())
    s: dict = {"type": "integer" if integer else "number"}
    values = INTEGERS if integer else NUMBERS
    s.update(_bounds(draw, "minimum", "maximum", values))
    s.update(_bounds(draw, "exclusiveMinimum", "exclusiveMaximum", values))
    if not draw(st.integers(0, 9)):
        s.pop("type")  # typeless: the bounds still hold for numbers
    return s


@st.composite
def other_leaves(draw):
    kind = draw(st.integers(0, 11))
    if kind == 0:
        return {"type": "boolean"}
    if kind == 1:
        return {"type": "null"}
    if kind == 2:  # the Berkeley Function Calling Leaderboard's boolean with string values
        return {"type": "boolean", "enum": ["True", "False", "dontcare"]}
    if kind == 3:
        return {"enum": draw(st.lists(st.sampled_from(ENUM_VALUES), min_size=1, max_size=4, unique_by=json.dumps))}
    if kind == 4:
        return {"const": draw(st.sampled_from(ENUM_VALUES))}
    if kind == 5:
        return {"type": draw(st.lists(st.sampled_from(["string", "integer", "number", "boolean", "null"]), min_size=1, max_size=3, unique=True))}
    if kind == 6:
        return draw(st.sampled_from([{}, True, False]))
    if kind == 7:  # keywords thinkgate cannot enforce
        return draw(
            st.sampled_from(
                [
                    {"not": {"type": "string"}},
                    {"type": "array", "uniqueItems": True},
                    {"type": "array", "contains": {"type": "integer"}},
                    {"type": "number", "multipleOf": 0.5},
                    {"type": "object", "dependentRequired": {"a": ["b"]}},
                    {"if": {"type": "string"}, "then": {"minLength": 1}},
                    {"type": "string", "format": "hostname"},
                    {"type": "string", "format": "date", "pattern": "^2"},
                ]
            )
        )
    if kind == 8:
        return {"type": "string", "pattern": draw(st.sampled_from(REFUSED_PATTERNS))}
    if kind == 9:  # the typeless shorthand some clients write
        return draw(st.sampled_from([{"maxItems": 1}, {"minimum": 2}, {"maxLength": 3}, {"pattern": "^a+$"}, {"required": ["a"]}]))
    if kind == 10:
        return {"$ref": "#/$defs/word"}
    return {"$ref": "#/$defs/tree"}


leaves = st.one_of(string_schemas(), number_schemas(), other_leaves())


@st.composite
def object_schemas(draw, children):
    names = draw(st.lists(st.sampled_from(NAMES), max_size=4, unique=True))
    s: dict = {"type": "object"} if draw(st.integers(0, 9)) else {}
    s["properties"] = {n: draw(children) for n in names}
    required = [n for n in names if draw(st.booleans())]
    if draw(st.integers(0, 9)) == 0:
        required.append(draw(st.sampled_from(NAMES)))  # a name properties may lack
    if required:
        s["required"] = list(dict.fromkeys(required))
    extra = draw(st.integers(0, 9))
    if extra == 0:
        s["additionalProperties"] = False
    elif extra == 1:
        s["additionalProperties"] = draw(children)
    elif extra == 2:
        s["patternProperties"] = {"^x": draw(children)}
    s.update(_bounds(draw, "minProperties", "maxProperties", [0, 1, 2, 5, 1000]))
    return s


@st.composite
def array_schemas(draw, children):
    s: dict = {"type": "array"}
    kind = draw(st.integers(0, 4))
    if kind < 3:
        s["items"] = draw(children)
    elif kind == 3:
        s["prefixItems"] = draw(st.lists(children, min_size=1, max_size=3))
        if draw(st.booleans()):
            s["items"] = False
    s.update(_bounds(draw, "minItems", "maxItems", [0, 1, 2, 3, 10**4]))
    return s


@st.composite
def combined_schemas(draw, children):
    word = draw(st.sampled_from(["anyOf", "oneOf", "allOf"]))
    s: dict = {word: draw(st.lists(children, min_size=1, max_size=3))}
    if draw(st.booleans()):  # a sibling keyword, which xgrammar would drop
        s.update(draw(st.sampled_from([{"maxLength": 4}, {"minimum": 0}, {"type": "string"}, {"maxItems": 2}])))
    return s


schemas_inside = st.recursive(
    leaves,
    lambda children: st.one_of(object_schemas(children), array_schemas(children), combined_schemas(children)),
    max_leaves=8,
)


def nested(depth: int) -> dict:
    """An object nested ``depth`` levels deep (two schema levels each)."""
    inner: dict = {"type": "integer"}
    for _ in range(depth):
        inner = {"type": "object", "properties": {"x": inner}, "required": ["x"]}
    return inner


DEFS = {
    "word": {"type": "string", "maxLength": 5},
    "tree": {"type": "object", "properties": {"label": {"type": "string", "maxLength": 3}, "kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}, "maxItems": 2}}, "required": ["label"]},
}


@st.composite
def tool_schemas(draw):
    """The ``parameters`` of one tool."""
    kind = draw(st.integers(0, 39))
    if kind == 0:
        return draw(st.sampled_from([{}, None, {"type": "object"}, {"properties": {}}]))
    if kind == 1:
        return {"type": "object", "properties": {"deep": nested(draw(st.sampled_from([1, 10, 40, 62, 63, 64, 100])))}}
    s = draw(object_schemas(schemas_inside))
    if "$ref" in json.dumps(s):
        s["$defs"] = DEFS
    return s


def tool(parameters, name: str = "f") -> list[dict]:
    fn = {"name": name}
    if parameters is not None:
        fn["parameters"] = parameters
    return [{"type": "function", "function": fn}]


# ------------------------------------------------------------------ random walks


class Walker:
    """Random walks under a compiled grammar with one tokenizer: each step is a uniformly random
    allowed token, or (half the time) a random allowed token of one or two bytes, which closes
    strings and containers soon enough for a walk to end."""

    __slots__ = ("tokenizer", "size", "short", "bitmask", "format")

    def __repr__(self) -> str:
        return "Walker()"

    def __init__(self, tokenizer, vocab):
        self.tokenizer = tokenizer
        self.size = vocab.size
        lengths = np.array([len(b) for b in vocab.token_bytes] + [0] * (vocab.size - len(vocab.token_bytes)))
        self.short = np.flatnonzero((lengths >= 1) & (lengths <= 2))
        self.bitmask = xgr.allocate_token_bitmask(1, vocab.size)

    def walk(self, grammar, rng, max_tokens: int = 400):
        """``(token ids, the ReasonerGrammar after them)``; the walk stops where the grammar ends."""
        g = ReasonerGrammar(grammar, thinking=False)
        ids = []
        for _ in range(max_tokens):
            if g.is_terminated() or g.error:
                break
            g.fill_bitmask(self.bitmask, 0)
            bits = np.unpackbits(self.bitmask[0].numpy().view(np.uint8), bitorder="little")[: self.size]
            pool = self.short[bits[self.short] != 0] if rng.random() < 0.5 else None
            if pool is None or not len(pool):
                pool = np.flatnonzero(bits)
            if not len(pool):
                break
            tid = int(rng.choice(pool))
            ids.append(tid)
            if not g.accept_token(tid):
                break
        return ids, g

    def arguments(self, fmt, ids, tools):
        """The calls a terminated walk's output parses into."""
        body = ids[:-1]
        text = self.tokenizer.decode(body, skip_special_tokens=False, clean_up_tokenization_spaces=False)
        return parse(text, format=fmt, thinking=False, token_ids=body, tokenizer=self.tokenizer, tools=tools)


def refusal_is_named(message: str) -> bool:
    """A refusal names its place (``#/...``) and what is wrong there (a quoted keyword, a type,
    or the schema false)."""
    return "#" in message and ("'" in message or "false" in message)

