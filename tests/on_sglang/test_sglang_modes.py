"""Issue 33, point 3: SGLang never leaves a request that asks for thinkgate silently unconstrained.

Driven with SGLang's real processor serialisation and ``apply_custom_logit_processor`` itself,
compiled from SGLang's source because its module needs torchvision, which this environment lacks
(so does ``schedule_batch``, whose ``FINISH_ABORT`` a stand-in records)."""

import ast
import importlib.util
import logging
import sys
import types
import weakref
from array import array

import pytest
import torch
from sglang.srt.sampling.custom_logit_processor import CustomLogitProcessor
from sglang.srt.sampling.sampling_batch_info import ProcessorEntry, SamplingBatchInfo

import thinkgate.integrations.sglang as plugin
from schemas import GET_WEATHER, SET_ALARM
from thinkgate.demo import build_tiny_model
from thinkgate.integrations.sglang import ThinkgateLogitProcessor, custom_params

TOOLS = [GET_WEATHER, SET_ALARM]
VOCAB = 129280
EOS = 1


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return str(build_tiny_model(tmp_path_factory.mktemp("sg-modes") / "tiny"))


@pytest.fixture(scope="module")
def asking(model_dir):
    """The custom_params of a request that asks for thinkgate, as a client builds them."""
    return custom_params("deepseek_v3_1", model_dir, TOOLS, "required")


class Req:
    """What SGLang's Req offers a processor: rid, origin_input_ids, output_ids, finished(),
    decode_batch_idx (decode steps begun), and to_finish (a finish reason for the next step)."""

    def __init__(self, rid, prompt):
        self.rid = rid
        self.origin_input_ids = array("q", prompt)
        self.output_ids = array("q")
        self.decode_batch_idx = 0
        self.finished_reason = None
        self.to_finish = None

    def finished(self):
        return self.finished_reason is not None


@pytest.fixture
def finish_abort(monkeypatch):
    """A stand-in for SGLang's FINISH_ABORT, recording what the processor asks SGLang to end a request with."""

    class FINISH_ABORT:
        def __init__(self, message=None, status_code=None, err_type=None):
            self.message, self.status_code, self.err_type = message, status_code, err_type

    module = types.ModuleType("sglang.srt.managers.schedule_batch")
    module.FINISH_ABORT = FINISH_ABORT
    monkeypatch.setitem(sys.modules, module.__name__, module)
    return FINISH_ABORT


def _sglang_function(module, name, **names):
    """A function of an SGLang module that cannot be imported here, compiled from its source."""
    origin = importlib.util.find_spec(module).origin
    with open(origin) as f:
        tree = ast.parse(f.read())
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    namespace = dict(names)
    exec(compile(ast.Module([node], []), origin, "exec"), namespace)
    return namespace[name]


apply_custom_logit_processor = _sglang_function("sglang.srt.layers.sampler", "apply_custom_logit_processor", torch=torch, logger=logging.getLogger("sglang"), SamplingBatchInfo=SamplingBatchInfo)


class Batch:
    """The part of SamplingBatchInfo that apply_custom_logit_processor reads, built as
    SamplingBatchInfo.from_schedule_batch builds it: one entry per processor string."""

    def __init__(self, params, processor=ThinkgateLogitProcessor.to_str()):
        rows = [i for i, p in enumerate(params) if p is not None]
        self.custom_params = params
        self.custom_logit_processor = {hash(processor): ProcessorEntry(processor=CustomLogitProcessor.from_str(processor), rows=rows, indices=torch.tensor(rows))}
        self.device = "cpu"

    def __len__(self):
        return len(self.custom_params)


def _prompt(model_dir):
    from transformers import AutoTokenizer

    from thinkgate.formats.templates import apply_chat_template

    return apply_chat_template(AutoTokenizer.from_pretrained(model_dir), [{"role": "user", "content": "weather?"}], "deepseek_v3_1", TOOLS, thinking=False)


def _allowed(row):
    return torch.isfinite(row).nonzero().flatten().tolist()


def test_a_verify_step_ends_the_request_by_name(model_dir, asking, finish_abort):
    """DFlash and DSpark hand the processor one row per drafted position of a request, without
    the drafts: every such row may only end, and SGLang is asked to end the request with the
    reason; the row of a request beside it that did not ask is untouched."""
    prompt = _prompt(model_dir)
    drafted, plain = Req("modes-drafted", prompt), Req("modes-plain", prompt)
    logits = torch.randn(2 * 3, VOCAB, generator=torch.Generator().manual_seed(0))
    before = logits[3:].clone()
    apply_custom_logit_processor(logits, Batch([dict(asking, __req__=weakref.proxy(drafted)), None]), num_tokens_in_batch=3)
    assert [_allowed(row) for row in logits[:3]] == [[EOS]] * 3
    assert torch.equal(logits[3:], before)
    assert drafted.to_finish.message == "thinkgate: " + plugin._SEVERAL_ROWS and drafted.to_finish.status_code == 400
    drafted.to_finish = None
    drafted.output_ids.append(7)
    logits = torch.randn(1, VOCAB)
    apply_custom_logit_processor(logits, Batch([dict(asking, __req__=weakref.proxy(drafted))]))
    assert _allowed(logits[0]) == [EOS] and drafted.to_finish is None  # ended once, said once


def test_a_step_run_before_the_last_token_is_recorded_ends_the_request_by_name(model_dir, asking, finish_abort):
    """The overlap scheduler's lag: a decode step begun (decode_batch_idx) with its previous
    token not yet in output_ids. A request in step is masked by its grammar."""
    prompt = _prompt(model_dir)
    behind, in_step = Req("modes-behind", prompt), Req("modes-in-step", prompt)
    for req in (behind, in_step):
        req.decode_batch_idx = 1
    in_step.output_ids.append(_first_allowed(model_dir, asking, prompt))
    logits = torch.zeros(2, VOCAB)
    apply_custom_logit_processor(logits, Batch([dict(asking, __req__=weakref.proxy(behind)), dict(asking, __req__=weakref.proxy(in_step))]))
    assert _allowed(logits[0]) == [EOS] and behind.to_finish.message == "thinkgate: " + plugin._BEHIND
    assert len(_allowed(logits[1])) > 1 and in_step.to_finish is None


def _first_allowed(model_dir, asking, prompt):
    fresh = Req("modes-first", prompt)
    logits = torch.zeros(1, VOCAB)
    apply_custom_logit_processor(logits, Batch([dict(asking, __req__=weakref.proxy(fresh))]))
    return _allowed(logits[0])[0]


def test_a_history_that_starts_over_starts_the_grammar_over(model_dir, asking):
    """A request retracted with input embeddings loses its output_ids and starts over: its
    grammar starts over with it, so its masks are a new request's."""
    prompt = _prompt(model_dir)
    again, fresh = Req("modes-again", prompt), Req("modes-fresh", prompt)
    gen = torch.Generator().manual_seed(3)
    first = None
    for _ in range(6):
        logits = torch.randn(1, VOCAB, generator=gen)
        apply_custom_logit_processor(logits, Batch([dict(asking, __req__=weakref.proxy(again))]))
        first = first or _allowed(logits[0])
        again.output_ids.append(int(logits.argmax()))
    again.output_ids = array("q")
    masks = []
    for req in (again, fresh):
        logits = torch.zeros(1, VOCAB)
        apply_custom_logit_processor(logits, Batch([dict(asking, __req__=weakref.proxy(req))]))
        masks.append(_allowed(logits[0]))
    assert masks[0] == masks[1] == first
