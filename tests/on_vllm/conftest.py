"""vLLM tests: they run in an environment with vLLM installed (see the README) and are skipped
elsewhere."""

import os
import sys

import pytest

try:
    import vllm  # noqa: F401
except ImportError:  # not this environment: nothing here is collected
    collect_ignore_glob = ["*.py"]
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory):
    from thinkgate.demo import build_tiny_model

    return str(build_tiny_model(tmp_path_factory.mktemp("vllm-model") / "tiny"))
