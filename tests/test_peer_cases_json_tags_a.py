"""The peers' own vectors for this group's families (tests/peer_vectors_json_tags_a.py: vLLM's,
SGLang's and llama.cpp's tests of Apertus', Apriel's, Cohere Command's, Granite's and Phi-4-mini's
calls), each read whole, in the peer's own chunks and one character at a time; where a test checks
only substrings of the content, those; where it streams at every cut point, every cut."""

from __future__ import annotations

import pytest
from peer_vectors_json_tags_a import CONTAINS, EVERY_TWO_CHUNK_SPLIT, VECTORS
from peer_vectors_newest import failures, read

FORMATS = {"apertus", "apriel", "cohere_command", "granite3", "granite_20b_fc", "phi4_mini"}


@pytest.mark.parametrize("vector", list(VECTORS.values()), ids=list(VECTORS))
def test_peer_vector(vector):
    assert failures(vector) == {}
    for piece in CONTAINS.get(vector.id, ()):
        assert piece in (read(vector, "whole").content or "")
    if vector.id in EVERY_TWO_CHUNK_SPLIT:
        whole = _said(read(vector, "whole"))
        for cut in range(1, len(vector.text)):
            assert _said(read(vector._replace(chunks=[vector.text[:cut], vector.text[cut:]]), "chunks")) == whole, cut


def _said(message):
    """What a message says, but its calls' random ids."""
    return message.reasoning_content, message.content, [(c.name, c.arguments) for c in message.tool_calls], [c.text for c in message.invalid_tool_calls], message.finish_reason


def test_vectors_cover_the_groups_formats_with_their_origin():
    assert {v.fmt for v in VECTORS.values()} == FORMATS
    for v in VECTORS.values():
        repository, rest = v.origin.split(" ", 1)
        assert repository.count("/") == 1 and "::" in rest, v.id
        assert not v.why or v.why.strip(), v.id
