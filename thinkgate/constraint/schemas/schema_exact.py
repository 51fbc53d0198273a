"""The exported structural tag, exact on its own: what thinkgate's run-time guard holds beside
xgrammar, written into the tag itself, or refused by name.

thinkgate's own processor gives xgrammar plain strings and lets the guard (``guard.py``) hold
string lengths, valid Unicode, unrepeated keys and the whitespace bound. A tag handed to an
engine's own structured output (vLLM's ``structural_tag``, SGLang's grammar backend) has no
guard behind it, so :func:`~thinkgate.constraint.build_structural_tag` builds it from here.
Measured on xgrammar 0.2.8 with the DeepSeek tokenizer:

* **String lengths.** xgrammar's own ``minLength``/``maxLength`` admit raw control characters
  (invalid JSON) and take ~2 s to compile at 80. Written instead as a pattern of characters
  that need no escape (no control character, quote, backslash or surrogate), they count code
  points exactly; up to :data:`CHEAP_REPEAT` xgrammar compiles the repeat into its automaton
  (~11 ms a character of bound to compile, ~12 µs a mask), beyond it it checks the vocabulary
  at every step of the string (20–40 ms a mask), and past :data:`LENGTH_LIMIT` it is refused.
  Such a string holds no escape (xgrammar's patterns never admit a backslash, nor do its own
  bounded strings): narrower than the schema, never wider.
* **Unicode.** xgrammar's JSON strings admit lone surrogate escapes (``"\\ud800"``) and the
  UTF-8 bytes of surrogates (``ED A0 80``), which an engine's detokenizer turns into three
  U+FFFD, past a length the grammar counted as one. Patterns get the surrogates taken out;
  a JSON element whose schema writes free strings goes to xgrammar as its own JSON grammar
  (EBNF) with the escape and the character classes rewritten (:func:`exact_strings`).
* **Repeated keys.** xgrammar lets a key that ``additionalProperties``, ``patternProperties``
  or an object with no properties admits be written twice (``{"a": 1, "a": 2}``; an escaped
  spelling of a declared key, ``"\\u0063"`` beside ``"c"``, too, whose value then replaces the
  declared one). No grammar keeps an open set of keys apart: refused by name.
* **Whitespace** runs: ``max_whitespace_cnt`` holds them exactly (a bound of 0 xgrammar refuses).

Everything refused here is dropped instead, with a warning, under ``unsupported="relax"``.
"""

from __future__ import annotations

import copy
import json
import logging
import re
from functools import lru_cache
from typing import Any, Optional

try:
    from re import _parser as _sre  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_parse as _sre  # type: ignore[no-redef]

from .schema import FOLD_LIMIT

log = logging.getLogger("thinkgate.constraint")

# A bound up to this is a repeat xgrammar compiles into its automaton (measured: 127 and 128
# compile in 1.4-2.1 s and mask in ~12 us; 129 compiles in 14 ms and masks in ~37 ms).
CHEAP_REPEAT = 128
# The longest bound written at all (the bound the guarded path folds into a pattern): {0,1000}
# compiles in ~0.6 s, {0,5000} in ~11 s.
LENGTH_LIMIT = FOLD_LIMIT

_SURROGATES = r"\ud800-\udfff"
# A string character xgrammar writes as itself: no control character, quote, backslash or surrogate.
STRING_CHAR = r'[^\x00-\x1f"\\' + _SURROGATES + "]"

_WARNED: set[tuple[str, str]] = set()


class _Exact:
    def __init__(self, where: str, relax: bool, json: bool) -> None:
        self.where = where
        self.relax = relax
        # JSON arguments, which the guard follows (lengths and keys are then its to hold); in
        # parameters xgrammar holds a bare value's lengths itself, and keys are the parser's
        self.json = json

    def refuse(self, path: str, what: str, advice: str, relaxed: str) -> None:
        if self.relax:
            log.warning("%s: %s at %s is not enforced by the exported structural tag (%s, unsupported='relax')", self.where, what, path, relaxed)
            return
        raise ValueError(
            f"{self.where}: {what} at {path} cannot be enforced by an exported structural tag (an engine's own "
            f"structured output, with no thinkgate guard behind it); {advice}, or pass unsupported='relax' to {relaxed}"
        )


def exact_schema(schema: Any, where: str, unsupported: str = "error", json: bool = True) -> Any:
    """``schema`` (a prepared schema's ``bounded_schema``: normalized, lengths kept) as xgrammar
    holds it exactly with no guard: patterns without surrogates and, for JSON arguments
    (``json``), lengths as patterns and keys that could repeat refused. Errors name ``where``,
    the place (in the schema as thinkgate normalized it) and the keyword."""
    out = copy.deepcopy(schema)
    _walk(out, _Exact(where, unsupported == "relax", json), "#")
    return out


