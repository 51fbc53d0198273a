"""Issue 33, point 3: SGLang never leaves a request that asks for thinkgate silently unconstrained.

Driven with SGLang's real classes: ``ServerArgs`` (raw, with resolution's declarations where
resolution decides a setting), the speculative-algorithm enum and its aliases, the plugin hook
registry, processor serialisation, and ``apply_custom_logit_processor`` itself, compiled from
SGLang's source because its module needs torchvision, which this environment lacks (so does
``schedule_batch``, whose ``FINISH_ABORT`` a stand-in records)."""

import ast
import importlib.util
import json
import logging
import sys
import types
import weakref
from array import array
from types import SimpleNamespace

import pytest
import torch
from sglang.srt.arg_groups.model_override_base import resolving_view
from sglang.srt.arg_groups.overrides import declare_resolution
from sglang.srt.plugins.hook_registry import HookRegistry, HookType
from sglang.srt.sampling.custom_logit_processor import CustomLogitProcessor, DisallowedTokensLogitsProcessor
from sglang.srt.sampling.sampling_batch_info import ProcessorEntry, SamplingBatchInfo
from sglang.srt.server_args import ServerArgs
from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
from sglang.srt.speculative.spec_registry import _RESERVED_ALIASES

import thinkgate.integrations.sglang as plugin
from schemas import GET_WEATHER, SET_ALARM
from thinkgate.demo import build_tiny_model, demo_tokenizer
from thinkgate.integrations.sglang import ThinkgateLogitProcessor, check_request, check_server_args, custom_params, processor_skip_reason
from thinkgate.formats.tokens import default_stop_ids

# the ends of a generation with the demo model's tokenizer (the EOS its saved tokenizer names)
ENDS = sorted(set(default_stop_ids(demo_tokenizer())))

TOOLS = [GET_WEATHER, SET_ALARM]
VOCAB = 129280
EOS = 1

# Every algorithm SGLang 0.5.23 accepts by name, read from SGLang so that a new one shows up here.
ALGORITHMS = sorted({a.name for a in SpeculativeAlgorithm if a is not SpeculativeAlgorithm.NONE} | _RESERVED_ALIASES)
EFFECT = {"DFLASH": "once per drafted position", "DSPARK": "once per drafted position", "UNO": "refuses custom logit processors"}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return str(build_tiny_model(tmp_path_factory.mktemp("sg-modes") / "tiny"))


@pytest.fixture(scope="module")
def asking(model_dir):
    """The custom_params of a request that asks for thinkgate, as a client builds them."""
    return custom_params("deepseek_v3_1", model_dir, TOOLS, "required")


def _server(**settings):
    """A server set up for thinkgate as the module docstring says: its processor and parser on,
    the overlap scheduler off."""
    base = {"model_path": "dummy", "enable_custom_logit_processor": True, "disable_overlap_schedule": True, "tool_call_parser": "thinkgate_deepseek_v3_1"}
    return ServerArgs(**{**base, **settings})


def _request(params, processor=ThinkgateLogitProcessor.to_str(), **sampling):
    """What ``TokenizerManager._validate_one_request`` is given for one request (a single
    ``GenerateReqInput``: its sampling_params dict and its custom_logit_processor string)."""
    return SimpleNamespace(sampling_params={"max_new_tokens": 64, "custom_params": dict(params), **sampling}, custom_logit_processor=processor)


def _refusal(call, *args):
    with pytest.raises(ValueError) as caught:
        call(*args)
    message = str(caught.value)
    assert message.startswith("thinkgate: ") and "\n" not in message
    return message


@pytest.mark.parametrize("algorithm", ALGORITHMS + ["MY_PLUGIN_SPEC"])
def test_every_speculative_algorithm_is_refused_by_name(algorithm, asking):
    server = _server(speculative_algorithm=algorithm)
    started = _refusal(check_server_args, server)
    assert started.startswith(f"thinkgate: --speculative-algorithm {algorithm}: ")
    effect = EFFECT.get(algorithm, "never calls custom logit processors" if algorithm != "MY_PLUGIN_SPEC" else "has not checked")
    assert effect in started
    assert "drop --speculative-algorithm" in started and "SGLang's own structured outputs" in started
    assert _refusal(check_request, server, _request(asking)) == started


