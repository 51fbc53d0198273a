"""SGLang tests: they run in an environment with SGLang's Python package (see the README) and are
skipped elsewhere. SGLang cannot serve without a GPU: these drive its real classes by hand."""

import os
import sys

import pytest

pytest.importorskip("sglang.srt.sampling.custom_logit_processor", reason="SGLang is not installed in this environment")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
