import pytest

from thinkgate.formats import (
    DEEPSEEK_R1,
    DEEPSEEK_V3,
    DEEPSEEK_V3_1,
    QWEN3,
    ChatFormat,
    HeaderPiece,
    aliases,
    get_format,
    names,
    register,
)


def test_registry_names_and_engine_aliases():
    assert names() == [
        "apertus", "apriel", "cohere_command", "deepseek_r1", "deepseek_v3", "deepseek_v3_1", "deepseek_v3_2",
        "deepseek_v4", "deepseek_v4_1", "dots", "ernie4_5", "exaone4", "firefunction_v2", "functionary_v3_1",
        "functiongemma", "gemma4", "gigachat3", "gigachat3_1", "gigachat3_5", "glm45", "glm47", "gpt_oss",
        "granite3", "granite4", "granite_20b_fc", "hunyuan_a13b", "hy_v3", "hy_v3_preview", "hy_v4", "intern_s1",
        "internlm2", "jamba", "kimi_k2", "kimi_k3", "lfm2", "ling3", "llama3_json", "llama4_pythonic", "longcat",
        "mimo", "mimo_v2_6", "minicpm5", "minimax_m2", "mistral", "mistral_json", "nemotron_v2", "olmo3",
        "phi4_mini", "plamo3", "poolside_v1", "qwen3", "qwen3_5", "qwen3_coder", "seed_oss", "smollm3", "step3",
        "step3_5", "trinity", "xlam", "xlam_qwen",
    ]
    assert get_format("deepseek_r1") is DEEPSEEK_R1
    assert get_format("deepseek_v3") is DEEPSEEK_V3
    assert get_format("deepseek_v3_1") is DEEPSEEK_V3_1
    engine_names = [
        ("deepseekv3", DEEPSEEK_V3),
        ("deepseekv31", DEEPSEEK_V3_1),
        ("deepseek_v31", DEEPSEEK_V3_1),
        ("hermes", QWEN3),
        ("qwen25", QWEN3),
        ("llama3_json", get_format("llama3_json")),
        ("llama3", get_format("llama3_json")),
        ("gemma", get_format("gemma4")),
        ("pythonic", get_format("llama4_pythonic")),
        ("lfm2.5", get_format("lfm2")),
        ("olmo3", get_format("olmo3")),
        # issue 38's families under the names vLLM's and SGLang's parsers go by
        ("apertus", get_format("apertus")),
        ("cohere_command4", get_format("cohere_command")),
        ("deepseekv41", get_format("deepseek_v4_1")),
        ("gigachat3", get_format("gigachat3")),
        ("hunyuan_a13b", get_format("hunyuan_a13b")),
        ("internlm", get_format("internlm2")),
        ("jamba", get_format("jamba")),
        ("longcat", get_format("longcat")),
        ("phi4_mini_json", get_format("phi4_mini")),
        ("step3p5", get_format("step3_5")),
        ("xlam", get_format("xlam")),
    ]
    for engine_name, fmt in engine_names:
        assert get_format(engine_name) is fmt
        assert aliases()[engine_name] == fmt.name
    assert get_format("DeepSeek_R1") is DEEPSEEK_R1
    assert get_format(DEEPSEEK_V3) is DEEPSEEK_V3


def test_unknown_format_names_the_known_ones():
    with pytest.raises(ValueError, match="unknown format 'qwen9'.*deepseek_r1"):
        get_format("qwen9")
    with pytest.raises(TypeError):
        get_format(3)


def test_registering_a_taken_name_is_an_error():
    clash = ChatFormat("other", DEEPSEEK_R1.reasoning, DEEPSEEK_R1.tools, DEEPSEEK_R1.eos, aliases=("deepseekv3",))
    with pytest.raises(ValueError, match="already registered"):
        register(clash)


def test_r1_and_v3_0324_share_the_codeblock_layout():
    assert DEEPSEEK_R1.tools is DEEPSEEK_V3.tools
    assert DEEPSEEK_R1.reasoning.default_thinking is True
    assert DEEPSEEK_V3.reasoning.default_thinking == "auto"


def test_codeblock_call_text_is_the_documented_layout():
    t = DEEPSEEK_R1.tools
    text = t.section_text([("get_weather", '{"city": "Paris"}'), ("now", "{}")])
    assert text == (
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
        '{"city": "Paris"}\n```<｜tool▁call▁end｜>\n'
        "<｜tool▁call▁begin｜>function<｜tool▁sep｜>now\n```json\n{}\n```<｜tool▁call▁end｜>"
        "<｜tool▁calls▁end｜>"
    )


def test_sep_json_call_text_is_the_documented_layout():
    t = DEEPSEEK_V3_1.tools
    text = t.section_text([("get_weather", '{"city": "Paris"}'), ("now", "{}")])
    assert text == (
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}'
        "<｜tool▁call▁end｜><｜tool▁call▁begin｜>now<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    )


def test_header_pieces_make_whitespace_optional():
    assert DEEPSEEK_R1.tools.header_pieces() == (
        HeaderPiece("text", "function"),
        HeaderPiece("space"),  # a space a model writes before a marker is read past
        HeaderPiece("marker", "<｜tool▁sep｜>"),
        HeaderPiece("name"),
        HeaderPiece("space"),
        HeaderPiece("text", "```json"),
        HeaderPiece("space"),
    )
    assert DEEPSEEK_V3_1.tools.header_pieces() == (HeaderPiece("name"), HeaderPiece("space"), HeaderPiece("marker", "<｜tool▁sep｜>"))


def test_markers_are_single_special_tokens_of_the_real_tokenizer(tokenizer):
    for fmt in (DEEPSEEK_R1, DEEPSEEK_V3_1):
        for marker in fmt.markers:
            assert len(tokenizer.encode(marker, add_special_tokens=False)) == 1, marker


def test_a_json_array_layout_without_its_brackets_is_refused_by_name():
    import dataclasses

    from thinkgate.formats import MISTRAL_JSON, JsonCalls

    with pytest.raises(ValueError, match=r"JSON array of calls needs the text that opens and closes it"):
        JsonCalls(array=("[", ""))
    with pytest.raises(ValueError, match="id_length"):
        dataclasses.replace(MISTRAL_JSON.tools, id_length=-1)


def test_layouts_and_arguments_styles_that_do_not_go_together_are_refused_by_name():
    import dataclasses

    from thinkgate.formats import GPT_OSS, LLAMA3_JSON, QWEN3_CODER, CallObject, JsonArguments

    with pytest.raises(ValueError, match="JsonCalls.*CallObject"):
        dataclasses.replace(LLAMA3_JSON.tools, arguments=JsonArguments())
    with pytest.raises(ValueError, match="channel messages.*JsonArguments"):
        dataclasses.replace(GPT_OSS.tools, arguments=CallObject())
    with pytest.raises(ValueError, match="layout must be one of MarkedCalls, JsonCalls, ChannelMessages"):
        dataclasses.replace(QWEN3_CODER.tools, layout="tagged_xml")


def test_every_layout_has_one_parser_module_and_one_grammar_module_of_its_name():
    import importlib

    from thinkgate.formats import LAYOUTS

    for layout in LAYOUTS:
        parser = importlib.import_module(f"thinkgate.parsing.{layout.name}")
        grammar = importlib.import_module(f"thinkgate.constraint.grammar.{layout.name}")
        assert callable(parser.layout_class), layout.name
        for entry in ("layout_tag", "call_trigger", "between_calls", "header_nodes"):
            assert callable(getattr(grammar, entry, None)), f"constraint/grammar/{layout.name}.py has no {entry}"