def test_the_refusal_names_the_algorithm_given_where_resolution_renames_it(asking):
    """NEXTN resolves to EAGLE (or FROZEN_KV_MTP): the line names what the operator wrote; a
    resolution that turns speculative decoding off (auxiliary hidden-state capture) leaves
    nothing to refuse."""
    server = _server(speculative_algorithm="NEXTN")
    declare_resolution(server, "handle_speculative_decoding", speculative_algorithm="FROZEN_KV_MTP")
    assert "--speculative-algorithm NEXTN: SGLang's verify (eagle_sample) never calls" in _refusal(check_server_args, server)
    captured = _server(speculative_algorithm="EAGLE3")
    declare_resolution(captured, "_handle_aux_hidden_state_capture", speculative_algorithm=None)
    assert processor_skip_reason(captured) is None
    check_request(captured, _request(asking))


def test_the_plain_configuration_changes_nothing(asking, caplog):
    """No speculative decoding, the overlap scheduler off: thinkgate's processor runs at every
    step, so nothing is refused and nothing is logged; a server without custom logit
    processors is SGLang's to refuse (whatever its speculative algorithm), and a request that does
    not ask for thinkgate is none of thinkgate's business."""
    caplog.set_level(logging.DEBUG, logger="thinkgate")
    server = _server()
    assert processor_skip_reason(server) is None
    check_server_args(server)
    check_request(server, _request(asking))
    for quiet in (ServerArgs(model_path="dummy"), ServerArgs(model_path="dummy", speculative_algorithm="EAGLE3", tool_call_parser="thinkgate_deepseek_r1")):
        check_server_args(quiet)
    eagle = _server(speculative_algorithm="EAGLE3")
    check_request(eagle, _request({"thinking_budget": 5}, processor=None))
    check_request(eagle, SimpleNamespace(sampling_params={"max_new_tokens": 5}, custom_logit_processor=None))
    assert not caplog.records


def test_the_overlap_scheduler_is_refused_unless_sglang_records_tokens_first(asking, monkeypatch):
    """The overlap scheduler samples a step before recording the last one's token. Refused,
    unless SGLANG_ENABLE_DELAY_SAMPLE defers sampling, resolution turns overlap off (as it does
    for pipeline parallelism), or the server is a disaggregated prefill server (one token, from
    the prompt); a disaggregated decode server overlaps like any other."""
    monkeypatch.delenv("SGLANG_ENABLE_DELAY_SAMPLE", raising=False)
    overlapping = _server(disable_overlap_schedule=False)
    message = _refusal(check_server_args, overlapping)
    assert message.startswith("thinkgate: the overlap scheduler (on unless --disable-overlap-schedule): ") and "add --disable-overlap-schedule" in message
    assert _refusal(check_request, overlapping, _request(asking)) == message
    assert _refusal(check_server_args, _server(disable_overlap_schedule=False, disaggregation_mode="decode")) == message
    assert processor_skip_reason(_server(disable_overlap_schedule=False, disaggregation_mode="prefill")) is None
    pipeline = _server(disable_overlap_schedule=False, pp_size=2)
    declare_resolution(pipeline, "_pipeline_parallel_overlap_disable", disable_overlap_schedule=True)
    assert resolving_view(pipeline).disable_overlap_schedule and processor_skip_reason(pipeline) is None
    monkeypatch.setenv("SGLANG_ENABLE_DELAY_SAMPLE", "1")
    assert processor_skip_reason(overlapping) is None


@pytest.mark.parametrize(
    ("settings", "named"),
    [({"dllm_algorithm": "LowConfidence"}, "--dllm-algorithm LowConfidence: "), ({"sampling_backend": "my_sampler"}, "--sampling-backend my_sampler: ")],
)
def test_diffusion_decoding_and_a_plugin_sampler_are_refused_by_name(settings, named, asking):
    server = _server(**settings)
    assert _refusal(check_server_args, server).startswith("thinkgate: " + named)
    assert _refusal(check_request, server, _request(asking)).startswith("thinkgate: " + named)
    assert processor_skip_reason(_server(sampling_backend="pytorch")) is None


def test_a_server_not_set_up_for_thinkgate_starts_and_says_what_it_will_refuse(asking, caplog):
    """Custom logit processors on for another use, no thinkgate parser: SGLang's settings are
    the operator's; one warning line, then every request that asks for thinkgate is refused."""
    caplog.set_level(logging.WARNING, logger="thinkgate")
    server = _server(tool_call_parser=None, speculative_algorithm="EAGLE3")
    check_server_args(server)
    [record] = caplog.records
    assert record.getMessage().startswith("thinkgate: --speculative-algorithm EAGLE3: ") and record.getMessage().endswith("(requests that ask for thinkgate will be refused)")
    assert "--speculative-algorithm EAGLE3" in _refusal(check_request, server, _request(asking))
    with pytest.raises(ValueError, match="--speculative-algorithm EAGLE3"):
        check_server_args(_server(tool_call_parser=None, reasoning_parser="thinkgate_deepseek_r1", speculative_algorithm="EAGLE3"))


