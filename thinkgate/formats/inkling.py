"""Inkling (Thinking Machines' TMLv0 typed content blocks): no format yet (issue 38).

The model writes a turn as blocks, each a role token, an optional name, a content-kind token, a
body and ``<|end_message|>``; the generation prompt already holds the first block's
``<|message_model|>``::

    <|content_thinking|>…<|end_message|><|message_model|><|content_text|>Let me check.<|end_message|>
    <|message_model|>get_weather<|content_invoke_tool_json|>{"name":"get_weather","args":{"city":"SF"}}<|end_message|>
    <|content_model_end_sampling|>

(vLLM ``parser/inkling.py``, SGLang ``function_call/inkling_detector.py`` and
``parser/inkling_tokenizer.py``). Blocks of any kind repeat in any order (thinking, text, calls,
raw-text calls ``<|content_invoke_tool_text|>``), and the answer's text is itself a framed block
written with special tokens. No thinkgate layout reads that: marked calls take reasoning as one
span before the answer and frame the answer's text only with text markers, and the
channel-messages layout is harmony's, its header a channel word and ``<|message|>``. Inkling needs
a layout of typed blocks (a role marker, a kind marker per block, the kind deciding reasoning,
text or call), which harmony's and Muse's recipient channels could share.
"""

FORMATS: tuple = ()
