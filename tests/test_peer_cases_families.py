"""The peers' own vectors for issue 38's families, a vectors file per group (tests/peer_vectors_*.py:
vLLM's, SGLang's and llama.cpp's tests of their calls, each with its origin), each read whole, in
the peer's own chunks and one character at a time; where a test checks only substrings of the
content, those; where it streams at every cut point, every cut."""

from __future__ import annotations

import importlib

import pytest
from peer_vectors_newest import failures, read

# group -> the formats its vectors cover
GROUPS = {
    "pythonic": {"llama4_pythonic", "lfm2", "olmo3"},
    "json_tags_a": {"apertus", "apriel", "cohere_command", "granite3", "granite_20b_fc", "phi4_mini"},
    "json_tags_b": {"firefunction_v2", "hunyuan_a13b", "hy_v3_preview", "hy_v4", "jamba", "xlam", "internlm2", "intern_s1"},
    "json_tags_c": {"ernie4_5", "mimo", "dots", "poolside_v1", "functiongemma"},
    "xml_a": {"deepseek_v4_1", "gigachat3", "gigachat3_1", "gigachat3_5", "step3", "step3_5", "ling3", "minicpm5"},
    "xml_b": {"longcat", "trinity", "plamo3", "functionary_v3_1"},
}
MODULES = {group: importlib.import_module(f"peer_vectors_{group}") for group in GROUPS}


def _cases():
    for group, module in MODULES.items():
        for vid, vector in module.VECTORS.items():
            yield pytest.param(group, vector, id=f"{group}:{vid}")


@pytest.mark.parametrize(("group", "vector"), list(_cases()))
def test_peer_vector(group, vector):
    module = MODULES[group]
    assert failures(vector) == {}
    for piece in getattr(module, "CONTAINS", {}).get(vector.id, ()):
        assert piece in (read(vector, "whole").content or "")
    if vector.id in getattr(module, "EVERY_TWO_CHUNK_SPLIT", ()):
        whole = _said(read(vector, "whole"))
        for cut in range(1, len(vector.text)):
            assert _said(read(vector._replace(chunks=[vector.text[:cut], vector.text[cut:]]), "chunks")) == whole, cut


def _said(message):
    """What a message says, but its calls' random ids."""
    return message.reasoning_content, message.content, [(c.name, c.arguments) for c in message.tool_calls], [c.text for c in message.invalid_tool_calls], message.finish_reason


@pytest.mark.parametrize("group", list(GROUPS))
def test_vectors_cover_the_groups_formats_with_their_origin(group):
    vectors = MODULES[group].VECTORS.values()
    assert {v.fmt for v in vectors} == GROUPS[group]
    for v in vectors:
        repository, rest = v.origin.split(" ", 1)
        assert repository.count("/") == 1 and "::" in rest, v.id
        assert not v.why or v.why.strip(), v.id
