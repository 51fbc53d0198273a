"""Tool schemas rewritten into what xgrammar enforces exactly, or refused by name; the facts the run-time guard reads from them."""
