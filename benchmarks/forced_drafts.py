"""Tokens the grammar forces (issue 37, point 5, the replay part): how much of a tool call no
forward pass has to choose, and how many passes a call needs when those tokens are drafted.

**References.** For every format with a real tokenizer, BFCL's function-call examples
(``bfcl-eval``: the functions offered, the expected calls) are rendered as the format's chat
template writes them (``fmt.tools.section_text``; the arguments as ``tojson`` writes them,
``json.dumps(ensure_ascii=False)``, keys in the schema's order), encoded with the format's
tokenizer (``encode(text, add_special_tokens=False)``) and followed by its end of sequence: the
tokens a model trained on the template would produce. gpt-oss's output begins after the prompt's
``<|start|>assistant`` (left out of the reference) and its ``<|call|>`` ends the generation: its
parallel calls are one generation each.

**Replay.** Each reference goes through thinkgate's grammar (``compile_tool_grammar(tok, F,
tools, "required")``, ``ReasonerGrammar(thinking=False)``, no ``max_tokens``: the tool phase from
its first marker to the end of sequence). At every position, before its token is accepted:

* **forced**: the mask (``BatchMasker``, thinkgate's guard included) allows exactly one token:
  it is appended with no forward pass of its own (the next pass computes its key/values);
* **drafted**: thinkgate's draft (``thinkgate.constraint.runtime.forced.ForcedDrafts``):
  xgrammar's jump-forward string (``matcher.find_jump_forward_string()``: the text the grammar
  fixes next) in the tokenizer's own encoding, its last token held back (it could merge with
  what follows) unless it is a special token or only special tokens (a marker, the end) may
  follow the string; the draft's tokens equal to the reference's next ones count as drafted.

**Passes**, as speculative decoding spends them: forced tokens cost none; a draft of ``k`` ≥ 1
tokens is verified by one pass, which also gives the next token (``k + 1`` tokens for one pass);
any other token takes one pass. A token a pass gives that the mask allows alone is counted as
forced, else as the model's (sampled). ``passes/tok``: passes over the call's tokens.
``chained``: the same, but a draft taken whole (held back nowhere) goes on with the forced tokens
after it and the next draft, all verified by that one pass (``.play<｜tool▁sep｜>{`` in one go).
``f+d full``: forced+drafted with no hold-back (the whole encoding drafted). ``single``:
positions where the mask allows one token, whatever the replay did there. ``punct``: tokens the
model chose that are whitespace and markup punctuation alone (``'":'``, ``' "'``, ``' {"'``): mostly
structure the grammar leaves open for the whitespace it tolerates between JSON's tokens.

What the replay leaves out: the jump-forward string is xgrammar's alone. Markers that are special
tokens are not in it (they are in the mask, so forced), and it knows nothing of thinkgate's
run-time guard (string bounds, numbers' ranges): a draft the guard would refuse is one the
verification rejects, and the reference, a valid call, holds none. Thinking is not replayed.

**Formats** (tokenizers of ``thinkgate.tokenizers``, shipped in Python packages, no download):
deepseek_r1, deepseek_v3_1, deepseek_v3_2 (DeepSeek's), qwen3, qwen3_coder (Qwen's), llama3_json
(Llama 3's), mistral_json (Mistral Nemo's tekken), gpt_oss (o200k_harmony); with ``--formats``
also deepseek_v3, deepseek_v4 and qwen3_5 (the same vocabularies). Not measured: ``mistral``
(``[TOOL_CALLS]NAME[ARGS]{…}``: the v11+ tekken tokenizer, the one with ``[ARGS]``, is in no
installed package; the tests use a stand-in) and the formats whose tests use DeepSeek's
tokenizer with markers added (no real vocabulary).

**Data.** With ``--bfcl DIR`` (the unpacked ``bfcl-eval`` wheel): BFCL's ``simple_python``,
``multiple`` and ``parallel`` categories (``--categories``; ``parallel_multiple`` works too),
the first ``--limit`` examples of each; each expected argument is its possible answer's first
acceptable value (an argument whose first is ``""``, optional and absent, left out); BFCL's
types become JSON Schema's (``dict`` → ``object``, ``float`` → ``number``, ``tuple`` → ``array``,
``any`` → no type; ``default`` and ``optional`` dropped); tool names as BFCL spells them
(``math.factorial``). Without ``--bfcl``: the realistic tools of ``tests/schemas.py`` and the
natural calls of ``tests/test_tool_room.py``, so it runs on a clean machine. Nothing is
downloaded at run time; to get BFCL's data::

    pip download --no-deps bfcl-eval -d /tmp/bfcl
    unzip -q -o /tmp/bfcl/bfcl_eval-*.whl -d /tmp/bfcl_pkg

    python benchmarks/forced_drafts.py --bfcl /tmp/bfcl_pkg [--limit 100] [--formats qwen3,gpt_oss]
        [--trace simple_python_0] [--out benchmarks/results/forced_drafts.json]

(about 2.5 minutes on one core with the defaults). Prints a table per category and the totals per
format; writes JSON (per format and category, every variant, each skipped example and why).
``--trace ID`` prints that example's replay position by position.

**Generation** (``--generate N [--max-tokens 128] [--batch 1,8]``): N requests (the realistic
tools, "required", thinking off, greedy) on the demo model (``thinkgate demo``'s tiny
random-weight DeepSeek model), in batches of each size through ``generate_chat`` with forced
drafts on and off (a request alone through transformers' assisted decoding, a batch through
thinkgate's own loop): tokens, forward passes, tokens a second; then the same model writing as
many tokens with no grammar (plain greedy ``generate``, batches of the same size). Writes
``…/forced_drafts_generation.json``.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import torch  # noqa: E402

from thinkgate.constraint import BatchMasker, ReasonerGrammar, compile_tool_grammar  # noqa: E402
from thinkgate.constraint.runtime.forced import ForcedDrafts, forced_text  # noqa: E402
from thinkgate.constraint.runtime.vocabulary import vocabulary_for  # noqa: E402
from thinkgate.formats import get_format  # noqa: E402
from thinkgate.tokenizers import family_tokenizer  # noqa: E402

# format -> the tokenizer family whose vocabulary its models use
FORMATS = {
    "deepseek_r1": "deepseek",
    "deepseek_v3_1": "deepseek",
    "deepseek_v3_2": "deepseek",
    "qwen3": "qwen",
    "qwen3_coder": "qwen",
    "llama3_json": "llama3",
    "mistral_json": "mistral",
    "gpt_oss": "harmony",
}
# also measurable (--formats), on the same vocabularies: R1's layout, V3.2's DSML, Qwen3's markers
MORE_FORMATS = {"deepseek_v3": "deepseek", "deepseek_v4": "deepseek", "qwen3_5": "qwen"}
CATEGORIES = ("simple_python", "multiple", "parallel")
# gpt-oss: the prompt ends with this; the model's output begins after it
PROMPT_TAIL = {"gpt_oss": "<|start|>assistant"}


# ---------------------------------------------------------------------------- examples


@dataclass
class Example:
    id: str
    tools: list[dict]  # OpenAI tool dicts
    calls: list[tuple[str, dict]]  # the expected calls, in order


_TYPES = {"dict": "object", "float": "number", "tuple": "array"}
_KEEP = ("type", "properties", "required", "items", "enum", "description", "minimum", "maximum", "minItems", "maxItems", "pattern", "format", "additionalProperties")


def json_schema(s: Any) -> Any:
    """A BFCL parameter schema as JSON Schema."""
    if not isinstance(s, dict):
        return s
    out = {k: v for k, v in s.items() if k in _KEEP}
    t = out.get("type")
    if t == "any":
        del out["type"]
    elif t in _TYPES:
        out["type"] = _TYPES[t]
    if "properties" in out:
        out["properties"] = {k: json_schema(v) for k, v in out["properties"].items()}
        if "required" in out:
            out["required"] = [r for r in out["required"] if r in out["properties"]]
    if "items" in out:
        out["items"] = json_schema(out["items"])
    return out


_ABSENT = object()


def first_value(choices: list, schema: Optional[dict]) -> Any:
    """An argument's first acceptable value (a nested object's each argument likewise, in an
    array too); ``_ABSENT`` where the first is ``""`` (optional, left out)."""
    v = choices[0] if choices else ""
    if v == "":
        return _ABSENT
    if isinstance(v, dict):
        return arguments(v, schema)
    if isinstance(v, list):
        items = (schema or {}).get("items")
        return [arguments(x, items) if isinstance(x, dict) else x for x in v]
    return v


def arguments(answer: dict, schema: Optional[dict]) -> dict:
    """The arguments of one possible answer (each value a list of acceptable ones), in the
    order of the schema's properties (the grammar's)."""
    props = (schema or {}).get("properties") or {}
    order = [k for k in props if k in answer] + [k for k in answer if k not in props]
    out = {}
    for k in order:
        v = answer[k]
        v = first_value(v, props.get(k)) if isinstance(v, list) else v
        if v is not _ABSENT:
            out[k] = v
    return out


def bfcl_examples(root: str, category: str, limit: int) -> list[Example]:
    pattern = re.compile(rf"BFCL_v\d+_{re.escape(category)}\.json")  # (not live_multiple for multiple)
    data = [p for p in glob.glob(os.path.join(root, "**", "BFCL_v*.json"), recursive=True) if pattern.fullmatch(os.path.basename(p))]
    questions = [p for p in data if os.sep + "possible_answer" + os.sep not in p]
    answers = [p for p in data if os.sep + "possible_answer" + os.sep in p]
    if not questions or not answers:
        raise SystemExit(f"no BFCL data for {category!r} under {root} (see the module's docstring)")
    with open(sorted(answers)[-1], encoding="utf-8") as f:
        truth = {(a := json.loads(line))["id"]: a["ground_truth"] for line in f if line.strip()}
    out = []
    with open(sorted(questions)[-1], encoding="utf-8") as f:
        for line in f:
            if len(out) == limit:
                break
            q = json.loads(line)
            tools = [{"type": "function", "function": {"name": fn["name"], "description": fn.get("description", ""), "parameters": json_schema(fn["parameters"])}} for fn in q["function"]]
            schemas = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
            calls = [(name, arguments(args, schemas.get(name))) for call in truth[q["id"]] for name, args in call.items()]
            out.append(Example(q["id"], tools, calls))
    return out


def realistic_examples() -> list[Example]:
    from schemas import REALISTIC
    from test_tool_room import NATURAL_CALLS

    return [Example(f"realistic_{name}", REALISTIC, [(name, args)]) for name, args in NATURAL_CALLS]


# ---------------------------------------------------------------------------- replay


# How drafts are made: "main" (the jump-forward string's encoding, its last token held back;
# one draft a pass), "no_holdback" (the whole encoding), "chained" (as main, but a draft held
# back nowhere goes on with the tokens forced after it and the next draft, all verified by the
# same pass).
VARIANTS = {"main": (True, False), "no_holdback": (False, False), "chained": (True, True)}


@dataclass
class Counts:
    forced: int = 0  # appended with no pass of their own (the mask allows them alone)
    drafted: int = 0  # drafts equal to the reference, verified by a pass
    sampled: int = 0  # chosen by the model
    passes: int = 0
    punct: int = 0  # sampled tokens of whitespace and markup punctuation alone (see PUNCT)

    def add(self, other: "Counts") -> None:
        for k, v in vars(other).items():
            setattr(self, k, getattr(self, k) + v)


@dataclass
class Tally:
    examples: int = 0
    generations: int = 0
    tokens: int = 0
    single_allowed: int = 0  # positions where the mask allows one token (whatever the replay did)
    jump_nonempty: int = 0  # positions with a non-empty jump-forward string
    variants: dict = field(default_factory=lambda: {v: Counts() for v in VARIANTS})
    skipped: list = field(default_factory=list)

    def add(self, other: "Tally") -> None:
        for k, v in vars(other).items():
            if k == "variants":
                for name, c in v.items():
                    self.variants[name].add(c)
            else:
                setattr(self, k, getattr(self, k) + v)

    def row(self) -> dict:
        n = max(self.tokens, 1)

        def shares(c: Counts) -> dict:
            return {
                "forced": c.forced, "drafted": c.drafted, "sampled": c.sampled, "passes": c.passes,
                "forced_pct": 100 * c.forced / n, "drafted_pct": 100 * c.drafted / n,
                "forced_drafted_pct": 100 * (c.forced + c.drafted) / n, "passes_per_token": c.passes / n,
                "sampled_punctuation_pct": 100 * c.punct / n,
            }

        main = self.variants["main"]
        return {
            "examples": self.examples,
            "generations": self.generations,
            "skipped": len(self.skipped),
            "call_tokens": self.tokens,
            **shares(main),
            "single_allowed_pct": 100 * self.single_allowed / n,
            "jump_nonempty_pct": 100 * self.jump_nonempty / n,
            **{name: shares(c) for name, c in self.variants.items() if name != "main"},
        }


class Replayer:
    """One format's tokenizer, vocabulary and mask buffer."""

    def __init__(self, fmt: str, tokenizer: Any):
        self.fmt = fmt
        self.format = get_format(fmt)
        self.tok = tokenizer
        self.vocab = vocabulary_for(tokenizer)
        self.masker = BatchMasker(self.vocab.size, 1, threads=1)
        self.drafts = ForcedDrafts.for_tokenizer(tokenizer)
        self.encodings: dict[str, list[int]] = {}

    def encode(self, text: str) -> list[int]:
        ids = self.encodings.get(text)
        if ids is None:
            ids = self.encodings[text] = self.tok.encode(text, add_special_tokens=False)
        return ids

    def references(self, grammar: Any, calls: list[tuple[str, dict]]) -> list[list[int]]:
        """The generations of an example's calls, as token ids ending in the end of sequence."""
        rendered = [(name, json.dumps(args, ensure_ascii=False)) for name, args in calls]
        tools = self.format.tools
        groups = [[c] for c in rendered] if self.format.tools.call_end in self.format.stops else [rendered]
        eos = self.tok.convert_tokens_to_ids(self.format.eos)
        eos = eos if eos in grammar.stop_ids else grammar.stop_ids[0]
        out = []
        for group in groups:
            text = tools.section_text(group)
            tail = PROMPT_TAIL.get(self.fmt, "")
            if tail and text.startswith(tail):
                text = text[len(tail):]
            ids = self.tok.encode(text, add_special_tokens=False)
            out.append(ids if ids and ids[-1] in grammar.stop_ids else ids + [eos])
        return out

    def walk(self, grammar: Any, ref: list[int]) -> tuple[list[int], list[str], dict[bool, list[tuple[int, ...]]]]:
        """Per position of ``ref`` (before its token is accepted): how many tokens the mask
        allows, the jump-forward string, and thinkgate's drafts from there (``ForcedDrafts``:
        by hold-back, True and False)."""
        g = ReasonerGrammar(grammar, thinking=False)
        allowed: list[int] = []
        jumps: list[str] = []
        drafts: dict[bool, list[tuple[int, ...]]] = {True: [], False: []}
        for k, t in enumerate(ref):
            logits = torch.zeros((1, self.vocab.size))
            self.masker([g], logits)
            ok = torch.isfinite(logits[0])
            n = int(ok.sum())
            if not bool(ok[t]):
                raise Rejected(f"token {k} ({self.tok.decode([t])!r}) masked")
            allowed.append(n)
            jumps.append(forced_text(g))
            after = self.tok.decode([ref[k - 1]]) if k else ""
            for hold_back in (True, False):
                drafts[hold_back].append(self.drafts.draft(g, hold_back, after))
            if not g.accept_token(t):
                raise Rejected(f"token {k} ({self.tok.decode([t])!r}) rejected: {g.error}")
        if not g.is_terminated():
            raise Rejected("not terminated at the end of the reference")
        return allowed, jumps, drafts

    def replay(self, grammar: Any, ref: list[int], tally: Tally, trace: bool = False) -> None:
        allowed, jumps, drafts = self.walk(grammar, ref)
        if trace:
            print(f"{'':>4} {'token':<24}{'allowed':>8}  jump-forward string (its tokens)")
            for k, t in enumerate(ref):
                toks = [self.tok.decode([x]) for x in self.encode(jumps[k])] if jumps[k] else ""
                print(f"{k:>4} {self.tok.decode([t])!r:<24}{allowed[k]:>8}  {jumps[k]!r} {toks}")
        n = len(ref)

        def draft(i: int, hold_back: bool) -> tuple[int, bool]:
            """The draft's tokens equal to the reference's from ``i``; whether it is all of the
            jump-forward string's encoding (nothing held back, nothing rejected)."""
            toks = drafts[hold_back][i]
            m = 0
            while m < len(toks) and i + m < n and toks[m] == ref[i + m]:
                m += 1
            return m, m == len(toks) == len(drafts[False][i])

        for name, (hold_back, chain) in VARIANTS.items():
            c = tally.variants[name]
            i = 0
            while i < n:
                # what the drafter appends before the model must choose: forced tokens (no pass
                # of their own), then a draft (chained: and on while all of a draft was taken)
                d = 0
                while i < n:
                    if allowed[i] == 1:
                        c.forced += 1
                        i += 1
                        continue
                    k, whole = draft(i, hold_back)
                    d += k
                    i += k
                    if not (chain and k and whole):
                        break
                c.drafted += d
                if i == n:  # the end reached: a draft in the run still needs its verifying pass
                    c.passes += d > 0
                    break
                c.passes += 1  # verifies the draft and gives the next token
                if allowed[i] == 1:
                    c.forced += 1
                else:
                    c.sampled += 1
                    c.punct += bool(PUNCT.fullmatch(self.tok.decode([ref[i]])))
                i += 1
        tally.tokens += n
        tally.generations += 1
        tally.single_allowed += sum(a == 1 for a in allowed)
        tally.jump_nonempty += sum(bool(j) for j in jumps)


