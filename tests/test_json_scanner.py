import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import cuts
from thinkgate.parsing import JsonScanner

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=15,
)


def scan(text, points=()):
    s = JsonScanner()
    offset = 0
    for piece in cuts(text, list(points)):
        k = s.feed(piece)
        if s.done or s.failed:
            return s, offset + k
        offset += len(piece)
    return s, offset


def valid_object(text):
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


@settings(max_examples=300, deadline=None)
@given(obj=st.dictionaries(st.text(max_size=5), values, max_size=5), indent=st.sampled_from([None, 0, 2]), ascii=st.booleans(), data=st.data())
def test_serialised_objects_complete_at_their_last_brace_for_any_cut(obj, indent, ascii, data):
    text = json.dumps(obj, indent=indent, ensure_ascii=ascii)
    s, end = scan(text + " tail", data.draw(st.lists(st.integers(0, len(text) + 5), max_size=10)))
    assert s.done and end == len(text)


@settings(max_examples=500, deadline=None)
@given(obj=st.dictionaries(st.text(max_size=3), values, min_size=1, max_size=3), data=st.data())
def test_mutated_objects_are_accepted_exactly_when_json_accepts_them(obj, data):
    text = json.dumps(obj)
    at = data.draw(st.integers(0, len(text)))
    op = data.draw(st.sampled_from(["insert", "delete", "replace"]))
    ch = data.draw(st.sampled_from(list('{}[]",:0-+.eE \\\n\ttrufalsn1x') + ["\x01"]))
    if op == "insert":
        text = text[:at] + ch + text[at:]
    elif op == "delete":
        text = text[:at] + text[at + 1 :]
    else:
        text = text[:at] + ch + text[at + 1 :]
    s, end = scan(text, data.draw(st.lists(st.integers(0, len(text)), max_size=6)))
    complete = s.done and not text[end:].strip()
    assert complete == valid_object(text), (text, s.error)
    if s.failed:
        assert s.error


@pytest.mark.parametrize(
    "text, error",
    [
        ('{"a": 01}', "leading zero"),
        ('{"a": 1e}', "exponent"),
        ('{"a": 1e+}', "digit in a number"),
        ('{"a": 1.}', "digit in a number"),
        ('{"a": -x}', "after '-'"),
        ('{"a": "\\q"}', "invalid escape"),
        ('{"a": "\\u12G4"}', "\\u escape"),
        ('{"a": "x\ty"}', "control character"),
        ('{"a": nul}', "literal"),
        ('{"a" 1}', "expected ':'"),
        ('{1: 2}', "object key"),
        ('{"a": 1,}', "object key"),
        ('{"a": [1,]}', "JSON value"),
        ('{"a": 1 2}', "expected ','"),
        ('[1]', "must be a JSON object"),
    ],
)
def test_errors_say_what_is_wrong(text, error):
    s, _ = scan(text)
    assert s.failed and error in s.error


def test_numbers_end_where_the_next_token_starts():
    for text in ['{"a": 0}', '{"a": -0.5e+10}', '{"a": 12E3, "b": [1, 0.25]}', '{"a":1e5}']:
        s, end = scan(text, range(len(text)))
        assert s.done and end == len(text)


def test_in_string_and_depth():
    s = JsonScanner()
    s.feed('{"a": [{"b": "x')
    assert s.in_string and s.depth == 3
    s.feed('"}]')
    assert not s.in_string and s.depth == 1
    assert s.feed("} more") == 1 and s.done
    assert s.feed("more") == 0  # nothing is read after the object closed
