"""The peers' own vectors for the newest families (tests/peer_vectors_newest.py), each read
whole, in the peer's own chunks and one character at a time.

A vector thinkgate reads differently today is ``xfail(strict=True)`` with the point of issue 35
it belongs to, so a fix that lands shows up here as an unexpected pass to flip.
"""

from __future__ import annotations

import pytest
from peer_vectors_newest import VECTORS, failures

FORMATS = {"deepseek_v3_2", "deepseek_v4", "minimax_m2", "qwen3_5", "gemma4", "kimi_k3"}


def _param(v):
    marks = [pytest.mark.xfail(strict=True, reason=v.xfail)] if v.xfail else []
    return pytest.param(v, id=v.id, marks=marks)


@pytest.mark.parametrize("vector", [_param(v) for v in VECTORS.values()])
def test_peer_vector(vector):
    assert failures(vector) == {}


def test_vectors_cover_the_newest_formats_with_their_origin():
    assert {v.fmt for v in VECTORS.values()} == FORMATS
    for v in VECTORS.values():
        repository, path_and_commit = v.origin.split(" ", 1)
        assert repository.count("/") == 1 and "@" in path_and_commit and "::" in path_and_commit, v.id