# A token of whitespace and markup punctuation alone ('":', ' "', '",', ' {"', '>\n', '</'): among
# the sampled ones, mostly structure the grammar leaves open for the whitespace it tolerates
# between JSON's tokens (a diagnostic: some are real choices, such as '",' against '"}').
PUNCT = re.compile(r'[\s"{}\[\],:<>/=;]+')


class Rejected(Exception):
    pass


# ---------------------------------------------------------------------------- generation


def generation(requests: int, max_tokens: int, batch: int = 1) -> dict:
    """Real generation on the demo model (``thinkgate demo``'s tiny random-weight DeepSeek model,
    built if missing): the realistic tools, tool_choice "required", thinking off, greedy, in
    batches of ``batch`` requests (``generate_chat``: a request alone through transformers'
    assisted decoding, a batch through thinkgate's own loop), with forced drafts on and off; then
    the same model writing as many tokens with no grammar at all, in batches of the same size.
    Forward passes are counted on the model."""
    from thinkgate.demo import build_tiny_model, load
    from thinkgate.integrations.transformers import _pad_left, generate_chat
    from thinkgate.requests import ChatRequest

    from schemas import REALISTIC

    model, tokenizer = load(build_tiny_model())
    passes = [0]
    hook = model.register_forward_hook(lambda *_: passes.__setitem__(0, passes[0] + 1))
    asks = ["Weather in Paris for three days?", "Book me a flight from ZRH to JFK.", "Find the docs on streaming.", "Wake me at 7:30 on Mondays."]
    batch_of = [ChatRequest(messages=[{"role": "user", "content": asks[k % len(asks)]}], tools=REALISTIC, tool_choice="required",
                            thinking=False, max_tokens=max_tokens, temperature=0) for k in range(requests)]
    out: dict = {}
    generate_chat(model, tokenizer, batch_of[:1], format="deepseek_v3_1", forced_drafts=False)  # (the grammar's compile, not timed)
    for mode in ("off", "on"):
        passes[0] = 0
        t0 = time.perf_counter()
        done = generate_chat(model, tokenizer, batch_of, format="deepseek_v3_1", batch_size=batch, forced_drafts=mode == "on")
        seconds = time.perf_counter() - t0
        tokens = sum(c["usage"]["completion_tokens"] for c in done)
        assert all(c["choices"][0]["message"].get("tool_calls") for c in done)
        out[mode] = {"tokens": int(tokens), "passes": passes[0], "seconds": seconds, "tokens_per_second": tokens / seconds}
    # the same number of tokens, no grammar: each request's share, written by plain greedy generation
    per = max(1, out["off"]["tokens"] // requests)
    prompt = tokenizer.encode("Weather in Paris for three days?", add_special_tokens=False)
    eos = tokenizer.convert_tokens_to_ids(get_format("deepseek_v3_1").eos)
    passes[0] = 0
    t0 = time.perf_counter()
    with torch.no_grad():
        for start in range(0, requests, batch):
            ids, mask = _pad_left([prompt] * min(batch, requests - start), eos)
            model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=per, min_new_tokens=per, do_sample=False, pad_token_id=eos)
    seconds = time.perf_counter() - t0
    out["unconstrained"] = {"tokens": per * requests, "passes": passes[0], "seconds": seconds, "tokens_per_second": per * requests / seconds}
    hook.remove()
    return out


