"""Run a JSONL file of OpenAI-shape chat requests through thinkgate with Hugging Face
transformers, and print one chat.completion per request.

    python examples/offline_batch.py [examples/requests.jsonl] [MODEL_DIR]

Without MODEL_DIR it uses the demo's tiny random-weight model (built once, cached): its calls
are nonsense, and every one of them is still valid against its tool's schema.
"""

import json
import sys
from pathlib import Path

from thinkgate.demo import build_tiny_model, load
from thinkgate.integrations.transformers import generate_chat
from thinkgate.requests import ChatRequest


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("requests.jsonl")
    model_dir = Path(sys.argv[2]) if len(sys.argv) > 2 else build_tiny_model()
    model, tokenizer = load(model_dir)
    requests = [ChatRequest(**json.loads(line)) for line in path.read_text().splitlines() if line.strip()]
    for completion in generate_chat(model, tokenizer, requests, format="deepseek_r1", model_name=str(model_dir)):
        choice = completion["choices"][0]
        print(json.dumps({"id": completion["id"], "finish_reason": choice["finish_reason"], "message": choice["message"]}, ensure_ascii=False))


if __name__ == "__main__":
    main()
