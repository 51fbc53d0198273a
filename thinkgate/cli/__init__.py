"""The ``thinkgate`` command line: ``main`` parses the subcommands (``main.py``); ``generate``,
``agent`` and what they check before a model loads (``checks``) have a module each."""

from .main import build_parser, main

__all__ = ["build_parser", "main"]