_ANY_VALUE = "a value of any type (an object among them, whose keys are any)"


def _walk(node: Any, ctx: _Exact, path: str) -> None:
    if node is True or (isinstance(node, dict) and ctx.json and not any(k in node for k in ("type", "enum", "const", "$ref", "anyOf", "oneOf", "allOf"))):
        ctx.refuse(path, _ANY_VALUE, "give it a type", "let an object's key repeat there")
    if not isinstance(node, dict):
        return
    if isinstance(node.get("pattern"), str):
        node["pattern"] = _pattern(node["pattern"], ctx, path, "pattern")
    if isinstance(node.get("patternProperties"), dict):
        node["patternProperties"] = {_pattern(k, ctx, f"{path}/patternProperties/{k}", "patternProperties"): v for k, v in node["patternProperties"].items()}
    if ctx.json:
        if "minLength" in node or "maxLength" in node:
            _lengths(node, ctx, path)
        _free_keys(node, ctx, path)
    for key in ("properties", "patternProperties", "$defs", "definitions"):
        if isinstance(node.get(key), dict):
            for k, v in node[key].items():
                _walk(v, ctx, f"{path}/{key}/{_pointer(k)}")
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict) or node.get(key) is True:
            _walk(node[key], ctx, f"{path}/{key}")
    if isinstance(node.get("propertyNames"), dict):
        # a key is a string, not an object: nothing in it to repeat
        names = node["propertyNames"]
        if isinstance(names.get("pattern"), str):
            names["pattern"] = _pattern(names["pattern"], ctx, f"{path}/propertyNames", "pattern")
        if ctx.json and ("minLength" in names or "maxLength" in names):
            _lengths(names, ctx, f"{path}/propertyNames")
    for key in ("prefixItems", "anyOf", "oneOf", "allOf"):
        if isinstance(node.get(key), list):
            for i, v in enumerate(node[key]):
                _walk(v, ctx, f"{path}/{key}/{i}")


def _lengths(node: dict, ctx: _Exact, path: str) -> None:
    lo, hi = node.get("minLength", 0), node.get("maxLength")
    bounds = " and ".join(f"{k!r} {node[k]}" for k in ("minLength", "maxLength") if k in node)
    if "pattern" in node:
        # what thinkgate's schema rewriting left beside a pattern: a bound too long to fold in
        ctx.refuse(path, f"{bounds} beside a 'pattern'", f"write the length into the pattern (a repeat of at most {LENGTH_LIMIT})", "drop the length")
        node.pop("minLength", None)
        node.pop("maxLength", None)
        return
    if max(lo, hi or 0) > LENGTH_LIMIT:
        ctx.refuse(
            path,
            bounds,
            f"lower it to at most {LENGTH_LIMIT} (xgrammar compiles a longer bound for seconds to minutes)",
            "drop the length",
        )
        node.pop("minLength", None)
        node.pop("maxLength", None)
        return
    if max(lo, hi or 0) > CHEAP_REPEAT and (ctx.where, path) not in _WARNED:
        _WARNED.add((ctx.where, path))
        log.warning(
            "%s: the string length bound at %s (%s) is held in the exported structural tag by a repeat xgrammar checks "
            "token by token, tens of milliseconds a row at each step inside such a string (at most %d compiles into its "
            "automaton: a mask in microseconds)",
            ctx.where,
            path,
            bounds,
            CHEAP_REPEAT,
        )
    node.pop("minLength", None)
    node.pop("maxLength", None)
    if lo > 0 or hi is not None:
        node["pattern"] = f"^{STRING_CHAR}{{{lo},{'' if hi is None else hi}}}$"


def _free_keys(node: dict, ctx: _Exact, path: str) -> None:
    types = node.get("type")
    types = {types} if isinstance(types, str) else set(types or ())
    if "object" not in types or node.get("maxProperties", 2) <= 1:
        return
    patterns = node.get("patternProperties") or {}
    extra = node.get("additionalProperties")
    if extra is not None and extra is not False:
        what = "keys that 'additionalProperties' admits"
    elif any(v is not False for v in patterns.values()):
        what = "keys that 'patternProperties' admits"
    elif not set(node) - {"type"}:
        what = "an object that declares no properties (any keys)"
    else:
        return
    ctx.refuse(
        path,
        what,
        "declare the keys in 'properties' with 'additionalProperties': false (xgrammar lets a key it cannot tell from "
        "the others be written twice, and only thinkgate's own processor refuses it)",
        "let a key repeat",
    )


