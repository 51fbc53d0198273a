"""Realistic tool schemas: nested objects, arrays, enums, bounded numbers, strings with
maxLength, patterns and date-time formats, optional fields, unicode. Every string is bounded
(a random walk only closes an unbounded string by chance)."""

GET_WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather forecast for a city",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "maxLength": 24, "description": "e.g. Zürich or 東京"},
                "days": {"type": "integer", "minimum": 1, "maximum": 14},
                "units": {"enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city", "days"],
            "additionalProperties": False,
        },
    },
}

BOOK_FLIGHT = {
    "type": "function",
    "function": {
        "name": "book_flight",
        "parameters": {
            "type": "object",
            "properties": {
                "origin": {"type": "string", "pattern": "^[A-Z]{3}$"},
                "destination": {"type": "string", "pattern": "^[A-Z]{3}$"},
                "depart_at": {"type": "string", "format": "date-time"},
                "passengers": {
                    "type": "array",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "minLength": 1, "maxLength": 20},
                            "age": {"type": "integer", "minimum": 0, "maximum": 120},
                        },
                        "required": ["name", "age"],
                        "additionalProperties": False,
                    },
                },
                "cabin": {"enum": ["economy", "business", "first"]},
                "notes": {"type": "string", "maxLength": 30},
            },
            "required": ["origin", "destination", "depart_at", "passengers"],
            "additionalProperties": False,
        },
    },
}

SEARCH_DOCS = {
    "type": "function",
    "function": {
        "name": "search_docs",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 2, "maxLength": 40},
                "filters": {
                    "type": "object",
                    "properties": {
                        "since": {"type": "string", "format": "date"},
                        "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                        "tags": {"type": "array", "items": {"enum": ["api", "guide", "faq"]}, "maxItems": 3},
                        "score": {"type": "number", "minimum": 0, "maximum": 1},
                    },
                    "additionalProperties": False,
                },
                "exact": {"type": "boolean"},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    },
}

SET_ALARM = {
    "type": "function",
    "function": {
        "name": "set_alarm",
        "parameters": {
            "type": "object",
            "properties": {
                "time": {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$"},
                "label": {"anyOf": [{"type": "string", "maxLength": 16}, {"type": "null"}]},
                "repeat": {"type": "array", "items": {"enum": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]}, "maxItems": 7},
            },
            "required": ["time"],
            "additionalProperties": False,
        },
    },
}

REALISTIC = [GET_WEATHER, BOOK_FLIGHT, SEARCH_DOCS, SET_ALARM]


def weather_and_now(max_city: int) -> list[dict]:
    """Two small tools: ``get_weather`` (a ``city`` of at most ``max_city`` characters, which
    only the run-time guard bounds, and a free ``note``) and ``now`` (no arguments)."""
    weather = {
        "type": "object",
        "properties": {"city": {"type": "string", "maxLength": max_city}, "note": {"type": "string"}},
        "required": ["city"],
    }
    return [
        {"type": "function", "function": {"name": "get_weather", "parameters": weather}},
        {"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}},
    ]
