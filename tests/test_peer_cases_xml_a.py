"""The peers' own vectors for the XML / parameters families of group xml_a
(tests/peer_vectors_xml_a.py: vLLM's and SGLang's tests of DeepSeek V4.1's spaced DSML, GigaChat 3
/ 3.1 / 3.5, Step 3 / 3.5, Ling 3 and MiniCPM 5), each read whole, in the peer's own chunks and one
character at a time; where a test checks only substrings of the content, those."""

from __future__ import annotations

import pytest
from peer_vectors_newest import failures, read
from peer_vectors_xml_a import CONTAINS, VECTORS

FORMATS = {"deepseek_v4_1", "gigachat3", "gigachat3_1", "gigachat3_5", "step3", "step3_5", "ling3", "minicpm5"}


@pytest.mark.parametrize("vector", list(VECTORS.values()), ids=list(VECTORS))
def test_peer_vector(vector):
    assert failures(vector) == {}
    for piece in CONTAINS.get(vector.id, ()):
        assert piece in (read(vector, "whole").content or "")


def test_vectors_cover_the_families_with_their_origin():
    assert {v.fmt for v in VECTORS.values()} == FORMATS
    for v in VECTORS.values():
        repository, rest = v.origin.split(" ", 1)
        assert repository.count("/") == 1 and "::" in rest, v.id
        assert not v.why or v.why.strip(), v.id
