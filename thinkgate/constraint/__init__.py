"""Constrained decoding: structural tags and the per-request ReasonerGrammar (on xgrammar)."""

from .batch import BatchMasker, apply_bitmask
from .compiled import GrammarCache, ToolGrammar, compile_tool_grammar, grammar_cache
from .reasoner import Phase, ReasonerGrammar
from .structural_tag import DEFAULT_MAX_WHITESPACE, build_structural_tag
from .vocabulary import Vocabulary, vocabulary_for

__all__ = [
    "BatchMasker",
    "DEFAULT_MAX_WHITESPACE",
    "GrammarCache",
    "Phase",
    "ReasonerGrammar",
    "ToolGrammar",
    "Vocabulary",
    "apply_bitmask",
    "build_structural_tag",
    "compile_tool_grammar",
    "grammar_cache",
    "vocabulary_for",
]