def _pointer(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _pattern(pattern: str, ctx: _Exact, path: str, keyword: str) -> str:
    """``pattern`` with the surrogates taken out of what it lets a character be (``.``, negated
    classes, ``\\W``, ``\\D``), or refused where that cannot be written."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            nxt = pattern[i + 1]
            out.append({"W": rf"[^\w{_SURROGATES}]", "D": rf"[^\d{_SURROGATES}]"}.get(nxt, pattern[i : i + 2]))
            i += 2
        elif c == "[":
            j = i + 1
            negated = pattern[j : j + 1] == "^"
            j += negated
            if pattern[j : j + 1] == "]":  # a literal "]" first in a class
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            body = pattern[i + 1 + negated : j]
            out.append(f"[^{body}{_SURROGATES}]" if negated else f"[{body}]")
            i = j + 1
        elif c == ".":
            out.append(f"[^{_SURROGATES}]")
            i += 1
        else:
            out.append(c)
            i += 1
    written = "".join(out)
    if _admits_surrogate(written):
        ctx.refuse(path, f"{keyword!r} {pattern!r}, which can write a surrogate code point", "name its characters in a class that leaves out U+D800-U+DFFF", "let it write one")
        return pattern
    return written


def _admits_surrogate(pattern: str) -> bool:
    """Whether some character ``pattern`` matches is a surrogate (as Python reads the pattern)."""
    try:
        parsed = _sre.parse(pattern)
    except Exception:
        return True
    stack = [parsed]
    while stack:
        items = stack.pop()
        for op, av in items:
            name = str(op)
            if name == "ANY":
                return True
            if name == "NOT_LITERAL":
                return True
            if name == "CATEGORY" and str(av).startswith("CATEGORY_NOT"):
                return True
            if name == "IN":
                if _class_admits_surrogate(av):
                    return True
            elif name in ("LITERAL",):
                if 0xD800 <= av <= 0xDFFF:
                    return True
            elif isinstance(av, (list, tuple)):
                for part in av:
                    if isinstance(part, _sre.SubPattern):
                        stack.append(part)
                    elif isinstance(part, (list, tuple)):
                        stack.extend(p for p in part if isinstance(p, _sre.SubPattern))
    return False


def _class_admits_surrogate(items: list) -> bool:
    negated = any(str(kind) == "NEGATE" for kind, _ in items)
    covered = False
    for kind, value in items:
        kind = str(kind)
        if kind == "RANGE":
            lo, hi = value
            if negated:
                covered = covered or (lo <= 0xD800 and hi >= 0xDFFF)
            elif lo <= 0xDFFF and hi >= 0xD800:
                return True
        elif kind == "LITERAL" and not negated and 0xD800 <= value <= 0xDFFF:
            return True
        elif kind == "CATEGORY" and not negated and str(value).startswith("CATEGORY_NOT"):
            return True
    return negated and not covered


# ---------------------------------------------------------------------- strings in the grammar


def writes_free_strings(schema: Any) -> bool:
    """Whether xgrammar's grammar of ``schema`` has a string that is neither a constant nor a
    pattern (its JSON string rule, which admits lone surrogates): a string without a pattern,
    a free key, a value of any type. Errs towards yes."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if node is True or node == {}:
            return True
        if not isinstance(node, dict):
            continue
        if "enum" in node or "const" in node:
            continue
        types = node.get("type")
        types = {types} if isinstance(types, str) else set(types or ())
        if not types and not any(k in node for k in ("$ref", "anyOf", "oneOf", "allOf")):
            return True
        if "string" in types and "pattern" not in node:
            return True
        if "object" in types:
            names = node.get("propertyNames")
            free = node.get("additionalProperties") not in (None, False) or bool(node.get("patternProperties")) or not set(node) - {"type"}
            if free and not (isinstance(names, dict) and "pattern" in names):
                return True
        for key in ("properties", "patternProperties", "$defs", "definitions"):
            if isinstance(node.get(key), dict):
                stack.extend(node[key].values())
        for key in ("items", "additionalProperties", "propertyNames"):
            if key in node and node[key] is not False:
                stack.append(node[key])
        for key in ("prefixItems", "anyOf", "oneOf", "allOf"):
            if isinstance(node.get(key), list):
                stack.extend(node[key])
    return False


def exact_strings(tag: Any) -> Any:
    """``tag`` with every JSON element whose schema writes free strings, and every grammar
    element, holding only valid Unicode: xgrammar's own grammar of the element, its string
    escape admitting a surrogate only as the high half of a pair, its character classes no
    surrogate. Other elements are returned as they are (the tag stays data, and a tag with no
    free string is built without xgrammar)."""
    if isinstance(tag, list):
        return [exact_strings(x) for x in tag]
    if not isinstance(tag, dict):
        return tag
    kind = tag.get("type")
    if kind == "json_schema":
        return {"type": "grammar", "grammar": _json_grammar(json.dumps(tag, ensure_ascii=False))} if writes_free_strings(tag.get("json_schema")) else tag
    if kind == "grammar":
        return {**tag, "grammar": _exact_ebnf(tag["grammar"])}
    return {k: exact_strings(v) for k, v in tag.items()}


@lru_cache(maxsize=1024)
def _json_grammar(element_json: str) -> str:
    import xgrammar as xgr  # only a tag with free strings needs it

    from .schema_checks import xgrammar_message

    tag = {"type": "structural_tag", "format": json.loads(element_json)}
    try:
        grammar = xgr.Grammar.from_structural_tag(json.dumps(tag))
    except Exception as e:  # a schema no tokenizer checked (xgrammar's verdict comes here, not in an engine)
        raise ValueError(f"xgrammar cannot build the grammar of the schema {tag['format']['json_schema']!r} ({xgrammar_message(e)})") from None
    return _exact_ebnf(str(grammar))


# xgrammar 0.2.8's JSON string escape, and the same admitting a surrogate only as a pair's high half
_ESCAPE = 'basic_escape ::= (([\\"\\\\/bfnrt]) | ("u" [A-Fa-f0-9] [A-Fa-f0-9] [A-Fa-f0-9] [A-Fa-f0-9]))'
_HEX = "[A-Fa-f0-9]"
_EXACT_ESCAPE = (
    'basic_escape ::= (([\\"\\\\/bfnrt]) '
    f'| ("u" [0-9A-Ca-cEFef] {_HEX} {_HEX} {_HEX}) | ("u" [Dd] [0-7] {_HEX} {_HEX}) '
    f'| ("u" [Dd] [89ABab] {_HEX} {_HEX} "\\\\u" [Dd] [C-Fc-f] {_HEX} {_HEX}))'
)
# A quoted literal (skipped: its brackets are text) or a character class.
_LITERAL_OR_CLASS = re.compile(r'"(?:\\.|[^"\\])*"|\[(\^?)((?:\\.|[^\]\\])*)\]')
_CLASS_ITEM = re.compile(r"\\U[0-9A-Fa-f]{8}|\\u[0-9A-Fa-f]{4}|\\x[0-9A-Fa-f]{2}|\\.|[^\\]", re.S)
_SIMPLE_ESCAPES = {"0": 0, "n": 10, "r": 13, "t": 9, "\\": 92, '"': 34, "]": 93, "[": 91, "-": 45, "^": 94}


def _exact_ebnf(ebnf: str) -> str:
    """xgrammar's grammar text with lone surrogates kept out of its strings (see
    :func:`exact_strings`); a string escape of a shape this version does not know is an error,
    not a grammar that admits lone surrogates."""
    ebnf = ebnf.replace(_ESCAPE, _EXACT_ESCAPE)
    if re.search(r'"u" \[A-Fa-f0-9\] \[A-Fa-f0-9\]', ebnf):
        raise RuntimeError("xgrammar's JSON grammar has a string escape this version of thinkgate cannot make exact")
    return _LITERAL_OR_CLASS.sub(_class_without_surrogates, ebnf)


def _class_without_surrogates(m: re.Match) -> str:
    if m.group(0).startswith('"'):
        return m.group(0)
    negated, body = m.group(1), m.group(2)
    if negated:
        return f"[^{body}\\uD800-\\uDFFF]"
    items = _CLASS_ITEM.findall(body)
    out, i = [], 0
    while i < len(items):
        if i + 2 < len(items) and items[i + 1] == "-":
            lo, hi = _code(items[i]), _code(items[i + 2])
            if lo is not None and hi is not None and lo <= 0xDFFF and hi >= 0xD800:
                if lo < 0xD800:
                    out.append(f"{items[i]}-\\uD7FF")
                if hi > 0xDFFF:
                    out.append(f"\\uE000-{items[i + 2]}")
            else:
                out.append("".join(items[i : i + 3]))
            i += 3
        else:
            out.append(items[i])
            i += 1
    return "[" + "".join(out) + "]"


def _code(item: str) -> Optional[int]:
    if not item.startswith("\\"):
        return ord(item)
    if item[1] in "Uux":
        return int(item[2:], 16)
    return _SIMPLE_ESCAPES.get(item[1])
