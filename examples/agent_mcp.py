"""An agent loop over MCP servers: the model's calls, valid by construction, run on real tool
servers and their results go back to it until it answers (or the step limit).

    pip install -e ".[agent]"
    python examples/agent_mcp.py [MODEL_DIR]

Two servers: a unit converter in this process, and the same file run as a stdio server (a
child process: ``python examples/agent_mcp.py serve``) offering a notes store. Without
MODEL_DIR it uses the demo's tiny random-weight model (built once, cached): its calls are
nonsense, and every one is still valid against the server's schema, so each runs.
"""

import asyncio
import json
import sys
from typing import Annotated, Literal

from pydantic import Field

from mcp.server.mcpserver import MCPServer


def converter() -> MCPServer:
    server = MCPServer("units")

    @server.tool()
    def convert(value: Annotated[int, Field(ge=0, le=1000)], unit: Literal["km", "mi"]) -> str:
        """Convert a distance between kilometres and miles."""
        return f"{value * 0.621371:.1f} mi" if unit == "km" else f"{value * 1.609344:.1f} km"

    return server


def notes() -> MCPServer:
    server = MCPServer("notes", log_level="WARNING")
    kept: list[str] = []

    @server.tool()
    def remember(text: Annotated[str, Field(min_length=1, max_length=20)]) -> str:
        """Keep a short note."""
        kept.append(text)
        return f"{len(kept)} notes kept"

    return server


async def main(model_dir=None) -> None:
    from thinkgate.agent import Agent, TransformersEngine
    from thinkgate.demo import build_tiny_model, load

    model, tokenizer = load(model_dir or build_tiny_model())
    engine = TransformersEngine(model, tokenizer, "deepseek_r1")
    servers = [converter(), f"{sys.executable} {__file__} serve"]
    async with Agent(engine, servers) as agent:
        print("tools:", ", ".join(agent.toolset.routes))
        result = await agent.run(
            "How far is 42 km in miles? Note the answer.",
            max_steps=3,
            # random weights would rarely choose to call: the demo model is made to, every turn
            tool_choice="auto" if model_dir else "required",
            thinking=True,
            thinking_budget=16,
            max_tokens=200,
            seed=0,
            on_step=lambda step: [print(f"turn {step.index}: {c.name}({json.dumps(json.loads(c.arguments), ensure_ascii=False)}) -> {c.content}") for c in step.calls],
        )
    print(f"stopped: {result.stop_reason}; {len(result.messages)} messages" + (f"; answer: {result.answer!r}" if result.stop_reason == "answer" else ""))


if __name__ == "__main__":
    if sys.argv[1:] == ["serve"]:
        notes().run()  # stdio
    else:
        asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else None))
