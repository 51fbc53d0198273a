"""The peers' own vectors for firefunction-v2, Hunyuan-A13B, Hy3-preview, Hy4, Jamba, xLAM and
InternLM 2 / Intern-S1 (tests/peer_vectors_json_tags_b.py: vLLM's, SGLang's and llama.cpp's
tests of them), each read whole, in the peer's own chunks and one character at a time; where a
test checks only substrings of the content, those."""

from __future__ import annotations

import pytest
from peer_vectors_json_tags_b import CONTAINS, VECTORS
from peer_vectors_newest import failures, read

FORMATS = {"firefunction_v2", "hunyuan_a13b", "hy_v3_preview", "hy_v4", "jamba", "xlam", "internlm2", "intern_s1"}


@pytest.mark.parametrize("vector", list(VECTORS.values()), ids=list(VECTORS))
def test_peer_vector(vector):
    assert failures(vector) == {}
    for piece in CONTAINS.get(vector.id, ()):
        assert piece in (read(vector, "whole").content or "")


def test_vectors_cover_the_formats_with_their_origin():
    assert {v.fmt for v in VECTORS.values()} == FORMATS
    for v in VECTORS.values():
        repository, rest = v.origin.split(" ", 1)
        assert repository.count("/") == 1 and "::" in rest, v.id
        assert not v.why or v.why.strip(), v.id
