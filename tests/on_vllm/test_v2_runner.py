"""Model Runner V2 cannot run without a GPU: these tests drive the processor the way V2's
sampler does (add_request on recycled slots, apply(logits, ctx) with rows mapped to slots,
speculative draft rows) with the real tokenizer and real vLLM interface classes."""

import json
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from vllm.v1.worker.gpu.sample.logits_processor.interface import LogitsContext
from vllm.v1.worker.gpu.sample.logits_processor.interface import LogitsProcessor as V2

from schemas import GET_WEATHER
from thinkgate.formats import DEEPSEEK_V3_1
from thinkgate.integrations.vllm import ThinkgateLogitsProcessor
from thinkgate.requests import OPTION_KEY
from thinkgate.formats.tokens import default_stop_ids
from thinkgate.demo import demo_tokenizer

# the ends of a generation with the demo model's tokenizer (the EOS its saved tokenizer names)
ENDS = sorted(set(default_stop_ids(demo_tokenizer())))

V = 129280
MAX_LEN = 512


class FakeReqStates:
    """The fields of LogitsProcRequestState the processor reads, as V2 lays them out."""

    def __init__(self, slots):
        self.device = torch.device("cpu")
        self.max_num_reqs = slots
        self.vocab_size = V
        self.all_token_ids = SimpleNamespace(gpu=torch.zeros((slots, MAX_LEN), dtype=torch.int32))
        self.prompt_len = SimpleNamespace(np=np.zeros(slots, dtype=np.int32))
        self.total_len = SimpleNamespace(gpu=torch.zeros(slots, dtype=torch.int32))

    def start(self, slot, prompt):
        self.all_token_ids.gpu[slot, : len(prompt)] = torch.tensor(prompt)
        self.prompt_len.np[slot] = len(prompt)
        self.total_len.gpu[slot] = len(prompt)

    def commit(self, slot, token):
        n = int(self.total_len.gpu[slot])
        self.all_token_ids.gpu[slot, n] = token
        self.total_len.gpu[slot] = n + 1


def _config(tokenizer_path):
    mc = SimpleNamespace(tokenizer=tokenizer_path, tokenizer_revision=None, trust_remote_code=False, get_vocab_size=lambda: V)
    return SimpleNamespace(model_config=mc)


def _ctx(slots, local=None, fed=None):
    n = len(slots)
    return LogitsContext(
        expanded_idx_mapping=torch.tensor(slots),
        idx_mapping=torch.tensor(sorted(set(slots))),
        idx_mapping_np=np.array(sorted(set(slots))),
        expanded_local_pos=torch.tensor(local or [0] * n),
        input_ids=torch.tensor(fed or [0] * n),
        pos=torch.zeros(n, dtype=torch.int64),
        seq_lens_upper_bound_np=np.zeros(n),
    )


def _params(opts=None):
    return SimpleNamespace(extra_args={OPTION_KEY: json.dumps(opts)} if opts else None)


@pytest.fixture(scope="module")
def tokenizer_dir(tiny_model):
    return tiny_model


