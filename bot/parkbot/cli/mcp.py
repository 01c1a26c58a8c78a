"""``parkbot mcp``: serve the backlog to agents over the Model Context Protocol (see :mod:`parkbot.mcp_server`)."""

from __future__ import annotations

import os

import click

from parkbot.cli.common import fail, json_option, where_options
from parkbot.core.errors import InvalidInput

#: The modules of the MCP SDK (the ``mcp`` distribution), which only ``parkbot[mcp]`` installs.
SDK_MODULES = ("mcp", "mcp_types", "anyio")  # what the [mcp] extra brings (anyio with the SDK)


@click.command()
@where_options
@json_option
def mcp(backend: str, config_path: str | None, repo: str, as_json: bool) -> None:
    """Serve parkbot to agents over the Model Context Protocol (stdio).

    Tools: park, show, list, gate, wait, resume and schema, taking and returning the same JSON as the
    commands' --json; a failure is a tool error carrying the message and the exit code. It needs the
    MCP SDK: pip install 'parkbot[mcp]' (without it, this command exits 2 saying so). The guide
    (`parkbot guide`) is sent as the server's instructions. Configure your MCP client to run
    `parkbot mcp` in the repository (docs/agents.md shows how).

    \b
    Example:
      parkbot mcp --repo /path/to/repo                       # the embedded backlog
      GITHUB_TOKEN=... parkbot mcp --backend github          # GitHub issues
    """
    from parkbot.api import Backlog

    try:
        from parkbot.mcp_server import serve
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in SDK_MODULES:
            raise
        fail(
            InvalidInput("parkbot mcp needs the MCP SDK, which is not installed: pip install 'parkbot[mcp]'"),
            as_json=as_json,
        )

    serve(lambda: Backlog.open(repo=repo, backend=backend, config=config_path, env=os.environ))
