"""Constrained decoding: structural tags and the per-request ReasonerGrammar (on xgrammar)."""
