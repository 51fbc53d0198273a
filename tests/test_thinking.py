import pytest

from thinkgate import thinking_from_prompt
from thinkgate.formats import DEEPSEEK_R1, DEEPSEEK_V3, DEEPSEEK_V3_1


def _ids(tokenizer, text):
    return tokenizer.encode(text, add_special_tokens=False)


def test_stage_from_prompt_ids(tokenizer):
    user = "<｜User｜>hi<｜Assistant｜>"  # the chat roles are outside the formats' markers
    opn, close = DEEPSEEK_V3_1.reasoning.open, DEEPSEEK_V3_1.reasoning.close
    assert thinking_from_prompt(_ids(tokenizer, user + opn), tokenizer, "deepseek_v3_1") is True
    assert thinking_from_prompt(_ids(tokenizer, user + opn + "\n"), tokenizer, "deepseek_r1") is True
    assert thinking_from_prompt(_ids(tokenizer, user + close), tokenizer, "deepseek_v3_1") is False
    assert thinking_from_prompt(_ids(tokenizer, user + close + "\n\n"), tokenizer, DEEPSEEK_V3_1) is False
    # neither: the format's default
    assert thinking_from_prompt(_ids(tokenizer, user), tokenizer, DEEPSEEK_R1) is True
    assert thinking_from_prompt(_ids(tokenizer, user), tokenizer, DEEPSEEK_V3) == "auto"
    # a <think> far back (before real text) does not count
    assert thinking_from_prompt(_ids(tokenizer, opn + "x" + user), tokenizer, DEEPSEEK_V3) == "auto"
    assert thinking_from_prompt([], tokenizer, DEEPSEEK_V3) == "auto"


def test_tokenizer_without_the_markers_is_a_clear_error():
    with pytest.raises(ValueError, match="no single token for '<think>'"):
        thinking_from_prompt([1, 2, 3], {"</think>": 5}, "deepseek_r1")


def test_mapping_tokenizer():
    ids = {"<think>": 7, "</think>": 8}
    assert thinking_from_prompt([1, 7], ids, "deepseek_v3") is True
    assert thinking_from_prompt([1, 8], ids, "deepseek_v3") is False
