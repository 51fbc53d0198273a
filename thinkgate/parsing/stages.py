"""The stages of the machines of calls delimited by markers and of calls as JSON objects."""

import enum


class Stage(enum.IntEnum):
    """What the model is writing at the current position."""

    START = 0  # before the first character: is <think> coming?
    REASONING = 1
    CONTENT = 2
    SECTION = 3  # inside the tool section, between calls
    CALL_HEADER = 4  # function<｜tool▁sep｜>NAME\n```json\n and the like
    ARGUMENTS = 5
    AFTER_ARGUMENTS = 6  # the footer (\n```) before the call's end marker
    INVALID_CALL = 7  # a call that cannot be read, up to its end marker
    STOPPED = 8  # strict mode after an invalid call: the rest is ignored
