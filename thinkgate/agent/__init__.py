"""An agent loop over MCP tool servers: thinkgate's calls, valid by construction, run with the
``mcp`` SDK (``pip install 'thinkgate[agent]'``) and their results handed back to the model.

See :class:`~thinkgate.agent.loop.Agent` and :func:`~thinkgate.agent.loop.run_agent`; the engines
are in :mod:`thinkgate.agent.engines`, the transports in :mod:`thinkgate.agent.servers`."""

from .engines import Engine, OpenAIEngine, TransformersEngine, VllmEngine
from .errors import AgentError, ServerError, ToolSchemaError
from .loop import Agent, AgentResult, CallRecord, Step, run_agent
from .servers import ServerSpec, server_spec, servers_from_config

__all__ = [
    "Agent",
    "AgentError",
    "AgentResult",
    "CallRecord",
    "Engine",
    "OpenAIEngine",
    "ServerError",
    "ServerSpec",
    "Step",
    "ToolSchemaError",
    "TransformersEngine",
    "VllmEngine",
    "run_agent",
    "server_spec",
    "servers_from_config",
]
