"""``parkbot guide``: print the instructions to give an agent (the text is :mod:`parkbot.guide`)."""

from __future__ import annotations

import json

import click

from parkbot.cli.common import json_option
from parkbot.guide import EXAMPLES, guide_text, planner_guide_text

__all__ = ["EXAMPLES", "guide", "guide_text", "planner_guide_text"]


@click.command()
@json_option
@click.option("--planner", "for_planner", is_flag=True, help="The guide for the planner agent instead.")
def guide(as_json: bool, for_planner: bool) -> None:
    """Print the instructions to give an agent: when to ask, the result JSON, the limits, waiting.

    Paste it into an agent's instructions (or serve it: `parkbot mcp` sends it as the server's
    instructions). The limits and budgets are the ones this version of parkbot enforces. With
    --planner: what the planner agent may and may not do.

    \b
    Example:
      parkbot guide >> AGENTS.md
      parkbot guide --planner >> PLANNER.md
    """
    text = planner_guide_text() if for_planner else guide_text()
    click.echo(json.dumps({"guide": text}, indent=2) if as_json else text, nl=not text.endswith("\n") or as_json)
