"""Constrained decoding on xgrammar, in three rooms:

* ``grammar``: a request's grammar built from its format's layout, tools and tool_choice (the
  structural tag, each layout's grammar, xgrammar's compile, cached and within a budget);
* ``schemas``: tool schemas rewritten into what xgrammar enforces exactly, or refused by name;
* ``runtime``: what runs per token (``ReasonerGrammar``: free thinking, then the tool grammar;
  the guard beside xgrammar; batch masks; the vocabulary's tables).

The structural tag is plain data (``build_structural_tag`` imports neither xgrammar nor torch);
what compiles and applies grammars is imported on first use.
"""

from importlib import import_module

from .grammar.structural_tag import DEFAULT_MAX_WHITESPACE, build_structural_tag

# name -> the module that holds it (each imports xgrammar, and so torch)
_LAZY = {
    "BatchMasker": "runtime.batch",
    "apply_bitmask": "runtime.batch",
    "BatchSteps": "runtime.batch_steps",
    "GrammarCache": "grammar.compiled",
    "ToolGrammar": "grammar.compiled",
    "compile_tool_grammar": "grammar.compiled",
    "grammar_cache": "grammar.compiled",
    "Phase": "runtime.reasoner",
    "ReasonerGrammar": "runtime.reasoner",
    "Vocabulary": "runtime.vocabulary",
    "vocabulary_for": "runtime.vocabulary",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{module}", __name__), name)


__all__ = ["DEFAULT_MAX_WHITESPACE", "build_structural_tag", *_LAZY]
