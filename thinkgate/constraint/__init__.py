"""Constrained decoding: structural tags and the per-request ReasonerGrammar (on xgrammar).

The structural tag is plain data (``build_structural_tag`` imports neither xgrammar nor torch);
what compiles and applies grammars is imported on first use.
"""

from importlib import import_module

from .structural_tag import DEFAULT_MAX_WHITESPACE, build_structural_tag

# name -> the module that holds it (each imports xgrammar, and so torch)
_LAZY = {
    "BatchMasker": "batch",
    "apply_bitmask": "batch",
    "BatchSteps": "batch_steps",
    "GrammarCache": "compiled",
    "ToolGrammar": "compiled",
    "compile_tool_grammar": "compiled",
    "grammar_cache": "compiled",
    "Phase": "reasoner",
    "ReasonerGrammar": "reasoner",
    "Vocabulary": "vocabulary",
    "vocabulary_for": "vocabulary",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{module}", __name__), name)


__all__ = ["DEFAULT_MAX_WHITESPACE", "build_structural_tag", *_LAZY]