def test_v2_processor_masks_only_opted_in_slots_and_handles_recycling(tokenizer_dir):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tokenizer_dir)
    t = DEEPSEEK_V3_1.tools
    rs = FakeReqStates(4)
    proc = ThinkgateLogitsProcessor(_config(tokenizer_dir), rs)
    assert isinstance(proc, V2)
    opts = {"format": "deepseek_v3_1", "tools": [GET_WEATHER], "tool_choice": "required", "thinking": False}
    prompt = tok.encode("<｜User｜>weather<｜Assistant｜></think>", add_special_tokens=False)
    assert proc.add_request(2, _params(opts)) is True
    assert proc.add_request(0, _params()) is False
    rs.start(2, prompt)
    rs.start(0, prompt)
    # rows come in any order; only slot 2's row is masked
    logits = torch.zeros(2, V)
    proc.apply(logits, _ctx([0, 2]))
    assert torch.isfinite(logits[0]).all()
    allowed = torch.isfinite(logits[1]).nonzero().flatten().tolist()
    assert tok.convert_tokens_to_ids(t.section_begin) in allowed and 1 not in allowed
    # commit a call token by token; the mask follows
    call = tok.encode(t.section_begin + t.call_begin + "get_weather" + t.sep + '{"city": "Oslo", "days": 2}' + t.call_end + t.section_end, add_special_tokens=False)
    for tid in call:
        logits = torch.zeros(1, V)
        proc.apply(logits, _ctx([2]))
        assert torch.isfinite(logits[0, tid]), tok.decode([tid])
        rs.commit(2, tid)
    logits = torch.zeros(1, V)
    proc.apply(logits, _ctx([2]))
    assert torch.isfinite(logits[0]).nonzero().flatten().tolist() == ENDS
    # the slot is recycled for a request that does not opt in: nothing is masked any more
    assert proc.add_request(2, _params()) is False
    logits = torch.zeros(1, V)
    proc.apply(logits, _ctx([2]))
    assert torch.isfinite(logits).all()


def test_v2_draft_rows_see_their_drafts_and_are_rolled_back(tokenizer_dir):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(tokenizer_dir)
    t = DEEPSEEK_V3_1.tools
    rs = FakeReqStates(2)
    proc = ThinkgateLogitsProcessor(_config(tokenizer_dir), rs)
    opts = {"format": "deepseek_v3_1", "tools": [GET_WEATHER], "tool_choice": "required", "thinking": False}
    proc.add_request(1, _params(opts))
    prompt = tok.encode("<｜User｜>hi<｜Assistant｜></think>", add_special_tokens=False)
    rs.start(1, prompt)
    begin, call_begin = tok.convert_tokens_to_ids(t.section_begin), tok.convert_tokens_to_ids(t.call_begin)
    # row 0: the committed state; row 1 after draft `begin`; row 2 after drafts `begin, call_begin`
    logits = torch.zeros(3, V)
    proc.apply(logits, _ctx([1, 1, 1], local=[0, 1, 2], fed=[prompt[-1], begin, call_begin]))
    row = [set(torch.isfinite(logits[i]).nonzero().flatten().tolist()) for i in range(3)]
    assert begin in row[0] and call_begin in row[1] and call_begin not in row[0]
    assert tok.encode("get", add_special_tokens=False)[0] in row[2]
    # rolled back: the next step starts from the committed state again
    logits = torch.zeros(1, V)
    proc.apply(logits, _ctx([1]))
    assert set(torch.isfinite(logits[0]).nonzero().flatten().tolist()) == row[0]


def test_validate_params_rejects_bad_options_by_name():
    with pytest.raises(ValueError, match="need a 'format'"):
        ThinkgateLogitsProcessor.validate_params(_params({"tools": []}))
    with pytest.raises(ValueError, match="unknown thinkgate option"):
        ThinkgateLogitsProcessor.validate_params(_params({"format": "deepseek_r1", "colour": 1}))
    with pytest.raises(ValueError, match="needs at least one tool"):
        ThinkgateLogitsProcessor.validate_params(_params({"format": "deepseek_r1", "tool_choice": "required"}))
    with pytest.raises(ValueError, match="not valid JSON"):
        ThinkgateLogitsProcessor.validate_params(SimpleNamespace(extra_args={OPTION_KEY: "{nope"}))
    ThinkgateLogitsProcessor.validate_params(_params())  # not opted in: fine


def test_a_second_instance_for_the_same_engine_stands_aside(tokenizer_dir):
    cfg = _config(tokenizer_dir)
    rs = FakeReqStates(1)
    first = ThinkgateLogitsProcessor(cfg, rs)
    second = ThinkgateLogitsProcessor(cfg, rs)
    opts = {"format": "deepseek_v3_1", "tools": [GET_WEATHER], "tool_choice": "required", "thinking": False}
    assert first.add_request(0, _params(opts)) is True
    assert second.add_request(0, _params(opts)) is False
