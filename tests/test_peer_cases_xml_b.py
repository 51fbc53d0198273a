"""The peers' own vectors for group xml_b of issue 38 (tests/peer_vectors_xml_b.py: vLLM's, SGLang's
and llama.cpp's tests of LongCat's, Trinity's, PLaMo 3's and functionary v3.1's calls), each read
whole, in the peer's own chunks and one character at a time."""

from __future__ import annotations

import pytest
from peer_vectors_newest import failures
from peer_vectors_xml_b import VECTORS

FORMATS = {"longcat", "trinity", "plamo3", "functionary_v3_1"}


@pytest.mark.parametrize("vector", list(VECTORS.values()), ids=list(VECTORS))
def test_peer_vector(vector):
    assert failures(vector) == {}


def test_vectors_cover_the_group_formats_with_their_origin():
    assert {v.fmt for v in VECTORS.values()} == FORMATS
    for v in VECTORS.values():
        repository, rest = v.origin.split(" ", 1)
        assert repository.count("/") == 1 and "::" in rest, v.id
        assert not v.why or v.why.strip(), v.id