# ---------------------------------------------------------------------------- main


def run_format(fmt: str, tokenizer: Any, sets: dict[str, list[Example]], trace: Optional[str] = None) -> dict[str, Tally]:
    r = Replayer(fmt, tokenizer)
    tallies = {}
    for category, examples in sets.items():
        tally = tallies[category] = Tally()
        for ex in examples:
            try:
                grammar = compile_tool_grammar(tokenizer, fmt, ex.tools, "required")
            except Exception as e:  # a schema thinkgate refuses
                tally.skipped.append({"id": ex.id, "reason": f"compile: {type(e).__name__}: {str(e)[:200]}"})
                continue
            part = Tally()
            try:
                for ref in r.references(grammar, ex.calls):
                    if ex.id == trace:
                        print(f"\n{fmt} {ex.id}: {r.tok.decode(ref)!r}")
                    r.replay(grammar, ref, part, trace=ex.id == trace)
            except Rejected as e:
                tally.skipped.append({"id": ex.id, "reason": f"reference not accepted: {e}"})
                continue
            part.examples = 1
            tally.add(part)
    return tallies


HEAD = (f"{'format':<15}{'examples':>9}{'skipped':>8}{'tokens':>8}{'forced':>8}{'drafted':>9}{'f+d':>7}{'passes/tok':>11}"
        f"{'chained':>9}{'single':>8}{'f+d full':>9}{'punct':>7}")


