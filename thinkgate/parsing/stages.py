"""The stages of the layouts whose calls are markup in the answer (marked calls, JSON calls),
and what a request asks of reading any layout."""

import enum
from dataclasses import dataclass

from ..formats import Thinking


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


@dataclass(frozen=True)
class Reading:
    """What a request asks of reading an output (see :class:`thinkgate.StreamParser`)."""

    thinking: Thinking
    recover_calls_in_reasoning: bool = True
    calls_after_content: bool = True