def test_several_tokenizer_workers_where_the_processor_never_runs_do_not_start(asking, caplog):
    """SGLang loads no plugins in its tokenizer workers, so the admission check is missing
    there: where no step would hold a request either (speculative decoding), a server with
    custom logit processors on does not start; where the processor runs a token behind (the
    overlap scheduler), it ends such requests itself, and the server starts with the warning."""
    caplog.set_level(logging.WARNING, logger="thinkgate")
    message = _refusal(check_server_args, _server(tool_call_parser=None, speculative_algorithm="EAGLE3", tokenizer_worker_num=2))
    assert "--speculative-algorithm EAGLE3" in message and "--tokenizer-worker-num 2" in message
    check_server_args(_server(tool_call_parser=None, disable_overlap_schedule=False, tokenizer_worker_num=2))
    assert "overlap scheduler" in caplog.records[-1].getMessage()
    check_server_args(_server(tool_call_parser=None, speculative_algorithm="EAGLE3"))  # one worker: admission refuses


def test_a_request_asking_for_thinkgate_without_its_processor_is_refused(asking):
    """custom_params alone constrain nothing: the request must name thinkgate's processor.
    Beam search ranks beams on logits copied before any processor runs."""
    server = _server()
    assert "names no custom_logit_processor" in _refusal(check_request, server, _request(asking, processor=None))
    assert "is DisallowedTokensLogitsProcessor, not ThinkgateLogitProcessor" in _refusal(check_request, server, _request(asking, processor=DisallowedTokensLogitsProcessor.to_str()))
    assert "cannot be loaded" in _refusal(check_request, server, _request(asking, processor=json.dumps({"callable": "00"})))
    assert "beam search (beam_width 4)" in _refusal(check_request, server, _request(asking, beam_width=4))
    check_request(server, _request(asking, beam_width=1))


def test_register_installs_the_checks_as_sglang_plugin_hooks(asking, monkeypatch):
    """register() (SGLang's plugin entry point) hooks thinkgate's checks after SGLang's own
    ServerArgs.check_server_args and TokenizerManager._validate_one_request, once however often
    it runs; applied, the start-up hook refuses EAGLE3 through ServerArgs itself."""
    monkeypatch.setattr(HookRegistry, "_hooks", type(HookRegistry._hooks)(list))
    monkeypatch.setattr(HookRegistry, "_patched", set())
    monkeypatch.setattr(ServerArgs, "check_server_args", lambda self: None)  # SGLang's own checks need a resolved model
    plugin.register()
    plugin.register()
    assert {target: [(kind, hook) for kind, hook, _ in hooks] for target, hooks in HookRegistry._hooks.items()} == {target: [(HookType.AFTER, hook)] for target, hook in plugin.HOOKS}
    admission = HookRegistry._hooks.pop("sglang.srt.managers.tokenizer_manager.TokenizerManager._validate_one_request")[0][1]
    HookRegistry.apply_hooks()
    with pytest.raises(ValueError, match="^thinkgate: --speculative-algorithm EAGLE3: "):
        _server(speculative_algorithm="EAGLE3").check_server_args()
    _server().check_server_args()
    tokenizer_manager = SimpleNamespace(server_args=_server(speculative_algorithm="NGRAM"))
    with pytest.raises(ValueError, match="^thinkgate: --speculative-algorithm NGRAM: "):
        admission(None, tokenizer_manager, _request(asking), [0, 5])
    admission(None, SimpleNamespace(server_args=_server()), _request(asking), [0, 5])


# The processor itself, where a request slips past both checks.


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
    assert [_allowed(row) for row in logits[:3]] == [ENDS] * 3
    assert torch.equal(logits[3:], before)
    assert drafted.to_finish.message == "thinkgate: " + plugin._SEVERAL_ROWS and drafted.to_finish.status_code == 400
    drafted.to_finish = None
    drafted.output_ids.append(7)
    logits = torch.randn(1, VOCAB)
    apply_custom_logit_processor(logits, Batch([dict(asking, __req__=weakref.proxy(drafted))]))
    assert _allowed(logits[0]) == ENDS and drafted.to_finish is None  # ended once, said once


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
    assert _allowed(logits[0]) == ENDS and behind.to_finish.message == "thinkgate: " + plugin._BEHIND
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
