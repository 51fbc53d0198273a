"""What the layouts whose calls are markup in the answer share (marked calls, JSON calls): the
reasoning before the answer (``reasoning.py``), the answer's text up to the calls
(``answer.py``), and how a call ends (``call_end.py``). A layout adds the stages between and
inside its calls."""

from __future__ import annotations

from collections.abc import Callable

from ..formats import ChatFormat, is_text
from .answer import AnswerStages
from .call_end import CallEndStages
from .calls import CallTracker
from .driver import Driver, Handler
from .markers import Credits
from .reasoning import ReasoningStages
from .stages import Reading, Stage


class Markup:
    """The shared stages, built for one output. ``calls_after_content`` overrides the
    request's; ``then`` is :class:`CallEndStages`'; ``start_headless(at)`` reads a call whose
    begin marker was left out, from its header at ``at`` (see ``MarkedCalls.headless``), and
    ``start_headless(at, announcer)`` what one of ``announcers`` found in the answer may open."""

    def __init__(
        self,
        driver: Driver,
        calls: CallTracker,
        fmt: ChatFormat,
        reading: Reading,
        *,
        calls_after_content: bool | None = None,
        then: Callable[[], None] | None = None,
        start_headless: Callable[..., int] | None = None,
        announcers: tuple[str, ...] = (),
    ) -> None:
        self.d = driver
        self.calls = calls
        if calls_after_content is None:
            calls_after_content = reading.calls_after_content
        # a call without its begin marker is read only where it names one of the request's tools
        headless = fmt.tools.headless_begin if start_headless is not None and calls.knows_tools else ""
        after_reasoning = fmt.tools.headless_after_reasoning if start_headless is not None else ""
        self.answer = AnswerStages(
            driver, fmt, calls_after_content=calls_after_content, headless=headless, after_reasoning=after_reasoning, start_headless=start_headless,
            announcers=announcers,
        )
        self.reasoning = ReasoningStages(
            driver,
            fmt,
            reading.thinking,
            recovered=_recovered(fmt) if reading.recover_calls_in_reasoning else (),
            enter_calls=self._calls_from_reasoning,
        )
        self.answer.reopen = self.reasoning.reopen
        self.end = CallEndStages(driver, calls, fmt, then, headless)
        self.end.say = self._say_after_call

    def _say_after_call(self, text: str) -> None:
        if not self.answer.hold(text):
            self.d.say(text)

    def _calls_from_reasoning(self, buf: str, marker: str, at: int, credits: Credits | None, back_to: Stage) -> int:
        self.answer.hold_after_calls()
        return self.answer.enter_calls(buf, marker, at, credits, back_to)

    def start(self, layout: object) -> None:
        """Hand the layout to the driver, in the stage the output starts in."""
        self.d.start(layout, self.reasoning.first_stage)

    def stages(self, section: Handler, content: Handler | None = None) -> dict[Stage, Handler]:
        """The stage table, with ``section`` reading between calls (and ``content`` the
        answer, where the layout decides first whether it is calls)."""
        return {
            Stage.START: self.reasoning.start,
            Stage.REASONING: self.reasoning.reasoning,
            Stage.CONTENT: content or self.answer.content,
            Stage.SECTION: section,
            Stage.ARGUMENTS: self.calls.arguments,
            Stage.AFTER_ARGUMENTS: self.end.after_arguments,
            Stage.INVALID_CALL: self.end.invalid_call,
            Stage.STOPPED: self.calls.stopped,
        }

    def finish_stage(self) -> None:
        self.reasoning.flush()
        self.answer.flush_held()
        if self.answer.dangles():  # a block opened at the very end: cut off before its first call
            self.calls.reset()
            self.calls.raw = list(self.answer.block or ())
            self.answer.block = None
            self.d.cut_off = True
            self.calls.invalid("the output ended in a tool block before its first call", cut_off=True)
        self.answer.give_back()  # a block the output ended in, with no call begun
        self.end.finish_stage()


def _recovered(fmt: ChatFormat) -> tuple[str, ...]:
    """The tool markup that, written while thinking, opens the calls: the format's exits (its
    trigger, or a text trigger where it calls while thinking), and a call's begin marker written
    without the section around it (Kimi-K2 calling from inside its reasoning, as llama.cpp reads
    it), where the trigger and that marker are tokens."""
    exits = fmt.reasoning_exits
    call_begin = fmt.tools.call_begin
    extra = (call_begin,) if fmt.reasoning_trigger and call_begin and call_begin not in exits and not is_text(call_begin) else ()
    return (*exits, *extra)