def line(name: str, row: dict) -> str:
    return (f"{name:<15}{row['examples']:>9}{row['skipped']:>8}{row['call_tokens']:>8}{row['forced_pct']:>7.1f}%{row['drafted_pct']:>8.1f}%"
            f"{row['forced_drafted_pct']:>6.1f}%{row['passes_per_token']:>11.3f}{row['chained']['passes_per_token']:>9.3f}"
            f"{row['single_allowed_pct']:>7.1f}%{row['no_holdback']['forced_drafted_pct']:>8.1f}%{row['sampled_punctuation_pct']:>6.1f}%")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bfcl", help="the unpacked bfcl-eval package (see the docstring); without it, the realistic tools")
    ap.add_argument("--limit", type=int, default=100, help="examples per BFCL category (default 100)")
    ap.add_argument("--categories", default=",".join(CATEGORIES))
    ap.add_argument("--formats", default=",".join(FORMATS))
    ap.add_argument("--trace", metavar="ID", help="print every position of this example's replay (e.g. simple_python_0, realistic_get_weather)")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "forced_drafts.json"))
    ap.add_argument("--generate", type=int, metavar="N", help="instead: N requests generated on the demo model, forced drafts on and off, "
                    "and the model writing as many tokens unconstrained")
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--batch", default="1,8", help="with --generate: batch sizes, comma-separated (default 1,8)")
    args = ap.parse_args()
    start = time.perf_counter()
    if args.generate:
        runs = {}
        print(f"{'batch':<7}{'':<16}{'tokens':>8}{'passes':>8}{'passes/token':>14}{'seconds':>9}{'tokens/s':>10}")
        for batch in (int(b) for b in args.batch.split(",")):
            gen = runs[batch] = generation(args.generate, args.max_tokens, batch)
            for mode, r in gen.items():
                print(f"{batch:<7}{mode:<16}{r['tokens']:>8}{r['passes']:>8}{r['passes'] / r['tokens']:>14.3f}{r['seconds']:>9.2f}{r['tokens_per_second']:>10.1f}")
            print(f"batch {batch}: forced drafts on / unconstrained, tokens a second: {gen['on']['tokens_per_second'] / gen['unconstrained']['tokens_per_second']:.2f}; "
                  f"on / off: {gen['on']['tokens_per_second'] / gen['off']['tokens_per_second']:.2f}")
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out.replace(".json", "_generation.json"), "w", encoding="utf-8") as f:
            json.dump({"benchmark": "forced_drafts_generation", "requests": args.generate, "max_tokens": args.max_tokens, "runs": runs}, f, indent=2)
        return
    if args.bfcl:
        sets = {c: bfcl_examples(args.bfcl, c, args.limit) for c in args.categories.split(",")}
    else:
        sets = {"realistic": realistic_examples()}
    tokenizers: dict[str, Any] = {}
    results: dict[str, dict] = {}
    skipped: dict[str, list] = {}
    for fmt in args.formats.split(","):
        family = {**FORMATS, **MORE_FORMATS}[fmt]
        if family not in tokenizers:
            tokenizers[family] = family_tokenizer(family)
        t0 = time.perf_counter()
        tallies = run_format(fmt, tokenizers[family], sets, args.trace)
        total = Tally()
        for t in tallies.values():
            total.add(t)
        results[fmt] = {c: t.row() for c, t in tallies.items()} | {"total": total.row(), "seconds": time.perf_counter() - t0}
        skipped[fmt] = total.skipped
        print(f"{fmt}: {total.tokens} tokens, {len(total.skipped)} skipped, {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    print("Shares of the call's tokens. passes/tok: forward passes per call token (chained: drafts chained through\n"
          "the forced tokens after them); single: positions where the mask allows one token; f+d full: forced+drafted\n"
          "with no hold-back; punct: tokens the model chose that are whitespace and markup punctuation alone.")
    for category in [*sets, "total"] if len(sets) > 1 else sets:
        print(f"\n{category}\n{HEAD}")
        for fmt, rows in results.items():
            print(line(fmt, rows[category]))
    for fmt, s in skipped.items():
        for item in s[:5]:
            print(f"skipped ({fmt}) {item['id']}: {item['reason']}")
        if len(s) > 5:
            print(f"skipped ({fmt}): {len(s) - 5} more (in the JSON)")
    seconds = time.perf_counter() - start
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump({"benchmark": "forced_drafts", "data": "bfcl" if args.bfcl else "realistic", "limit": args.limit if args.bfcl else None,
                   "categories": list(sets), "formats": results, "skipped": skipped, "seconds": seconds}, f, indent=2, ensure_ascii=False)
    print(f"\n{seconds:.1f} s; wrote {args.out}")


if __name__ == "__main__":
    main()
