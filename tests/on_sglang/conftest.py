"""SGLang tests: they run in an environment with SGLang's Python package (see the README) and are
skipped elsewhere. SGLang cannot serve without a GPU: these drive its real classes by hand."""

import os
import sys

import pytest

try:
    import sglang.srt.sampling.custom_logit_processor  # noqa: F401
except ImportError:  # not this environment: nothing here is collected
    collect_ignore_glob = ["*.py"]
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
