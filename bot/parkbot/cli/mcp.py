"""``parkbot mcp``: serve the backlog to agents over the Model Context Protocol (see :mod:`parkbot.mcp_server`)."""

from __future__ import annotations

import os

import click

from parkbot.cli.common import where_options


@click.command()
@where_options
def mcp(backend: str, config_path: str | None, repo: str) -> None:
    """Serve parkbot to agents over the Model Context Protocol (stdio).

    Tools: park, show, list, gate, wait, resume and schema, taking and returning the same JSON as the
    commands' --json; a failure is a tool error carrying the message and the exit code. The guide
    (`parkbot guide`) is sent as the server's instructions. Configure your MCP client to run
    `parkbot mcp` in the repository (docs/agents.md shows how).

    \b
    Example:
      parkbot mcp --repo /path/to/repo                       # the embedded backlog
      GITHUB_TOKEN=... parkbot mcp --backend github          # GitHub issues
    """
    from parkbot.api import Backlog
    from parkbot.mcp_server import serve

    serve(lambda: Backlog.open(repo=repo, backend=backend, config=config_path, env=os.environ))
