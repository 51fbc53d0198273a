"""Building a request's grammar: the structural tag from a format's layout and the request's tools and tool_choice, compiled by xgrammar (cached, within a compile budget)."""
