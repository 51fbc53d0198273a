"""vLLM tests: they run in an environment with vLLM installed (see the README) and are skipped
elsewhere."""

import os
import sys

import pytest

pytest.importorskip("vllm", reason="vLLM is not installed in this environment")
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory):
    from thinkgate.demo import build_tiny_model

    return str(build_tiny_model(tmp_path_factory.mktemp("vllm-model") / "tiny"))
