"""Stream a DeepSeek-R1 output through thinkgate and print OpenAI chunks and AG-UI events.

    python examples/stream_chunks.py
"""

import json

import thinkgate
from thinkgate.formats import DEEPSEEK_R1
from thinkgate.parsing import chunk


def main() -> None:
    t = DEEPSEEK_R1.tools
    output = (
        "The user asks for two cities; one call each.\n"
        + DEEPSEEK_R1.reasoning.close
        + "\n\n"
        + t.section_text(
            [
                ("get_weather", json.dumps({"city": "Paris", "days": 3})),
                ("get_weather", json.dumps({"city": "Zürich", "days": 1, "note": "``` and } inside a string"})),
            ]
        )
    )
    parser = thinkgate.StreamParser(format="deepseek_r1", thinking=True)
    agui = thinkgate.AGUIRenderer()
    for i in range(0, len(output), 12):  # 12-character deltas, as a server might send them
        events = parser.feed_events(output[i : i + 12])
        for delta in thinkgate.parsing.render_deltas(events):
            print("chunk:", json.dumps(chunk(delta, model="deepseek-r1")["choices"][0]["delta"], ensure_ascii=False))
        for ev in agui.render(events):
            print("ag-ui:", ev.type.value, ev.model_dump_json(exclude_none=True)[:100])
    events = parser.finish_events()
    for ev in agui.render(events):
        print("ag-ui:", ev.type.value)
    print("finish_reason:", parser.finish_reason)
    print(json.dumps(parser.message.to_openai(), ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
