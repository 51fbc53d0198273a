"""detect() on DeepSeek V3.2's chat template (written from llama.cpp's copy of it, in
tests/test_dsml.py): its DSML calls are text, its prompt ends in <think> unless enable_thinking
is off."""

from test_dsml import DEEPSEEK_V3_2_TEMPLATE
from thinkgate import detect
from thinkgate.formats import DEEPSEEK_V3_2


def test_deepseek_v3_2_template_is_deepseek_v3_2():
    assert detect(DEEPSEEK_V3_2_TEMPLATE) is DEEPSEEK_V3_2
