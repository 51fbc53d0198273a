"""The peers' own vectors for ERNIE 4.5, MiMo, dots, Poolside v1 and FunctionGemma (tests/peer_vectors_json_tags_c.py:
vLLM's and SGLang's tests of their calls), each read whole, in the peer's own chunks and one
character at a time; where a test checks only substrings of the content, those."""

from __future__ import annotations

import pytest
from peer_vectors_json_tags_c import CONTAINS, VECTORS
from peer_vectors_newest import failures, read

FORMATS = {"ernie4_5", "mimo", "dots", "poolside_v1", "functiongemma"}


@pytest.mark.parametrize("vector", list(VECTORS.values()), ids=list(VECTORS))
def test_peer_vector(vector):
    assert failures(vector) == {}
    for piece in CONTAINS.get(vector.id, ()):
        assert piece in (read(vector, "whole").content or "")


def test_vectors_cover_the_families_with_their_origin():
    assert {v.fmt for v in VECTORS.values()} == FORMATS
    for v in VECTORS.values():
        repository, rest = v.origin.split(" ", 1)
        assert repository.count("/") == 1 and "::" in rest and " @" in rest, v.id
        assert not v.why or v.why.strip(), v.id
