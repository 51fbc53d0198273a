"""vLLM tests: they run in an environment with vLLM installed (see the README) and are skipped
elsewhere."""

import contextlib
import os
import sys

import pytest

try:
    import vllm  # noqa: F401
except ImportError:  # not this environment: nothing here is collected
    collect_ignore_glob = ["*.py"]
os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory):
    from thinkgate.demo import build_tiny_model

    return str(build_tiny_model(tmp_path_factory.mktemp("vllm-model") / "tiny"))


@pytest.fixture(scope="session")
def llm(tiny_model):
    """The offline engine (thinkgate's processor registered), shared by the offline tests and
    the server tests that compare against it."""
    from thinkgate.integrations.vllm_offline import make_llm

    return make_llm(tiny_model, max_model_len=2048, seed=0, enforce_eager=True)


SERVER_FORMAT = "deepseek_r1"


def _free_port():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_command(model, port, template_path, format=SERVER_FORMAT):
    plugins = "thinkgate.integrations.vllm_parsers"  # a module name works as a plugin path
    return [
        sys.executable, "-m", "vllm.entrypoints.openai.api_server",
        "--model", model, "--host", "127.0.0.1", "--port", str(port),
        "--max-model-len", "2048", "--enforce-eager", "--seed", "0",
        "--chat-template", template_path,
        "--tool-parser-plugin", plugins, "--tool-call-parser", f"thinkgate_{format}", "--enable-auto-tool-choice",
        "--reasoning-parser-plugin", plugins, "--reasoning-parser", f"thinkgate_{format}",
        "--logits-processors", "thinkgate.integrations.vllm:ThinkgateLogitsProcessor",
    ]


class Server:
    def __init__(self, proc, port, log_path):
        self.proc, self.port, self.log_path = proc, port, log_path
        self.base_url = f"http://127.0.0.1:{port}"

    def alive(self) -> bool:
        import urllib.request

        if self.proc.poll() is not None:
            return False
        try:
            return urllib.request.urlopen(self.base_url + "/health", timeout=5).status == 200
        except OSError:
            return False

    def log(self) -> str:
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()


@contextlib.contextmanager
def serving(cmd, env, log_path):
    """vLLM's OpenAI server started with ``cmd``, once it answers /health; stopped afterwards."""
    import subprocess
    import time

    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        srv = Server(proc, int(cmd[cmd.index("--port") + 1]), log_path)
        try:
            deadline = time.time() + 300
            while not srv.alive():
                if proc.poll() is not None:
                    raise RuntimeError(f"the server exited: see {log_path}")
                if time.time() > deadline:
                    raise RuntimeError("the server did not come up in 300 s")
                time.sleep(2)
            yield srv
        finally:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.fixture(scope="session")
def server(tiny_model, tmp_path_factory):
    """vLLM's OpenAI server on 127.0.0.1 with thinkgate's processor and parser plugins."""
    from thinkgate.formats.templates import chat_template

    template = tmp_path_factory.mktemp("tpl") / "template.jinja"
    template.write_text(chat_template(SERVER_FORMAT))
    port = _free_port()
    log_path = tmp_path_factory.mktemp("log") / "server.log"
    # (the default compile budget, not the test suite's: test_server's budget test counts on it)
    env = dict(os.environ, VLLM_CPU_KVCACHE_SPACE="1", THINKGATE_COMPILE_BUDGET="5")
    with serving(server_command(tiny_model, port, str(template)), env, log_path) as srv:
        yield srv


@pytest.fixture(scope="session")
def client(server):
    import openai

    return openai.OpenAI(base_url=server.base_url + "/v1", api_key="none", max_retries=0, timeout=600)
