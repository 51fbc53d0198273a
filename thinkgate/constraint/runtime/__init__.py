"""What runs per token: a request's ReasonerGrammar (free thinking, then the tool grammar), the guard beside xgrammar, batch masks and the vocabulary's tables."""
