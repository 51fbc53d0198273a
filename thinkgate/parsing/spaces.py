"""Whitespace as the parsers skip it: any between calls and markers, JSON's own inside JSON."""

import re

SPACE_RUN = re.compile(r"\s*")
JSON_SPACE_RUN = re.compile(r"[ \t\n\r]*")
